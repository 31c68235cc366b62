//! The registry's structures ash 0.38 lacks, `#[repr(C)]` in the registry's member order, with
//! ash's marker traits so they chain with `push_next` (see the module above for the rules).

use std::ffi::c_void;
use std::marker::PhantomData;

use ash::vk;

use super::*;

/// Declares a `#[repr(C)]` structure that starts with `sType`/`pNext`, its `Default` (right
/// `sType`, null `pNext`, zeroed members) and its `TaggedStructure` impl.
macro_rules! tagged_struct {
    (
        $(#[$doc:meta])*
        $name:ident, $stype:expr, $pnext:ty {
            $($(#[$mdoc:meta])* $member:ident: $mty:ty = $mdefault:expr,)*
        }
    ) => {
        $(#[$doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug)]
        pub struct $name<'a> {
            /// The structure type; always the registry's value for this structure.
            pub s_type: vk::StructureType,
            /// `NULL` or the next structure in the chain.
            pub p_next: $pnext,
            $($(#[$mdoc])* pub $member: $mty,)*
            /// Ties borrowed pointers to the lifetime of what they point at.
            pub _marker: PhantomData<&'a ()>,
        }

        impl Default for $name<'_> {
            fn default() -> Self {
                Self {
                    s_type: $stype,
                    p_next: std::ptr::null_mut::<c_void>() as $pnext,
                    $($member: $mdefault,)*
                    _marker: PhantomData,
                }
            }
        }

        // SAFETY: `#[repr(C)]` with `sType` then `pNext` first, as in `VkBaseInStructure`, and
        // `Default` (the only constructor that sets `s_type`) sets it to `STRUCTURE_TYPE`.
        unsafe impl vk::TaggedStructure for $name<'_> {
            const STRUCTURE_TYPE: vk::StructureType = $stype;
        }
    };
}

tagged_struct! {
    /// `VkPhysicalDevicePresentId2FeaturesKHR`: whether `VkPresentId2KHR` may be used.
    PhysicalDevicePresentId2FeaturesKHR,
    structure_type::PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR, *mut c_void {
        /// Present ids through `VkPresentId2KHR` in `VkPresentInfoKHR`.
        present_id2: vk::Bool32 = vk::FALSE,
    }
}

tagged_struct! {
    /// `VkSurfaceCapabilitiesPresentId2KHR`: whether a surface accepts present ids (id2).
    SurfaceCapabilitiesPresentId2KHR,
    structure_type::SURFACE_CAPABILITIES_PRESENT_ID_2_KHR, *mut c_void {
        /// Swapchains of this surface accept `VkPresentId2KHR`.
        present_id2_supported: vk::Bool32 = vk::FALSE,
    }
}

tagged_struct! {
    /// `VkPresentId2KHR`: one present id per swapchain of a `vkQueuePresentKHR` call.
    PresentId2KHR, structure_type::PRESENT_ID_2_KHR, *const c_void {
        /// Copy of `VkPresentInfoKHR::swapchainCount`.
        swapchain_count: u32 = 0,
        /// `NULL` or `swapchain_count` ids; zero means "no id" for that swapchain.
        p_present_ids: *const u64 = std::ptr::null(),
    }
}

impl<'a> PresentId2KHR<'a> {
    /// Sets the ids (and the count) from a slice.
    pub fn present_ids(mut self, ids: &'a [u64]) -> Self {
        self.swapchain_count = ids.len() as u32;
        self.p_present_ids = ids.as_ptr();
        self
    }
}

tagged_struct! {
    /// `VkPhysicalDevicePresentWait2FeaturesKHR`: whether `vkWaitForPresent2KHR` may be used.
    PhysicalDevicePresentWait2FeaturesKHR,
    structure_type::PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR, *mut c_void {
        /// `vkWaitForPresent2KHR` is supported.
        present_wait2: vk::Bool32 = vk::FALSE,
    }
}

tagged_struct! {
    /// `VkSurfaceCapabilitiesPresentWait2KHR`: whether a surface supports present wait (2).
    SurfaceCapabilitiesPresentWait2KHR,
    structure_type::SURFACE_CAPABILITIES_PRESENT_WAIT_2_KHR, *mut c_void {
        /// Swapchains of this surface support `vkWaitForPresent2KHR`.
        present_wait2_supported: vk::Bool32 = vk::FALSE,
    }
}

tagged_struct! {
    /// `VkPresentWait2InfoKHR`: the present id and timeout of `vkWaitForPresent2KHR`.
    PresentWait2InfoKHR, structure_type::PRESENT_WAIT_2_INFO_KHR, *const c_void {
        /// The present id to wait for.
        present_id: u64 = 0,
        /// Timeout in nanoseconds.
        timeout: u64 = 0,
    }
}

impl PresentWait2InfoKHR<'_> {
    /// Sets the present id to wait for.
    pub fn present_id(mut self, present_id: u64) -> Self {
        self.present_id = present_id;
        self
    }
    /// Sets the timeout in nanoseconds.
    pub fn timeout(mut self, timeout: u64) -> Self {
        self.timeout = timeout;
        self
    }
}

tagged_struct! {
    /// `VkPhysicalDevicePresentTimingFeaturesEXT`.
    PhysicalDevicePresentTimingFeaturesEXT,
    structure_type::PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT, *mut c_void {
        /// `vkGetPastPresentationTimingEXT` is supported (required with the extension).
        present_timing: vk::Bool32 = vk::FALSE,
        /// Absolute target present times are honoured.
        present_at_absolute_time: vk::Bool32 = vk::FALSE,
        /// Relative target present times (minimum durations) are honoured.
        present_at_relative_time: vk::Bool32 = vk::FALSE,
    }
}

tagged_struct! {
    /// `VkPresentTimingSurfaceCapabilitiesEXT`: present timing support of one surface.
    PresentTimingSurfaceCapabilitiesEXT,
    structure_type::PRESENT_TIMING_SURFACE_CAPABILITIES_EXT, *mut c_void {
        /// Timing results can be queried for swapchains of this surface.
        present_timing_supported: vk::Bool32 = vk::FALSE,
        /// Absolute target times are supported.
        present_at_absolute_time_supported: vk::Bool32 = vk::FALSE,
        /// Relative target times are supported.
        present_at_relative_time_supported: vk::Bool32 = vk::FALSE,
        /// The stages timing can be reported for (at least `QUEUE_OPERATIONS_END`).
        present_stage_queries: PresentStageFlagsEXT = PresentStageFlagsEXT::empty(),
    }
}

tagged_struct! {
    /// `VkSwapchainCalibratedTimestampInfoEXT`: names the swapchain-local (or stage-local) time
    /// domain a `VkCalibratedTimestampInfoKHR` asks for. ash 0.38 has no
    /// `ExtendsCalibratedTimestampInfoKHR` trait; chain it with [`Self::chain_onto`].
    SwapchainCalibratedTimestampInfoEXT,
    structure_type::SWAPCHAIN_CALIBRATED_TIMESTAMP_INFO_EXT, *const c_void {
        /// The swapchain whose time domain is calibrated.
        swapchain: vk::SwapchainKHR = vk::SwapchainKHR::null(),
        /// Zero for `SWAPCHAIN_LOCAL`, or the single stage of a `PRESENT_STAGE_LOCAL` domain.
        present_stage: PresentStageFlagsEXT = PresentStageFlagsEXT::empty(),
        /// The id `vkGetSwapchainTimeDomainPropertiesEXT` gave the domain.
        time_domain_id: u64 = 0,
    }
}

impl<'a> SwapchainCalibratedTimestampInfoEXT<'a> {
    /// Puts `self` at the head of `info`'s `pNext` chain (what `push_next` would do).
    pub fn chain_onto(
        &'a mut self,
        info: vk::CalibratedTimestampInfoKHR<'a>,
    ) -> vk::CalibratedTimestampInfoKHR<'a> {
        self.p_next = info.p_next;
        vk::CalibratedTimestampInfoKHR {
            p_next: (self as *const Self).cast(),
            ..info
        }
    }
}

tagged_struct! {
    /// `VkSwapchainTimingPropertiesEXT`: the refresh cycle of the engine behind a swapchain.
    SwapchainTimingPropertiesEXT,
    structure_type::SWAPCHAIN_TIMING_PROPERTIES_EXT, *mut c_void {
        /// Nanoseconds from the start of one refresh cycle to the next (0: unknown).
        refresh_duration: u64 = 0,
        /// Nanoseconds between refresh cycles; equal to `refresh_duration` on a fixed-rate
        /// display, `u64::MAX` on a variable-rate one, 0 if unknown.
        refresh_interval: u64 = 0,
    }
}

tagged_struct! {
    /// `VkSwapchainTimeDomainPropertiesEXT`: the time domains a swapchain offers.
    SwapchainTimeDomainPropertiesEXT,
    structure_type::SWAPCHAIN_TIME_DOMAIN_PROPERTIES_EXT, *mut c_void {
        /// In: capacity of both arrays; out: the number written (or available, if both null).
        time_domain_count: u32 = 0,
        /// `NULL` or `time_domain_count` time domains.
        p_time_domains: *mut vk::TimeDomainKHR = std::ptr::null_mut(),
        /// `NULL` or `time_domain_count` ids, one per domain.
        p_time_domain_ids: *mut u64 = std::ptr::null_mut(),
    }
}

tagged_struct! {
    /// `VkPastPresentationTimingInfoEXT`: which swapchain `vkGetPastPresentationTimingEXT`
    /// reads and how.
    PastPresentationTimingInfoEXT,
    structure_type::PAST_PRESENTATION_TIMING_INFO_EXT, *const c_void {
        /// Partial and out-of-order options.
        flags: PastPresentationTimingFlagsEXT = PastPresentationTimingFlagsEXT::empty(),
        /// The swapchain to read results of.
        swapchain: vk::SwapchainKHR = vk::SwapchainKHR::null(),
    }
}

tagged_struct! {
    /// `VkPastPresentationTimingPropertiesEXT`: the results `vkGetPastPresentationTimingEXT`
    /// returns.
    PastPresentationTimingPropertiesEXT,
    structure_type::PAST_PRESENTATION_TIMING_PROPERTIES_EXT, *mut c_void {
        /// The swapchain's timing-properties counter now.
        timing_properties_counter: u64 = 0,
        /// The swapchain's time-domains counter now.
        time_domains_counter: u64 = 0,
        /// In: capacity of `p_presentation_timings`; out: the number written (or available).
        presentation_timing_count: u32 = 0,
        /// `NULL` or `presentation_timing_count` entries.
        p_presentation_timings: *mut PastPresentationTimingEXT<'a> = std::ptr::null_mut(),
    }
}

tagged_struct! {
    /// `VkPastPresentationTimingEXT`: timing of one earlier present.
    PastPresentationTimingEXT,
    structure_type::PAST_PRESENTATION_TIMING_EXT, *mut c_void {
        /// The present id (`VkPresentId2KHR`) or zero.
        present_id: u64 = 0,
        /// The target time or duration the application gave.
        target_time: u64 = 0,
        /// In: capacity of `p_present_stages`; out: the number of stages written.
        present_stage_count: u32 = 0,
        /// Stage results; a time of 0 means that stage has no result (e.g. a replaced image).
        p_present_stages: *mut PresentStageTimeEXT = std::ptr::null_mut(),
        /// The time domain of the stage times.
        time_domain: vk::TimeDomainKHR = vk::TimeDomainKHR::DEVICE,
        /// The id of that time domain.
        time_domain_id: u64 = 0,
        /// Whether every requested stage has been reported.
        report_complete: vk::Bool32 = vk::FALSE,
    }
}

tagged_struct! {
    /// `VkPresentTimingsInfoEXT`: per-swapchain timing requests of one `vkQueuePresentKHR`.
    PresentTimingsInfoEXT, structure_type::PRESENT_TIMINGS_INFO_EXT, *const c_void {
        /// Copy of `VkPresentInfoKHR::swapchainCount`.
        swapchain_count: u32 = 0,
        /// `NULL` or one `VkPresentTimingInfoEXT` per swapchain.
        p_timing_infos: *const PresentTimingInfoEXT<'a> = std::ptr::null(),
    }
}

impl<'a> PresentTimingsInfoEXT<'a> {
    /// Sets the per-swapchain infos (and the count) from a slice.
    pub fn timing_infos(mut self, infos: &'a [PresentTimingInfoEXT<'a>]) -> Self {
        self.swapchain_count = infos.len() as u32;
        self.p_timing_infos = infos.as_ptr();
        self
    }
}

tagged_struct! {
    /// `VkPresentTimingInfoEXT`: the target time and stage queries of one swapchain's present.
    PresentTimingInfoEXT, structure_type::PRESENT_TIMING_INFO_EXT, *const c_void {
        /// Relative / nearest-refresh options.
        flags: PresentTimingInfoFlagsEXT = PresentTimingInfoFlagsEXT::empty(),
        /// Zero, or the absolute time / relative duration in nanoseconds.
        target_time: u64 = 0,
        /// The time domain of `target_time` and of the results.
        time_domain_id: u64 = 0,
        /// The stages to report timing for (zero: none; no results-queue slot is used).
        present_stage_queries: PresentStageFlagsEXT = PresentStageFlagsEXT::empty(),
        /// The stage whose local domain `target_time` is in, for stage-local domains.
        target_time_domain_present_stage: PresentStageFlagsEXT = PresentStageFlagsEXT::empty(),
    }
}

/// `VkPresentStageTimeEXT`: the time of one present stage (not a tagged structure).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PresentStageTimeEXT {
    /// The stage (a single bit).
    pub stage: PresentStageFlagsEXT,
    /// Nanoseconds in the entry's time domain; 0 when the stage has no result.
    pub time: u64,
}

// SAFETY (all below): each type is a `#[repr(C)]` structure beginning with `sType`/`pNext`
// (layout-compatible with `VkBaseOutStructure`), and the registry lists the extended structure
// in its `structextends` attribute, which is the contract of ash's `Extends*` marker traits.
// SAFETY: vk.xml: VkPhysicalDevicePresentId2FeaturesKHR structextends VkPhysicalDeviceFeatures2.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for PhysicalDevicePresentId2FeaturesKHR<'_> {}
// SAFETY: vk.xml: VkPhysicalDevicePresentId2FeaturesKHR structextends VkDeviceCreateInfo.
unsafe impl vk::ExtendsDeviceCreateInfo for PhysicalDevicePresentId2FeaturesKHR<'_> {}
// SAFETY: vk.xml: VkPhysicalDevicePresentWait2FeaturesKHR structextends VkPhysicalDeviceFeatures2.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for PhysicalDevicePresentWait2FeaturesKHR<'_> {}
// SAFETY: vk.xml: VkPhysicalDevicePresentWait2FeaturesKHR structextends VkDeviceCreateInfo.
unsafe impl vk::ExtendsDeviceCreateInfo for PhysicalDevicePresentWait2FeaturesKHR<'_> {}
// SAFETY: vk.xml: VkPhysicalDevicePresentTimingFeaturesEXT structextends VkPhysicalDeviceFeatures2.
unsafe impl vk::ExtendsPhysicalDeviceFeatures2 for PhysicalDevicePresentTimingFeaturesEXT<'_> {}
// SAFETY: vk.xml: VkPhysicalDevicePresentTimingFeaturesEXT structextends VkDeviceCreateInfo.
unsafe impl vk::ExtendsDeviceCreateInfo for PhysicalDevicePresentTimingFeaturesEXT<'_> {}
// SAFETY: vk.xml: VkSurfaceCapabilitiesPresentId2KHR structextends VkSurfaceCapabilities2KHR.
unsafe impl vk::ExtendsSurfaceCapabilities2KHR for SurfaceCapabilitiesPresentId2KHR<'_> {}
// SAFETY: vk.xml: VkSurfaceCapabilitiesPresentWait2KHR structextends VkSurfaceCapabilities2KHR.
unsafe impl vk::ExtendsSurfaceCapabilities2KHR for SurfaceCapabilitiesPresentWait2KHR<'_> {}
// SAFETY: vk.xml: VkPresentTimingSurfaceCapabilitiesEXT structextends VkSurfaceCapabilities2KHR.
unsafe impl vk::ExtendsSurfaceCapabilities2KHR for PresentTimingSurfaceCapabilitiesEXT<'_> {}
// SAFETY: vk.xml: VkPresentId2KHR structextends VkPresentInfoKHR.
unsafe impl vk::ExtendsPresentInfoKHR for PresentId2KHR<'_> {}
// SAFETY: vk.xml: VkPresentTimingsInfoEXT structextends VkPresentInfoKHR.
unsafe impl vk::ExtendsPresentInfoKHR for PresentTimingsInfoEXT<'_> {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// Layouts the C header gives on LP64 (sType 4 + pad 4, pNext 8, then members).
    #[test]
    fn layouts_match_the_c_header() {
        assert_eq!(size_of::<PresentId2KHR>(), 32);
        assert_eq!(offset_of!(PresentId2KHR, p_present_ids), 24);
        assert_eq!(size_of::<PresentWait2InfoKHR>(), 32);
        assert_eq!(size_of::<PhysicalDevicePresentTimingFeaturesEXT>(), 32);
        assert_eq!(size_of::<PresentTimingSurfaceCapabilitiesEXT>(), 32);
        assert_eq!(size_of::<SwapchainCalibratedTimestampInfoEXT>(), 40);
        assert_eq!(size_of::<SwapchainTimingPropertiesEXT>(), 32);
        assert_eq!(size_of::<SwapchainTimeDomainPropertiesEXT>(), 40);
        assert_eq!(size_of::<PastPresentationTimingInfoEXT>(), 32);
        assert_eq!(size_of::<PastPresentationTimingPropertiesEXT>(), 48);
        assert_eq!(size_of::<PastPresentationTimingEXT>(), 72);
        assert_eq!(offset_of!(PastPresentationTimingEXT, report_complete), 64);
        assert_eq!(size_of::<PresentTimingsInfoEXT>(), 32);
        assert_eq!(size_of::<PresentTimingInfoEXT>(), 48);
        assert_eq!(size_of::<PresentStageTimeEXT>(), 16);
    }

    #[test]
    fn push_next_chains_the_new_structures() {
        let ids = [7u64];
        let mut id2 = PresentId2KHR::default().present_ids(&ids);
        let info = vk::PresentInfoKHR::default().push_next(&mut id2);
        assert_eq!(info.p_next, (&id2 as *const PresentId2KHR).cast());
        assert_eq!(id2.s_type, structure_type::PRESENT_ID_2_KHR);
    }
}
