//! The surface queries, answered for virtual surfaces and passed down for the others.

use std::ffi::c_void;

use ash::vk;
use vkpace_layer_plumbing::call_next;
use vkpace_registry::{self as registry, structure_type as st};

use crate::extensions::write_array;
use crate::instance::Instance;
use crate::surface::{self, Surface, PRESENT_MODES};
use vkpace_layer_plumbing::chain;

/// Looks up the instance of `pd`, or returns `ERROR_INITIALIZATION_FAILED` from the caller.
macro_rules! instance_or_fail {
    ($pd:expr) => {
        // SAFETY: the application passes a valid physical device.
        match unsafe { Instance::of_physical($pd) } {
            Some(i) => i,
            None => return vk::Result::ERROR_INITIALIZATION_FAILED,
        }
    };
}

/// `vkGetPhysicalDeviceSurfaceSupportKHR`: every queue family can present to a virtual surface.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn support(
    pd: vk::PhysicalDevice,
    family: u32,
    sfc: vk::SurfaceKHR,
    out: *mut vk::Bool32,
) -> vk::Result {
    let inst = instance_or_fail!(pd);
    match surface::lookup(sfc) {
        Some(s) if s.is_lost() => vk::Result::ERROR_SURFACE_LOST_KHR,
        Some(_) => {
            // SAFETY: valid out-pointer.
            unsafe { *out = vk::TRUE };
            vk::Result::SUCCESS
        }
        // SAFETY: not ours: down the chain unchanged.
        None => unsafe {
            (inst.surface.get_physical_device_surface_support_khr)(pd, family, sfc, out)
        },
    }
}

/// `vkGetPhysicalDeviceSurfaceCapabilitiesKHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn capabilities(
    pd: vk::PhysicalDevice,
    sfc: vk::SurfaceKHR,
    out: *mut vk::SurfaceCapabilitiesKHR,
) -> vk::Result {
    let inst = instance_or_fail!(pd);
    match surface::lookup(sfc) {
        Some(s) if s.is_lost() => vk::Result::ERROR_SURFACE_LOST_KHR,
        Some(s) => {
            s.note_capability_query();
            // SAFETY: valid out-pointer.
            unsafe { *out = s.capabilities() };
            vk::Result::SUCCESS
        }
        // SAFETY: not ours: down the chain unchanged.
        None => unsafe {
            (inst.surface.get_physical_device_surface_capabilities_khr)(pd, sfc, out)
        },
    }
}

/// `vkGetPhysicalDeviceSurfaceCapabilities2KHR`, with the maintenance1, present id2 / wait2 and
/// present timing structures of the output chain.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn capabilities2(
    pd: vk::PhysicalDevice,
    info: *const vk::PhysicalDeviceSurfaceInfo2KHR<'_>,
    out: *mut vk::SurfaceCapabilities2KHR<'_>,
) -> vk::Result {
    let inst = instance_or_fail!(pd);
    // SAFETY: valid input structure.
    let info_ref = unsafe { &*info };
    let Some(s) = surface::lookup(info_ref.surface) else {
        // SAFETY: not ours: down the chain unchanged.
        return unsafe {
            (inst.surface2.get_physical_device_surface_capabilities2_khr)(pd, info, out)
        };
    };
    if s.is_lost() {
        return vk::Result::ERROR_SURFACE_LOST_KHR;
    }
    s.note_capability_query();
    // SAFETY: the input chain is valid; VkSurfacePresentModeEXT names the mode asked about.
    let mode = unsafe { chain::find::<vk::SurfacePresentModeEXT>(info_ref.p_next) }
        .map(|m| m.present_mode);
    // SAFETY: valid output structure and chain.
    unsafe {
        (*out).surface_capabilities = s.capabilities();
        chain::for_each_out((*out).p_next, |p, ty| fill_caps2(&s, mode, p, ty));
    }
    vk::Result::SUCCESS
}

/// Fills one structure of the capabilities-2 output chain.
fn fill_caps2(
    s: &Surface,
    mode: Option<vk::PresentModeKHR>,
    p: *mut c_void,
    ty: vk::StructureType,
) {
    // SAFETY: (every arm) the sType identifies the structure, which the caller owns mutably.
    unsafe {
        match ty {
            vk::StructureType::SURFACE_PRESENT_MODE_COMPATIBILITY_EXT => {
                let c = &mut *p.cast::<vk::SurfacePresentModeCompatibilityEXT>();
                let list = mode.map(|m| s.compatible_modes(m)).unwrap_or_default();
                let _ = write_array(&list, &mut c.present_mode_count, c.p_present_modes);
            }
            vk::StructureType::SURFACE_PRESENT_SCALING_CAPABILITIES_EXT => {
                fill_scaling_caps(&mut *p.cast::<vk::SurfacePresentScalingCapabilitiesEXT>());
            }
            vk::StructureType::SURFACE_PROTECTED_CAPABILITIES_KHR => {
                (*p.cast::<vk::SurfaceProtectedCapabilitiesKHR>()).supports_protected = vk::FALSE;
            }
            // The `surface_present_id2` / `surface_present_wait2` settings: a surface may say no
            // while the device offers the extensions (the per-surface part of present_wait2).
            st::SURFACE_CAPABILITIES_PRESENT_ID_2_KHR => {
                (*p.cast::<registry::SurfaceCapabilitiesPresentId2KHR>()).present_id2_supported =
                    vk::Bool32::from(s.settings.surface_present_id2);
            }
            st::SURFACE_CAPABILITIES_PRESENT_WAIT_2_KHR => {
                (*p.cast::<registry::SurfaceCapabilitiesPresentWait2KHR>())
                    .present_wait2_supported = vk::Bool32::from(s.settings.surface_present_wait2);
            }
            st::PRESENT_TIMING_SURFACE_CAPABILITIES_EXT => {
                fill_timing_caps(
                    s,
                    &mut *p.cast::<registry::PresentTimingSurfaceCapabilitiesEXT>(),
                );
            }
            _ => {}
        }
    }
}

/// Fills `VkSurfacePresentScalingCapabilitiesEXT`: every scaling and gravity, scaled extents
/// from 1x1 to 16384x16384.
fn fill_scaling_caps(c: &mut vk::SurfacePresentScalingCapabilitiesEXT) {
    c.supported_present_scaling = vk::PresentScalingFlagsEXT::ONE_TO_ONE
        | vk::PresentScalingFlagsEXT::ASPECT_RATIO_STRETCH
        | vk::PresentScalingFlagsEXT::STRETCH;
    let g = vk::PresentGravityFlagsEXT::MIN
        | vk::PresentGravityFlagsEXT::MAX
        | vk::PresentGravityFlagsEXT::CENTERED;
    c.supported_present_gravity_x = g;
    c.supported_present_gravity_y = g;
    c.min_scaled_image_extent = vk::Extent2D {
        width: 1,
        height: 1,
    };
    c.max_scaled_image_extent = vk::Extent2D {
        width: 16384,
        height: 16384,
    };
}

/// Fills `VkPresentTimingSurfaceCapabilitiesEXT` from the `surface_present_timing` setting:
/// what this surface takes.
fn fill_timing_caps(s: &Surface, c: &mut registry::PresentTimingSurfaceCapabilitiesEXT) {
    let offer = s.settings.surface_present_timing;
    c.present_timing_supported = offer.supported.into();
    c.present_at_absolute_time_supported = (offer.supported && offer.absolute).into();
    c.present_at_relative_time_supported = (offer.supported && offer.relative).into();
    c.present_stage_queries = if offer.supported {
        crate::timing::STAGES
    } else {
        registry::PresentStageFlagsEXT::empty()
    };
}

/// `vkGetPhysicalDeviceSurfaceFormatsKHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn formats(
    pd: vk::PhysicalDevice,
    sfc: vk::SurfaceKHR,
    count: *mut u32,
    out: *mut vk::SurfaceFormatKHR,
) -> vk::Result {
    let inst = instance_or_fail!(pd);
    match surface::lookup(sfc) {
        Some(s) if s.is_lost() => vk::Result::ERROR_SURFACE_LOST_KHR,
        // SAFETY: caller's contract.
        Some(s) => unsafe { write_array(&s.formats(), count, out) },
        // SAFETY: not ours: down the chain unchanged.
        None => unsafe {
            (inst.surface.get_physical_device_surface_formats_khr)(pd, sfc, count, out)
        },
    }
}

/// `vkGetPhysicalDeviceSurfaceFormats2KHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn formats2(
    pd: vk::PhysicalDevice,
    info: *const vk::PhysicalDeviceSurfaceInfo2KHR<'_>,
    count: *mut u32,
    out: *mut vk::SurfaceFormat2KHR<'_>,
) -> vk::Result {
    let inst = instance_or_fail!(pd);
    // SAFETY: valid input structure.
    let Some(s) = surface::lookup(unsafe { (*info).surface }) else {
        // SAFETY: not ours: down the chain unchanged.
        return unsafe {
            (inst.surface2.get_physical_device_surface_formats2_khr)(pd, info, count, out)
        };
    };
    if s.is_lost() {
        return vk::Result::ERROR_SURFACE_LOST_KHR;
    }
    let list = s.formats();
    if out.is_null() {
        // SAFETY: valid count pointer.
        unsafe { *count = list.len() as u32 };
        return vk::Result::SUCCESS;
    }
    // SAFETY: valid count pointer; `out` holds `*count` structures whose sType/pNext the
    // application set, so only `surface_format` is written.
    unsafe {
        let n = (*count as usize).min(list.len());
        for (i, f) in list.iter().take(n).enumerate() {
            (*out.add(i)).surface_format = *f;
        }
        *count = n as u32;
        if n < list.len() {
            vk::Result::INCOMPLETE
        } else {
            vk::Result::SUCCESS
        }
    }
}

/// `vkGetPhysicalDeviceSurfacePresentModesKHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn present_modes(
    pd: vk::PhysicalDevice,
    sfc: vk::SurfaceKHR,
    count: *mut u32,
    out: *mut vk::PresentModeKHR,
) -> vk::Result {
    let inst = instance_or_fail!(pd);
    match surface::lookup(sfc) {
        Some(s) if s.is_lost() => vk::Result::ERROR_SURFACE_LOST_KHR,
        // SAFETY: caller's contract.
        Some(_) => unsafe { write_array(&PRESENT_MODES, count, out) },
        // SAFETY: not ours: down the chain unchanged.
        None => unsafe {
            (inst.surface.get_physical_device_surface_present_modes_khr)(pd, sfc, count, out)
        },
    }
}

/// `vkGetPhysicalDevicePresentRectanglesKHR`: the whole current extent.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn present_rectangles(
    pd: vk::PhysicalDevice,
    sfc: vk::SurfaceKHR,
    count: *mut u32,
    out: *mut vk::Rect2D,
) -> vk::Result {
    let inst = instance_or_fail!(pd);
    let Some(s) = surface::lookup(sfc) else {
        // Not a virtual surface: down the chain.
        return call_next!(
            inst,
            c"vkGetPhysicalDevicePresentRectanglesKHR",
            vk::PFN_vkGetPhysicalDevicePresentRectanglesKHR,
            (pd, sfc, count, out),
            vk::Result::ERROR_EXTENSION_NOT_PRESENT
        );
    };
    let rect = vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: s.extent(),
    };
    // SAFETY: caller's contract.
    unsafe { write_array(&[rect], count, out) }
}
