//! The end of a lineage's frame at its present, and what the display says of it afterwards
//! (present ids polled without blocking, once per present, as door 1's completion round does).

use super::present::Target;
use super::PacerMachine;
use crate::error::{CoreError, Failure};
use crate::handle::Handle;
use crate::present_ids::Shown;
use crate::vk_values::VkStatus;

impl<S: Handle, W: Handle> PacerMachine<S, W> {
    /// Each lineage presented to ends its frame.
    pub(super) fn end_frames(&mut self, targets: &[Target<W>], now: u64) -> Result<(), CoreError> {
        for t in targets.iter().filter(|t| t.first_of_lineage) {
            let refused = t.refused();
            let awaitable = self.may_show_for(t);
            let failed = self.failed_for(t);
            let c = self.chain_mut(t.lineage)?;
            let frame = c.started.take().unwrap_or_else(|| c.telemetry.begin(now));
            c.gated = false;
            let given_up = if t.id != 0 {
                // A failed present's id is used up, but its display is never waited for, nor
                // that of one that returned an error code
                // (VUID-vkWaitForPresent2KHR-presentId-10817); nor is a refused one's, which
                // is never shown.
                c.ids.presented(t.swapchain, frame, awaitable)
            } else if t.caller_id != 0 && awaitable {
                // The application's own id (DXVK gives each present one): awaited the same way,
                // so the display watch tells this frame's display under it too.
                c.ids.presented_with(t.swapchain, frame, t.caller_id)
            } else {
                None
            };
            c.pacing
                .handed_over(&mut c.telemetry, frame, now, awaitable, given_up);
            self.stats.present_ids_added += u64::from(t.id != 0);
            self.timing_outcome(t.swapchain, t.timing.is_some(), frame, !failed, refused);
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

    /// The present of `swapchain`'s own lineage to ask the display about now (a zero-timeout
    /// wait), if one on `swapchain` itself is awaited. A shell inside a call on `swapchain`
    /// asks only about it: `vkWaitForPresentKHR` may run while other threads use its swapchain,
    /// except `vkDestroySwapchainKHR` (the exception to external synchronization the validation
    /// layer's thread-safety checks encode), and only the swapchains of the application's call
    /// are known not to be destroyed meanwhile.
    #[must_use]
    pub fn display_query_of(&self, swapchain: W) -> Option<u64> {
        let c = self.lineage(swapchain)?;
        match c.ids.next_query() {
            Some((w, id)) if w == swapchain && c.timing.is_none() => Some(id),
            _ => None,
        }
    }

    /// During a pause of `swapchain`'s lineage before its next frame (the pacing sleep): the
    /// present to watch, if its pacing wants exact display times (door 1's
    /// `machine::display_watch` says why). The shell polls it and, if it is not shown yet, waits
    /// for it bounded by the sleep's end: [`Self::display_watched`], or
    /// [`Self::display_answer`] for the poll.
    #[must_use]
    pub(super) fn display_watch(&self, swapchain: W) -> Option<u64> {
        if !self.lineage(swapchain)?.pacing.wants_display_times() {
            return None;
        }
        self.display_query_of(swapchain)
    }

    /// The answer about [`Self::display_query`]'s present, seen at `now`.
    pub fn display_answer(
        &mut self,
        swapchain: W,
        status: VkStatus,
        now: u64,
    ) -> Result<(), Failure> {
        self.display_report(swapchain, status, now, false)
    }

    /// The answer of a watch ([`super::SleepWatch::Display`]) that began while the present was not
    /// shown, returned at `now`: where it was shown, `now` is when (within the thread's
    /// wake-up).
    pub fn display_watched(
        &mut self,
        swapchain: W,
        status: VkStatus,
        now: u64,
    ) -> Result<(), Failure> {
        self.display_report(swapchain, status, now, true)
    }

    fn display_report(
        &mut self,
        swapchain: W,
        status: VkStatus,
        now: u64,
        exact: bool,
    ) -> Result<(), Failure> {
        let Some(c) = self
            .chains
            .iter_mut()
            .find(|c| c.ids.next_query().is_some_and(|(w, _)| w == swapchain))
        else {
            return Ok(());
        };
        match c.ids.answer(status)? {
            Shown::Frame(frame) => {
                let news = c.pacing.frame_shown(&mut c.telemetry, frame, now, exact);
                self.stats.anchor_moves += news.moves;
                if let Some(period) = news.period_ns {
                    self.stats.anchored_period_ns = period;
                }
                self.stats.display_times_watched += u64::from(exact);
            }
            Shown::Stopped => c.pacing.display_restarted(),
            Shown::NotYet => {}
        }
        Ok(())
    }
}
