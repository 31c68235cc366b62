//! A counting global allocator: how many heap allocations the frame loop makes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// Wraps the system allocator and counts `alloc` and `realloc` calls.
pub struct CountingAllocator;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's allocations (const-initialized, no destructor: usable from the allocator
    /// at any point of the thread's life).
    static THREAD_ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count() {
    ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    let _ = THREAD_ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
}

/// This thread's allocations so far.
pub fn thread_allocations() -> u64 {
    THREAD_ALLOCATIONS.with(Cell::get)
}

/// Runs `f`, adding the allocations this thread made during it to `total`: what a call into
/// vkpace allocated, told apart from the rest of the frame loop (winit's event handling on the
/// same thread, other threads).
pub fn counted<T>(total: &mut u64, f: impl FnOnce() -> T) -> T {
    let before = thread_allocations();
    let out = f();
    *total += thread_allocations() - before;
    out
}

/// Allocations so far in the whole process.
pub fn allocations() -> u64 {
    ALLOCATIONS.load(Ordering::Relaxed)
}

// SAFETY: forwards every call unchanged to `System`, which upholds the `GlobalAlloc` contract;
// the counter is a relaxed atomic with no effect on the memory handed out.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// Allocation counters at one frame.
#[derive(Debug, Clone, Copy)]
pub struct AllocCounts {
    pub frames: u64,
    /// The whole process.
    pub process: u64,
    /// The frame code's thread (the window system's event handling runs there too).
    pub frame_thread: u64,
    /// The frame code on its thread.
    pub frame_code: u64,
    /// Inside vkpace's calls.
    pub vkpace: u64,
}

/// Allocations per frame between two [`AllocCounts`].
#[derive(Debug, Clone, Copy, Default)]
pub struct AllocRates {
    pub process: f64,
    pub frame_thread: f64,
    pub frame_code: f64,
    pub vkpace: f64,
}

impl AllocCounts {
    pub fn per_frame_since(&self, start: &AllocCounts) -> AllocRates {
        if self.frames <= start.frames {
            return AllocRates::default();
        }
        let frames = (self.frames - start.frames) as f64;
        let rate = |end: u64, begin: u64| (end - begin) as f64 / frames;
        AllocRates {
            process: rate(self.process, start.process),
            frame_thread: rate(self.frame_thread, start.frame_thread),
            frame_code: rate(self.frame_code, start.frame_code),
            vkpace: rate(self.vkpace, start.vkpace),
        }
    }
}
