//! Vulkan definitions that ash 0.38 (registry 1.3.281) lacks, transcribed once from the Vulkan
//! registry (`vk.xml`, header 1.4.359) so that vkpace and the `vdisplay` layer share them.
//!
//! * `VK_KHR_present_id2` and `VK_KHR_present_wait2` (registry 1.4.317);
//! * `VK_KHR_swapchain_maintenance1` and `VK_KHR_surface_maintenance1` (1.4.321): the EXT
//!   extensions promoted without functional change, so every structure and enum value is an
//!   alias of ash's EXT one (the registry gives the KHR names the EXT numbers: `extnumber` 275
//!   and 276);
//! * `VK_EXT_present_timing` (1.4.335).
//!
//! Enum values follow the registry's rule: `1000000000 + (extension number - 1) * 1000 + offset`,
//! negated for error codes. The structures are `#[repr(C)]` with the registry's member order,
//! and implement ash's `unsafe` marker traits (`TaggedStructure`, `Extends*`) so that they chain
//! with ash's `push_next`. Each `unsafe impl` states why the layout contract holds.

mod structs;

use std::ffi::CStr;
use std::ops::{BitAnd, BitOr};

use ash::vk;

pub use structs::*;

// ---------------------------------------------------------------------------------------------
// Extension names.

/// `VK_KHR_present_id2` (extension 480).
pub const KHR_PRESENT_ID_2_NAME: &CStr = c"VK_KHR_present_id2";
/// `VK_KHR_present_wait2` (extension 481).
pub const KHR_PRESENT_WAIT_2_NAME: &CStr = c"VK_KHR_present_wait2";
/// `VK_EXT_present_timing` (extension 209).
pub const EXT_PRESENT_TIMING_NAME: &CStr = c"VK_EXT_present_timing";
/// `VK_KHR_swapchain_maintenance1` (extension 488), promoted from `VK_EXT_swapchain_maintenance1`.
pub const KHR_SWAPCHAIN_MAINTENANCE_1_NAME: &CStr = c"VK_KHR_swapchain_maintenance1";
/// `VK_KHR_surface_maintenance1` (extension 487), promoted from `VK_EXT_surface_maintenance1`.
pub const KHR_SURFACE_MAINTENANCE_1_NAME: &CStr = c"VK_KHR_surface_maintenance1";

/// Spec version of `VK_KHR_present_id2` in the registry.
pub const KHR_PRESENT_ID_2_SPEC_VERSION: u32 = 1;
/// Spec version of `VK_KHR_present_wait2` in the registry.
pub const KHR_PRESENT_WAIT_2_SPEC_VERSION: u32 = 1;
/// Spec version of `VK_EXT_present_timing` in the registry.
pub const EXT_PRESENT_TIMING_SPEC_VERSION: u32 = 3;
/// Spec version of `VK_KHR_swapchain_maintenance1` in the registry.
pub const KHR_SWAPCHAIN_MAINTENANCE_1_SPEC_VERSION: u32 = 1;
/// Spec version of `VK_KHR_surface_maintenance1` in the registry.
pub const KHR_SURFACE_MAINTENANCE_1_SPEC_VERSION: u32 = 1;

// ---------------------------------------------------------------------------------------------
// Enum values.

/// `VkStructureType` values added by the extensions above.
pub mod structure_type {
    use ash::vk::StructureType;

    /// `VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_PRESENT_ID_2_KHR`.
    pub const SURFACE_CAPABILITIES_PRESENT_ID_2_KHR: StructureType =
        StructureType::from_raw(1_000_479_000);
    /// `VK_STRUCTURE_TYPE_PRESENT_ID_2_KHR`.
    pub const PRESENT_ID_2_KHR: StructureType = StructureType::from_raw(1_000_479_001);
    /// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR`.
    pub const PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR: StructureType =
        StructureType::from_raw(1_000_479_002);
    /// `VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_PRESENT_WAIT_2_KHR`.
    pub const SURFACE_CAPABILITIES_PRESENT_WAIT_2_KHR: StructureType =
        StructureType::from_raw(1_000_480_000);
    /// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR`.
    pub const PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR: StructureType =
        StructureType::from_raw(1_000_480_001);
    /// `VK_STRUCTURE_TYPE_PRESENT_WAIT_2_INFO_KHR`.
    pub const PRESENT_WAIT_2_INFO_KHR: StructureType = StructureType::from_raw(1_000_480_002);

    /// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT`.
    pub const PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT: StructureType =
        StructureType::from_raw(1_000_208_000);
    /// `VK_STRUCTURE_TYPE_SWAPCHAIN_TIMING_PROPERTIES_EXT`.
    pub const SWAPCHAIN_TIMING_PROPERTIES_EXT: StructureType =
        StructureType::from_raw(1_000_208_001);
    /// `VK_STRUCTURE_TYPE_SWAPCHAIN_TIME_DOMAIN_PROPERTIES_EXT`.
    pub const SWAPCHAIN_TIME_DOMAIN_PROPERTIES_EXT: StructureType =
        StructureType::from_raw(1_000_208_002);
    /// `VK_STRUCTURE_TYPE_PRESENT_TIMINGS_INFO_EXT`.
    pub const PRESENT_TIMINGS_INFO_EXT: StructureType = StructureType::from_raw(1_000_208_003);
    /// `VK_STRUCTURE_TYPE_PRESENT_TIMING_INFO_EXT`.
    pub const PRESENT_TIMING_INFO_EXT: StructureType = StructureType::from_raw(1_000_208_004);
    /// `VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_INFO_EXT`.
    pub const PAST_PRESENTATION_TIMING_INFO_EXT: StructureType =
        StructureType::from_raw(1_000_208_005);
    /// `VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_PROPERTIES_EXT`.
    pub const PAST_PRESENTATION_TIMING_PROPERTIES_EXT: StructureType =
        StructureType::from_raw(1_000_208_006);
    /// `VK_STRUCTURE_TYPE_PAST_PRESENTATION_TIMING_EXT`.
    pub const PAST_PRESENTATION_TIMING_EXT: StructureType = StructureType::from_raw(1_000_208_007);
    /// `VK_STRUCTURE_TYPE_PRESENT_TIMING_SURFACE_CAPABILITIES_EXT`.
    pub const PRESENT_TIMING_SURFACE_CAPABILITIES_EXT: StructureType =
        StructureType::from_raw(1_000_208_008);
    /// `VK_STRUCTURE_TYPE_SWAPCHAIN_CALIBRATED_TIMESTAMP_INFO_EXT`.
    pub const SWAPCHAIN_CALIBRATED_TIMESTAMP_INFO_EXT: StructureType =
        StructureType::from_raw(1_000_208_009);

    /// `VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_KHR` (= the EXT value).
    pub const PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_KHR: StructureType =
        StructureType::PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_EXT;
    /// `VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_FENCE_INFO_KHR` (= the EXT value).
    pub const SWAPCHAIN_PRESENT_FENCE_INFO_KHR: StructureType =
        StructureType::SWAPCHAIN_PRESENT_FENCE_INFO_EXT;
    /// `VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODES_CREATE_INFO_KHR` (= the EXT value).
    pub const SWAPCHAIN_PRESENT_MODES_CREATE_INFO_KHR: StructureType =
        StructureType::SWAPCHAIN_PRESENT_MODES_CREATE_INFO_EXT;
    /// `VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_MODE_INFO_KHR` (= the EXT value).
    pub const SWAPCHAIN_PRESENT_MODE_INFO_KHR: StructureType =
        StructureType::SWAPCHAIN_PRESENT_MODE_INFO_EXT;
    /// `VK_STRUCTURE_TYPE_SWAPCHAIN_PRESENT_SCALING_CREATE_INFO_KHR` (= the EXT value).
    pub const SWAPCHAIN_PRESENT_SCALING_CREATE_INFO_KHR: StructureType =
        StructureType::SWAPCHAIN_PRESENT_SCALING_CREATE_INFO_EXT;
    /// `VK_STRUCTURE_TYPE_RELEASE_SWAPCHAIN_IMAGES_INFO_KHR` (= the EXT value).
    pub const RELEASE_SWAPCHAIN_IMAGES_INFO_KHR: StructureType =
        StructureType::RELEASE_SWAPCHAIN_IMAGES_INFO_EXT;
    /// `VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_KHR` (= the EXT value).
    pub const SURFACE_PRESENT_MODE_KHR: StructureType = StructureType::SURFACE_PRESENT_MODE_EXT;
    /// `VK_STRUCTURE_TYPE_SURFACE_PRESENT_SCALING_CAPABILITIES_KHR` (= the EXT value).
    pub const SURFACE_PRESENT_SCALING_CAPABILITIES_KHR: StructureType =
        StructureType::SURFACE_PRESENT_SCALING_CAPABILITIES_EXT;
    /// `VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_COMPATIBILITY_KHR` (= the EXT value).
    pub const SURFACE_PRESENT_MODE_COMPATIBILITY_KHR: StructureType =
        StructureType::SURFACE_PRESENT_MODE_COMPATIBILITY_EXT;
}

/// `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`: a present asked for timing results while the
/// swapchain's results queue had no free slot (or was never sized). The present's queue
/// operations (its semaphore waits) still execute.
pub const ERROR_PRESENT_TIMING_QUEUE_FULL_EXT: vk::Result = vk::Result::from_raw(-1_000_208_000);

/// `VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT`: a swapchain- and stage-local time domain.
/// Implementations of `VK_EXT_present_timing` must offer at least one.
pub const TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT: vk::TimeDomainKHR =
    vk::TimeDomainKHR::from_raw(1_000_208_000);
/// `VK_TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT`: a swapchain-local time domain shared by all stages.
pub const TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT: vk::TimeDomainKHR =
    vk::TimeDomainKHR::from_raw(1_000_208_001);

/// `VkSwapchainCreateFlagBitsKHR` values added by the extensions above.
pub mod swapchain_create {
    use ash::vk::SwapchainCreateFlagsKHR;

    /// `VK_SWAPCHAIN_CREATE_DEFERRED_MEMORY_ALLOCATION_BIT_KHR` (bit 3, = the EXT bit).
    pub const DEFERRED_MEMORY_ALLOCATION_KHR: SwapchainCreateFlagsKHR =
        SwapchainCreateFlagsKHR::from_raw(0x8);
    /// `VK_SWAPCHAIN_CREATE_PRESENT_ID_2_BIT_KHR` (bit 6).
    pub const PRESENT_ID_2_KHR: SwapchainCreateFlagsKHR = SwapchainCreateFlagsKHR::from_raw(0x40);
    /// `VK_SWAPCHAIN_CREATE_PRESENT_WAIT_2_BIT_KHR` (bit 7).
    pub const PRESENT_WAIT_2_KHR: SwapchainCreateFlagsKHR = SwapchainCreateFlagsKHR::from_raw(0x80);
    /// `VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT` (bit 9).
    pub const PRESENT_TIMING_EXT: SwapchainCreateFlagsKHR =
        SwapchainCreateFlagsKHR::from_raw(0x200);
}

/// Declares a `VkFlags` bitmask newtype with its named bits.
macro_rules! flags_type {
    ($(#[$doc:meta])* $name:ident { $($(#[$bdoc:meta])* $bit:ident = $val:expr,)* }) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name(pub vk::Flags);

        impl $name {
            $($(#[$bdoc])* pub const $bit: Self = Self($val);)*

            /// No bit set.
            pub const fn empty() -> Self {
                Self(0)
            }
            /// The raw bits.
            pub const fn as_raw(self) -> vk::Flags {
                self.0
            }
            /// Whether every bit of `other` is set in `self`.
            pub const fn contains(self, other: Self) -> bool {
                self.0 & other.0 == other.0
            }
            /// Whether no bit is set.
            pub const fn is_empty(self) -> bool {
                self.0 == 0
            }
        }

        impl BitOr for $name {
            type Output = Self;
            fn bitor(self, rhs: Self) -> Self {
                Self(self.0 | rhs.0)
            }
        }

        impl BitAnd for $name {
            type Output = Self;
            fn bitand(self, rhs: Self) -> Self {
                Self(self.0 & rhs.0)
            }
        }
    };
}

flags_type! {
    /// `VkPresentStageFlagsEXT`: the steps of a present that timing can be reported for.
    PresentStageFlagsEXT {
        /// The end of the queue operations `vkQueuePresentKHR` enqueued (semaphore waits).
        QUEUE_OPERATIONS_END = 0x1,
        /// The request left the swapchain's present queue, as the present mode dictates.
        REQUEST_DEQUEUED = 0x2,
        /// The first pixel of the image left the presentation engine for the display.
        IMAGE_FIRST_PIXEL_OUT = 0x4,
        /// The display made the first pixel of the image visible.
        IMAGE_FIRST_PIXEL_VISIBLE = 0x8,
    }
}

flags_type! {
    /// `VkPresentTimingInfoFlagsEXT`: how `VkPresentTimingInfoEXT::targetTime` is read.
    PresentTimingInfoFlagsEXT {
        /// `targetTime` is the minimum duration the previous image stays visible.
        PRESENT_AT_RELATIVE_TIME = 0x1,
        /// The refresh cycle nearest to the target is acceptable, even if slightly earlier.
        PRESENT_AT_NEAREST_REFRESH_CYCLE = 0x2,
    }
}

flags_type! {
    /// `VkPastPresentationTimingFlagsEXT`: options of `vkGetPastPresentationTimingEXT`.
    PastPresentationTimingFlagsEXT {
        /// Entries with only some of the requested stages may be returned.
        ALLOW_PARTIAL_RESULTS = 0x1,
        /// Entries may be returned out of presentation order.
        ALLOW_OUT_OF_ORDER_RESULTS = 0x2,
    }
}

// ---------------------------------------------------------------------------------------------
// KHR maintenance1 aliases (identical layout and sType values to ash's EXT structures).

/// `VkPhysicalDeviceSwapchainMaintenance1FeaturesKHR`.
pub type PhysicalDeviceSwapchainMaintenance1FeaturesKHR<'a> =
    vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT<'a>;
/// `VkSwapchainPresentFenceInfoKHR`.
pub type SwapchainPresentFenceInfoKHR<'a> = vk::SwapchainPresentFenceInfoEXT<'a>;
/// `VkSwapchainPresentModesCreateInfoKHR`.
pub type SwapchainPresentModesCreateInfoKHR<'a> = vk::SwapchainPresentModesCreateInfoEXT<'a>;
/// `VkSwapchainPresentModeInfoKHR`.
pub type SwapchainPresentModeInfoKHR<'a> = vk::SwapchainPresentModeInfoEXT<'a>;
/// `VkSwapchainPresentScalingCreateInfoKHR`.
pub type SwapchainPresentScalingCreateInfoKHR<'a> = vk::SwapchainPresentScalingCreateInfoEXT<'a>;
/// `VkReleaseSwapchainImagesInfoKHR`.
pub type ReleaseSwapchainImagesInfoKHR<'a> = vk::ReleaseSwapchainImagesInfoEXT<'a>;
/// `VkSurfacePresentModeKHR`.
pub type SurfacePresentModeKHR<'a> = vk::SurfacePresentModeEXT<'a>;
/// `VkSurfacePresentScalingCapabilitiesKHR`.
pub type SurfacePresentScalingCapabilitiesKHR<'a> = vk::SurfacePresentScalingCapabilitiesEXT<'a>;
/// `VkSurfacePresentModeCompatibilityKHR`.
pub type SurfacePresentModeCompatibilityKHR<'a> = vk::SurfacePresentModeCompatibilityEXT<'a>;

/// `PFN_vkReleaseSwapchainImagesKHR` (same signature as the EXT command).
#[allow(non_camel_case_types)]
pub type PFN_vkReleaseSwapchainImagesKHR = vk::PFN_vkReleaseSwapchainImagesEXT;

// ---------------------------------------------------------------------------------------------
// Command signatures.

/// `PFN_vkWaitForPresent2KHR`.
#[allow(non_camel_case_types)]
pub type PFN_vkWaitForPresent2KHR = unsafe extern "system" fn(
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    p_present_wait2_info: *const PresentWait2InfoKHR<'_>,
) -> vk::Result;

/// `PFN_vkSetSwapchainPresentTimingQueueSizeEXT`.
#[allow(non_camel_case_types)]
pub type PFN_vkSetSwapchainPresentTimingQueueSizeEXT = unsafe extern "system" fn(
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    size: u32,
) -> vk::Result;

/// `PFN_vkGetSwapchainTimingPropertiesEXT`.
#[allow(non_camel_case_types)]
pub type PFN_vkGetSwapchainTimingPropertiesEXT = unsafe extern "system" fn(
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    p_swapchain_timing_properties: *mut SwapchainTimingPropertiesEXT<'_>,
    p_swapchain_timing_properties_counter: *mut u64,
) -> vk::Result;

/// `PFN_vkGetSwapchainTimeDomainPropertiesEXT`.
#[allow(non_camel_case_types)]
pub type PFN_vkGetSwapchainTimeDomainPropertiesEXT = unsafe extern "system" fn(
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    p_swapchain_time_domain_properties: *mut SwapchainTimeDomainPropertiesEXT<'_>,
    p_time_domains_counter: *mut u64,
) -> vk::Result;

/// `PFN_vkGetPastPresentationTimingEXT`.
#[allow(non_camel_case_types)]
pub type PFN_vkGetPastPresentationTimingEXT = unsafe extern "system" fn(
    device: vk::Device,
    p_past_presentation_timing_info: *const PastPresentationTimingInfoEXT<'_>,
    p_past_presentation_timing_properties: *mut PastPresentationTimingPropertiesEXT<'_>,
) -> vk::Result;
