//! The swapchain commands, through the device's present pacer (the second door): creation and
//! destruction, acquire (both entry points) and present. Where the layer does not pace (mode
//! off, another limiter, no pacer) each goes to the next layer as the application called it.
//! The application's structures are passed as they are; the pacer never writes through them.
//! Every command uses the door's `*_shared` functions: the pacing sleep, the frames-in-flight
//! gate's GPU wait, the bounded waits of a destruction and the driver's calls (acquire,
//! present with its repair submission, create, destroy) happen with the device's lock
//! released.

use ash::prelude::VkResult;
use ash::vk;
use vkpace::PresentPacer;
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
    let made = unsafe {
        PresentPacer::create_swapchain_shared(&*ci, alloc.as_ref(), |f| {
            dev.with_pacer_for(Some(surface), f);
        })
    };
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
    let done = unsafe {
        PresentPacer::destroy_swapchain_shared(swapchain, alloc.as_ref(), |f| {
            dev.with_pacer(f);
        })
    };
    if !done {
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
    let got = unsafe {
        PresentPacer::acquire_next_image_shared(swapchain, timeout, semaphore, fence, |f| {
            dev.with_pacer(f);
        })
    };
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
    let got = unsafe {
        PresentPacer::acquire_next_image2_shared(&*info, |f| {
            dev.with_pacer(f);
        })
    };
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
    let got = unsafe {
        PresentPacer::queue_present_shared(queue, &*info, |f| {
            dev.with_pacer(|p| {
                crate::fault::panic_if(fault);
                f(p)
            });
        })
    };
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
