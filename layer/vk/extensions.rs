//! Whether the system offers some extensions: the first step of every support query
//! (`Support::query`), and the commands of those a device enabled.

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

/// What `read` makes of two feature structures of `physical` as `vkGetPhysicalDeviceFeatures2`
/// fills them, where it offers every extension of `wanted`; `None` where it does not (the
/// structures may be chained only then, VUID-VkPhysicalDeviceFeatures2-pNext-pNext).
///
/// # Safety
///
/// `physical` must come from `instance`, a Vulkan 1.1+ instance.
pub(crate) unsafe fn offered_features<A, B, R>(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    wanted: &[&CStr],
    read: impl FnOnce(&A, &B) -> R,
) -> super::error::Result<Option<R>>
where
    A: vk::ExtendsPhysicalDeviceFeatures2 + Default,
    B: vk::ExtendsPhysicalDeviceFeatures2 + Default,
{
    // SAFETY: `physical` comes from `instance` (caller contract).
    if !unsafe { device_offers(instance, physical, wanted) }? {
        return Ok(None);
    }
    let (mut a, mut b) = (A::default(), B::default());
    let mut f2 = vk::PhysicalDeviceFeatures2::default()
        .push_next(&mut a)
        .push_next(&mut b);
    // SAFETY: 1.1+ instance (caller contract); the chain holds structures of extensions the
    // device offers.
    unsafe { instance.get_physical_device_features2(physical, &mut f2) };
    Ok(Some(read(&a, &b)))
}

/// A device command of an extension the device must have enabled, by the first of `names`
/// found: an `InvalidConfig` naming `needed_by` where it did not (a device returns no entry
/// point for an extension it did not enable: vkGetDeviceProcAddr).
///
/// # Safety
///
/// `device` is a valid device of `instance`.
pub(crate) unsafe fn enabled_command(
    instance: &ash::Instance,
    device: &ash::Device,
    names: &[&CStr],
    needed_by: &'static str,
) -> super::error::Result<unsafe extern "system" fn()> {
    names
        .iter()
        // SAFETY: caller contract; each name is NUL-terminated.
        .find_map(|n| unsafe { instance.get_device_proc_addr(device.handle(), n.as_ptr()) })
        .ok_or(super::error::Error::InvalidConfig(needed_by))
}

/// Turns an entry point the loader returned (by [`enabled_command`], or an instance lookup)
/// into its typed pointer.
macro_rules! typed_command {
    ($f:expr, $pfn:ty) => {
        // SAFETY: the loader returned the entry point of the name looked up, whose signature
        // the registry gives as `$pfn` (a promoted command, looked up by its older name too,
        // has the same signature).
        unsafe { std::mem::transmute::<unsafe extern "system" fn(), $pfn>($f) }
    };
}
pub(crate) use typed_command;

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
