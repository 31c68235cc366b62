//! What completed: fences polled at the start of an acquire or waited on, present ids asked
//! about, GPU timestamps read. Completion is per queue and in submission order (see
//! [`crate::Serial`]); a present fence proves only its own present.

use super::display_watch::PresentQuery;
use super::{Awaiting, FrameMachine, Op, WaitPurpose};
use crate::completion::SubmitSignal;
use crate::display::recalibration_due;
use crate::error::{CoreError, Failure};
use crate::fence_pool::Signalled;
use crate::serial::Serial;
use crate::telemetry::Completed;

use super::request::Request;
use crate::handle::Handle;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// The start of an acquire looks, without waiting, at what finished: submission fences
    /// oldest first until one has not signalled, every present fence, the oldest awaited
    /// present id, and whether the GPU clock needs a new anchor.
    pub(super) fn completion_round(&mut self, now: u64) -> Option<Request<S, W, F>> {
        if !self.round.active {
            return None;
        }
        if !self.round.submissions_done {
            // Fences: the oldest first, until one has not signalled. The timeline: one read of
            // its counter answers for all of them.
            let pending = match self.fences.oldest_submitted() {
                Some((_, SubmitSignal::Timeline(_))) => self.fences.newest_submitted(),
                other => other,
            };
            match pending {
                Some((_, signal)) => return Some(self.check(signal)),
                None => self.round.submissions_done = true,
            }
        }
        if let Some(f) = self.fences.present_fence(self.round.present_index) {
            return Some(self.check(SubmitSignal::Fence(f)));
        }
        if !self.round.display_done && self.timing.is_some() {
            match self.read_timings_request() {
                Some(r) => return Some(r),
                None => self.round.display_done = true,
            }
        }
        if !self.round.display_done {
            if let Some((swapchain, id)) = self.display.as_ref().and_then(|d| d.next_query()) {
                self.awaiting = Some(Awaiting::PresentId(PresentQuery::Round));
                return Some(Request::PollPresentId {
                    swapchain,
                    id,
                    timeout_ns: 0,
                });
            }
        }
        // The same rule as present timing's domain (`core::display`).
        let due = self
            .gpu
            .as_ref()
            .is_some_and(|g| recalibration_due(g.calibrated_at, now));
        self.round.active = false;
        if due {
            self.awaiting = Some(Awaiting::GpuClock);
            return Some(Request::CalibrateGpuClock);
        }
        None
    }

    pub(super) fn check(&mut self, signal: SubmitSignal<F>) -> Request<S, W, F> {
        self.awaiting = Some(Awaiting::Check(signal));
        match signal {
            SubmitSignal::Fence(fence) => Request::CheckFence(fence),
            SubmitSignal::Timeline(_) => Request::ReadTimeline,
        }
    }

    /// The answer to [`Request::CheckFence`] or [`Request::WaitFence`]: whether `fence` has
    /// signalled (after a wait: `false` means it timed out), seen at `now`.
    pub fn handle_fence_status(
        &mut self,
        fence: F,
        signalled: bool,
        now: u64,
    ) -> Result<(), CoreError> {
        let ours = SubmitSignal::Fence(fence);
        let asked = self.answer("a fence status nobody asked for", |a| match a {
            Awaiting::Check(f) | Awaiting::Wait(f, _) if f == ours => Some(a),
            _ => None,
        })?;
        if signalled {
            return self.fence_signalled(fence, now);
        }
        self.not_signalled(asked, ours, now);
        Ok(())
    }

    /// The answer to [`Request::ReadTimeline`] or [`Request::WaitTimeline`]: the timeline's
    /// counter value read at `now` (after a wait that timed out, a value below the one waited
    /// for). Every tracked submission up to `value` is complete.
    pub fn handle_timeline_value(&mut self, value: u64, now: u64) -> Result<(), CoreError> {
        let asked = self.answer("a timeline value nobody asked for", |a| match a {
            Awaiting::Check(SubmitSignal::Timeline(_))
            | Awaiting::Wait(SubmitSignal::Timeline(_), _) => Some(a),
            _ => None,
        })?;
        if value >= self.next_serial.0 {
            return Err(CoreError::OutOfOrder(
                "a timeline value beyond every submission the machine tracks",
            ));
        }
        if let Some(serial) = self.fences.timeline_reached(value) {
            self.complete_serial(serial, now)?;
        }
        let (Awaiting::Check(waited) | Awaiting::Wait(waited, _)) = asked else {
            return Ok(());
        };
        if waited.timeline_value().is_some_and(|v| v > value) {
            self.not_signalled(asked, waited, now);
        } else if matches!(asked, Awaiting::Check(_)) && !matches!(self.op, Op::Token(_)) {
            self.round.submissions_done = true;
        }
        Ok(())
    }

    /// A check or wait found `signal` not signalled at `now`: what that means depends on what
    /// asked.
    fn not_signalled(&mut self, asked: Awaiting<S, F>, signal: SubmitSignal<F>, now: u64) {
        match asked {
            Awaiting::Wait(_, WaitPurpose::RetiredPresentFences) => {
                log::warn!(
                    "vkpace: present fences of retired swapchains did not signal in time; \
                     falling back to the proof by an empty submission"
                );
                if let Some(fb) = self.fallback.as_mut() {
                    fb.fences_given_up = true;
                }
            }
            // The sleep ended before the oldest submission did; nothing failed.
            Awaiting::Wait(_, WaitPurpose::PacingWatch) => self.pacing.frames_pending(now),
            // Still rendering: the schedule learns it missed its refresh (module `timing`).
            Awaiting::Wait(_, WaitPurpose::Fate(frame)) => self.pacing.frame_pending(frame, now),
            Awaiting::Wait(_, WaitPurpose::Token) => {
                self.failure = Some(Failure::Timeout {
                    what: WaitPurpose::Token.what(),
                    timeout_ns: self.token_bound(),
                });
            }
            Awaiting::Wait(_, purpose) => {
                self.failure = Some(Failure::Timeout {
                    what: purpose.what(),
                    timeout_ns: self.timeout(),
                });
            }
            _ if matches!(self.op, Op::Token(_)) => self.token_seen_pending(),
            _ if matches!(signal, SubmitSignal::Timeline(_))
                || self
                    .fences
                    .oldest_submitted()
                    .is_some_and(|(_, f)| f == signal) =>
            {
                // The oldest submission is still running: so is every frame not seen complete.
                self.pacing.frames_pending(now);
                self.round.submissions_done = true;
            }
            _ => self.round.present_index += 1,
        }
    }

    /// `fence` signalled: what it stood for is done, and it is reset for reuse.
    fn fence_signalled(&mut self, fence: F, now: u64) -> Result<(), CoreError> {
        let Some(what) = self.fences.signalled(fence) else {
            return Ok(());
        };
        // The shell reset it when it saw it signalled (the request's contract).
        self.fences.untake(fence);
        match what {
            Signalled::Submission(serial) => self.complete_serial(serial, now)?,
            Signalled::Present(id) => {
                // A fence the presenter does not track (a failed present's) is just recycled.
                let _ = self.presenter.present_fence_signalled(id);
                self.drain_actions();
            }
        }
        Ok(())
    }

    /// Every submission up to `serial` completed: free what that proves, and the frames it
    /// completes get their completion time (and GPU times read, or estimated for pacing).
    pub(super) fn complete_serial(&mut self, serial: Serial, now: u64) -> Result<(), CoreError> {
        if serial <= self.presenter.completed() {
            return Ok(());
        }
        self.presenter.serial_completed(serial)?;
        // The GPU waits of the submissions up to `serial` are over.
        self.sync.reached(self.token_of(serial))?;
        self.drain_actions();
        let (pacing, gpu) = (&mut self.pacing, &mut self.gpu);
        self.telemetry.completed(serial, now, |c: Completed| {
            pacing.frames_complete(c.frame, now);
            match (gpu.as_mut(), c.timed_slot) {
                (Some(g), Some(slot)) => g.reads.push_back((c.frame, slot, c.submitted)),
                _ => pacing.gpu_done(c.frame, c.submitted, now),
            }
        });
        Ok(())
    }

    /// Timestamps of completed frames are read before their slot is used again.
    pub(super) fn gpu_read_step(&mut self) -> Option<Request<S, W, F>> {
        let &(frame, slot, _) = self.gpu.as_ref()?.reads.front()?;
        self.awaiting = Some(Awaiting::GpuTicks);
        Some(Request::ReadGpuTimes { frame, slot })
    }

    /// The answer to [`Request::ReadGpuTimes`]: the two timestamps in device ticks, or `None`
    /// if they were not available. `now` stands for the end when they were not.
    pub fn handle_gpu_ticks(
        &mut self,
        ticks: Option<(u64, u64)>,
        now: u64,
    ) -> Result<(), CoreError> {
        self.answer("GPU times nobody asked for", |a| {
            (a == Awaiting::GpuTicks).then_some(())
        })?;
        let Some(gpu) = self.gpu.as_mut() else {
            return Ok(());
        };
        let Some((frame, _, submitted)) = gpu.reads.pop_front() else {
            return Ok(());
        };
        // The frame ran between its submission and now: that span picks the wrap.
        let cpu = |t| gpu.clock.to_cpu_ns_between(t, submitted, now);
        let mapped = ticks.and_then(|(a, b)| Some((cpu(a)?, cpu(b)?)));
        let (start, end) = match mapped {
            Some((start, end)) => {
                self.telemetry.gpu_times(frame, start, end);
                self.pacing.frame_ready(frame, end.max(start));
                (start, end.max(start))
            }
            None => (submitted, now),
        };
        self.pacing.gpu_done(frame, start, end);
        Ok(())
    }

    /// The answer to [`Request::CalibrateGpuClock`]: the device clock read `ticks` at CPU time
    /// `cpu_ns` (the middle of the narrowest bracket the shell found).
    pub fn handle_gpu_clock_sample(
        &mut self,
        ticks: u64,
        cpu_ns: u64,
        now: u64,
    ) -> Result<(), CoreError> {
        self.answer("a clock sample nobody asked for", |a| {
            (a == Awaiting::GpuClock).then_some(())
        })?;
        if let Some(g) = self.gpu.as_mut() {
            g.clock.anchor(ticks, cpu_ns);
            g.calibrated_at = Some(now);
        }
        Ok(())
    }
}
