//! The swapchain commands, through the device's present pacer (the second door): creation and
//! destruction, acquire (both entry points) and present. Where the layer does not pace (mode
//! off, another limiter, no pacer) each goes to the next layer as the application called it.
//! The application's structures are passed as they are; the pacer never writes through them.
//! Every command runs as the door's [`PacerCall`] ([`in_steps`]): its plans and reports under
//! the device's lock, and the pacing sleep, the frames-in-flight gate's GPU wait, the bounded
//! waits of a destruction and the driver's calls (acquire, present with its repair submission,
//! create, destroy) with the lock released: each may block (Mesa's software WSI waits for the
//! frame's rendering inside the present; FIFO may block).

use ash::prelude::VkResult;
use ash::vk;
use vkpace::{PacerCall, PresentPacer};
use vkpace_layer_plumbing::{call_next, DispatchKey};

use crate::device::{Device, DEVICES};

/// The device of a dispatchable handle (a device or a queue).
///
/// # Safety
/// `handle` is a valid dispatchable handle.
unsafe fn device_of<H: vk::Handle>(handle: H) -> Option<std::sync::Arc<Device>> {
    // SAFETY: the caller's contract.
    DEVICES.get(unsafe { DispatchKey::of(handle) })
}

/// Runs `call`'s steps with `dev`'s pacer: each plan and report under the device's lock
/// (`reporting` runs as each report begins: the tests' fault point, a panic inside the pacer
/// after the driver's command was made), each step's calls down with it released. Where the device
/// has no pacer (any more) the call ends: its `finish` says whether the driver was called.
fn in_steps<'a, T>(
    dev: &Device,
    surface: Option<vk::SurfaceKHR>,
    mut call: PacerCall<'a, T>,
    reporting: impl Fn(),
) -> PacerCall<'a, T> {
    loop {
        let planned = dev.with_pacer_for(surface, |p| call.plan(p));
        let Some(down) = planned.flatten() else {
            return call;
        };
        // The driver's result is kept in the call here, whatever happens to the report.
        let mut made = Some(down.make());
        dev.with_pacer_for(surface, |p| {
            if let Some(made) = made.take() {
                reporting();
                call.report(Some(p), made);
            }
        });
        if let Some(made) = made {
            call.report(None, made);
        }
    }
}

/// A `VkResult<T>` as the result code the application gets, with `out` written on success.
fn code<T>(got: VkResult<(T, bool)>, out: impl FnOnce(T)) -> vk::Result {
    match got {
        Ok((value, suboptimal)) => {
            out(value);
            match suboptimal {
                true => vk::Result::SUBOPTIMAL_KHR,
                false => vk::Result::SUCCESS,
            }
        }
        Err(e) => e,
    }
}

/// `vkCreateSwapchainKHR`.
///
/// # Safety
/// The arguments of a valid `vkCreateSwapchainKHR` call.
pub unsafe fn create(
    device: vk::Device,
    ci: *const vk::SwapchainCreateInfoKHR<'_>,
    alloc: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SwapchainKHR,
) -> vk::Result {
    // SAFETY: a valid device.
    let Some(dev) = (unsafe { device_of(device) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments, valid for the call.
    let surface = unsafe { (*ci).surface };
    // SAFETY: the application's arguments, valid for the call.
    let call = unsafe { PresentPacer::create_call(&*ci, alloc.as_ref()) };
    let made = in_steps(&dev, Some(surface), call, || {}).finish();
    match made {
        Some(Ok(handle)) => {
            // SAFETY: `out` is the application's output.
            unsafe { *out = handle };
            vk::Result::SUCCESS
        }
        Some(Err(e)) => e,
        None => call_next!(
            dev.next,
            c"vkCreateSwapchainKHR",
            vk::PFN_vkCreateSwapchainKHR,
            (device, ci, alloc, out),
            vk::Result::ERROR_EXTENSION_NOT_PRESENT
        ),
    }
}

/// `vkDestroySwapchainKHR`: deferred by the pacer until the swapchain is provably idle.
///
/// # Safety
/// The arguments of a valid `vkDestroySwapchainKHR` call.
pub unsafe fn destroy(
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    alloc: *const vk::AllocationCallbacks<'_>,
) {
    // SAFETY: a valid device.
    let Some(dev) = (unsafe { device_of(device) }) else {
        return;
    };
    // SAFETY: the application's arguments; the callbacks stay valid until the pacer destroys
    // it (the application's contract for its allocator).
    let call = unsafe { PresentPacer::destroy_call(swapchain, alloc.as_ref()) };
    if in_steps(&dev, None, call, || {}).finish().is_none() {
        call_next!(
            dev.next,
            c"vkDestroySwapchainKHR",
            vk::PFN_vkDestroySwapchainKHR,
            (device, swapchain, alloc),
            ()
        );
    }
}

/// `vkAcquireNextImageKHR`.
///
/// # Safety
/// The arguments of a valid `vkAcquireNextImageKHR` call.
pub unsafe fn acquire(
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    timeout: u64,
    semaphore: vk::Semaphore,
    fence: vk::Fence,
    index: *mut u32,
) -> vk::Result {
    // SAFETY: a valid device.
    let Some(dev) = (unsafe { device_of(device) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments.
    let call = unsafe { PresentPacer::acquire_call(swapchain, timeout, semaphore, fence) };
    let got = in_steps(&dev, None, call, || {}).finish();
    match got {
        // SAFETY: `index` is the application's output.
        Some(got) => code(got, |i| unsafe { *index = i }),
        None => call_next!(
            dev.next,
            c"vkAcquireNextImageKHR",
            vk::PFN_vkAcquireNextImageKHR,
            (device, swapchain, timeout, semaphore, fence, index),
            vk::Result::ERROR_EXTENSION_NOT_PRESENT
        ),
    }
}

/// `vkAcquireNextImage2KHR`.
///
/// # Safety
/// The arguments of a valid `vkAcquireNextImage2KHR` call.
pub unsafe fn acquire2(
    device: vk::Device,
    info: *const vk::AcquireNextImageInfoKHR<'_>,
    index: *mut u32,
) -> vk::Result {
    // SAFETY: a valid device.
    let Some(dev) = (unsafe { device_of(device) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the application's arguments.
    let call = unsafe { PresentPacer::acquire2_call(&*info) };
    let got = in_steps(&dev, None, call, || {}).finish();
    match got {
        // SAFETY: `index` is the application's output.
        Some(got) => code(got, |i| unsafe { *index = i }),
        None => call_next!(
            dev.next,
            c"vkAcquireNextImage2KHR",
            vk::PFN_vkAcquireNextImage2KHR,
            (device, info, index),
            vk::Result::ERROR_EXTENSION_NOT_PRESENT
        ),
    }
}

/// `vkQueuePresentKHR`: the pacer's present (repair, pacing), then the frame log.
///
/// # Safety
/// The arguments of a valid `vkQueuePresentKHR` call.
pub unsafe fn present(queue: vk::Queue, info: *const vk::PresentInfoKHR<'_>) -> vk::Result {
    // SAFETY: a valid queue: it shares its device's dispatch key.
    let Some(dev) = (unsafe { device_of(queue) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let fault = crate::fault::panic_due();
    // SAFETY: the application's arguments.
    let call = unsafe { PresentPacer::present_call(queue, &*info) };
    let got = in_steps(&dev, None, call, || crate::fault::panic_if(fault)).finish();
    // SAFETY: a valid present info: its first swapchain, if any.
    let first = unsafe { (*info).swapchain_count > 0 && !(*info).p_swapchains.is_null() }
        // SAFETY: as above.
        .then(|| unsafe { *(*info).p_swapchains });
    if let (Some(_), Some(w)) = (&got, first) {
        dev.pacing.log_frames(w);
    }
    match got {
        Some(got) => code(got.map(|s| ((), s)), |()| {}),
        None => call_next!(
            dev.next,
            c"vkQueuePresentKHR",
            vk::PFN_vkQueuePresentKHR,
            (queue, info),
            vk::Result::ERROR_EXTENSION_NOT_PRESENT
        ),
    }
}
