//! Threads of C's (as Wine's are: Rust's own threads catch unwinds at their root) sent
//! `SIGQUIT` inside a layer's command, with a handler that ends the thread as Wine's does.
//! Each test requires the command's body to have run to its end and its caller not to have
//! gone on. Without the hold the thread ends inside the body (the test fails), or the
//! process aborts where the unwind meets the frames named in `thread_end.rs` (the test binary
//! dies): which of the two depends on where the signal finds the thread and how the compiler
//! laid out the frames.

// The macro's `$body` is unsafe by contract (the arguments come from the loader), as its doc
// says; the lint fires only where the crate expands its own macro.
#![allow(clippy::macro_metavars_in_unsafe)]

use std::ffi::c_void;
use std::sync::atomic::{AtomicU32, Ordering};

use ash::vk;

use crate::Guard;

const GUARD: Guard = Guard::new("test-layer");

extern "C-unwind" {
    /// Ends the calling thread by a forced unwind (glibc).
    fn pthread_exit(value: *mut c_void) -> !;
}

/// Ends the thread it interrupts, as Wine's `SIGQUIT` handler does at `ExitProcess`.
extern "C-unwind" fn end_thread(_: libc::c_int) {
    // SAFETY: ends this thread (a raw pthread of a test), which holds nothing another thread
    // waits on.
    unsafe { pthread_exit(std::ptr::null_mut()) }
}

/// One test's thread: `stage` is 1 once it is inside the command, 2 once `SIGQUIT` was sent;
/// `steps` has bit 1 once the command's body ran to its end, bit 2 once the caller went on
/// after the command.
struct Probe {
    stage: AtomicU32,
    steps: AtomicU32,
}

impl Probe {
    const fn new() -> Self {
        Self {
            stage: AtomicU32::new(0),
            steps: AtomicU32::new(0),
        }
    }

    /// In the command: says so, and waits for the signal to be sent.
    fn wait_for_the_signal(&self, between_checks: impl Fn()) {
        self.stage.store(1, Ordering::SeqCst);
        while self.stage.load(Ordering::SeqCst) != 2 {
            between_checks();
        }
        self.steps.fetch_or(1, Ordering::SeqCst);
    }

    /// Runs `thread` on a raw pthread, sends it `SIGQUIT` once it is inside the command, and
    /// returns its steps once it ended.
    fn run(&self, thread: extern "C" fn(*mut c_void) -> *mut c_void) -> u32 {
        // SAFETY: the handler only ends the thread it interrupts; only these tests send
        // SIGQUIT, each to its own thread.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = end_thread as extern "C-unwind" fn(libc::c_int) as usize;
            libc::sigemptyset(&mut action.sa_mask);
            assert_eq!(
                libc::sigaction(libc::SIGQUIT, &action, std::ptr::null_mut()),
                0
            );
        }
        let handle = crate::c_thread::start(thread);
        while self.stage.load(Ordering::SeqCst) != 1 {
            std::thread::yield_now();
        }
        // SAFETY: the thread is alive: inside the command until the stage says 2.
        assert_eq!(unsafe { libc::pthread_kill(handle, libc::SIGQUIT) }, 0);
        self.stage.store(2, Ordering::SeqCst);
        crate::c_thread::join(handle);
        self.steps.load(Ordering::SeqCst)
    }
}

static GUARDED: Probe = Probe::new();

crate::entry_point!(GUARD; guarded_command(answer: vk::Result) -> vk::Result => {
    // A call of C's in the guarded body (and the reason for the entry point's `unsafe`).
    GUARDED.wait_for_the_signal(|| {
        libc::sched_yield();
    });
    answer
});

extern "C" fn calls_the_guarded_command(_: *mut c_void) -> *mut c_void {
    // SAFETY: the command takes any value.
    let _ = unsafe { guarded_command(vk::Result::SUCCESS) };
    GUARDED.steps.fetch_or(2, Ordering::SeqCst);
    std::ptr::null_mut()
}

/// Ended inside a guard's `catch_unwind` (where the CI's Wine run aborted, "FATAL: exception
/// not rethrown").
#[test]
fn a_thread_ended_inside_a_guarded_command_ends_as_it_returns() {
    assert_eq!(
        GUARDED.run(calls_the_guarded_command),
        1,
        "the command's body ran to its end, the caller did not go on"
    );
}

static UNGUARDED: Probe = Probe::new();

/// A frame with something to drop (so an unwind table) around calls that cannot unwind.
///
/// # Safety
///
/// None beyond a command's: `unsafe` as the bodies of entry points are.
#[inline(never)]
unsafe fn waits_in_calls_that_cannot_unwind() {
    let mut kept = vec![0u8];
    UNGUARDED.wait_for_the_signal(|| {
        // SAFETY: no arguments; a call of C's that cannot unwind.
        unsafe { libc::sched_yield() };
    });
    kept.push(1);
    std::hint::black_box(&kept);
}

crate::entry_point!(unguarded; unguarded_command() => waits_in_calls_that_cannot_unwind());

extern "C" fn calls_the_unguarded_command(_: *mut c_void) -> *mut c_void {
    // SAFETY: no arguments.
    unsafe { unguarded_command() };
    UNGUARDED.steps.fetch_or(2, Ordering::SeqCst);
    std::ptr::null_mut()
}

/// Ended in a call that cannot unwind, in a frame with an unwind table.
#[test]
fn a_thread_ended_in_a_call_that_cannot_unwind_ends_as_the_command_returns() {
    assert_eq!(
        UNGUARDED.run(calls_the_unguarded_command),
        1,
        "the command's body ran to its end, the caller did not go on"
    );
}
