//! Physical-device queries the layer answers or amends: the device extension list (the
//! extensions it implements are added), the features of those extensions (reported as
//! supported), and the calibrateable time domains (under the KHR name too; the local ones of
//! present timing added with `timing_domains = local`).

use std::ffi::{c_char, c_void, CStr};

use ash::vk;
use vkpace_registry::{self as registry, structure_type as st};

use crate::extensions::{self, DEVICE_EXTS};
use crate::instance::Instance;
use crate::timing::Domains;
use crate::LAYER_NAME;
use vkpace_layer_plumbing::chain;

/// The next layer's (the driver's) device extensions.
///
/// # Safety
/// `pd` must belong to `inst`.
pub unsafe fn driver_extensions(
    inst: &Instance,
    pd: vk::PhysicalDevice,
) -> Vec<vk::ExtensionProperties> {
    // SAFETY: valid physical device; the two-call idiom through ash.
    unsafe { inst.fp.enumerate_device_extension_properties(pd) }.unwrap_or_default()
}

/// `vkEnumerateDeviceExtensionProperties`: the driver's list plus the layer's extensions (for
/// `pLayerName == NULL`), or the layer's own list (for this layer's name).
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn enumerate_device_extensions(
    pd: vk::PhysicalDevice,
    layer: *const c_char,
    count: *mut u32,
    props: *mut vk::ExtensionProperties,
) -> vk::Result {
    // SAFETY: valid physical device.
    let Some(inst) = (unsafe { Instance::of_physical(pd) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // `calibrated_timestamps = ext`: the KHR name is neither added nor passed on;
    // `present_wait = off`: nor are present id and present wait.
    let listed = |p: &vk::ExtensionProperties| {
        let name = extensions::name_of(p);
        let wait = [vk::KHR_PRESENT_ID_NAME, vk::KHR_PRESENT_WAIT_NAME];
        (inst.settings.calibrated_khr || name != vk::KHR_CALIBRATED_TIMESTAMPS_NAME)
            && (inst.settings.present_wait || !wait.contains(&name))
    };
    let ours: Vec<_> = DEVICE_EXTS
        .iter()
        .map(extensions::properties)
        .filter(listed)
        .collect();
    if !layer.is_null() {
        // SAFETY: a non-null layer name is a C string.
        if unsafe { CStr::from_ptr(layer) } == LAYER_NAME {
            // SAFETY: caller's contract.
            return unsafe { extensions::write_array(&ours, count, props) };
        }
        // SAFETY: another layer's query goes down unchanged.
        return unsafe {
            (inst.fp.fp_v1_0().enumerate_device_extension_properties)(pd, layer, count, props)
        };
    }
    // SAFETY: `pd` belongs to `inst`.
    let mut list = unsafe { driver_extensions(&inst, pd) };
    list.retain(listed);
    for p in ours {
        if !list
            .iter()
            .any(|d| extensions::name_of(d) == extensions::name_of(&p))
        {
            list.push(p);
        }
    }
    // SAFETY: caller's contract.
    unsafe { extensions::write_array(&list, count, props) }
}

/// `vkGetPhysicalDeviceFeatures2[KHR]`: the driver fills what it knows; the layer then reports
/// the features of the extensions it implements as supported (the driver leaves structures it
/// does not know untouched, or reports them false).
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn get_features2(
    pd: vk::PhysicalDevice,
    features: *mut vk::PhysicalDeviceFeatures2<'_>,
) {
    // SAFETY: valid physical device.
    let Some(inst) = (unsafe { Instance::of_physical(pd) }) else {
        return;
    };
    // SAFETY: the application's arguments, down the chain.
    unsafe { (inst.fp.fp_v1_1().get_physical_device_features2)(pd, features) };
    // SAFETY: `features` heads a valid writable chain.
    unsafe { chain::for_each_out((*features).p_next, set_features) };
}

/// Sets the features of one structure of the layer's extensions.
fn set_features(p: *mut c_void, ty: vk::StructureType) {
    // SAFETY: (every arm) the sType identifies the structure, which the caller owns mutably.
    unsafe {
        match ty {
            vk::StructureType::PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_EXT => {
                (*p.cast::<vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT>())
                    .swapchain_maintenance1 = vk::TRUE;
            }
            vk::StructureType::PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR => {
                (*p.cast::<vk::PhysicalDevicePresentIdFeaturesKHR>()).present_id = vk::TRUE;
            }
            vk::StructureType::PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR => {
                (*p.cast::<vk::PhysicalDevicePresentWaitFeaturesKHR>()).present_wait = vk::TRUE;
            }
            st::PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR => {
                (*p.cast::<registry::PhysicalDevicePresentId2FeaturesKHR>()).present_id2 = vk::TRUE;
            }
            st::PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR => {
                (*p.cast::<registry::PhysicalDevicePresentWait2FeaturesKHR>()).present_wait2 =
                    vk::TRUE;
            }
            st::PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT => {
                let f = &mut *p.cast::<registry::PhysicalDevicePresentTimingFeaturesEXT>();
                f.present_timing = vk::TRUE;
                f.present_at_absolute_time = vk::TRUE;
                f.present_at_relative_time = vk::TRUE;
            }
            _ => {}
        }
    }
}

/// `vkGetPhysicalDeviceCalibrateableTimeDomainsKHR` / `EXT`: the driver's list (its EXT
/// command; the KHR extension promoted the EXT one unchanged), plus SWAPCHAIN_LOCAL and
/// PRESENT_STAGE_LOCAL with `timing_domains = local` (`timing::Domains::calibrateable`), written
/// with the count / VK_INCOMPLETE protocol.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn calibrateable_time_domains(
    pd: vk::PhysicalDevice,
    count: *mut u32,
    domains: *mut vk::TimeDomainKHR,
) -> vk::Result {
    // SAFETY: valid physical device.
    let Some(inst) = (unsafe { Instance::of_physical(pd) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let fp = inst
        .calibrated
        .get_physical_device_calibrateable_time_domains_ext;
    let ours = Domains::of(&inst.settings);
    if ours == Domains::MONOTONIC {
        // SAFETY: same arguments, same meaning: today's list, unchanged.
        return unsafe { fp(pd, count, domains) };
    }
    // The driver's whole list (two calls; again if it grew in between).
    let driver = loop {
        let mut n = 0u32;
        // SAFETY: a count query.
        let res = unsafe { fp(pd, &mut n, std::ptr::null_mut()) };
        if res != vk::Result::SUCCESS {
            return res;
        }
        let mut list = vec![vk::TimeDomainKHR::DEVICE; n as usize];
        // SAFETY: `list` holds `n` elements.
        let res = unsafe { fp(pd, &mut n, list.as_mut_ptr()) };
        match res {
            vk::Result::SUCCESS => {
                list.truncate(n as usize);
                break list;
            }
            vk::Result::INCOMPLETE => continue,
            e => return e,
        }
    };
    // SAFETY: caller's contract.
    unsafe { extensions::write_array(&ours.calibrateable(&driver), count, domains) }
}
