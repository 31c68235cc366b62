//! Display feedback with `VK_KHR_present_id2` and `VK_KHR_present_wait2` (registry 1.4.317),
//! the per-surface successors of present_id / present_wait, and the choice between the two.
//!
//! The first pair is a device property only; the second is also asked of each surface
//! (`VkSurfaceCapabilitiesPresentId2KHR`, `VkSurfaceCapabilitiesPresentWait2KHR` through
//! `vkGetPhysicalDeviceSurfaceCapabilities2KHR`), since a compositor may be able to tell when
//! one window's frames were shown and not another's. The core picks the path per swapchain
//! object (`core::display`, from what [`super::choose`] asks the device and the surface); the
//! choice holds for every swapchain it later makes for the surface (the create flags go with
//! it).
//! Ids, the awaited presents and the once-per-frame poll are the same on both paths (the core's
//! `present_ids`): the registry makes present_id2 share present_id's id namespace.

use std::ffi::CStr;

use ash::vk;

use super::present_wait::PresentWaitFns;
use crate::vk::error::{Result, VkContext};
use crate::vk::extensions::{enabled_command, offered_features, typed_command};
use vkpace_core::DisplayFeedback;
use vkpace_registry::{
    PFN_vkWaitForPresent2KHR, PhysicalDevicePresentId2FeaturesKHR,
    PhysicalDevicePresentWait2FeaturesKHR, PresentWait2InfoKHR, SurfaceCapabilitiesPresentId2KHR,
    SurfaceCapabilitiesPresentWait2KHR,
};

/// The device extensions present_wait2 needs. Enable both with the `presentId2` and
/// `presentWait2` features, and `VK_KHR_get_surface_capabilities2` on the instance (both device extensions
/// require it; the per-surface query is `vkGetPhysicalDeviceSurfaceCapabilities2KHR`), then set
/// [`crate::vk::EnabledPaths::present_wait2`].
pub const PRESENT_WAIT2_DEVICE_EXTENSIONS: [&CStr; 2] = [
    vkpace_registry::KHR_PRESENT_ID_2_NAME,
    vkpace_registry::KHR_PRESENT_WAIT_2_NAME,
];

/// What one surface supports of present_wait2.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresentWait2SurfaceSupport {
    /// `VkSurfaceCapabilitiesPresentId2KHR::presentId2Supported`.
    pub present_id2: bool,
    /// `VkSurfaceCapabilitiesPresentWait2KHR::presentWait2Supported`.
    pub present_wait2: bool,
}

impl PresentWait2SurfaceSupport {
    /// Whether swapchains of the surface can use present_wait2 (both capabilities).
    #[must_use]
    pub fn usable(&self) -> bool {
        self.present_id2 && self.present_wait2
    }

    /// Whether `physical` can do present_wait2 (each surface must also say yes,
    /// [`Self::query`]): both [`PRESENT_WAIT2_DEVICE_EXTENSIONS`], with the `presentId2` and
    /// `presentWait2` features.
    ///
    /// # Safety
    ///
    /// `physical` must come from `instance`, a Vulkan 1.1+ instance (for
    /// `vkGetPhysicalDeviceFeatures2`). A renderer asks [`crate::Support::query`], which
    /// calls this.
    pub(crate) unsafe fn device_usable(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
    ) -> Result<bool> {
        // SAFETY: caller contract.
        let usable = unsafe {
            offered_features(
                instance,
                physical,
                &PRESENT_WAIT2_DEVICE_EXTENSIONS,
                |id2: &PhysicalDevicePresentId2FeaturesKHR,
                 wait2: &PhysicalDevicePresentWait2FeaturesKHR| {
                    id2.present_id2 == vk::TRUE && wait2.present_wait2 == vk::TRUE
                },
            )
        }?;
        Ok(usable == Some(true))
    }

    /// Asks `surface` whether its swapchains can use present id2 and present wait2. Without
    /// `VK_KHR_get_surface_capabilities2` enabled on the instance there is no way to ask:
    /// [`crate::Error::InvalidConfig`].
    ///
    /// # Safety
    ///
    /// `physical` and `surface` must come from `instance`, loaded from `entry`, and `physical`
    /// must offer [`PRESENT_WAIT2_DEVICE_EXTENSIONS`]: the two capability structures may be
    /// chained only then.
    pub unsafe fn query(
        entry: &ash::Entry,
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        surface: vk::SurfaceKHR,
    ) -> Result<Self> {
        // SAFETY: valid instance of `entry` (caller contract).
        let caps2 = unsafe {
            crate::vk::extensions::surface_capabilities2(
                entry,
                instance,
                "present_wait2 needs VK_KHR_get_surface_capabilities2 enabled on the instance",
            )
        }?;
        let info = vk::PhysicalDeviceSurfaceInfo2KHR::default().surface(surface);
        let mut id2 = SurfaceCapabilitiesPresentId2KHR::default();
        let mut wait2 = SurfaceCapabilitiesPresentWait2KHR::default();
        let mut caps = vk::SurfaceCapabilities2KHR::default()
            .push_next(&mut id2)
            .push_next(&mut wait2);
        // SAFETY: valid handles, device extensions offered (caller contract); the instance
        // enabled the extension (its command was found). Both structures extend
        // VkSurfaceCapabilities2KHR (vk.xml).
        unsafe { caps2.get_physical_device_surface_capabilities2(physical, &info, &mut caps) }
            .during("vkGetPhysicalDeviceSurfaceCapabilities2KHR")?;
        Ok(Self {
            present_id2: id2.present_id2_supported == vk::TRUE,
            present_wait2: wait2.present_wait2_supported == vk::TRUE,
        })
    }
}

/// `vkWaitForPresent2KHR`, loaded only where the device enabled the extension.
#[derive(Clone)]
pub(crate) struct PresentWait2Fns {
    device: vk::Device,
    wait: PFN_vkWaitForPresent2KHR,
}

impl PresentWait2Fns {
    /// Loads `vkWaitForPresent2KHR`; an error if the device did not enable the extension (a
    /// device returns no entry point for an extension it did not enable: vkGetDeviceProcAddr).
    pub(crate) fn load(instance: &ash::Instance, device: &ash::Device) -> Result<Self> {
        // SAFETY: valid device of `instance` (constructor contract of the swapchain).
        let f = unsafe {
            enabled_command(
                instance,
                device,
                &[c"vkWaitForPresent2KHR"],
                "present_wait2 needs VK_KHR_present_id2 and VK_KHR_present_wait2 enabled on the device",
            )
        }?;
        Ok(Self {
            device: device.handle(),
            wait: typed_command!(f, PFN_vkWaitForPresent2KHR),
        })
    }

    /// Whether present `id` on `swapchain` was shown, waiting at most `timeout_ns`.
    ///
    /// # Safety
    ///
    /// `swapchain` is not retired (vkWaitForPresent2KHR's `swapchain` "is the non-retired
    /// swapchain"), was created with `PRESENT_WAIT_2` (VUID-vkWaitForPresent2KHR-None-10816)
    /// for a surface that supports present wait2 (VUID-vkWaitForPresent2KHR-None-10815), and
    /// `id` was given to a present on it that returned a non-error value
    /// (VUID-vkWaitForPresent2KHR-presentId-10817).
    pub(crate) unsafe fn wait(
        &self,
        swapchain: vk::SwapchainKHR,
        id: u64,
        timeout_ns: u64,
    ) -> vk::Result {
        let info = PresentWait2InfoKHR::default()
            .present_id(id)
            .timeout(timeout_ns);
        // SAFETY: caller contract; the device enabled the presentWait2 feature with the
        // extension (VUID-vkWaitForPresent2KHR-presentWait2-10814, the config's contract); the
        // wait is bounded.
        unsafe { (self.wait)(self.device, swapchain, &info) }
    }
}

/// The display feedback a swapchain object uses, with its entry point.
#[derive(Clone)]
pub(crate) enum DisplayFns {
    /// `vkWaitForPresentKHR`.
    Wait(PresentWaitFns),
    /// `vkWaitForPresent2KHR`.
    Wait2(PresentWait2Fns),
}

impl DisplayFns {
    /// Which path this is.
    pub(crate) fn feedback(&self) -> DisplayFeedback {
        match self {
            Self::Wait(_) => DisplayFeedback::PresentWait,
            Self::Wait2(_) => DisplayFeedback::PresentWait2,
        }
    }

    /// Whether present `id` on `swapchain` was shown, waiting at most `timeout_ns` (zero: a
    /// poll).
    ///
    /// # Safety
    ///
    /// As [`PresentWaitFns::wait`] or [`PresentWait2Fns::wait`]: the swapchain is not retired,
    /// was made by this swapchain object (with this path's create flags), and `id` was given
    /// to a present on it.
    pub(crate) unsafe fn wait(
        &self,
        swapchain: vk::SwapchainKHR,
        id: u64,
        timeout_ns: u64,
    ) -> vk::Result {
        match self {
            // SAFETY: caller contract.
            Self::Wait(f) => unsafe { f.wait(swapchain, id, timeout_ns) },
            // SAFETY: caller contract.
            Self::Wait2(f) => unsafe { f.wait(swapchain, id, timeout_ns) },
        }
    }
}
