//! Present timing (`VK_EXT_present_timing`) in door 1's machine: when the results are read,
//! and the absolute targets' wait for a frame's fate. What each present asks for, the results
//! queue and what a result means are shared with the second door (`display::timing_queue`).

use super::request::{PresentTimingRequest, Request};
use super::{Awaiting, FrameMachine, WaitPurpose};
use crate::display::{TimingQueue, TimingReport};
use crate::error::CoreError;
use crate::handle::Handle;
use crate::pacing::DisplayRefresh;
use crate::serial::Serial;

/// How often a present that waits for the engine's word on the previous frame's readiness
/// reads the results again, once that frame is done on the GPU (ns).
const FATE_POLL_NS: u64 = 500_000;

/// The machine's present timing state.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PresentTiming {
    /// The live swapchain's results queue.
    pub(super) queue: TimingQueue,
    /// The submissions of the latest frames (frame, serial), by frame number modulo 4: what a
    /// wait for a frame to finish waits on.
    pub(super) recent: [Option<(u64, Serial)>; 4],
    /// The present being made has read the results since its last wait (`fate_step`).
    pub(super) read_for_present: bool,
}

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// What the display reports of its refresh (`vkGetSwapchainTimingPropertiesEXT`), after
    /// each swapchain creation and whenever its counter changed, as
    /// `Targets::display_refresh` classifies it. Only with present timing configured.
    pub fn handle_display_timing(&mut self, refresh: DisplayRefresh) {
        if self.timing.is_some() {
            self.pacing.set_display_refresh(refresh);
        }
    }

    /// Whether presents carry targets now: a target needs a FIFO mode as "the swapchain's
    /// current present mode" (VUID-VkPresentTimingsInfoEXT-pSwapchains-12235): the mode before
    /// this present, and the one it switches to.
    fn targets_allowed(&self) -> bool {
        self.live
            .as_ref()
            .is_some_and(|l| l.plan.present_mode.queues_frames())
            && self.next_mode.is_none_or(crate::PresentMode::queues_frames)
    }

    /// Frame `frame`'s submission was `serial`.
    pub(super) fn timing_frame_submitted(&mut self, frame: u64, serial: Serial) {
        if let Some(t) = self.timing.as_mut() {
            t.recent[(frame % 4) as usize] = Some((frame, serial));
        }
    }

    /// Absolute targets: before the present of a frame (or during the pacing sleep before the
    /// next one, `cap` being the sleep's end), a wait for the newest presented frame to finish,
    /// where the schedule needs to know whether it made its refresh
    /// ([`crate::DisplaySchedule::fate_wait`]). Bounded by the schedule's `until`. Before
    /// a present the results are read first (once, and again after each wait) while that
    /// frame's fate is open, even past the wait's bound: an engine that reports partial
    /// results says when the frame's queue operations ended, a complete result when it was
    /// shown, which settles it exactly.
    pub(super) fn fate_step(&mut self, now: u64, cap: Option<u64>) -> Option<Request<S, W, F>> {
        let t = self.timing.as_ref()?;
        if !self.targets_allowed() {
            return None;
        }
        if cap.is_none() && !t.read_for_present && self.pacing.schedule().fate_open() {
            // Before a present, the results first: a partial one may say when the newest
            // frame was ready, a complete one when it was shown; read even where the wait's
            // bound has passed (an unknown fate is taken as on time).
            self.set_read_for_present(true);
            return self.read_timings_request();
        }
        let (frame, until) = self.pacing.schedule().fate_wait(now)?;
        let until = cap.map_or(until, |c| until.min(c));
        let serial = t.recent[(frame % 4) as usize]
            .filter(|&(f, _)| f == frame)
            .map(|(_, s)| s)?;
        if until <= now {
            return None;
        }
        if serial <= self.presenter.completed() {
            self.pacing.frames_complete(frame, now);
            // Done on the GPU, and the engine has yet to say when it saw it ready: before a
            // present, look again shortly (a pacing sleep just goes on).
            let (_, until) = self
                .pacing
                .schedule()
                .fate_wait(now)
                .filter(|_| cap.is_none())?;
            self.set_read_for_present(false);
            return Some(Request::SleepUntil(until.min(now + FATE_POLL_NS)));
        }
        let signal = self.fences.signal_for(serial)?;
        if cap.is_none() {
            // The results are read again after the wait.
            self.set_read_for_present(false);
        }
        Some(self.wait(signal, WaitPurpose::Fate(frame), Some(until), now))
    }

    fn set_read_for_present(&mut self, read: bool) {
        if let Some(t) = self.timing.as_mut() {
            t.read_for_present = read;
        }
    }

    /// A present begins: it reads the results once before it waits for a frame's fate.
    pub(super) fn present_timing_begin(&mut self) {
        if let Some(t) = self.timing.as_mut() {
            t.read_for_present = false;
        }
    }

    /// The present timing request of the frame about to be presented at `now`.
    pub(super) fn present_timing_request(
        &mut self,
        frame: u64,
        now: u64,
    ) -> Option<PresentTimingRequest> {
        let targets = self.targets_allowed();
        let t = self.timing.as_mut()?;
        Some(t.queue.request(
            &mut self.pacing,
            &mut self.telemetry,
            frame,
            now,
            targets,
            true,
        ))
    }

    /// After a present's result: a slot is taken if it asked and the engine took it.
    pub(super) fn present_timing_outcome(&mut self, queued: bool, queue_full: bool) {
        if let Some(t) = self.timing.as_mut() {
            t.queue.outcome(queued, queue_full);
            self.stats.timing_queue_full += u64::from(queue_full);
        }
    }

    /// A new swapchain: a new, empty results queue.
    pub(super) fn present_timing_swapchain_changed(&mut self) {
        let slots = self.config.present_timing_slots;
        if let Some(t) = self.timing.as_mut() {
            t.queue.restart(slots);
            self.pacing.swapchain_changed();
        }
    }

    /// The completion round's read of timing results, once per frame.
    pub(super) fn read_timings_request(&mut self) -> Option<Request<S, W, F>> {
        self.timing?;
        let swapchain = self.live.as_ref().filter(|_| !self.live_retired)?.handle;
        self.awaiting = Some(Awaiting::PresentTimings);
        Some(Request::ReadPresentTimings { swapchain })
    }

    /// The answer to [`Request::ReadPresentTimings`]: the results read (possibly none), in any
    /// order, at `now`.
    pub fn handle_present_timings(
        &mut self,
        reports: &[TimingReport],
        _now: u64,
    ) -> Result<(), CoreError> {
        self.answer("present timings nobody asked for", |a| {
            (a == Awaiting::PresentTimings).then_some(())
        })?;
        self.round.display_done = true;
        for r in reports {
            self.take_report(r);
        }
        Ok(())
    }

    fn take_report(&mut self, r: &TimingReport) {
        let frame = self
            .display
            .as_mut()
            .and_then(|d| d.frame_of(r.present_id, r.complete));
        let Some(t) = self.timing.as_mut() else {
            return;
        };
        let taken = t
            .queue
            .taken(r, frame, &mut self.telemetry, &mut self.pacing);
        self.stats.present_timing_results += u64::from(taken.complete);
        self.stats.timing_results_unmapped += u64::from(taken.unmapped);
        self.stats.refreshes_missed = self.pacing.schedule().missed();
    }
}
