//! Reading the application's `VkPresentInfoKHR` extension chain, never writing it: which of the
//! structures vkpace may add the application chained already (a structure appears at most once
//! in a chain, VUID-VkPresentInfoKHR-sType-unique, so vkpace adds none of those), and the
//! present ids it gave (vkpace's later ids must stay above them).

use ash::vk;

use vkpace_registry::structure_type;

/// What the application chained to its present.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct CallerChain {
    /// `VkPresentIdKHR` or `VkPresentId2KHR`: the ids (null where it passed a null array).
    pub(super) ids: Option<*const u64>,
    /// `VkSwapchainPresentFenceInfoKHR` (= EXT).
    pub(super) fences: bool,
    /// `VkPresentTimingsInfoEXT`.
    pub(super) timings: bool,
    /// `VkSwapchainPresentModeInfoKHR` (= EXT): the application switches present modes (the
    /// modes, one per swapchain).
    pub(super) modes: Option<*const vk::PresentModeKHR>,
}

/// The ids and fields `VkPresentIdKHR` and `VkPresentId2KHR` share.
#[repr(C)]
struct PresentIdsHeader {
    s_type: vk::StructureType,
    p_next: *const std::ffi::c_void,
    swapchain_count: u32,
    p_present_ids: *const u64,
}

/// Walks `p_next` read-only.
///
/// # Safety
///
/// `p_next` is a valid `VkPresentInfoKHR` extension chain (the application's contract for
/// `vkQueuePresentKHR`).
pub(super) unsafe fn read(p_next: *const std::ffi::c_void) -> CallerChain {
    let mut found = CallerChain::default();
    let mut at = p_next.cast::<vk::BaseInStructure<'_>>();
    while !at.is_null() {
        // SAFETY: a valid chain: each element starts with sType and pNext.
        let base = unsafe { &*at };
        match base.s_type {
            vk::StructureType::PRESENT_ID_KHR | structure_type::PRESENT_ID_2_KHR => {
                // SAFETY: both structures begin with these fields (vk.xml).
                let ids = unsafe { &*at.cast::<PresentIdsHeader>() };
                found.ids = Some(ids.p_present_ids);
            }
            structure_type::SWAPCHAIN_PRESENT_FENCE_INFO_KHR => found.fences = true,
            structure_type::PRESENT_TIMINGS_INFO_EXT => found.timings = true,
            structure_type::SWAPCHAIN_PRESENT_MODE_INFO_KHR => {
                // SAFETY: a structure of this type is this structure (the KHR and EXT ones are
                // one).
                let modes = unsafe { &*at.cast::<vk::SwapchainPresentModeInfoEXT<'_>>() };
                found.modes = Some(modes.p_present_modes);
            }
            _ => {}
        }
        at = base.p_next;
    }
    found
}
