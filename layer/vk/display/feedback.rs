//! Display feedback: when each frame was actually shown, for the low-latency policy (which then
//! aims at the display's next refresh instead of only keeping the GPU busy), the frame limit's
//! display anchor and the telemetry. Two paths: `VK_KHR_present_id` with `VK_KHR_present_wait`,
//! a device property only, and their per-surface successors `VK_KHR_present_id2` with
//! `VK_KHR_present_wait2` (registry 1.4.317), also asked of each surface
//! (`VkSurfaceCapabilitiesPresentId2KHR`, `VkSurfaceCapabilitiesPresentWait2KHR`), since a
//! compositor may be able to tell when one window's frames were shown and not another's.
//!
//! Every present carries an id that grows by one per frame, across swapchains too: ids must
//! grow per swapchain (`VUID-VkPresentIdKHR-presentIds-04999`), and one counter for all of them
//! keeps that true after a recreation; the registry makes present_id2 share present_id's id
//! namespace. Once per frame vkpace asks with a timeout of zero whether the oldest frame not
//! yet known shown has been: `VK_SUCCESS` means the swapchain's present id reached it,
//! `VK_TIMEOUT` not yet. That time is when vkpace saw it (at most a frame late). Low latency on
//! a FIFO display also waits for it during its pacing sleep, bounded by the sleep's end, for an
//! exact time (`core/machine/display_watch.rs`).
//!
//! The ids, the awaited presents and the choice of path per swapchain object are the core's
//! (`core::present_ids`, `core::display`, made in [`super::choose`]; the choice holds for every
//! swapchain the object later makes for the surface, create flags included); this file has the
//! extension names and the one Vulkan call of each path.

use std::ffi::CStr;

use ash::vk;

use crate::vk::error::Result;
use crate::vk::extensions::{enabled_command, typed_command};
use vkpace_core::DisplayFeedback;
use vkpace_registry::{PFN_vkWaitForPresent2KHR, PresentWait2InfoKHR};

/// The device extensions present_wait needs. Enable both, with the `presentId` and
/// `presentWait` features, then set [`crate::vk::EnabledPaths::present_wait`].
pub const PRESENT_WAIT_DEVICE_EXTENSIONS: [&CStr; 2] =
    [ash::khr::present_id::NAME, ash::khr::present_wait::NAME];

/// The device extensions present_wait2 needs. Enable both with the `presentId2` and
/// `presentWait2` features, and `VK_KHR_get_surface_capabilities2` on the instance (both device
/// extensions require it; the per-surface query is `vkGetPhysicalDeviceSurfaceCapabilities2KHR`),
/// then set [`crate::vk::EnabledPaths::present_wait2`].
pub const PRESENT_WAIT2_DEVICE_EXTENSIONS: [&CStr; 2] = [
    vkpace_registry::KHR_PRESENT_ID_2_NAME,
    vkpace_registry::KHR_PRESENT_WAIT_2_NAME,
];

/// The display feedback a swapchain object uses, with its device and entry point.
#[derive(Copy, Clone)]
pub(crate) enum DisplayFns {
    /// `vkWaitForPresentKHR`.
    Wait(vk::Device, vk::PFN_vkWaitForPresentKHR),
    /// `vkWaitForPresent2KHR`.
    Wait2(vk::Device, PFN_vkWaitForPresent2KHR),
}

impl DisplayFns {
    /// Loads `vkWaitForPresent2KHR` (`wait2`) or `vkWaitForPresentKHR`; an error if the device
    /// did not enable the path's extensions (a device returns no entry point for an extension
    /// it did not enable: vkGetDeviceProcAddr).
    pub(crate) fn load(
        instance: &ash::Instance,
        device: &ash::Device,
        wait2: bool,
    ) -> Result<Self> {
        let (name, needed_by) = match wait2 {
            true => (c"vkWaitForPresent2KHR", "present_wait2 needs VK_KHR_present_id2 and VK_KHR_present_wait2 enabled on the device"),
            false => (c"vkWaitForPresentKHR", "present_wait needs VK_KHR_present_id and VK_KHR_present_wait enabled on the device"),
        };
        // SAFETY: valid device of `instance` (constructor contract of both doors).
        let f = unsafe { enabled_command(instance, device, &[name], needed_by) }?;
        Ok(match wait2 {
            true => Self::Wait2(device.handle(), typed_command!(f, PFN_vkWaitForPresent2KHR)),
            false => Self::Wait(
                device.handle(),
                typed_command!(f, vk::PFN_vkWaitForPresentKHR),
            ),
        })
    }

    /// Which path this is.
    pub(crate) fn feedback(&self) -> DisplayFeedback {
        match self {
            Self::Wait(..) => DisplayFeedback::PresentWait,
            Self::Wait2(..) => DisplayFeedback::PresentWait2,
        }
    }

    /// Whether present `id` on `swapchain` was shown, waiting at most `timeout_ns` (zero: a
    /// poll).
    ///
    /// # Safety
    ///
    /// `swapchain` was made by this swapchain object (with this path's create flags) and is
    /// not retired (VUID-vkWaitForPresentKHR-swapchain-04997; vkWaitForPresent2KHR's
    /// `swapchain` "is the non-retired swapchain"), and `id` was given to a present on it (for
    /// present_wait2, one that returned a non-error value,
    /// VUID-vkWaitForPresent2KHR-presentId-10817). Present_wait2's swapchain was created with
    /// `PRESENT_WAIT_2` (VUID-vkWaitForPresent2KHR-None-10816) for a surface that supports it
    /// (VUID-vkWaitForPresent2KHR-None-10815): the choice of path ensures both.
    pub(crate) unsafe fn wait(
        &self,
        swapchain: vk::SwapchainKHR,
        id: u64,
        timeout_ns: u64,
    ) -> vk::Result {
        match *self {
            // SAFETY: caller contract; the wait is bounded.
            Self::Wait(device, wait) => unsafe { wait(device, swapchain, id, timeout_ns) },
            Self::Wait2(device, wait) => {
                let info = PresentWait2InfoKHR::default()
                    .present_id(id)
                    .timeout(timeout_ns);
                // SAFETY: caller contract; the device enabled the presentWait2 feature with the
                // extension (VUID-vkWaitForPresent2KHR-presentWait2-10814, the config's
                // contract); the wait is bounded.
                unsafe { wait(device, swapchain, &info) }
            }
        }
    }
}
