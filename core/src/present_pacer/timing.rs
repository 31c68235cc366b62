//! Present timing (`VK_EXT_present_timing`) in the second door: targets on the refresh grid and
//! stage times read back, for the newest swapchain of a lineage where the shell set present
//! timing up (it made the swapchain with `PRESENT_TIMING` and `PRESENT_ID_2`). What each present
//! asks for, the results queue and what a result means are door 1's (`display::timing_queue`);
//! when results are read differs: the second door has no completion round, so the shell reads
//! them without blocking after each present.
//!
//! Absolute targets are planned as door 1 plans them, from completions and results; door 1's
//! wait, before a present, for the previous frame's fate on its refresh is not made here (the
//! application's own frame loop is not held up for it), so after a frame that missed its
//! refresh the next target may be one refresh early and FIFO shows it at the next refresh free.

use super::chain::{Chain, LineageTiming};
use super::present::{Target, TargetPlan};
use super::PacerMachine;
use crate::display::{PresentIdStructure, TimingQueue, TimingReport};
use crate::error::CoreError;
use crate::handle::Handle;
use crate::machine::PresentTimingRequest;
use crate::pacing::DisplayRefresh;
use crate::vk_values::PresentMode;

impl<S: Handle, W: Handle> PacerMachine<S, W> {
    /// The shell set present timing up for `handle`, the newest swapchain of its lineage: a
    /// results queue of `slots` and the display's refresh as the swapchain reports it
    /// (`Targets::display_refresh`). Its presents then carry vkpace's present ids, and their
    /// display is learnt from the results rather than from present waits. Its presents carry
    /// targets while its present mode takes them (FIFO, FIFO_RELAXED:
    /// VUID-VkPresentTimingsInfoEXT-pSwapchains-12235), the mode it was made with or the
    /// application switched it to since ([`Self::plan_target`]).
    pub fn set_present_timing(
        &mut self,
        handle: W,
        slots: u32,
        refresh: DisplayRefresh,
    ) -> Result<(), CoreError> {
        let i = self.find(handle).ok_or(CoreError::NoSwapchain)?;
        let (chain, generation) = (self.live[i].chain, self.live[i].generation);
        self.live[i].ids = PresentIdStructure::Id2;
        let c = self.chain_mut(chain)?;
        if c.generations != generation {
            return Err(CoreError::OutOfOrder(
                "set_present_timing for a swapchain with a newer one in its lineage",
            ));
        }
        c.timing = Some(LineageTiming {
            swapchain: handle,
            queue: TimingQueue::new(slots),
        });
        c.pacing.set_display_refresh(refresh);
        self.stats.swapchains_timed += 1;
        Ok(())
    }

    /// The refresh `handle` reports changed (read with its results).
    pub fn display_timing_changed(&mut self, handle: W, refresh: DisplayRefresh) {
        if let Some(c) = self.timed_chain(handle) {
            c.pacing.set_display_refresh(refresh);
        }
    }

    /// The application drives `handle`'s present timing itself (it chained its own
    /// `VkPresentTimingsInfoEXT`): vkpace adds no more timing to its presents, and its frame
    /// limit goes back to the CPU limiter. (A present mode switch it chains is followed
    /// instead: [`Self::plan_target`].)
    pub fn stop_present_timing(&mut self, handle: W) {
        if let Some(c) = self.timed_chain(handle) {
            c.timing = None;
            c.pacing.set_display_refresh(DisplayRefresh::Unreported);
            self.stats.timing_stopped += 1;
        }
    }

    /// Whether vkpace adds present timing to `handle`'s presents.
    #[must_use]
    pub fn is_timed(&self, handle: W) -> bool {
        self.chains
            .iter()
            .any(|c| c.timing.is_some_and(|t| t.swapchain == handle))
    }

    /// The swapchains whose timing results to read (without blocking) after a present.
    pub fn timed_swapchains(&self) -> impl Iterator<Item = W> + '_ {
        self.chains
            .iter()
            .filter_map(|c| c.timing.map(|t| t.swapchain))
    }

    /// What vkpace adds to the present in progress for `swapchain` at `now`: its present id,
    /// present fence and present timing. Call after [`Self::before_present`], once per
    /// swapchain of the present; a swapchain not paced gets nothing.
    ///
    /// `switch`: the present mode the application's present switches the swapchain to
    /// (`VkSwapchainPresentModeInfoKHR`, as DXVK chains on every present), if any. A target
    /// needs a mode that queues frames (FIFO, FIFO_RELAXED) as the swapchain's
    /// current one and as the one the present switches to
    /// (VUID-VkPresentTimingsInfoEXT-pSwapchains-12235): this present carries one only if both
    /// are. The switch takes effect with the present, unless it fails or is refused (then it
    /// goes with the next present that carries it), as door 1 decides it (`FrameMachine`'s
    /// `targets_allowed`); later presents then follow the new mode. A mode that does not queue
    /// frames (MAILBOX, IMMEDIATE) leaves the frame limit to the CPU limiter.
    ///
    /// Timing: none where vkpace does not time the swapchain. A present that carries the
    /// application's own ids (DXVK tracks its frames with present ids and waits) still gets
    /// its target, but asks for no stage times: results are named by the ids of
    /// `VkPresentId2KHR`, which are the application's (or none, beside its `VkPresentIdKHR`),
    /// so vkpace could not tell its frames by them.
    pub fn plan_target(
        &mut self,
        swapchain: W,
        switch: Option<PresentMode>,
        now: u64,
    ) -> TargetPlan {
        let Some(at) = self
            .pending
            .targets
            .iter()
            .position(|t| t.swapchain == swapchain)
        else {
            return TargetPlan::default();
        };
        // `mode_switch_ignored` (`scripts/mutation-check`) deliberately never hears of it.
        if switch.is_some() && !cfg!(vkpace_mutation = "mode_switch_ignored") {
            self.pending.targets[at].switch_to_fifo = switch.map(PresentMode::queues_frames);
        }
        let timing = self.target_timing(at, now);
        let t = &self.pending.targets[at];
        TargetPlan {
            id: t.id,
            fence: t.fence,
            timing,
        }
    }

    /// The timing request of the present in progress's target `at`, made once.
    fn target_timing(&mut self, at: usize, now: u64) -> Option<PresentTimingRequest> {
        let t = self.pending.targets[at];
        if t.timing.is_some() || (t.id == 0 && !self.pending.caller_ids) {
            return t.timing;
        }
        let stages = t.id != 0;
        let c = self.chain_mut(t.lineage).ok()?;
        let frame = c.frame(now);
        // Stage times come only with a timing request: a lineage without present timing on
        // this swapchain learns its ready times from the repair submission (`ready_watch.rs`).
        let lineage = c.timing.as_mut().filter(|l| l.swapchain == t.swapchain)?;
        c.stage_times = stages;
        let targets = c.pacing.display_queues() && t.switch_to_fifo.unwrap_or(true);
        let request =
            lineage
                .queue
                .request(&mut c.pacing, &mut c.telemetry, frame, now, targets, stages);
        self.pending.targets[at].timing = Some(request);
        self.stats.targets_added += u64::from(request.target != crate::PresentTarget::None);
        Some(request)
    }

    /// At a present's result: the mode switch of each swapchain takes effect where the
    /// present was queued for it (not failed, not refused). The lineage's pacing follows its
    /// newest swapchain's mode, the one its next frames and its present timing are for: a
    /// retired swapchain's switch (an image acquired before the recreation, presented after)
    /// is its own.
    pub(super) fn mode_switches_taken(&mut self, targets: &[Target<W>]) {
        for t in targets {
            let Some(fifo) = t
                .switch_to_fifo
                .filter(|_| !t.refused() && !self.failed_for(t))
            else {
                continue;
            };
            let Some(i) = self.find(t.swapchain) else {
                continue;
            };
            let generation = self.live[i].generation;
            if let Ok(c) = self.chain_mut(t.lineage) {
                if c.generations == generation {
                    c.pacing.set_display_queues(fifo);
                }
            }
        }
    }

    /// At a present's result, for a target of it that `asked` for timing: its slot, and a
    /// `refused` frame takes no refresh.
    pub(super) fn timing_outcome(
        &mut self,
        swapchain: W,
        asked: bool,
        frame: u64,
        queued: bool,
        refused: bool,
    ) {
        let Some(c) = self.timed_chain(swapchain) else {
            return;
        };
        if let Some(t) = c.timing.as_mut().filter(|_| asked) {
            t.queue.outcome(queued, refused);
            if refused {
                c.pacing.present_refused(frame);
            }
        }
        self.stats.timing_queue_full += u64::from(refused && asked);
    }

    /// The results read for `handle`'s presents, in any order.
    pub fn present_timings(&mut self, handle: W, reports: &[TimingReport]) {
        let Some(i) = self
            .chains
            .iter()
            .position(|c| c.timing.is_some_and(|t| t.swapchain == handle))
        else {
            return;
        };
        let c = &mut self.chains[i];
        for r in reports {
            let frame = c.ids.frame_of(r.present_id, r.complete);
            let Some(t) = c.timing.as_mut() else { break };
            let taken = t.queue.taken(r, frame, &mut c.telemetry, &mut c.pacing);
            self.stats.present_timing_results += u64::from(taken.complete);
            self.stats.timing_results_unmapped += u64::from(taken.unmapped);
        }
        self.stats.refreshes_missed = self
            .chains
            .iter()
            .map(|c| c.pacing.schedule().missed())
            .sum();
    }

    /// The lineage `handle` is the timed swapchain of.
    fn timed_chain(&mut self, handle: W) -> Option<&mut Chain<W>> {
        self.chains
            .iter_mut()
            .find(|c| c.timing.is_some_and(|t| t.swapchain == handle))
    }
}
