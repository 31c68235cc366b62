//! The extensions this layer implements, how it advertises them and which of them the driver
//! must not see (Vulkan-ExtensionLayer's scheme: advertise in the enumerate calls and features
//! queries, strip from the create infos passed down when the driver lacks them).

use std::ffi::{c_char, CStr};

use ash::vk;
use vkpace_registry::{self as registry, structure_type as st};

/// One extension: name, spec version, and the feature structure that enables it (if any).
#[derive(Clone, Copy, Debug)]
pub struct Ext {
    /// The name.
    pub name: &'static CStr,
    /// The spec version advertised.
    pub spec_version: u32,
    /// Its features structure type, if it has one.
    pub feature: Option<vk::StructureType>,
}

/// Instance extensions the layer implements for its surfaces.
pub const INSTANCE_EXTS: &[Ext] = &[
    Ext {
        name: vk::EXT_SURFACE_MAINTENANCE1_NAME,
        spec_version: 1,
        feature: None,
    },
    Ext {
        name: registry::KHR_SURFACE_MAINTENANCE_1_NAME,
        spec_version: 1,
        feature: None,
    },
];

/// Device extensions the layer implements for its swapchains.
pub const DEVICE_EXTS: &[Ext] = &[
    Ext {
        name: vk::EXT_SWAPCHAIN_MAINTENANCE1_NAME,
        spec_version: 1,
        feature: Some(vk::StructureType::PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_EXT),
    },
    Ext {
        name: registry::KHR_SWAPCHAIN_MAINTENANCE_1_NAME,
        spec_version: 1,
        feature: Some(st::PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_KHR),
    },
    Ext {
        name: vk::KHR_PRESENT_ID_NAME,
        spec_version: 1,
        feature: Some(vk::StructureType::PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR),
    },
    Ext {
        name: vk::KHR_PRESENT_WAIT_NAME,
        spec_version: 1,
        feature: Some(vk::StructureType::PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR),
    },
    Ext {
        name: registry::KHR_PRESENT_ID_2_NAME,
        spec_version: 1,
        feature: Some(st::PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR),
    },
    Ext {
        name: registry::KHR_PRESENT_WAIT_2_NAME,
        spec_version: 1,
        feature: Some(st::PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR),
    },
    Ext {
        name: registry::EXT_PRESENT_TIMING_NAME,
        spec_version: registry::EXT_PRESENT_TIMING_SPEC_VERSION,
        feature: Some(st::PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT),
    },
    // HDR metadata is recorded per virtual swapchain (`vdisplay_hdr_metadata` reads it back).
    Ext {
        name: vk::EXT_HDR_METADATA_NAME,
        spec_version: vk::EXT_HDR_METADATA_SPEC_VERSION,
        feature: None,
    },
    // Present timing depends on the KHR name; lavapipe has only the EXT one, which the layer
    // forwards to.
    Ext {
        name: vk::KHR_CALIBRATED_TIMESTAMPS_NAME,
        spec_version: 1,
        feature: None,
    },
];

/// An extension-properties record for `ext`.
pub fn properties(ext: &Ext) -> vk::ExtensionProperties {
    let mut p = vk::ExtensionProperties {
        spec_version: ext.spec_version,
        ..Default::default()
    };
    for (dst, src) in p.extension_name.iter_mut().zip(ext.name.to_bytes()) {
        *dst = *src as c_char;
    }
    p
}

/// The name in an extension-properties record.
pub fn name_of(p: &vk::ExtensionProperties) -> &CStr {
    p.extension_name_as_c_str().unwrap_or(c"")
}

/// Writes `list` with Vulkan's two-call idiom.
///
/// # Safety
/// `count` must be valid; `out` null or valid for `*count` elements.
pub unsafe fn write_array<T: Copy>(list: &[T], count: *mut u32, out: *mut T) -> vk::Result {
    if out.is_null() {
        // SAFETY: caller's contract.
        unsafe { *count = list.len() as u32 };
        return vk::Result::SUCCESS;
    }
    // SAFETY: caller's contract.
    let cap = unsafe { *count } as usize;
    let n = cap.min(list.len());
    // SAFETY: `out` has room for `cap >= n` elements.
    unsafe {
        std::ptr::copy_nonoverlapping(list.as_ptr(), out, n);
        *count = n as u32;
    }
    if n < list.len() {
        vk::Result::INCOMPLETE
    } else {
        vk::Result::SUCCESS
    }
}

/// The extension names of a create info, as C strings.
///
/// # Safety
/// `names` must hold `count` valid C strings.
pub unsafe fn names<'a>(names: *const *const c_char, count: u32) -> Vec<&'a CStr> {
    (0..count as usize)
        // SAFETY: caller's contract.
        .map(|i| unsafe { CStr::from_ptr(*names.add(i)) })
        .collect()
}
