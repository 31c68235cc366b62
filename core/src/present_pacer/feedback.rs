//! The end of a lineage's frame at its present, and what the display says of it afterwards
//! (present ids polled without blocking, once per present, as door 1's completion round does).

use super::present::Target;
use super::PacerMachine;
use crate::error::{CoreError, Failure};
use crate::present_ids::Shown;
use crate::vk_values::VkStatus;

impl<S, W> PacerMachine<S, W>
where
    S: Copy + PartialEq + std::fmt::Debug,
    W: Copy + PartialEq + std::fmt::Debug,
{
    /// Each lineage presented to ends its frame.
    pub(super) fn end_frames(
        &mut self,
        targets: &[Target<W>],
        failed: bool,
        now: u64,
    ) -> Result<(), CoreError> {
        for (k, t) in targets.iter().enumerate() {
            let i = self.find(t.swapchain).ok_or(CoreError::NoSwapchain)?;
            let chain = self.live[i].chain;
            let earlier = targets[..k]
                .iter()
                .filter_map(|e| self.find(e.swapchain))
                .any(|j| self.live[j].chain == chain);
            if earlier {
                continue;
            }
            let refused = self.pending.timing_refused;
            let awaitable = !failed && !refused && !self.pending.error_code;
            let c = self.chain_mut(chain)?;
            let frame = c.started.take().unwrap_or_else(|| c.telemetry.begin(now));
            c.gated = false;
            c.telemetry.presented(frame, now);
            if !refused {
                c.pacing.frame_presented(frame);
            }
            if t.id != 0 {
                // A failed present's id is used up, but its display is never waited for, nor
                // that of one that returned an error code
                // (VUID-vkWaitForPresent2KHR-presentId-10817); nor is a refused one's, which
                // is never shown.
                let _given_up = c.ids.presented(t.swapchain, frame, awaitable);
                self.stats.present_ids_added += 1;
            }
            self.timing_outcome(t.swapchain, t.timing.is_some(), frame, !failed);
        }
        Ok(())
    }

    /// The swapchain and present id to ask the display about now (a zero-timeout wait), if
    /// any present vkpace gave an id is awaited. A lineage with present timing learns its
    /// display from the timing results instead ([`Self::present_timings`]).
    #[must_use]
    pub fn display_query(&self) -> Option<(W, u64)> {
        self.chains
            .iter()
            .filter(|c| c.timing.is_none())
            .find_map(|c| c.ids.next_query())
    }

    /// The answer about [`Self::display_query`]'s present, seen at `now`.
    pub fn display_answer(
        &mut self,
        swapchain: W,
        status: VkStatus,
        now: u64,
    ) -> Result<(), Failure> {
        let Some(c) = self
            .chains
            .iter_mut()
            .find(|c| c.ids.next_query().is_some_and(|(w, _)| w == swapchain))
        else {
            return Ok(());
        };
        if let Shown::Frame(frame) = c.ids.answer(status)? {
            c.telemetry.displayed(frame, now);
            c.pacing.frame_displayed(frame, now, false);
        }
        Ok(())
    }
}
