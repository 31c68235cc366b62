//! Display feedback with `VK_KHR_present_id` and `VK_KHR_present_wait`: when each frame was
//! actually shown, for the low-latency policy (which then aims at the display's next refresh
//! instead of only keeping the GPU busy) and for the telemetry.
//!
//! Every present carries an id (`VkPresentIdKHR`) that grows by one per frame, across
//! swapchains too: ids must grow per swapchain (`VUID-VkPresentIdKHR-presentIds-04999`), and one
//! counter for all of them keeps that true after a recreation. Once per frame vkpace asks
//! `vkWaitForPresentKHR` with a timeout of zero whether the oldest frame not yet known shown has
//! been: `VK_SUCCESS` means the swapchain's present id reached it, `VK_TIMEOUT` not yet. That
//! time is when vkpace saw it (at most a frame late). Low latency on a FIFO display also waits
//! for it during its pacing sleep, bounded by the sleep's end, for an exact time
//! (`core/machine/display_watch.rs`).
//! The ids and the awaited presents are the core's (`core::present_ids`); this file has the
//! support query and the one Vulkan call. Their per-surface successors, present_id2 and
//! present_wait2, are in `present_wait2.rs`; the choice between the paths is the core's
//! (`core::display`), made in [`super::choose`].

use std::ffi::CStr;

use ash::vk;

use crate::vk::error::Result;
use crate::vk::extensions::{enabled_command, offered_features};

/// The device extensions display feedback needs. Enable both, with the `presentId` and
/// `presentWait` features, then set [`crate::vk::EnabledPaths::present_wait`].
pub const PRESENT_WAIT_DEVICE_EXTENSIONS: [&CStr; 2] =
    [ash::khr::present_id::NAME, ash::khr::present_wait::NAME];

/// Whether `physical` offers display feedback: both [`PRESENT_WAIT_DEVICE_EXTENSIONS`], with
/// the `presentId` and `presentWait` features.
///
/// # Safety
///
/// `physical` must come from `instance`, a Vulkan 1.1+ instance (for
/// `vkGetPhysicalDeviceFeatures2`). A renderer asks [`crate::Support::query`], which calls this.
pub(crate) unsafe fn present_wait_usable(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> Result<bool> {
    // SAFETY: caller contract.
    let usable = unsafe {
        offered_features(
            instance,
            physical,
            &PRESENT_WAIT_DEVICE_EXTENSIONS,
            |id: &vk::PhysicalDevicePresentIdFeaturesKHR,
             wait: &vk::PhysicalDevicePresentWaitFeaturesKHR| {
                id.present_id == vk::TRUE && wait.present_wait == vk::TRUE
            },
        )
    }?;
    Ok(usable == Some(true))
}

/// `vkWaitForPresentKHR`, loaded only where the device enabled the extension.
#[derive(Clone)]
pub(crate) struct PresentWaitFns {
    fns: ash::khr::present_wait::Device,
}

impl PresentWaitFns {
    /// Loads `vkWaitForPresentKHR`; an error if the device did not enable the extension.
    pub(crate) fn load(instance: &ash::Instance, device: &ash::Device) -> Result<Self> {
        // SAFETY: valid device of `instance` (constructor contract of the swapchain).
        unsafe {
            enabled_command(
                instance,
                device,
                &[c"vkWaitForPresentKHR"],
                "present_wait needs VK_KHR_present_id and VK_KHR_present_wait enabled on the device",
            )
        }?;
        Ok(Self {
            fns: ash::khr::present_wait::Device::new(instance, device),
        })
    }

    /// Whether present `id` on `swapchain` was shown, waiting at most `timeout_ns`.
    ///
    /// # Safety
    ///
    /// `swapchain` is not retired (VUID-vkWaitForPresentKHR-swapchain-04997) and `id` was given
    /// to a present on it.
    pub(crate) unsafe fn wait(
        &self,
        swapchain: vk::SwapchainKHR,
        id: u64,
        timeout_ns: u64,
    ) -> vk::Result {
        // SAFETY: caller contract; the wait is bounded.
        match unsafe { self.fns.wait_for_present(swapchain, id, timeout_ns) } {
            Ok(()) => vk::Result::SUCCESS,
            Err(e) => e,
        }
    }
}
