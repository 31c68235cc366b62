//! A present as both doors make it: the structures vkpace adds to its `pNext` chain (present
//! fences, ids, timing, a mode switch), and the code it returned.

use ash::prelude::VkResult;
use ash::vk;
use vkpace_core::PresentIdStructure;
use vkpace_registry::{PresentId2KHR, PresentTimingInfoEXT, PresentTimingsInfoEXT};

/// What vkpace adds to one present; `None` (or [`PresentIdStructure::None`]) adds nothing.
pub(crate) struct PresentChain<'a> {
    /// `VkSwapchainPresentFenceInfoEXT`: one fence (or null) per swapchain
    /// (VUID-VkSwapchainPresentFenceInfoEXT-swapchainCount-07757).
    pub(crate) fences: Option<&'a [vk::Fence]>,
    /// Which present-id structure carries `ids`.
    pub(crate) id_structure: PresentIdStructure,
    /// Larger than any id given before to each swapchain
    /// (VUID-VkPresentId2KHR-presentIds-10819, VUID-VkPresentIdKHR-presentIds-04999); 0 for a
    /// swapchain not paced or made for the other structure (VUID-VkPresentId2KHR-None-10820).
    pub(crate) ids: &'a [u64],
    /// `VkPresentTimingsInfoEXT`: one entry per swapchain
    /// (VUID-VkPresentTimingsInfoEXT-swapchainCount-12233), zeroed (no target, no stages) for
    /// a swapchain without vkpace's timing.
    pub(crate) timings: Option<&'a [PresentTimingInfoEXT<'static>]>,
    /// `VkSwapchainPresentModeInfoEXT`: a mode given at creation
    /// (VUID-VkSwapchainPresentModeInfoEXT-pPresentModes-07761).
    pub(crate) modes: Option<&'a [vk::PresentModeKHR]>,
}

impl PresentChain<'_> {
    /// `vkQueuePresentKHR` of `info` with these structures in front of its own chain.
    ///
    /// # Safety
    ///
    /// As `vkQueuePresentKHR` of `info` with the structures added: each is enabled on the
    /// device, none is already in `info`'s chain, and each array chained has one entry per
    /// swapchain.
    pub(crate) unsafe fn queue_present(
        &self,
        swapchain_fn: &ash::khr::swapchain::Device,
        queue: vk::Queue,
        info: vk::PresentInfoKHR<'_>,
    ) -> VkResult<bool> {
        // Rebound with a lifetime as short as the structures below.
        let mut info: vk::PresentInfoKHR<'_> = info;
        let mut fence_info = vk::SwapchainPresentFenceInfoEXT::default();
        if let Some(f) = self.fences {
            fence_info = fence_info.fences(f);
            info = info.push_next(&mut fence_info);
        }
        let mut id_info = vk::PresentIdKHR::default().present_ids(self.ids);
        let mut id2_info = PresentId2KHR::default().present_ids(self.ids);
        match self.id_structure {
            PresentIdStructure::Id2 => info = info.push_next(&mut id2_info),
            PresentIdStructure::Id => info = info.push_next(&mut id_info),
            PresentIdStructure::None => {}
        }
        let mut timings = PresentTimingsInfoEXT::default();
        if let Some(t) = self.timings {
            timings = timings.timing_infos(t);
            info = info.push_next(&mut timings);
        }
        let mut mode_info = vk::SwapchainPresentModeInfoEXT::default();
        if let Some(m) = self.modes {
            mode_info = mode_info.present_modes(m);
            info = info.push_next(&mut mode_info);
        }
        // SAFETY: the caller's contract; every structure chained lives until the call returns.
        unsafe { swapchain_fn.queue_present(queue, &info) }
    }
}

/// The code `vkQueuePresentKHR` returned, from ash's reading of it (`true`: suboptimal).
pub(crate) fn present_code(r: VkResult<bool>) -> vk::Result {
    match r {
        Ok(false) => vk::Result::SUCCESS,
        Ok(true) => vk::Result::SUBOPTIMAL_KHR,
        Err(e) => e,
    }
}
