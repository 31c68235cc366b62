//! `VK_EXT_swapchain_maintenance1`: what to enable, and the queries vkpace makes with it.
//!
//! The renderer creates the instance and device, so vkpace tells it what to enable
//! ([`Maintenance1Support`]) and is told what was enabled
//! ([`super::SwapchainConfig::swapchain_maintenance1`]).

use std::ffi::CStr;

use ash::vk;

use super::error::{Result, VkContext};
use super::extensions::{all_listed, device_offers};

/// Instance extensions the maintenance1 path needs (`VK_EXT_surface_maintenance1` and its
/// dependency `VK_KHR_get_surface_capabilities2`).
pub const MAINTENANCE1_INSTANCE_EXTENSIONS: [&CStr; 2] = [
    ash::ext::surface_maintenance1::NAME,
    ash::khr::get_surface_capabilities2::NAME,
];

/// The device extension of the maintenance1 path. Enable it together with
/// `VkPhysicalDeviceSwapchainMaintenance1FeaturesEXT::swapchainMaintenance1`.
pub const MAINTENANCE1_DEVICE_EXTENSION: &CStr = ash::ext::swapchain_maintenance1::NAME;

/// What a system offers for the maintenance1 path.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Maintenance1Support {
    /// Both [`MAINTENANCE1_INSTANCE_EXTENSIONS`] are available.
    pub instance_extensions: bool,
    /// [`MAINTENANCE1_DEVICE_EXTENSION`] is available on the physical device.
    pub device_extension: bool,
    /// The `swapchainMaintenance1` feature is supported (queried only when both the above are).
    pub feature: bool,
}

impl Maintenance1Support {
    /// Whether the path can be used: enable the extensions and the feature, then set
    /// [`super::SwapchainConfig::swapchain_maintenance1`].
    #[must_use]
    pub fn usable(&self) -> bool {
        self.instance_extensions && self.device_extension && self.feature
    }

    /// Checks the instance extensions (before the instance exists).
    pub fn instance_extensions_available(entry: &ash::Entry) -> Result<bool> {
        // SAFETY: plain enumeration on a loaded entry.
        let available = unsafe { entry.enumerate_instance_extension_properties(None) }
            .during("vkEnumerateInstanceExtensionProperties")?;
        Ok(all_listed(&available, &MAINTENANCE1_INSTANCE_EXTENSIONS))
    }

    /// Checks everything for `physical`.
    ///
    /// # Safety
    ///
    /// `physical` must come from `instance`, which must be a Vulkan 1.1+ instance (for
    /// `vkGetPhysicalDeviceFeatures2`).
    pub unsafe fn query(
        entry: &ash::Entry,
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
    ) -> Result<Self> {
        let instance_extensions = Self::instance_extensions_available(entry)?;
        // SAFETY: `physical` comes from `instance` (caller contract).
        let device_extension =
            unsafe { device_offers(instance, physical, &[MAINTENANCE1_DEVICE_EXTENSION]) }?;
        let mut feature = false;
        if instance_extensions && device_extension {
            let mut m1 = vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut m1);
            // SAFETY: 1.1+ instance (caller contract); the chain holds a struct of an
            // extension the device supports.
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            feature = m1.swapchain_maintenance1 == vk::TRUE;
        }
        Ok(Self {
            instance_extensions,
            device_extension,
            feature,
        })
    }
}

/// The present modes a swapchain created with `mode` can switch to per present, without
/// recreation (`VkSurfacePresentModeCompatibilityEXT`). Empty when the driver reports none
/// (lavapipe's headless surface does, not even `mode` itself): then the caller must not chain
/// `VkSwapchainPresentModesCreateInfoEXT` (the validation layer checks its entries against this
/// query, VUID-VkSwapchainPresentModesCreateInfoEXT-pPresentModes-07763) and every switch
/// recreates.
///
/// # Safety
///
/// The handles must be valid and the instance must have enabled
/// [`MAINTENANCE1_INSTANCE_EXTENSIONS`].
pub(crate) unsafe fn compatible_present_modes(
    caps2: &ash::khr::get_surface_capabilities2::Instance,
    physical: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    mode: vk::PresentModeKHR,
) -> Result<Vec<vk::PresentModeKHR>> {
    let mut present_mode = vk::SurfacePresentModeEXT::default().present_mode(mode);
    let info = vk::PhysicalDeviceSurfaceInfo2KHR::default()
        .surface(surface)
        .push_next(&mut present_mode);
    let mut compat = vk::SurfacePresentModeCompatibilityEXT::default();
    let mut caps = vk::SurfaceCapabilities2KHR::default().push_next(&mut compat);
    // SAFETY: caller contract; the first call only counts (null array).
    unsafe { caps2.get_physical_device_surface_capabilities2(physical, &info, &mut caps) }
        .during("vkGetPhysicalDeviceSurfaceCapabilities2KHR")?;
    let count = compat.present_mode_count as usize;
    if count == 0 {
        return Ok(Vec::new());
    }
    let mut modes = vec![vk::PresentModeKHR::FIFO; count];
    {
        let mut compat =
            vk::SurfacePresentModeCompatibilityEXT::default().present_modes(&mut modes);
        let mut caps = vk::SurfaceCapabilities2KHR::default().push_next(&mut compat);
        // SAFETY: as above; the array has the counted room.
        unsafe { caps2.get_physical_device_surface_capabilities2(physical, &info, &mut caps) }
            .during("vkGetPhysicalDeviceSurfaceCapabilities2KHR")?;
        let written = compat.present_mode_count as usize;
        modes.truncate(written);
    }
    if !modes.contains(&mode) {
        modes.push(mode);
    }
    Ok(modes)
}
