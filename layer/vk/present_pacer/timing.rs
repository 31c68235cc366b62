//! Present timing in the present replacement: vkpace's `VkPresentTimingInfoEXT` per swapchain
//! (the machine's request, the swapchain's timing shell's structure), the results read back
//! after each present, a refusal vkpace caused, and the application taking timing over.

use ash::prelude::VkResult;

use ash::vk;

use super::PresentPacer;
use crate::vk::error::Result;
use vkpace_core::PresentTimingRequest;
use vkpace_registry::PresentTimingInfoEXT;

/// The `VkPresentTimingInfoEXT` array of the present being made, kept so a steady frame does not
/// allocate.
#[derive(Debug, Default)]
pub(super) struct TimingInfos(pub(super) Vec<PresentTimingInfoEXT<'static>>);

// SAFETY: the entries are filled and cleared within one present's plan and calls down
// (between presents only the capacity is kept), and each entry's `pNext` is null: nothing a
// pointer could point at is shared with another thread.
unsafe impl Send for TimingInfos {}

impl PresentPacer {
    /// The application drives present timing on this present's swapchains itself: vkpace's
    /// timing on them stops (its stage queries would take the application's queue slots, and
    /// its targets would contradict the application's). A present mode switch does not stop it:
    /// the machine follows the mode (`plan_target`).
    pub(super) fn timing_taken_over(&mut self) {
        let mut stopped = false;
        for &(w, _) in &self.scratch.targets {
            stopped |= self.machine.is_timed(w);
            self.machine.stop_present_timing(w);
        }
        if stopped && !std::mem::replace(&mut self.logged.timing_taken_over, true) {
            log::info!("vkpace: the application drives present timing itself: vkpace's present timing stops for that swapchain, the CPU limiter paces it");
        }
    }

    /// `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT` on a present whose timing vkpace added is
    /// vkpace's doing, never the application's (which asked for no timing): the application
    /// gets its swapchains' results as it sees them ([`overall_seen`]; the machine
    /// hears of the refusal from the driver's results, and no later present asks for more slots
    /// than the engine has).
    pub(super) fn refused_for_timing(
        &mut self,
        result: VkResult<bool>,
        timed: bool,
    ) -> VkResult<bool> {
        match result {
            Err(vkpace_registry::ERROR_PRESENT_TIMING_QUEUE_FULL_EXT) if timed => {
                log::warn!("vkpace: the presentation engine's timing results queue was full: one frame not shown");
                overall_seen(&self.scratch.results, timed)
            }
            other => other,
        }
    }

    /// The present timing structure of the machine's `request` for `w`, from its swapchain's
    /// timing shell (none where vkpace set no timing up for it).
    pub(super) fn timing_info(
        &self,
        w: vk::SwapchainKHR,
        request: &PresentTimingRequest,
    ) -> Option<PresentTimingInfoEXT<'static>> {
        let made = self.swapchains.iter().find(|m| m.handle == w)?;
        made.timing.as_ref()?.present_info(w, request)
    }

    /// Reads the timed swapchains' present timing results without blocking, and hands them,
    /// and a refresh that changed, to the machine.
    pub(super) fn read_timings(&mut self) -> Result<()> {
        let device = self.vk.device.handle();
        for k in 0.. {
            let Some(w) = self.machine.timed_swapchains().nth(k) else {
                break;
            };
            let Some(timing) = self
                .swapchains
                .iter_mut()
                .find(|m| m.handle == w)
                .and_then(|m| m.timing.as_mut())
            else {
                continue;
            };
            // SAFETY: `w` is alive (the machine times only swapchains not yet destroyed) and
            // was made by this device with the present timing flag.
            let (reports, refresh) = unsafe { timing.read(device, w, &self.vk.clock) };
            self.machine.present_timings(w, reports);
            match refresh {
                Ok(Some(refresh)) => self.machine.display_timing_changed(w, refresh),
                Ok(None) => {}
                Err(e) => {
                    if !std::mem::replace(&mut self.logged.timing_read, true) {
                        log::warn!("vkpace: reading present timing results: {e}");
                    }
                }
            }
        }
        Ok(())
    }
}

/// A swapchain's result as the application sees it. Where vkpace added present timing to a
/// present, every `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT` of it is vkpace's doing (an
/// application that asks for timing itself stops vkpace's): that swapchain's image was not
/// shown, but the present's waits executed ("the set of queue operations are still considered
/// to be enqueued", `vkQueuePresentKHR`), so the application is told success.
pub(super) fn as_seen(result: vk::Result, timed: bool) -> vk::Result {
    match result {
        vkpace_registry::ERROR_PRESENT_TIMING_QUEUE_FULL_EXT if timed => vk::Result::SUCCESS,
        other => other,
    }
}

/// The present's result as the application sees it, from its swapchains' ([`as_seen`]): the
/// first error, else `SUBOPTIMAL_KHR` where any is.
pub(super) fn overall_seen(results: &[vk::Result], timed: bool) -> VkResult<bool> {
    let mut suboptimal = false;
    for &r in results {
        match as_seen(r, timed) {
            vk::Result::SUBOPTIMAL_KHR => suboptimal = true,
            e if e.as_raw() < 0 => return Err(e),
            _ => {}
        }
    }
    Ok(suboptimal)
}
