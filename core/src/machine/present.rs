//! Submitting and presenting a frame. The machine hears of the frame's submission at once
//! ([`FrameMachine::handle_frame_submitted`]), so a frame submitted and then dropped is still
//! known: the next acquire presents it, and its objects are never handed out twice.

use super::{Awaiting, FrameMachine, Op};
use crate::completion::SubmitSignal;
use crate::error::{CoreError, Failure};
use crate::presenter::PresentOutcome;
use crate::serial::Serial;
use crate::vk_values::VkStatus;

use super::request::{FrameInfo, PresentInfo, PresentStatus, Request};
use crate::handle::Handle;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// The frame handed out as `frame` was submitted at `now`: its last submission waited on
    /// the acquire semaphore (or an earlier one did), signals the present semaphore and the
    /// frame's [`super::FrameInfo::signal`]. `timed_slot`: the slot whose GPU timestamp queries
    /// the submission wrote. Returns the submission's serial.
    pub fn handle_frame_submitted(
        &mut self,
        frame: u64,
        now: u64,
        timed_slot: Option<usize>,
    ) -> Result<Serial, CoreError> {
        let current = self.frame.filter(|f| f.handed_out);
        let submitted = self.presenter.frame().and_then(|f| f.submitted).is_some();
        let Some(ours) = current.filter(|f| f.number == frame && !submitted) else {
            return Err(CoreError::ForeignFrame {
                given: frame,
                current: current.map(|f| f.number),
            });
        };
        let signal = match ours.fence {
            Some(f) => SubmitSignal::Fence(f),
            None if !self.uses_fences() => SubmitSignal::Timeline(self.next_serial.0),
            None => return Err(CoreError::OutOfOrder("frame without a fence")),
        };
        let serial = self.take_serial();
        self.submitted_shape = self
            .live
            .as_ref()
            .map(|l| (l.generation, l.plan.extent, l.plan.format));
        if cfg!(vkpace_mutation = "submit_at_present") {
            // Deliberately wrong (`scripts/mutation-check`): the submission is recorded only
            // when the frame is presented, as vkpace 0.1 did.
            self.deferred_submission = Some((serial, signal, now, timed_slot));
            return Ok(serial);
        }
        self.record_frame_submission(frame, serial, signal, now, timed_slot)?;
        Ok(serial)
    }

    /// Whether `info` is the frame handed out now, not yet submitted, in every field a
    /// submission uses: a frame kept from before its image was given back (recreation
    /// consumes a held image) has the same number but stale objects, and submitting it would
    /// signal semaphores and a timeline value already used.
    #[must_use]
    pub fn frame_matches(&self, info: &FrameInfo<S, W, F>) -> bool {
        let (Some(frame), Some(held), Some(live)) = (
            self.frame.filter(|f| f.handed_out),
            self.presenter.frame().filter(|h| h.submitted.is_none()),
            self.live.as_ref(),
        ) else {
            return false;
        };
        let signal = match info.signal {
            SubmitSignal::Fence(f) => frame.fence == Some(f),
            SubmitSignal::Timeline(v) => frame.fence.is_none() && v == self.next_serial.0,
        };
        signal
            && frame.number == info.number
            && held.image == info.image
            && held.acquire == info.acquire_semaphore
            && held.present == Some(info.present_semaphore)
            && live.handle == info.swapchain
    }

    fn record_frame_submission(
        &mut self,
        frame: u64,
        serial: Serial,
        signal: SubmitSignal<F>,
        now: u64,
        timed_slot: Option<usize>,
    ) -> Result<(), CoreError> {
        self.presenter.frame_submitted(serial)?;
        self.track_submission(serial, signal);
        if let Some(f) = self.frame.as_mut() {
            f.fence = None;
        }
        self.telemetry.submitted(frame, now, serial, timed_slot);
        self.pacing.frame_submitted(frame, now);
        self.timing_frame_submitted(frame, serial);
        Ok(())
    }

    /// Starts presenting the frame handed out as `frame` (submitted): poll until
    /// [`Request::Presented`] or [`Request::Failed`].
    pub fn begin_present(&mut self, frame: u64, _now: u64) -> Result<(), CoreError> {
        if let Some((serial, signal, at, slot)) = self.deferred_submission.take() {
            self.record_frame_submission(frame, serial, signal, at, slot)?;
        }
        let current = self.frame.filter(|f| f.handed_out);
        let submitted = self.presenter.frame().and_then(|f| f.submitted).is_some();
        if current.map(|f| f.number) != Some(frame) || !submitted {
            return Err(CoreError::ForeignFrame {
                given: frame,
                current: current.map(|f| f.number),
            });
        }
        self.op = Op::Present;
        self.present_timing_begin();
        self.failure = None;
        self.presenting_abandoned = false;
        self.last_present = None;
        Ok(())
    }

    pub(super) fn poll_present(&mut self, now: u64) -> Request<S, W, F> {
        if let Some(status) = self.last_present.take() {
            return Request::Presented(status);
        }
        if let Some(wait) = self.fate_step(now, None) {
            return wait;
        }
        match self.present_request(now) {
            Some(r) => r,
            None => Request::Failed(CoreError::OutOfOrder("nothing to present").into()),
        }
    }

    /// Before anything else, an acquire (or teardown) presents a frame the renderer submitted
    /// and dropped: its image was rendered, and presenting it is the way to give it back.
    pub(super) fn present_abandoned(&mut self, now: u64) -> Option<Request<S, W, F>> {
        self.presenter.frame().and_then(|f| f.submitted)?;
        self.presenting_abandoned = true;
        self.present_request(now)
    }

    /// The present of the submitted frame, with a present fence (maintenance1), a present id
    /// (present_wait) and a mode switch as needed.
    fn present_request(&mut self, now: u64) -> Option<Request<S, W, F>> {
        if let Some(wait) = self.present_dependency_wait() {
            return Some(wait);
        }
        let held = self.presenter.frame().filter(|f| f.submitted.is_some())?;
        let semaphore = held.present?;
        let swapchain = self.live.as_ref()?.handle;
        let fence = if self.config.maintenance1 {
            match self.fences.peek() {
                Some(f) => Some(f),
                None => return Some(self.create_fence()),
            }
        } else {
            None
        };
        let number = self.frame.map(|f| f.number)?;
        let timing = self.present_timing_request(number, now);
        self.awaiting = Some(Awaiting::Present(fence));
        Some(Request::Present(PresentInfo {
            swapchain,
            image: held.image,
            semaphore,
            fence,
            present_id: self.display.as_ref().map(|d| d.next_id()),
            mode: self.next_mode,
            timing,
        }))
    }

    /// The answer to [`Request::Present`]: what `vkQueuePresentKHR` returned, at `now`.
    ///
    /// `SUBOPTIMAL`, `OUT_OF_DATE`, `SURFACE_LOST` and `FULL_SCREEN_EXCLUSIVE_MODE_LOST` still
    /// enqueue the present's waits ("the set of queue operations are still considered to be
    /// enqueued", *vkQueuePresentKHR*), and present timing's `QUEUE_FULL` executes them without
    /// showing the present ([`PresentOutcome::of`]); any other error may leave the wait never
    /// executed, so that semaphore is destroyed, never reused, and the present's fence is not
    /// relied on.
    pub fn handle_present_result(&mut self, status: VkStatus, now: u64) -> Result<(), CoreError> {
        let fence = self.answer("a present result nobody asked for", |a| match a {
            Awaiting::Present(f) => Some(f),
            _ => None,
        })?;
        let outcome = PresentOutcome::of(status);
        let failed = outcome == PresentOutcome::Failed;
        let failure = match status {
            VkStatus::SURFACE_LOST => Some(Failure::SurfaceLost),
            other if failed => Some(Failure::from_status("vkQueuePresentKHR", other)),
            _ => None,
        };
        // Not shown, but its waits execute; the swapchain is fine (module `timing`).
        let queue_full = status == VkStatus::PRESENT_TIMING_QUEUE_FULL;
        // Only a present that returned a success code may be waited for
        // (VUID-vkWaitForPresent2KHR-presentId-10817) or counted as queued for display.
        let may_show = PresentOutcome::may_show(status);
        self.present_timing_outcome(!failed, queue_full);
        let tracked = fence.and_then(|f| {
            self.fences.take_this(f);
            if failed {
                // A failed present may never signal its fence: it is not waited on, only
                // destroyed at teardown once the queue is proven done.
                self.fences.lost(f);
                None
            } else {
                Some(self.fences.presented(f))
            }
        });
        self.presenter
            .frame_presented_with_fence(outcome, tracked)?;
        let abandoned = self.presenting_abandoned;
        self.after_present(outcome, queue_full, may_show, now);
        if outcome != PresentOutcome::Queued && !queue_full {
            self.needs_recreate = true;
            self.stats.out_of_date_or_suboptimal += u64::from(status.is_stale_swapchain());
        }
        if self.op != Op::Shutdown {
            // At teardown a present's result changes nothing: the frame is given back either way.
            self.failure = failure;
        }
        if !abandoned {
            // A refused present (QUEUE_FULL) needs no recreation: the swapchain is fine.
            self.last_present = Some(if outcome == PresentOutcome::Queued || queue_full {
                PresentStatus::Queued
            } else {
                PresentStatus::Recreating
            });
        }
        Ok(())
    }

    /// Telemetry, pacing, display ids and the mode switch after a present. A present refused
    /// with a full timing results queue is never shown: it awaits no display time, and a mode
    /// switch it carried goes with the next present instead. `may_show`: the present returned
    /// a success code, so its display is awaited.
    fn after_present(&mut self, outcome: PresentOutcome, refused: bool, may_show: bool, now: u64) {
        let queued = outcome != PresentOutcome::Failed && !refused;
        let Some(frame) = self.frame.take() else {
            return;
        };
        let awaited = may_show && !refused;
        let given_up = match (self.display.as_mut(), self.live.as_ref()) {
            (Some(d), Some(live)) => d.presented(live.handle, frame.number, awaited),
            _ => None,
        };
        self.pacing
            .handed_over(&mut self.telemetry, frame.number, now, awaited, given_up);
        if refused {
            self.pacing.present_refused(frame.number);
        }
        if refused {
            // The switch is still to be made.
        } else if let Some(mode) = self.next_mode.take().filter(|_| queued) {
            if let Some(live) = self.live.as_mut() {
                live.plan.present_mode = mode;
                self.pacing.set_display_queues(mode.queues_frames());
            }
            self.stats.present_mode_switches += 1;
        }
        self.stats.frames_presented += 1;
        if self.presenting_abandoned {
            self.stats.abandoned_frames_presented += 1;
            self.presenting_abandoned = false;
        }
        self.drain_actions();
    }
}
