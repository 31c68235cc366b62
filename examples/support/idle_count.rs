//! A witness for "no device or queue idle": a copy of a device's function table whose
//! `vkDeviceWaitIdle` and `vkQueueWaitIdle` count their calls before calling the driver's.
//! Whatever is handed this device (the example, vkpace's pacer) idles only through these
//! entries, as a layer built on the next layer's `vkGetDeviceProcAddr` would see it.
//! (Only own_swapchain uses it.)
#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use ash::vk;

static DEVICE_WAIT_IDLE: AtomicU64 = AtomicU64::new(0);
static QUEUE_WAIT_IDLE: AtomicU64 = AtomicU64::new(0);
/// The driver's entries (one device per process in the examples).
static DRIVER: OnceLock<(vk::PFN_vkDeviceWaitIdle, vk::PFN_vkQueueWaitIdle)> = OnceLock::new();

unsafe extern "system" fn device_wait_idle(device: vk::Device) -> vk::Result {
    DEVICE_WAIT_IDLE.fetch_add(1, Ordering::SeqCst);
    match DRIVER.get() {
        // SAFETY: the driver's entry, called with the caller's valid arguments.
        Some((f, _)) => unsafe { f(device) },
        None => vk::Result::ERROR_INITIALIZATION_FAILED,
    }
}

unsafe extern "system" fn queue_wait_idle(queue: vk::Queue) -> vk::Result {
    QUEUE_WAIT_IDLE.fetch_add(1, Ordering::SeqCst);
    match DRIVER.get() {
        // SAFETY: as above.
        Some((_, f)) => unsafe { f(queue) },
        None => vk::Result::ERROR_INITIALIZATION_FAILED,
    }
}

/// `device` with both idle entries counted (the first device given sets the driver's entries).
pub fn counting(device: &ash::Device) -> ash::Device {
    let mut v1_0 = device.fp_v1_0().clone();
    DRIVER.get_or_init(|| (v1_0.device_wait_idle, v1_0.queue_wait_idle));
    v1_0.device_wait_idle = device_wait_idle;
    v1_0.queue_wait_idle = queue_wait_idle;
    ash::Device::from_parts_1_3(
        device.handle(),
        v1_0,
        device.fp_v1_1().clone(),
        device.fp_v1_2().clone(),
        device.fp_v1_3().clone(),
    )
}

/// `(vkDeviceWaitIdle, vkQueueWaitIdle)` calls so far.
pub fn counts() -> (u64, u64) {
    (
        DEVICE_WAIT_IDLE.load(Ordering::SeqCst),
        QUEUE_WAIT_IDLE.load(Ordering::SeqCst),
    )
}
