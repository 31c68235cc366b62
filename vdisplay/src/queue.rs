//! Queue commands forwarded under the device's queue lock, so that the layer's own submissions
//! (from `vkAcquireNextImageKHR`, which has no queue argument, and from the engine thread) never
//! race the application's use of the same queue (VUID-vkQueueSubmit-queue-parameter: access to
//! a queue must be externally synchronized).

use ash::vk;

use crate::device::Device;
use crate::elide;

/// Runs `call` under the queue lock of `queue`'s device.
///
/// # Safety
/// `queue` must be a valid queue; `call` must be a valid use of it.
unsafe fn locked<R>(queue: vk::Queue, missing: R, call: impl FnOnce(&Device) -> R) -> R {
    // SAFETY: caller's contract.
    let Some(dev) = (unsafe { Device::of(queue) }) else {
        return missing;
    };
    let _guard = dev.lock_queues();
    call(&dev)
}

/// `vkQueueSubmit`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn submit(
    queue: vk::Queue,
    count: u32,
    submits: *const vk::SubmitInfo<'_>,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: forwarded, with owed acquire-semaphore waits removed (`elide.rs`).
    unsafe {
        locked(queue, vk::Result::ERROR_DEVICE_LOST, |d| {
            let batches = if count == 0 {
                &[][..]
            } else {
                std::slice::from_raw_parts(submits, count as usize)
            };
            match elide::rewrite(d, batches) {
                Some((list, _storage, _splices)) => {
                    (d.fp.fp_v1_0().queue_submit)(queue, count, list.as_ptr(), fence)
                }
                None => (d.fp.fp_v1_0().queue_submit)(queue, count, submits, fence),
            }
        })
    }
}

/// `vkQueueSubmit2`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn submit2(
    queue: vk::Queue,
    count: u32,
    submits: *const vk::SubmitInfo2<'_>,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: forwarded, with owed acquire-semaphore waits removed (`elide.rs`).
    unsafe {
        locked(queue, vk::Result::ERROR_DEVICE_LOST, |d| {
            with_rewrite2(d, count, submits, |n, p| {
                (d.fp.fp_v1_3().queue_submit2)(queue, n, p, fence)
            })
        })
    }
}

/// `vkQueueSubmit2KHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn submit2_khr(
    queue: vk::Queue,
    count: u32,
    submits: *const vk::SubmitInfo2<'_>,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: forwarded, with owed acquire-semaphore waits removed (`elide.rs`).
    unsafe {
        locked(queue, vk::Result::ERROR_DEVICE_LOST, |d| {
            with_rewrite2(d, count, submits, |n, p| {
                (d.sync2_fp.queue_submit2_khr)(queue, n, p, fence)
            })
        })
    }
}

/// Calls `call` with the batches, rewritten by `elide::rewrite2` if needed.
///
/// # Safety
/// `submits` must hold `count` valid batches.
unsafe fn with_rewrite2(
    d: &Device,
    count: u32,
    submits: *const vk::SubmitInfo2<'_>,
    call: impl FnOnce(u32, *const vk::SubmitInfo2<'_>) -> vk::Result,
) -> vk::Result {
    let batches = if count == 0 {
        &[][..]
    } else {
        // SAFETY: caller's contract.
        unsafe { std::slice::from_raw_parts(submits, count as usize) }
    };
    // SAFETY: caller's contract.
    match unsafe { elide::rewrite2(d, batches) } {
        Some((list, _storage)) => call(count, list.as_ptr()),
        None => call(count, submits),
    }
}

/// `vkDestroySemaphore`: a destroyed semaphore is no longer owed a signal (its handle value may
/// be reused).
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn destroy_semaphore(
    device: vk::Device,
    s: vk::Semaphore,
    alloc: *const vk::AllocationCallbacks<'_>,
) {
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(device) }) else {
        return;
    };
    dev.owed.take(s);
    // SAFETY: forwarded unchanged.
    unsafe { (dev.fp.fp_v1_0().destroy_semaphore)(device, s, alloc) };
}

/// `vkQueueWaitIdle`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn wait_idle(queue: vk::Queue) -> vk::Result {
    // SAFETY: forwarded unchanged.
    unsafe {
        locked(queue, vk::Result::ERROR_DEVICE_LOST, |d| {
            (d.fp.fp_v1_0().queue_wait_idle)(queue)
        })
    }
}

/// `vkQueueBindSparse`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn bind_sparse(
    queue: vk::Queue,
    count: u32,
    info: *const vk::BindSparseInfo<'_>,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: forwarded unchanged.
    unsafe {
        locked(queue, vk::Result::ERROR_DEVICE_LOST, |d| {
            (d.fp.fp_v1_0().queue_bind_sparse)(queue, count, info, fence)
        })
    }
}

/// `vkDeviceWaitIdle` (requires external synchronization of every queue of the device); the
/// engine's pending present batches are submitted first, as for `vkQueueWaitIdle`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn device_wait_idle(device: vk::Device) -> vk::Result {
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(device) }) else {
        return vk::Result::ERROR_DEVICE_LOST;
    };
    dev.engine.drain();
    let _guard = dev.lock_queues();
    // SAFETY: forwarded unchanged.
    unsafe { (dev.fp.fp_v1_0().device_wait_idle)(device) }
}

/// The debug-utils queue label commands (they use the queue too).
pub mod labels {
    use super::*;
    use std::ffi::CStr;

    /// Calls the next layer's label command `name` with `(queue, info)` under the lock.
    ///
    /// # Safety
    /// Valid arguments of the command.
    unsafe fn forward(
        name: &CStr,
        queue: vk::Queue,
        info: Option<*const vk::DebugUtilsLabelEXT<'_>>,
    ) {
        // SAFETY: caller's contract.
        unsafe {
            locked(queue, (), |d| {
                let index = vkpace_layer_plumbing::next::index(name);
                let Some(f) = index.and_then(|i| d.command(i)) else {
                    return;
                };
                match info {
                    Some(i) => std::mem::transmute::<
                        unsafe extern "system" fn(),
                        vk::PFN_vkQueueBeginDebugUtilsLabelEXT,
                    >(f)(queue, i),
                    None => std::mem::transmute::<
                        unsafe extern "system" fn(),
                        vk::PFN_vkQueueEndDebugUtilsLabelEXT,
                    >(f)(queue),
                }
            })
        }
    }

    /// `vkQueueBeginDebugUtilsLabelEXT`.
    ///
    /// # Safety
    /// Valid arguments of the command.
    pub unsafe fn begin(queue: vk::Queue, info: *const vk::DebugUtilsLabelEXT<'_>) {
        // SAFETY: caller's contract.
        unsafe { forward(c"vkQueueBeginDebugUtilsLabelEXT", queue, Some(info)) }
    }

    /// `vkQueueEndDebugUtilsLabelEXT`.
    ///
    /// # Safety
    /// Valid arguments of the command.
    pub unsafe fn end(queue: vk::Queue) {
        // SAFETY: caller's contract.
        unsafe { forward(c"vkQueueEndDebugUtilsLabelEXT", queue, None) }
    }

    /// `vkQueueInsertDebugUtilsLabelEXT`.
    ///
    /// # Safety
    /// Valid arguments of the command.
    pub unsafe fn insert(queue: vk::Queue, info: *const vk::DebugUtilsLabelEXT<'_>) {
        // SAFETY: caller's contract.
        unsafe { forward(c"vkQueueInsertDebugUtilsLabelEXT", queue, Some(info)) }
    }
}
