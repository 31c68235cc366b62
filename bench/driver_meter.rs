//! Time spent inside the Vulkan driver, so that a render loop's own code can be timed apart
//! from it.
//!
//! [`hooked`] gives copies of an `ash::Instance` and `ash::Device` whose function tables send
//! the calls a render loop makes every frame (fence waits and polls, acquire, submit, present,
//! query reads, clock calibration) through small wrappers. Each wrapper reads the monotonic
//! clock before and after the real driver function and adds the time and one call to counters
//! of the calling thread. Everything else resolves to the driver's own entry points. Code
//! given the hooked tables (vkpace's swapchain, the textbook loop) runs unchanged; the
//! benchmark subtracts the time inside the driver from the time of the loop's steps and is
//! left with the loop's own time, whatever the driver's cost does from frame to frame.
//!
//! The wrappers' own clock reads land partly outside the measured driver time: about one
//! clock read per hooked call, which [`clock_read_ns`] measures so it can be taken off.

use std::cell::Cell;
use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::{bail, Result};
use ash::vk;

thread_local! {
    static INSIDE_NS: Cell<u64> = const { Cell::new(0) };
    static CALLS: Cell<u64> = const { Cell::new(0) };
}

/// The calling thread's totals so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Meter {
    /// Nanoseconds inside hooked driver functions.
    pub inside_ns: u64,
    /// Hooked driver calls made.
    pub calls: u64,
}

impl Meter {
    /// What happened between `earlier` and `self`.
    pub fn since(self, earlier: Meter) -> Meter {
        Meter {
            inside_ns: self.inside_ns.saturating_sub(earlier.inside_ns),
            calls: self.calls.saturating_sub(earlier.calls),
        }
    }
}

/// The calling thread's totals now.
pub fn now() -> Meter {
    Meter {
        inside_ns: INSIDE_NS.with(Cell::get),
        calls: CALLS.with(Cell::get),
    }
}

fn record(started: Instant) {
    let ns = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    INSIDE_NS.with(|c| c.set(c.get().saturating_add(ns)));
    CALLS.with(|c| c.set(c.get() + 1));
}

/// Median cost of one `Instant::now()` on this machine, in nanoseconds (median of 101 batches
/// of 1000 reads).
pub fn clock_read_ns() -> f64 {
    let mut batches: Vec<f64> = (0..101)
        .map(|_| {
            let t0 = Instant::now();
            for _ in 0..1000 {
                std::hint::black_box(Instant::now());
            }
            t0.elapsed().as_nanos() as f64 / 1000.0
        })
        .collect();
    batches.sort_by(f64::total_cmp);
    batches[batches.len() / 2]
}

/// Real driver entry points, by hook. All devices of the benchmark are on one driver, whose
/// device-level entry points are the same for every device; a different one is refused.
struct Real(AtomicUsize);

impl Real {
    const fn new() -> Self {
        Self(AtomicUsize::new(0))
    }

    fn set(&self, f: usize) -> Result<()> {
        match self
            .0
            .compare_exchange(0, f, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => Ok(()),
            Err(old) if old == f => Ok(()),
            Err(_) => bail!("two devices resolved one entry point to different functions"),
        }
    }

    fn get(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// Declares a wrapper for one `VkResult`-returning entry point.
macro_rules! hook {
    ($real:ident, $wrapper:ident, $pfn:ty, ($($arg:ident: $ty:ty),*)) => {
        static $real: Real = Real::new();

        unsafe extern "system" fn $wrapper($($arg: $ty),*) -> vk::Result {
            let f = $real.get();
            if f == 0 {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            }
            // SAFETY: `f` was stored by `hooked` from the driver's lookup of this very name,
            // whose signature is `$pfn`; it is non-null (checked above).
            let f: $pfn = unsafe { std::mem::transmute::<usize, $pfn>(f) };
            let started = Instant::now();
            // SAFETY: the caller made this Vulkan call with valid arguments (it would have
            // made it on the driver directly otherwise); they are passed on unchanged.
            let r = unsafe { f($($arg),*) };
            record(started);
            r
        }
    };
}

hook!(REAL_WAIT_FOR_FENCES, wait_for_fences, vk::PFN_vkWaitForFences,
    (device: vk::Device, count: u32, fences: *const vk::Fence, all: vk::Bool32, timeout: u64));
hook!(REAL_RESET_FENCES, reset_fences, vk::PFN_vkResetFences,
    (device: vk::Device, count: u32, fences: *const vk::Fence));
hook!(REAL_GET_FENCE_STATUS, get_fence_status, vk::PFN_vkGetFenceStatus,
    (device: vk::Device, fence: vk::Fence));
hook!(REAL_QUEUE_SUBMIT, queue_submit, vk::PFN_vkQueueSubmit,
    (queue: vk::Queue, count: u32, submits: *const vk::SubmitInfo<'_>, fence: vk::Fence));
hook!(REAL_ACQUIRE, acquire_next_image, vk::PFN_vkAcquireNextImageKHR,
    (device: vk::Device, swapchain: vk::SwapchainKHR, timeout: u64, semaphore: vk::Semaphore,
     fence: vk::Fence, index: *mut u32));
hook!(REAL_PRESENT, queue_present, vk::PFN_vkQueuePresentKHR,
    (queue: vk::Queue, info: *const vk::PresentInfoKHR<'_>));
hook!(REAL_QUERY_RESULTS, get_query_pool_results, vk::PFN_vkGetQueryPoolResults,
    (device: vk::Device, pool: vk::QueryPool, first: u32, count: u32, size: usize,
     data: *mut c_void, stride: vk::DeviceSize, flags: vk::QueryResultFlags));
hook!(REAL_CALIBRATED, get_calibrated_timestamps, vk::PFN_vkGetCalibratedTimestampsKHR,
    (device: vk::Device, count: u32, infos: *const vk::CalibratedTimestampInfoKHR<'_>,
     stamps: *mut u64, deviation: *mut u64));
hook!(REAL_COUNTER_VALUE, get_semaphore_counter_value, vk::PFN_vkGetSemaphoreCounterValue,
    (device: vk::Device, semaphore: vk::Semaphore, value: *mut u64));
hook!(REAL_WAIT_SEMAPHORES, wait_semaphores, vk::PFN_vkWaitSemaphores,
    (device: vk::Device, info: *const vk::SemaphoreWaitInfo<'_>, timeout: u64));

/// The instance's real `vkGetDeviceProcAddr`.
static REAL_GET_DEVICE_PROC_ADDR: Real = Real::new();

/// The wrapper for `name`, with its real entry point's slot; `None` for calls not hooked.
fn wrapper_for(name: &CStr) -> Option<(&'static Real, vk::PFN_vkVoidFunction)> {
    // Each wrapper is cast to the loader's untyped function pointer, as vkGetDeviceProcAddr
    // returns them; ash casts it back to the signature of the name it asked for.
    macro_rules! entry {
        ($real:ident, $wrapper:ident) => {
            // SAFETY: a function pointer cast to another function pointer type; it is only
            // ever called through the type of the name it was returned for.
            Some((&$real, unsafe {
                std::mem::transmute::<*const (), vk::PFN_vkVoidFunction>($wrapper as *const ())
            }))
        };
    }
    match name.to_bytes() {
        b"vkWaitForFences" => entry!(REAL_WAIT_FOR_FENCES, wait_for_fences),
        b"vkResetFences" => entry!(REAL_RESET_FENCES, reset_fences),
        b"vkGetFenceStatus" => entry!(REAL_GET_FENCE_STATUS, get_fence_status),
        b"vkQueueSubmit" => entry!(REAL_QUEUE_SUBMIT, queue_submit),
        b"vkAcquireNextImageKHR" => entry!(REAL_ACQUIRE, acquire_next_image),
        b"vkQueuePresentKHR" => entry!(REAL_PRESENT, queue_present),
        b"vkGetQueryPoolResults" => entry!(REAL_QUERY_RESULTS, get_query_pool_results),
        b"vkGetCalibratedTimestampsEXT" | b"vkGetCalibratedTimestampsKHR" => {
            entry!(REAL_CALIBRATED, get_calibrated_timestamps)
        }
        // The timeline backend's counter reads and waits.
        b"vkGetSemaphoreCounterValue" | b"vkGetSemaphoreCounterValueKHR" => {
            entry!(REAL_COUNTER_VALUE, get_semaphore_counter_value)
        }
        b"vkWaitSemaphores" | b"vkWaitSemaphoresKHR" => {
            entry!(REAL_WAIT_SEMAPHORES, wait_semaphores)
        }
        _ => None,
    }
}

/// Looks `name` up with the real `vkGetDeviceProcAddr`; hooked names get their wrapper.
unsafe extern "system" fn get_device_proc_addr(
    device: vk::Device,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    let f = REAL_GET_DEVICE_PROC_ADDR.get();
    if f == 0 || name.is_null() {
        return None;
    }
    // SAFETY: stored by `hooked` from the instance's table; non-null (checked above).
    let real: vk::PFN_vkGetDeviceProcAddr =
        unsafe { std::mem::transmute::<usize, vk::PFN_vkGetDeviceProcAddr>(f) };
    // SAFETY: the caller's arguments are passed on unchanged.
    let resolved = unsafe { real(device, name) }?;
    // SAFETY: `name` is a NUL-terminated string (Vulkan's contract for this call).
    let cname = unsafe { CStr::from_ptr(name) };
    match wrapper_for(cname) {
        Some((slot, wrapper)) if slot.set(resolved as usize).is_ok() => wrapper,
        // A second driver with other entry points: leave it unhooked (its time then counts
        // as the loop's own, which would only overstate it).
        _ => Some(resolved),
    }
}

/// Copies of `instance` and `device` whose per-frame calls are metered on the calling thread.
///
/// # Safety
///
/// `entry`, `instance` and `device` are valid and related; the copies are used only while the
/// originals are alive and are never used to destroy them.
pub unsafe fn hooked(
    entry: &ash::Entry,
    instance: &ash::Instance,
    device: &ash::Device,
) -> Result<(ash::Instance, ash::Device)> {
    let gipa = entry.static_fn().get_instance_proc_addr;
    let handle = instance.handle();
    let real_gdpa = instance.fp_v1_0().get_device_proc_addr as usize;
    REAL_GET_DEVICE_PROC_ADDR.set(real_gdpa)?;
    // SAFETY: `gipa` is the loader's entry point and `handle` a valid instance (caller
    // contract); only vkGetDeviceProcAddr is replaced, by a function of the same signature.
    let hooked_instance = unsafe {
        ash::Instance::load_with(
            |name| {
                if name == c"vkGetDeviceProcAddr" {
                    get_device_proc_addr as *const c_void
                } else {
                    std::mem::transmute::<vk::PFN_vkVoidFunction, *const c_void>(gipa(
                        handle,
                        name.as_ptr(),
                    ))
                }
            },
            handle,
        )
    };
    // SAFETY: the device belongs to the instance (caller contract); its table resolves through
    // the hooked vkGetDeviceProcAddr above.
    let hooked_device = unsafe { ash::Device::load(hooked_instance.fp_v1_0(), device.handle()) };
    Ok((hooked_instance, hooked_device))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meter_differences_saturate() {
        let a = Meter {
            inside_ns: 10,
            calls: 2,
        };
        let b = Meter {
            inside_ns: 25,
            calls: 5,
        };
        assert_eq!(
            b.since(a),
            Meter {
                inside_ns: 15,
                calls: 3
            }
        );
        assert_eq!(a.since(b), Meter::default());
    }

    #[test]
    fn a_clock_read_costs_something_finite() {
        let c = clock_read_ns();
        assert!(c > 0.0 && c < 10_000.0, "{c}");
    }

    #[test]
    fn only_per_frame_calls_are_hooked() {
        assert!(wrapper_for(c"vkQueuePresentKHR").is_some());
        assert!(wrapper_for(c"vkGetFenceStatus").is_some());
        assert!(wrapper_for(c"vkCreateFence").is_none());
        assert!(wrapper_for(c"vkCmdDraw").is_none());
    }
}
