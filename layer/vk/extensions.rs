//! Whether the system offers some extensions: the first step of every support query
//! (`Maintenance1Support`, `GpuTimingSupport`, `PresentWaitSupport`).

use std::ffi::CStr;

use ash::vk;

use super::error::{Result, VkContext};

/// Whether `physical` offers every extension of `wanted`.
///
/// # Safety
///
/// `physical` must come from `instance`.
pub(crate) unsafe fn device_offers(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    wanted: &[&CStr],
) -> Result<bool> {
    // SAFETY: `physical` comes from `instance` (caller contract).
    let available = unsafe { instance.enumerate_device_extension_properties(physical) }
        .during("vkEnumerateDeviceExtensionProperties")?;
    Ok(all_listed(&available, wanted))
}

/// Whether every extension of `wanted` is in `available` (instance or device extensions).
pub(crate) fn all_listed(available: &[vk::ExtensionProperties], wanted: &[&CStr]) -> bool {
    wanted.iter().all(|want| {
        available
            .iter()
            .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == *want))
    })
}

/// `vkGetPhysicalDeviceSurfaceCapabilities2KHR`'s entry points, for a per-surface query; an
/// `InvalidConfig` naming `needed_by` where the instance did not enable
/// `VK_KHR_get_surface_capabilities2` (the loader then returns no entry point for it).
///
/// # Safety
/// `instance` was created from `entry`.
pub(crate) unsafe fn surface_capabilities2(
    entry: &ash::Entry,
    instance: &ash::Instance,
    needed_by: &'static str,
) -> super::error::Result<ash::khr::get_surface_capabilities2::Instance> {
    // SAFETY: valid instance of `entry` (caller contract).
    let loaded = unsafe {
        entry.get_instance_proc_addr(
            instance.handle(),
            c"vkGetPhysicalDeviceSurfaceCapabilities2KHR".as_ptr(),
        )
    };
    if loaded.is_none() {
        return Err(super::error::Error::InvalidConfig(needed_by));
    }
    Ok(ash::khr::get_surface_capabilities2::Instance::new(
        entry, instance,
    ))
}
