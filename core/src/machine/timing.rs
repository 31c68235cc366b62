//! Present timing (`VK_EXT_present_timing`): what each present asks of the presentation engine,
//! and the timing results read back once per frame.
//!
//! Results queue: a present that asks for stage times takes a slot of the swapchain's results
//! queue until its complete result is read; with no slot free the present "fails and returns
//! `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`" and is not shown (`VkPresentTimingInfoEXT`). So
//! the machine counts the slots it used and asks for stage times only while one is free: a
//! frame is never lost to a full queue, it only goes without its timing result. Should the
//! engine report the queue full anyway (it has less room than it was sized to), that one
//! present is not shown, but its waits still executed ("the set of queue operations are still
//! considered to be enqueued", `vkQueuePresentKHR`): its semaphore is reused as usual and no
//! recreation is needed. The machine then takes the results it has outstanding as the queue's
//! real size, so no later present is refused. A new swapchain has a new, empty queue of the
//! size asked for.

use super::request::{PresentTimingRequest, Request};
use super::{queues_frames, Awaiting, FrameMachine, WaitPurpose};
use crate::error::CoreError;
use crate::pacing::{DisplayTiming, PresentTarget};
use crate::serial::Serial;
use crate::telemetry::PresentStages;

/// One timing result, as the shell read it (`VkPastPresentationTimingEXT`), times on the
/// machine's clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimingReport {
    /// The present's id.
    pub present_id: u64,
    /// Its stage times.
    pub stages: PresentStages,
    /// Every stage asked for has its final value (`reportComplete`): its queue slot is free.
    pub complete: bool,
    /// Stage times were reported in a time domain the shell has no calibration for, and were
    /// dropped (counted in [`super::SwapchainStats::timing_results_unmapped`]).
    pub unmapped: bool,
}

impl TimingReport {
    /// A result for `present_id`.
    #[must_use]
    pub fn new(present_id: u64, stages: PresentStages, complete: bool) -> Self {
        Self {
            present_id,
            stages,
            complete,
            unmapped: false,
        }
    }
}

/// How often a present that waits for the engine's word on the previous frame's readiness
/// reads the results again, once that frame is done on the GPU (ns).
const FATE_POLL_NS: u64 = 500_000;

/// The machine's present timing state.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct PresentTiming {
    /// Results-queue slots of the live swapchain.
    pub(super) capacity: u32,
    /// Slots taken by presents whose complete result was not read yet.
    pub(super) outstanding: u32,
    /// The present in flight asked for stage times.
    pub(super) asking: bool,
    /// The submissions of the latest frames (frame, serial), by frame number modulo 4: what a
    /// wait for a frame to finish waits on.
    pub(super) recent: [Option<(u64, Serial)>; 4],
    /// The present being made has read the results since its last wait (`fate_step`).
    pub(super) read_for_present: bool,
}

impl<S, W, F> FrameMachine<S, W, F>
where
    S: Copy + PartialEq + std::fmt::Debug,
    W: Copy + PartialEq + std::fmt::Debug,
    F: Copy + PartialEq + std::fmt::Debug,
{
    /// What the display reports of its refresh (`vkGetSwapchainTimingPropertiesEXT`), after
    /// each swapchain creation and whenever its counter changed; None for a variable or
    /// unknown refresh. Only with present timing configured.
    pub fn handle_display_timing(&mut self, timing: Option<DisplayTiming>) {
        if self.timing.is_some() {
            self.pacing.set_display_timing(timing);
        }
    }

    /// Whether presents carry targets now: a target needs a FIFO mode as "the swapchain's
    /// current present mode" (VUID-VkPresentTimingsInfoEXT-pSwapchains-12235): the mode before
    /// this present, and the one it switches to.
    fn targets_allowed(&self) -> bool {
        self.live
            .as_ref()
            .is_some_and(|l| queues_frames(l.plan.present_mode))
            && self.next_mode.map_or(true, queues_frames)
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
    /// a present the results are read first (once): an engine that reports partial results
    /// says when the frame's queue operations ended, which settles it exactly.
    pub(super) fn fate_step(&mut self, now: u64, cap: Option<u64>) -> Option<Request<S, W, F>> {
        let t = self.timing.as_ref()?;
        if !self.targets_allowed() {
            return None;
        }
        let (frame, until) = self.pacing.fate_wait(now)?;
        if cap.is_none() && !t.read_for_present {
            // Before a present, the results first: a partial one may say when it was ready.
            self.set_read_for_present(true);
            return self.read_timings_request();
        }
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
            let (_, until) = self.pacing.fate_wait(now).filter(|_| cap.is_none())?;
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
        let fifo = self.targets_allowed();
        let t = self.timing.as_mut()?;
        t.asking = t.outstanding < t.capacity;
        let query_stages = t.asking;
        let target = if fifo {
            self.pacing.present_target(frame, now, query_stages)
        } else {
            PresentTarget::None
        };
        if let Some(at) = self.pacing.schedule().goal(frame).filter(|_| fifo) {
            self.telemetry.targeted(frame, at);
        }
        Some(PresentTimingRequest {
            target,
            query_stages,
        })
    }

    /// After a present's result: a slot is taken if it asked and the engine took it.
    pub(super) fn present_timing_outcome(&mut self, queued: bool, queue_full: bool) {
        if let Some(t) = self.timing.as_mut() {
            if queue_full {
                // May be 0 (an engine with no room at all): no more stage times until the
                // next swapchain, whose queue is sized again.
                t.capacity = t.outstanding;
                self.stats.timing_queue_full += 1;
            } else if queued && t.asking {
                t.outstanding += 1;
            }
            t.asking = false;
        }
    }

    /// A new swapchain: a new, empty results queue.
    pub(super) fn present_timing_swapchain_changed(&mut self) {
        let slots = self.config.present_timing_slots;
        if let Some(t) = self.timing.as_mut() {
            t.outstanding = 0;
            t.capacity = slots.unwrap_or(t.capacity);
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
        if r.complete {
            if let Some(t) = self.timing.as_mut() {
                t.outstanding = t.outstanding.saturating_sub(1);
            }
            self.stats.present_timing_results += 1;
            self.stats.timing_results_unmapped += u64::from(r.unmapped);
        }
        let Some(frame) = self
            .display
            .as_mut()
            .and_then(|d| d.frame_of(r.present_id, r.complete))
        else {
            return;
        };
        self.telemetry.stages(frame, &r.stages);
        let s = r.stages;
        // "Some implementations may not provide timing data for the
        // IMAGE_FIRST_PIXEL_VISIBLE present stage. Applications should use the supported
        // present stage nearest to it" (VkPresentTimingInfoEXT).
        let shown = s
            .first_pixel_visible
            .or(s.first_pixel_out)
            .or(s.request_dequeued);
        self.pacing
            .frame_timed(frame, s.queue_operations_end, shown);
        self.stats.refreshes_missed = self.pacing.schedule().missed();
    }
}
