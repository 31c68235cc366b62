//! Swapchain maintenance1: what to enable, and the calls vkpace makes with it.
//!
//! `VK_KHR_swapchain_maintenance1` and `VK_KHR_surface_maintenance1` (Vulkan 1.4.321) promoted
//! the EXT extensions with no functional change: the structures keep their layouts and
//! structure-type values (`VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_FENCE_INFO_KHR` is 1000275001
//! like the EXT one), so ash's EXT structures serve both; only the extension names and
//! `vkReleaseSwapchainImagesKHR` differ. vkpace prefers the KHR names where offered.
//!
//! The renderer creates the instance and device, so vkpace tells it what to enable
//! ([`crate::Support`]) and is told what was enabled
//! ([`super::EnabledPaths::swapchain_maintenance1`]).

use std::ffi::CStr;

use ash::vk;

use super::error::{Result, VkContext};
use super::extensions::device_offers;

use vkpace_registry::{KHR_SURFACE_MAINTENANCE_1_NAME, KHR_SWAPCHAIN_MAINTENANCE_1_NAME};

/// Which names of the maintenance1 extensions a system offers.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Maintenance1Names {
    /// `VK_KHR_swapchain_maintenance1` and `VK_KHR_surface_maintenance1`.
    Khr,
    /// `VK_EXT_swapchain_maintenance1` and `VK_EXT_surface_maintenance1`.
    Ext,
}

impl Maintenance1Names {
    /// The instance extensions to enable (the surface extension and its dependency
    /// `VK_KHR_get_surface_capabilities2`).
    #[must_use]
    pub fn instance_extensions(self) -> [&'static CStr; 2] {
        let surface = match self {
            Maintenance1Names::Khr => KHR_SURFACE_MAINTENANCE_1_NAME,
            Maintenance1Names::Ext => ash::ext::surface_maintenance1::NAME,
        };
        [surface, ash::khr::get_surface_capabilities2::NAME]
    }

    /// The device extension to enable, with the `swapchainMaintenance1` feature.
    #[must_use]
    pub fn device_extension(self) -> &'static CStr {
        match self {
            Maintenance1Names::Khr => KHR_SWAPCHAIN_MAINTENANCE_1_NAME,
            Maintenance1Names::Ext => ash::ext::swapchain_maintenance1::NAME,
        }
    }

    /// "KHR" or "EXT".
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Maintenance1Names::Khr => "KHR",
            Maintenance1Names::Ext => "EXT",
        }
    }
}

/// The maintenance1 names `physical` can use, given the instance names enabled (from
/// [`crate::InstanceSupport::query`]): the device must offer the same names' device extension
/// (the KHR device extension requires the KHR surface one, the EXT one the EXT one) and the
/// `swapchainMaintenance1` feature. Enable the extensions and the feature, then set
/// [`super::EnabledPaths::swapchain_maintenance1`].
///
/// # Safety
///
/// `physical` must come from `instance`, a Vulkan 1.1+ instance (for
/// `vkGetPhysicalDeviceFeatures2`).
pub(crate) unsafe fn maintenance1_usable(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    instance_names: Option<Maintenance1Names>,
) -> Result<Option<Maintenance1Names>> {
    let Some(names) = instance_names else {
        return Ok(None);
    };
    // SAFETY: `physical` comes from `instance` (caller contract).
    if !unsafe { device_offers(instance, physical, &[names.device_extension()]) }? {
        return Ok(None);
    }
    // The KHR feature structure has the EXT one's layout and structure type.
    let mut m1 = vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT::default();
    let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut m1);
    // SAFETY: 1.1+ instance (caller contract); the chain holds a struct of an extension the
    // device supports.
    unsafe { instance.get_physical_device_features2(physical, &mut f2) };
    Ok((m1.swapchain_maintenance1 == vk::TRUE).then_some(names))
}

/// What the maintenance1 path uses: the surface query for compatible present modes.
pub(crate) struct Maintenance1Fns {
    pub(crate) caps2: ash::khr::get_surface_capabilities2::Instance,
    pub(crate) names: Maintenance1Names,
}

impl Maintenance1Fns {
    pub(crate) fn load(
        entry: &ash::Entry,
        instance: &ash::Instance,
        names: Maintenance1Names,
    ) -> Self {
        Self {
            caps2: ash::khr::get_surface_capabilities2::Instance::new(entry, instance),
            names,
        }
    }
}

/// The present modes a swapchain created with `mode` can switch to per present, without
/// recreation (`VkSurfacePresentModeCompatibilityEXT`). Empty when the driver reports none
/// (lavapipe's headless surface does, not even `mode` itself).
///
/// # Safety
///
/// The handles must be valid and the instance must have enabled the maintenance1 instance
/// extensions.
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
    let written = {
        let mut compat =
            vk::SurfacePresentModeCompatibilityEXT::default().present_modes(&mut modes);
        let mut caps = vk::SurfaceCapabilities2KHR::default().push_next(&mut compat);
        // SAFETY: as above; the array has the counted room.
        unsafe { caps2.get_physical_device_surface_capabilities2(physical, &info, &mut caps) }
            .during("vkGetPhysicalDeviceSurfaceCapabilities2KHR")?;
        compat.present_mode_count as usize
    };
    modes.truncate(written);
    Ok(modes)
}
