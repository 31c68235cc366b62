//! `VK_EXT_present_timing` (registry 1.4.335): when each stage of a present happened, the
//! display's refresh cycle, and presents aimed at a time.
//!
//! Support is asked in three places: the device (extensions and the `presentTiming` /
//! `presentId2` features, [`crate::Support::query`]), each surface
//! (`VkPresentTimingSurfaceCapabilitiesEXT`, asked with present_wait2's in one
//! `vkGetPhysicalDeviceSurfaceCapabilities2KHR` call by [`super::choose`]) and the physical
//! device's calibrateable time domains, which must include `CLOCK_MONOTONIC`
//! ([`calibrateable_domains`]): every time the presentation engine reports is mapped to the
//! shell's [`Clock`] through a `vkGetCalibratedTimestampsKHR` reading of that clock.
//!
//! This file has the extension names, the support query of the domains and the commands; the
//! per-swapchain state is [`super::swapchain_timing`] (with no heap allocation per frame: the
//! read buffers live on the stack), the domain calls [`super::timing_domains`].
//!
//! [`Clock`]: crate::vk::clock::Clock

use std::ffi::CStr;

use ash::vk;

use crate::vk::error::{Error, Result};
use crate::vk::extensions::{enabled_command, typed_command};
use vkpace_core::{Calibrateable, TimeDomain};
use vkpace_registry::{
    PFN_vkGetPastPresentationTimingEXT, PFN_vkGetSwapchainTimeDomainPropertiesEXT,
    PFN_vkGetSwapchainTimingPropertiesEXT, PFN_vkSetSwapchainPresentTimingQueueSizeEXT,
    PresentStageFlagsEXT,
};

/// The device extensions present timing needs: `VK_EXT_present_timing` and two of its
/// dependencies, `VK_KHR_present_id2` (results name presents by their id2) and
/// `VK_KHR_calibrated_timestamps` (to map the engine's times to the CPU clock). Enable them
/// with the `presentTiming` and `presentId2` features, and `VK_KHR_get_surface_capabilities2`
/// on the instance (`VK_EXT_present_timing` depends on it, and the per-surface query is
/// `vkGetPhysicalDeviceSurfaceCapabilities2KHR`).
///
/// `VK_EXT_calibrated_timestamps` has the same commands, and vkpace loads them under either
/// name, but it does not stand in for the KHR one here: the registry makes the KHR name a
/// dependency of `VK_EXT_present_timing`, so a device made with present timing and only the
/// EXT name breaks VUID-vkCreateDevice-ppEnabledExtensionNames-01387 (sid's validation layer
/// reports it). A device that offers present timing without the KHR name offers less than the
/// extension requires; vkpace then keeps the CPU limiter.
pub const PRESENT_TIMING_DEVICE_EXTENSIONS: [&CStr; 3] = [
    vkpace_registry::EXT_PRESENT_TIMING_NAME,
    vkpace_registry::KHR_PRESENT_ID_2_NAME,
    ash::khr::calibrated_timestamps::NAME,
];

/// The shell's reference clock domain: `Instant` is `CLOCK_MONOTONIC` on Linux; elsewhere the
/// midpoint calibration still maps it, as long as both clocks tick at the same rate.
pub(super) const HOST_DOMAIN: vk::TimeDomainKHR = vk::TimeDomainKHR::CLOCK_MONOTONIC;

/// Results read per `vkGetPastPresentationTimingEXT` call (stack buffers).
pub(super) const READ_BATCH: usize = 16;

/// Time domains read per `vkGetSwapchainTimeDomainPropertiesEXT` call (stack buffers).
pub(super) const MAX_DOMAINS: usize = 16;

/// What one surface supports of present timing (`VkPresentTimingSurfaceCapabilitiesEXT`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresentTimingSurfaceSupport {
    /// `presentTimingSupported`: results can be queried for swapchains of the surface.
    pub present_timing: bool,
    /// `presentAtAbsoluteTimeSupported`.
    pub absolute: bool,
    /// `presentAtRelativeTimeSupported`.
    pub relative: bool,
    /// `presentStageQueries`: the stages results can be reported for (the spec requires at
    /// least `QUEUE_OPERATIONS_END` when `present_timing` is set).
    pub stages: PresentStageFlagsEXT,
}

/// Which of the domains present timing uses `physical` can calibrate. Each swapchain's
/// domain is calibrated against `CLOCK_MONOTONIC`, and "timeDomain must be one of the
/// VkTimeDomainKHR values returned by vkGetPhysicalDeviceCalibrateableTimeDomainsKHR"
/// (VUID-VkCalibratedTimestampInfoKHR-timeDomain-02354), so present timing is usable only
/// where the host clock is among them.
///
/// # Safety
///
/// `physical` must come from `instance`, loaded from `entry`, and offer
/// `VK_KHR_calibrated_timestamps` (or its EXT predecessor).
pub(crate) unsafe fn calibrateable_domains(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> Result<Calibrateable> {
    let names = [
        c"vkGetPhysicalDeviceCalibrateableTimeDomainsKHR",
        c"vkGetPhysicalDeviceCalibrateableTimeDomainsEXT",
    ];
    let Some(f) = names.iter().find_map(|n| {
        // SAFETY: valid instance of `entry` (caller contract); `n` is NUL-terminated.
        unsafe { entry.get_instance_proc_addr(instance.handle(), n.as_ptr()) }
    }) else {
        return Ok(Calibrateable::default());
    };
    let query = typed_command!(f, vk::PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsKHR);
    // There are few time domains (seven in the registry); VK_INCOMPLETE past MAX_DOMAINS
    // still lists the first ones.
    let mut domains = [vk::TimeDomainKHR::DEVICE; MAX_DOMAINS];
    let mut count = MAX_DOMAINS as u32;
    // SAFETY: `physical` comes from `instance` (caller contract); `domains` holds `count`
    // elements.
    let r = unsafe { query(physical, &mut count, domains.as_mut_ptr()) };
    if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
        return Err(Error::vk(
            "vkGetPhysicalDeviceCalibrateableTimeDomainsKHR",
            r,
        ));
    }
    let n = (count as usize).min(MAX_DOMAINS);
    let mut listed = [TimeDomain(0); MAX_DOMAINS];
    for (core, d) in listed.iter_mut().zip(&domains[..n]) {
        *core = TimeDomain(d.as_raw());
    }
    Ok(Calibrateable::of(&listed[..n]))
}

/// The device commands of present timing, loaded with `vkGetDeviceProcAddr` (a device returns
/// no entry point for an extension it did not enable).
pub(crate) struct PresentTimingFns {
    pub(super) set_queue_size: PFN_vkSetSwapchainPresentTimingQueueSizeEXT,
    pub(super) timing_properties: PFN_vkGetSwapchainTimingPropertiesEXT,
    pub(super) time_domain_properties: PFN_vkGetSwapchainTimeDomainPropertiesEXT,
    pub(super) past_presentation_timing: PFN_vkGetPastPresentationTimingEXT,
    pub(super) calibrated_timestamps: vk::PFN_vkGetCalibratedTimestampsKHR,
}

impl PresentTimingFns {
    /// Loads the five commands; [`Error::InvalidConfig`] if any is missing (the device did
    /// not enable [`PRESENT_TIMING_DEVICE_EXTENSIONS`]). `vkGetCalibratedTimestampsKHR` falls
    /// back to the EXT name for loaders that predate the KHR extension.
    ///
    /// # Safety
    ///
    /// `device` must be a valid device of `instance`.
    pub(crate) unsafe fn load(instance: &ash::Instance, device: &ash::Device) -> Result<Self> {
        let load = |names: &[&CStr]| {
            let needed_by = "present timing needs VK_EXT_present_timing and VK_KHR_calibrated_timestamps enabled on the device";
            // SAFETY: valid device of `instance` (caller contract).
            unsafe { enabled_command(instance, device, names, needed_by) }
        };
        let set = load(&[c"vkSetSwapchainPresentTimingQueueSizeEXT"])?;
        let props = load(&[c"vkGetSwapchainTimingPropertiesEXT"])?;
        let domains = load(&[c"vkGetSwapchainTimeDomainPropertiesEXT"])?;
        let past = load(&[c"vkGetPastPresentationTimingEXT"])?;
        let cal = load(&[
            c"vkGetCalibratedTimestampsKHR",
            c"vkGetCalibratedTimestampsEXT",
        ])?;
        Ok(Self {
            set_queue_size: typed_command!(set, PFN_vkSetSwapchainPresentTimingQueueSizeEXT),
            timing_properties: typed_command!(props, PFN_vkGetSwapchainTimingPropertiesEXT),
            time_domain_properties: typed_command!(
                domains,
                PFN_vkGetSwapchainTimeDomainPropertiesEXT
            ),
            past_presentation_timing: typed_command!(past, PFN_vkGetPastPresentationTimingEXT),
            calibrated_timestamps: typed_command!(cal, vk::PFN_vkGetCalibratedTimestampsKHR),
        })
    }
}
