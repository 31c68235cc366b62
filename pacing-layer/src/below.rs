//! What the layer enables below the application so the pacer can pace to the display:
//! `VK_KHR_get_surface_capabilities2` on the instance (present timing's surface queries need
//! it) and present timing on the device (`VK_EXT_present_timing` with present id2 and
//! calibrated timestamps, and their features), where offered. The application's create info
//! is copied, never written: vkpace's names are added to a copy of its list and vkpace's
//! feature structures put in front of its chain. Nothing is added that the application chained
//! already (a structure appears once in a chain, VUID-VkDeviceCreateInfo-sType-unique), and a
//! creation the next layer refuses with the additions is made again without them, so the
//! layer never makes instance or device creation fail.

use std::ffi::{c_char, CStr};

use ash::vk;
use vkpace::{InstanceSupport, Support};
use vkpace_registry::structure_type;

/// The instance extension present timing's surface queries need.
const SURFACE_CAPABILITIES2: &CStr = ash::khr::get_surface_capabilities2::NAME;

/// The names of a create info's extension list.
///
/// # Safety
/// `names` points at `count` valid C strings (or is null with `count` 0).
unsafe fn names<'a>(names: *const *const c_char, count: u32) -> Vec<&'a CStr> {
    if names.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(names, count as usize) }
        .iter()
        // SAFETY: as above.
        .map(|&n| unsafe { CStr::from_ptr(n) })
        .collect()
}

/// The application's extension list with `extra` added where missing; `None` if nothing is
/// missing.
fn with_names(app: &[&CStr], extra: &[&'static CStr]) -> Option<Vec<*const c_char>> {
    let mut missing: Vec<&CStr> = Vec::with_capacity(extra.len());
    for e in extra {
        if !app.contains(e) && !missing.contains(e) {
            missing.push(e);
        }
    }
    if missing.is_empty() {
        return None;
    }
    Some(app.iter().chain(&missing).map(|n| n.as_ptr()).collect())
}

/// Creates the instance through `create` with `VK_KHR_get_surface_capabilities2` added if the
/// application did not enable it, and again as the application asked if the next layer refuses
/// that; returns the result and whether the extension is enabled.
///
/// # Safety
/// `ci` is the application's create info, after this layer took its link; `create` calls the
/// next layer's `vkCreateInstance` with the given info.
pub(crate) unsafe fn create_instance(
    ci: &vk::InstanceCreateInfo<'_>,
    mut create: impl FnMut(&vk::InstanceCreateInfo<'_>) -> vk::Result,
) -> (vk::Result, bool) {
    // SAFETY: the application's create info is valid.
    let app = unsafe { names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    // Present timing's device extensions need Vulkan 1.1 or VK_KHR_get_physical_device_
    // properties2 (VK_KHR_calibrated_timestamps), and get_surface_capabilities2 needs
    // VK_KHR_surface (VUID-vkCreateInstance-ppEnabledExtensionNames-01388): without them
    // nothing is added, and no present timing is used.
    // SAFETY: a valid create info's application info, if any.
    let version = unsafe { ci.p_application_info.as_ref() }.map_or(0, |a| a.api_version);
    let one_one = vk::api_version_minor(version) >= 1 || vk::api_version_major(version) > 1;
    let usable = app.contains(&ash::khr::surface::NAME)
        && (one_one || app.contains(&ash::khr::get_physical_device_properties2::NAME));
    if !usable {
        return (create(ci), false);
    }
    let Some(list) = with_names(&app, &[SURFACE_CAPABILITIES2]) else {
        return (create(ci), true);
    };
    // SAFETY: this layer's link was taken from `ci` (the caller's contract).
    let mark = unsafe { vkpace_layer_plumbing::LinkMark::instance(ci) };
    let mut ours = *ci;
    ours.enabled_extension_count = list.len() as u32;
    ours.pp_enabled_extension_names = list.as_ptr();
    let result = create(&ours);
    if result != vk::Result::ERROR_EXTENSION_NOT_PRESENT {
        // Success, or an error of the application's own request.
        return (result, result == vk::Result::SUCCESS);
    }
    crate::log(format_args!(
        "vkCreateInstance refused {SURFACE_CAPABILITIES2:?} ({result:?}): made as the application asked, without present timing"
    ));
    if let Some(mark) = mark {
        // SAFETY: the same call, before calling down again.
        unsafe { mark.restore() };
    }
    (create(ci), false)
}

/// Device extensions with which the application paces itself: the layer steps aside for such a
/// device (unless forced), so that two pacers do not fight over its frames.
const SELF_PACING: [&CStr; 6] = [
    c"VK_NV_low_latency",
    c"VK_NV_low_latency2",
    c"VK_AMD_anti_lag",
    c"VK_EXT_present_timing",
    c"VK_KHR_present_wait",
    c"VK_KHR_present_wait2",
];

/// The first extension of the application's device create info with which it paces itself.
///
/// # Safety
/// `ci` is a valid device create info.
pub(crate) unsafe fn self_pacing(ci: &vk::DeviceCreateInfo<'_>) -> Option<&'static CStr> {
    // SAFETY: the caller's contract.
    let app = unsafe { names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    SELF_PACING.into_iter().find(|e| app.contains(e))
}

/// What the device offers for present timing, and only that.
///
/// # Safety
/// `instance` holds the next layer's instance commands; `physical` is one of its devices.
pub(crate) unsafe fn present_timing_support(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    ci: &vk::DeviceCreateInfo<'_>,
    surface_capabilities2: bool,
) -> Option<Support> {
    // Present timing's device extensions need VK_KHR_swapchain
    // (VUID-vkCreateDevice-ppEnabledExtensionNames-01387): only for a device that presents.
    // SAFETY: a valid create info.
    let app = unsafe { names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    if !surface_capabilities2 || !app.contains(&ash::khr::swapchain::NAME) {
        return None;
    }
    let mut enabled = InstanceSupport::default();
    enabled.surface_capabilities2 = surface_capabilities2;
    // SAFETY: a valid create info has its queue infos.
    let family = unsafe { ci.p_queue_create_infos.as_ref() }?.queue_family_index;
    // SAFETY: the caller's contract.
    let mut support =
        unsafe { Support::query(entry, instance, physical, family, &enabled) }.ok()?;
    support.maintenance1 = None;
    support.gpu_timestamps = false;
    support.present_wait = false;
    support.present_wait2 = false;
    support.present_timing?;
    // SAFETY: a valid chain.
    let chained = unsafe { chains_any(ci.p_next) };
    (!chained).then_some(support)
}

/// Whether the application chained a feature structure vkpace would add.
///
/// # Safety
/// `p_next` is a valid chain.
unsafe fn chains_any(mut p_next: *const std::ffi::c_void) -> bool {
    let ours = [
        structure_type::PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT,
        structure_type::PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR,
    ];
    while !p_next.is_null() {
        // SAFETY: every structure of a valid chain starts like VkBaseInStructure.
        let base = unsafe { &*p_next.cast::<vk::BaseInStructure<'_>>() };
        if ours.contains(&base.s_type) {
            return true;
        }
        p_next = base.p_next.cast();
    }
    false
}

/// Creates the device through `create` with present timing's extensions and features added
/// where `support` has it, and again as the application asked if the next layer refuses that;
/// returns the result and the support enabled.
///
/// # Safety
/// As [`create_instance`], for `vkCreateDevice`.
pub(crate) unsafe fn create_device(
    ci: &vk::DeviceCreateInfo<'_>,
    support: Option<Support>,
    mut create: impl FnMut(&vk::DeviceCreateInfo<'_>) -> vk::Result,
) -> (vk::Result, Option<Support>) {
    let Some(support) = support else {
        return (create(ci), None);
    };
    // SAFETY: the application's create info is valid.
    let app = unsafe { names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    let list = with_names(&app, &support.device_extensions())
        .unwrap_or_else(|| app.iter().map(|n| n.as_ptr()).collect());
    // SAFETY: this layer's link was taken from `ci` (the caller's contract).
    let mark = unsafe { vkpace_layer_plumbing::LinkMark::device(ci) };
    let mut features = support.features();
    let mut ours = *ci;
    ours.enabled_extension_count = list.len() as u32;
    ours.pp_enabled_extension_names = list.as_ptr();
    let ours = features.chain(ours);
    let result = create(&ours);
    let refused = [
        vk::Result::ERROR_EXTENSION_NOT_PRESENT,
        vk::Result::ERROR_FEATURE_NOT_PRESENT,
    ];
    if !refused.contains(&result) {
        // Success, or an error of the application's own request.
        return (result, (result == vk::Result::SUCCESS).then_some(support));
    }
    crate::log(format_args!(
        "vkCreateDevice refused present timing ({result:?}): made as the application asked"
    ));
    if let Some(mark) = mark {
        // SAFETY: the same call, before calling down again.
        unsafe { mark.restore() };
    }
    (create(ci), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_with_a_self_pacing_extension_is_found() {
        let list = [c"VK_KHR_swapchain".as_ptr(), c"VK_NV_low_latency2".as_ptr()];
        let ci = vk::DeviceCreateInfo::default().enabled_extension_names(&list);
        // SAFETY: a valid create info with valid names.
        assert_eq!(unsafe { self_pacing(&ci) }, Some(c"VK_NV_low_latency2"));
        let ci = vk::DeviceCreateInfo::default().enabled_extension_names(&list[..1]);
        // SAFETY: as above.
        assert_eq!(unsafe { self_pacing(&ci) }, None);
    }

    #[test]
    fn missing_names_are_added_once_and_none_when_all_are_there() {
        let app = [c"VK_KHR_swapchain", SURFACE_CAPABILITIES2];
        assert!(with_names(&app, &[SURFACE_CAPABILITIES2]).is_none());
        let list = with_names(&app[..1], &[SURFACE_CAPABILITIES2, SURFACE_CAPABILITIES2]);
        assert_eq!(list.map(|l| l.len()), Some(2));
    }
}
