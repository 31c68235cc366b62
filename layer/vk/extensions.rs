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
