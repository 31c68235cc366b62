//! VK_KHR_present_wait and VK_KHR_present_wait2 on virtual swapchains.
//!
//! A swapchain's "present id reached" rises when a present with an id becomes visible, or is
//! replaced without presentation (MAILBOX). Spec: vkWaitForPresentKHR returns once that value is
//! at least the id asked for; for a replaced image the wait "must be signaled no later than a
//! wait associated with the replacing image". vkWaitForPresent2KHR completes "after the
//! corresponding presentation request has either taken effect within the presentation engine
//! or has been replaced without presentation". Both return VK_ERROR_OUT_OF_DATE_KHR early when
//! the swapchain is out of date and no queued present can still satisfy the wait.

use ash::vk;
use vkpace_layer_plumbing::call_next;
use vkpace_registry as r;

use crate::clock::{deadline, now_ns};
use crate::device::Device;
use crate::swapchain::{self, Status, Swapchain};

/// Waits until `id` is reached on `sc`, or the timeout expires.
pub fn wait_until(sc: &Swapchain, id: u64, timeout: u64) -> vk::Result {
    let end = deadline(now_ns(), timeout);
    let mut st = sc.state();
    loop {
        if st.reached_id >= id {
            return vk::Result::SUCCESS;
        }
        let hopeless = id > st.queued_id;
        match sc.status(&st) {
            Status::Lost => return vk::Result::ERROR_SURFACE_LOST_KHR,
            Status::OutOfDate if hopeless => return vk::Result::ERROR_OUT_OF_DATE_KHR,
            _ if st.retired && hopeless => return vk::Result::ERROR_OUT_OF_DATE_KHR,
            _ => {}
        }
        if timeout == 0 || (timeout != u64::MAX && now_ns() >= end) {
            return vk::Result::TIMEOUT;
        }
        st = sc.wait(st, if timeout == u64::MAX { u64::MAX } else { end });
    }
}

/// `vkWaitForPresentKHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn wait_for_present(
    device: vk::Device,
    handle: vk::SwapchainKHR,
    id: u64,
    timeout: u64,
) -> vk::Result {
    if let Some(sc) = swapchain::lookup(handle) {
        return wait_until(&sc, id, timeout);
    }
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(device) }) else {
        return vk::Result::ERROR_DEVICE_LOST;
    };
    // The driver's swapchain: down the chain.
    call_next!(
        dev,
        c"vkWaitForPresentKHR",
        vk::PFN_vkWaitForPresentKHR,
        (device, handle, id, timeout),
        vk::Result::ERROR_EXTENSION_NOT_PRESENT
    )
}

/// `vkWaitForPresent2KHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn wait_for_present2(
    device: vk::Device,
    handle: vk::SwapchainKHR,
    info: *const r::PresentWait2InfoKHR<'_>,
) -> vk::Result {
    // SAFETY: valid input structure.
    let info_ref = unsafe { &*info };
    if let Some(sc) = swapchain::lookup(handle) {
        return wait_until(&sc, info_ref.present_id, info_ref.timeout);
    }
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(device) }) else {
        return vk::Result::ERROR_DEVICE_LOST;
    };
    // The driver's swapchain: down the chain.
    call_next!(
        dev,
        c"vkWaitForPresent2KHR",
        r::PFN_vkWaitForPresent2KHR,
        (device, handle, info),
        vk::Result::ERROR_EXTENSION_NOT_PRESENT
    )
}
