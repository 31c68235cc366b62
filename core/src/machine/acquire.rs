//! The acquire operation: completions first, then an abandoned frame presented, recreation,
//! the frames-in-flight gate, the pacing policy, the acquire, the present semaphore and the
//! frame's fence, in that order. Each step asks for what is missing or lets the next one go.

use super::{Awaiting, Frame, FrameMachine, Op, SemaphoreFor, WaitPurpose};
use crate::completion::{CompletionBackend, SubmitSignal};
use crate::error::{CoreError, Failure};
use crate::present_history::PresentSemaphoreChoice;
use crate::presenter::FrameGate;
use crate::vk_values::VkStatus;

use super::request::{FrameInfo, Request};
use crate::handle::Handle;

/// How long before a pacing sleep's end a wait on a submission fence gives way to a plain,
/// precise sleep (fence waits wake with the driver's latency).
const PACING_WATCH_MARGIN_NS: u64 = 500_000;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// Starts an acquire at `now`: poll until [`Request::FrameReady`], [`Request::ZeroExtent`],
    /// [`Request::NotReady`] or [`Request::Failed`]. A frame handed out before and neither submitted nor presented
    /// is handed out again (its image stays acquired); one submitted and never presented is
    /// presented first.
    pub fn begin_acquire(&mut self, now: u64) {
        self.op = Op::Acquire(now);
        self.display_watch_reset();
        self.failure = None;
        self.round = super::Round {
            active: true,
            ..super::Round::default()
        };
    }

    pub(super) fn poll_acquire(&mut self, now: u64, since: u64) -> Request<S, W, F> {
        if self.round.image_not_ready {
            self.round.image_not_ready = false;
            self.stats.not_ready_skips += 1;
            if let Some(f) = self.frame.as_mut() {
                // The next acquire is a new try: one out-of-date answer is allowed again, and
                // the time the window was not served is not the frame's CPU work.
                f.out_of_date_once = false;
                f.retried = true;
            }
            return Request::NotReady;
        }
        let step = self
            .completion_round(now)
            .or_else(|| self.present_abandoned(now))
            .or_else(|| self.recreate_step(now))
            .or_else(|| self.pass_gate(now))
            .or_else(|| self.start_frame(now))
            .or_else(|| self.acquire_image())
            .or_else(|| self.choose_present_semaphore(now))
            .or_else(|| self.frame_fence());
        match step {
            Some(Request::ZeroExtent) => {
                self.stats.zero_extent_skips += 1;
                Request::ZeroExtent
            }
            Some(r) => r,
            None => self.frame_ready(now, since),
        }
    }

    /// Frame F may begin once frame F-N's submission completed (re-checked for a held image:
    /// N may have been lowered since).
    fn pass_gate(&mut self, now: u64) -> Option<Request<S, W, F>> {
        let FrameGate::WaitFor(serial) = self.presenter.begin_frame() else {
            return None;
        };
        match self.fences.signal_for(serial) {
            Some(signal) => Some(self.wait(signal, WaitPurpose::Gate, None, now)),
            None => Some(Request::Failed(Failure::Misuse(CoreError::OutOfOrder(
                "the gate waits for a serial nothing pending stands for",
            )))),
        }
    }

    /// The frame begins once the pacing policy's time came: sleep until then.
    fn start_frame(&mut self, now: u64) -> Option<Request<S, W, F>> {
        if let Some(f) = self.frame.as_mut() {
            if std::mem::take(&mut f.retried) {
                // A frame whose last acquire was "not ready" starts its clocks again now (the
                // frame limiter's slot was taken at its first start and stays).
                self.pacing
                    .restart_frame(&mut self.telemetry, f.number, now);
            }
            return None;
        }
        if let Some(at) = self.pacing.start_at(now) {
            return Some(self.sleep_until(at, now));
        }
        if let Some(watch) = self.first_display_watch(now) {
            return Some(watch);
        }
        let number = self.pacing.begin_frame(&mut self.telemetry, now);
        self.display_watch_reset();
        self.frame = Some(Frame {
            number,
            acquire_semaphore: None,
            fence: None,
            out_of_date_once: false,
            handed_out: false,
            retried: false,
        });
        None
    }

    /// Sleeps until `at`. Where the pacing learns GPU times from when completions are seen
    /// (low latency without GPU timestamps), the sleep is a wait on the oldest submission not
    /// yet seen complete, ending a little before `at`: its completion is then seen when it
    /// happens. Seen only at the next acquire, it reads as a longer GPU time, which starts the
    /// next frame later, which sees the next completion later still, until low latency runs at
    /// a fraction of the fps it could. Low latency on a queued display then watches the
    /// display the same way (module `display_watch`).
    /// The rest of the sleep stays a [`Request::SleepUntil`], which the shell ends precisely.
    fn sleep_until(&mut self, at: u64, now: u64) -> Request<S, W, F> {
        if let Some(wait) = self.fate_step(now, Some(at)) {
            return wait;
        }
        let watch_until = at.saturating_sub(PACING_WATCH_MARGIN_NS);
        // The display first (one frame per sleep), then the oldest submission. The other order
        // never catches a display time on a FIFO display without GPU timestamps: a submission
        // is always pending there, so low latency would lose its display plan
        // (`pacing_sim::fifo_60hz_low_latency_without_gpu_timestamps`).
        if let Some(watch) = self.display_watch_step(watch_until, now) {
            return watch;
        }
        if self.pacing.wants_gpu_times() && self.gpu.is_none() && watch_until > now {
            if let Some((_, signal)) = self.fences.oldest_submitted() {
                return self.wait(signal, WaitPurpose::PacingWatch, Some(watch_until), now);
            }
        }
        Request::SleepUntil(at)
    }

    /// `vkAcquireNextImageKHR` with a free acquire semaphore (a new one while the ring grows).
    fn acquire_image(&mut self) -> Option<Request<S, W, F>> {
        if self.presenter.frame().is_some() {
            return None;
        }
        let Some(swapchain) = self.live.as_ref().map(|l| l.handle) else {
            return Some(Request::Failed(Failure::Misuse(CoreError::NoSwapchain)));
        };
        let frame = self.frame.as_mut()?;
        let semaphore = match frame.acquire_semaphore {
            Some(s) => s,
            None => match self.presenter.take_acquire_semaphore() {
                Some(s) => {
                    frame.acquire_semaphore = Some(s);
                    s
                }
                None => return Some(self.create_semaphore(SemaphoreFor::Acquire)),
            },
        };
        self.awaiting = Some(Awaiting::Acquire(semaphore));
        Some(Request::Acquire {
            swapchain,
            semaphore,
            timeout_ns: self.timeout(),
        })
    }

    /// The answer to [`Request::Acquire`]: the image index and whether the swapchain is
    /// suboptimal, or the error code.
    pub fn handle_acquire(
        &mut self,
        result: Result<(u32, bool), VkStatus>,
    ) -> Result<(), CoreError> {
        let semaphore = self.answer("an acquire result nobody asked for", |a| match a {
            Awaiting::Acquire(s) => Some(s),
            _ => None,
        })?;
        if let Some(f) = self.frame.as_mut() {
            f.acquire_semaphore = None;
        }
        match result {
            Ok((image, suboptimal)) => {
                if let Err(e) = self.presenter.image_acquired(semaphore, image) {
                    self.failure = Some(e.into());
                    return Ok(());
                }
                if image < 64 {
                    self.stats.images_acquired_mask |= 1 << image;
                }
                if suboptimal {
                    // Render and present this image; recreate afterwards.
                    self.stats.out_of_date_or_suboptimal += 1;
                    self.needs_recreate = true;
                }
                Ok(())
            }
            Err(status) => {
                // A failed acquire signals nothing: the semaphore is free again.
                self.presenter.acquire_failed(semaphore)?;
                self.acquire_failed(status);
                Ok(())
            }
        }
    }

    /// Out of date: recreate and acquire once more (twice in a row is an error). No image
    /// within the bound ends the acquire with "not ready", not an error: the presentation
    /// engine holds every image while a window is hidden or a compositor stops repainting
    /// (Vulkan lets `vkAcquireNextImageKHR` wait forever then, and vkpace's call is bounded:
    /// VUID-vkAcquireNextImageKHR-surface-07783), and a frame skipped there is the application
    /// waiting for its window, not a failure. Other codes end the acquire with an error.
    fn acquire_failed(&mut self, status: VkStatus) {
        const CALL: &str = "vkAcquireNextImageKHR";
        self.stats.out_of_date_or_suboptimal += u64::from(status.is_stale_swapchain());
        match status {
            VkStatus::OUT_OF_DATE => {
                self.needs_recreate = true;
                match self.frame.as_mut() {
                    Some(f) if !f.out_of_date_once => f.out_of_date_once = true,
                    _ => self.failure = Some(Failure::from_status(CALL, status)),
                }
            }
            VkStatus::TIMEOUT | VkStatus::NOT_READY => self.round.image_not_ready = true,
            other => self.failure = Some(Failure::from_status(CALL, other)),
        }
    }

    /// The frame's present semaphore: nearly always one to reuse; a new one in the first
    /// frames; a wait after N was lowered.
    fn choose_present_semaphore(&mut self, now: u64) -> Option<Request<S, W, F>> {
        let held = self.presenter.frame()?;
        if held.present.is_some() {
            return None;
        }
        let choice = match self.presenter.choose_present_semaphore() {
            Ok(c) => c,
            Err(e) => return Some(Request::Failed(e.into())),
        };
        self.drain_actions();
        match choice {
            PresentSemaphoreChoice::Reuse(_) => None,
            PresentSemaphoreChoice::Create => Some(self.create_semaphore(SemaphoreFor::Present)),
            PresentSemaphoreChoice::WaitFor(serial) => {
                let signal = self.fences.signal_for(serial)?;
                Some(self.wait(signal, WaitPurpose::PresentSemaphore, None, now))
            }
        }
    }

    /// The fence the frame's last submission signals (fence backend; with the timeline the
    /// frame signals its serial's value, known when it is submitted).
    fn frame_fence(&mut self) -> Option<Request<S, W, F>> {
        let uses_fences = self.uses_fences();
        let frame = self.frame.as_mut()?;
        if frame.fence.is_some() || !uses_fences {
            return None;
        }
        match self.fences.take() {
            Some(f) => {
                frame.fence = Some(f);
                None
            }
            None => Some(self.create_fence()),
        }
    }

    /// Everything is there: hand the frame out.
    fn frame_ready(&mut self, now: u64, since: u64) -> Request<S, W, F> {
        let (Some(frame), Some(held), Some(live)) = (
            self.frame.as_mut(),
            self.presenter.frame(),
            self.live.as_ref(),
        ) else {
            return Request::Failed(CoreError::OutOfOrder("frame vanished").into());
        };
        let signal = match frame.fence {
            Some(f) => SubmitSignal::Fence(f),
            // Nothing takes a serial between here and the frame's submission: the next acquire
            // hands this same frame out again, and teardown consumes it before submitting.
            None if self.config.completion != CompletionBackend::Fences => {
                SubmitSignal::Timeline(self.next_serial.0)
            }
            None => return Request::Failed(CoreError::OutOfOrder("frame without a fence").into()),
        };
        let Some(present_semaphore) = held.present else {
            return Request::Failed(CoreError::OutOfOrder("frame incomplete").into());
        };
        frame.handed_out = true;
        self.pacing.acquired(&mut self.telemetry, frame.number, now);
        let (generation, extent, format) = (live.generation, live.plan.extent, live.plan.format);
        // Compared with the last frame submitted, not handed out: a renderer that drops a frame
        // without recording it still sees the change on the frame it renders.
        let before = self.submitted_shape;
        let swapchain_changed = before.is_none_or(|b| b.0 != generation);
        let extent_changed = before.is_none_or(|b| b.1 != extent);
        let format_changed = before.is_none_or(|b| b.2 != format);
        Request::FrameReady(FrameInfo {
            number: frame.number,
            swapchain: live.handle,
            image: held.image,
            extent: live.plan.extent,
            format: live.plan.format,
            acquire_semaphore: held.acquire,
            present_semaphore,
            signal,
            slot: held.slot,
            generation: live.generation,
            swapchain_changed,
            extent_changed,
            format_changed,
            cpu_wait_ns: now.saturating_sub(since),
        })
    }
}
