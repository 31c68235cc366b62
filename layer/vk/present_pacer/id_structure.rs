//! Which structure carries the present ids vkpace adds to a present: `VkPresentIdKHR` or
//! `VkPresentId2KHR`, by how each swapchain of the present was made.

use ash::vk;

use super::PresentPacer;
use crate::vk::display::{DisplayFeedback, DisplayFns};

impl PresentPacer {
    /// The structure that carries the present's ids: that of its first swapchain given one.
    /// A swapchain made for the other structure gets none (the machine hears of it): a nonzero
    /// id needs the swapchain made for its structure (`PRESENT_ID_2` for `VkPresentId2KHR`,
    /// VUID-VkPresentId2KHR-None-10820; the presentId feature for `VkPresentIdKHR`).
    pub(super) fn id_structure_of_present(&mut self) -> IdStructure {
        let mut chosen = None;
        for k in 0..self.scratch.targets.len() {
            let w = self.scratch.targets[k].0;
            if self.machine.planned_present_id(w) == 0 {
                continue;
            }
            let own = self.id_structure(w);
            match chosen {
                None if own != IdStructure::None => chosen = Some(own),
                Some(c) if c == own => {}
                _ => self.machine.present_id_not_added(w),
            }
        }
        chosen.unwrap_or(IdStructure::None)
    }

    /// The structure `swapchain`'s ids go in: `VkPresentId2KHR` where it was made for present
    /// timing (results name presents by those ids) or present_wait2, `VkPresentIdKHR` for
    /// present_wait.
    fn id_structure(&self, swapchain: vk::SwapchainKHR) -> IdStructure {
        let Some(made) = self.swapchains.iter().find(|m| m.handle == swapchain) else {
            return IdStructure::None;
        };
        if made.timing.is_some() {
            return IdStructure::Id2;
        }
        match made.display.as_ref().map(DisplayFns::feedback) {
            Some(DisplayFeedback::PresentWait2) => IdStructure::Id2,
            Some(DisplayFeedback::PresentWait) => IdStructure::Id,
            _ => IdStructure::None,
        }
    }
}

/// Which structure carries present ids.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum IdStructure {
    None,
    /// `VkPresentIdKHR` (present_wait).
    Id,
    /// `VkPresentId2KHR` (present_wait2, present timing).
    Id2,
}
