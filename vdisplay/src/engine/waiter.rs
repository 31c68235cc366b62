//! The waiter thread: waits for the layer's present batches to complete (the present
//! semaphores' waits consumed) and tells the display thread.
//!
//! It waits on all pending batch fences at once (`waitAll = VK_FALSE`) with a short timeout so
//! that a batch queued meanwhile on another queue is noticed within that time; on one queue
//! fences signal in submission order, so nothing is noticed late there.

use std::time::Duration;

use ash::vk;

use super::lock;
use crate::device::Device;

/// How long one wait lasts before the batch list is read again.
const SLICE: Duration = Duration::from_millis(5);

/// The thread's body.
pub fn run(dev: &Device) {
    let engine = &*dev.engine;
    loop {
        let fences: Vec<vk::Fence> = {
            let mut w = lock(&engine.waiter);
            while w.batches.is_empty() && !w.shutdown {
                w = engine
                    .waiter_wake
                    .wait(w)
                    .unwrap_or_else(|e| e.into_inner());
            }
            if w.batches.is_empty() {
                return;
            }
            w.batches.iter().map(|b| b.0).collect()
        };
        // SAFETY: the fences are the layer's and stay alive until recycled below.
        let r = unsafe {
            dev.fp
                .wait_for_fences(&fences, false, SLICE.as_nanos() as u64)
        };
        if matches!(r, Err(e) if e != vk::Result::TIMEOUT) {
            eprintln!("vdisplay: waiting for present batches failed: {r:?}");
            std::thread::sleep(SLICE);
        }
        collect_signaled(dev);
    }
}

/// Moves every batch whose fence signaled to the display thread and recycles its fence.
fn collect_signaled(dev: &Device) {
    let engine = &*dev.engine;
    let done: Vec<(vk::Fence, Vec<u64>)> = {
        let mut w = lock(&engine.waiter);
        let mut done = Vec::new();
        let mut i = 0;
        while i < w.batches.len() {
            // SAFETY: a fence of the layer's.
            if unsafe { dev.fp.get_fence_status(w.batches[i].0) } == Ok(true) {
                done.push(w.batches.swap_remove(i));
            } else {
                i += 1;
            }
        }
        done
    };
    for (fence, ids) in done {
        engine.mark_consumed(dev, &ids);
        dev.recycle_fence(fence);
    }
}
