//! `vkAcquireNextImageKHR` / `vkAcquireNextImage2KHR` and maintenance1's
//! `vkReleaseSwapchainImagesEXT` / `KHR`.
//!
//! Acquire waits (bounded by its timeout) until an image is free, then signals the
//! application's semaphore and/or fence with a submission on the device's default queue. Spec
//! (vkAcquireNextImageKHR): timeout 0 and no image available -> VK_NOT_READY; the timeout
//! expires -> VK_TIMEOUT; a retired or out-of-date swapchain -> VK_ERROR_OUT_OF_DATE_KHR.

use ash::vk;
use vkpace_layer_plumbing::call_next;

use super::create::bind_memory;
use super::{lookup, ImageState, Status, Swapchain};
use crate::clock::{deadline, now_ns};
use crate::device::Device;
use crate::faults::Injected;

/// `vkAcquireNextImageKHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn acquire(
    device: vk::Device,
    handle: vk::SwapchainKHR,
    timeout: u64,
    semaphore: vk::Semaphore,
    fence: vk::Fence,
    out: *mut u32,
) -> vk::Result {
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(device) }) else {
        return vk::Result::ERROR_DEVICE_LOST;
    };
    let Some(sc) = lookup(handle) else {
        // SAFETY: the driver's swapchain.
        return unsafe {
            (dev.swapchain_fp.acquire_next_image_khr)(
                device, handle, timeout, semaphore, fence, out,
            )
        };
    };
    let (index, result) = match wait_for_image(&sc, timeout) {
        Ok(v) => v,
        Err(r) => return r,
    };
    // SAFETY: the image is acquired by this call; its semaphore and fence are the application's.
    if let Err(r) = unsafe { prepare_and_signal(&dev, &sc, index, semaphore, fence) } {
        sc.free_image(index);
        return r;
    }
    // SAFETY: valid out-pointer.
    unsafe { *out = index };
    result
}

/// Waits for a free image and marks it acquired; returns it and the success code.
fn wait_for_image(sc: &Swapchain, timeout: u64) -> Result<(u32, vk::Result), vk::Result> {
    let end = deadline(now_ns(), timeout);
    let mut st = sc.state();
    loop {
        if st.retired {
            return Err(vk::Result::ERROR_OUT_OF_DATE_KHR);
        }
        match sc.status(&st) {
            Status::Lost => return Err(vk::Result::ERROR_SURFACE_LOST_KHR),
            Status::OutOfDate => return Err(vk::Result::ERROR_OUT_OF_DATE_KHR),
            Status::Ok | Status::Suboptimal => {}
        }
        if !st.free.is_empty() {
            break;
        }
        if timeout == 0 {
            return Err(vk::Result::NOT_READY);
        }
        if timeout != u64::MAX && now_ns() >= end {
            return Err(vk::Result::TIMEOUT);
        }
        st = sc.wait(st, if timeout == u64::MAX { u64::MAX } else { end });
    }
    match sc.faults.draw() {
        Injected::OutOfDate => {
            st.out_of_date = true;
            return Err(vk::Result::ERROR_OUT_OF_DATE_KHR);
        }
        Injected::Suboptimal => return take(sc, &mut st).map(|i| (i, vk::Result::SUBOPTIMAL_KHR)),
        Injected::None => {}
    }
    let code = match sc.status(&st) {
        Status::Suboptimal => vk::Result::SUBOPTIMAL_KHR,
        _ => vk::Result::SUCCESS,
    };
    take(sc, &mut st).map(|i| (i, code))
}

/// Takes a free image (the oldest freed, or a random one under the fault).
fn take(sc: &Swapchain, st: &mut super::State) -> Result<u32, vk::Result> {
    let pick = sc.faults.pick(st.free.len());
    let index = st.free.remove(pick).ok_or(vk::Result::ERROR_UNKNOWN)?;
    st.images[index as usize] = ImageState::Acquired;
    if let Some(at) = st.acquired_ns.get_mut(index as usize) {
        *at = crate::clock::now_ns();
    }
    Ok(index)
}

/// Binds deferred memory (maintenance1: "on first acquire"), owes the semaphore its signal
/// and signals the fence.
///
/// # Safety
/// `semaphore` and `fence` must be valid or null and unsignaled with no pending operations
/// (VUID-vkAcquireNextImageKHR-semaphore-01286, -fence-01287).
unsafe fn prepare_and_signal(
    dev: &Device,
    sc: &Swapchain,
    index: u32,
    semaphore: vk::Semaphore,
    fence: vk::Fence,
) -> Result<(), vk::Result> {
    {
        let mut memory = sc.memory.lock().unwrap_or_else(|e| e.into_inner());
        if memory[index as usize] == vk::DeviceMemory::null() {
            // SAFETY: the image was created without memory (deferred allocation).
            memory[index as usize] = unsafe { bind_memory(dev, sc.images[index as usize])? };
        }
    }
    if semaphore != vk::Semaphore::null() {
        // The image is free now: the signal is owed and its wait elided (`elide.rs`).
        dev.owed.add(semaphore);
    }
    if fence == vk::Fence::null() {
        return Ok(());
    }
    let _q = dev.lock_queues();
    // SAFETY: an empty submission that signals the application's fence, on the device's
    // default queue, under the queue lock.
    unsafe { dev.fp.queue_submit(dev.default_queue, &[], fence) }
}

/// `vkAcquireNextImage2KHR` (the device mask is irrelevant to a virtual display).
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn acquire2(
    device: vk::Device,
    info: *const vk::AcquireNextImageInfoKHR<'_>,
    out: *mut u32,
) -> vk::Result {
    // SAFETY: valid input structure.
    let i = unsafe { &*info };
    if lookup(i.swapchain).is_none() {
        // SAFETY: valid device.
        let Some(dev) = (unsafe { Device::of(device) }) else {
            return vk::Result::ERROR_DEVICE_LOST;
        };
        // The driver's swapchain: down the chain.
        return call_next!(
            dev,
            c"vkAcquireNextImage2KHR",
            vk::PFN_vkAcquireNextImage2KHR,
            (device, info, out),
            vk::Result::ERROR_EXTENSION_NOT_PRESENT
        );
    }
    // SAFETY: same arguments in the other form.
    unsafe { acquire(device, i.swapchain, i.timeout, i.semaphore, i.fence, out) }
}

/// `vkReleaseSwapchainImagesEXT` / `KHR`: acquired images go back to the free set.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn release(
    device: vk::Device,
    info: *const vk::ReleaseSwapchainImagesInfoEXT<'_>,
) -> vk::Result {
    // SAFETY: valid input structure.
    let i = unsafe { &*info };
    let Some(sc) = lookup(i.swapchain) else {
        // SAFETY: valid device.
        let Some(dev) = (unsafe { Device::of(device) }) else {
            return vk::Result::ERROR_DEVICE_LOST;
        };
        // The driver's swapchain: down the chain.
        return call_next!(
            dev,
            c"vkReleaseSwapchainImagesEXT",
            vk::PFN_vkReleaseSwapchainImagesEXT,
            (device, info),
            vk::Result::ERROR_EXTENSION_NOT_PRESENT
        );
    };
    // SAFETY: `p_image_indices` holds `image_index_count` indices.
    let indices =
        unsafe { std::slice::from_raw_parts(i.p_image_indices, i.image_index_count as usize) };
    for &index in indices {
        let acquired = sc.state().images.get(index as usize) == Some(&ImageState::Acquired);
        if acquired {
            sc.free_image(index);
        }
    }
    if sc.surface.is_lost() {
        vk::Result::ERROR_SURFACE_LOST_KHR
    } else {
        vk::Result::SUCCESS
    }
}
