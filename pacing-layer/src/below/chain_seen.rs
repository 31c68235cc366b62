//! What the application chained to its device create info of the feature structures the layer
//! would add (a structure appears once in a chain, VUID-VkDeviceCreateInfo-sType-unique), and
//! whether its own present wait or wait2 features are on. Read, never written.

use ash::vk;
use vkpace_registry::{
    structure_type, PhysicalDevicePresentId2FeaturesKHR, PhysicalDevicePresentWait2FeaturesKHR,
};

/// What the application chained of the feature structures the layer would add, and of present
/// wait2's.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct ChainSeen {
    /// Present timing's (`VkPhysicalDevicePresentTimingFeaturesEXT`).
    pub(super) timing: bool,
    /// Present id2's (`VkPhysicalDevicePresentId2FeaturesKHR`), which present timing needs too.
    pub(super) present_id2: bool,
    /// ... with `presentId2` on.
    pub(super) present_id2_on: bool,
    /// `VkPhysicalDevicePresentWait2FeaturesKHR` with `presentWait2` on.
    pub(super) present_wait2_on: bool,
    /// Present id's or present wait's (`VkPhysicalDevicePresentIdFeaturesKHR`,
    /// `VkPhysicalDevicePresentWaitFeaturesKHR`).
    pub(super) present_id: bool,
    /// ... with `presentId` on, and with `presentWait` on.
    pub(super) present_id_on: bool,
    pub(super) present_wait_on: bool,
    /// Swapchain maintenance1's (the KHR and EXT structures are one structure type).
    pub(super) maintenance1: bool,
    /// ... with the feature on.
    pub(super) maintenance1_on: bool,
}

/// Whether the feature `get` reads of the structure at `p` is on.
///
/// # Safety
/// `p` points at a valid `T`.
unsafe fn on<T>(p: *const std::ffi::c_void, get: fn(&T) -> vk::Bool32) -> bool {
    // SAFETY: the caller's contract.
    get(unsafe { &*p.cast::<T>() }) == vk::TRUE
}

impl ChainSeen {
    /// # Safety
    /// `p_next` is a valid chain.
    pub(super) unsafe fn of(mut p_next: *const std::ffi::c_void) -> Self {
        let mut seen = Self::default();
        while !p_next.is_null() {
            // SAFETY: every structure of a valid chain starts like VkBaseInStructure.
            let base = unsafe { &*p_next.cast::<vk::BaseInStructure<'_>>() };
            // SAFETY: a structure of the chain, of its type.
            unsafe { seen.note(p_next, base.s_type) };
            p_next = base.p_next.cast();
        }
        seen
    }

    /// Notes the structure at `p`, of type `s_type`.
    ///
    /// # Safety
    /// `p` points at a valid structure of type `s_type`.
    unsafe fn note(&mut self, p: *const std::ffi::c_void, s_type: vk::StructureType) {
        use structure_type as st;
        use vk::StructureType as vst;
        match s_type {
            st::PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT => self.timing = true,
            st::PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR => {
                self.present_id2 = true;
                // SAFETY: a structure of this type is this structure (the caller's contract).
                self.present_id2_on = unsafe {
                    on(p, |f: &PhysicalDevicePresentId2FeaturesKHR<'_>| {
                        f.present_id2
                    })
                };
            }
            st::PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR => {
                // SAFETY: as above.
                self.present_wait2_on = unsafe {
                    on(p, |f: &PhysicalDevicePresentWait2FeaturesKHR<'_>| {
                        f.present_wait2
                    })
                };
            }
            vst::PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR => {
                self.present_id = true;
                // SAFETY: as above.
                self.present_id_on = unsafe {
                    on(p, |f: &vk::PhysicalDevicePresentIdFeaturesKHR<'_>| {
                        f.present_id
                    })
                };
            }
            vst::PHYSICAL_DEVICE_PRESENT_WAIT_FEATURES_KHR => {
                self.present_id = true;
                // SAFETY: as above.
                self.present_wait_on = unsafe {
                    on(p, |f: &vk::PhysicalDevicePresentWaitFeaturesKHR<'_>| {
                        f.present_wait
                    })
                };
            }
            vst::PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_EXT => {
                self.maintenance1 = true;
                // SAFETY: as above.
                self.maintenance1_on = unsafe {
                    on(
                        p,
                        |f: &vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT<'_>| {
                            f.swapchain_maintenance1
                        },
                    )
                };
            }
            _ => {}
        }
    }
}
