//! The frame path: acquire, submit (by vkpace or declared by the renderer), present; each
//! checks that the frame belongs to this swapchain first.

use super::*;

impl Swapchain {
    /// Waits (bounded) until the frame may begin, recreates the swapchain if needed, and
    /// acquires an image. `VK_ERROR_OUT_OF_DATE_KHR` is handled inside (recreate, acquire once
    /// more). A frame dropped before submission is handed out again; one submitted and never
    /// presented is presented first.
    pub fn acquire(&mut self) -> Result<Acquired> {
        let now = self.shell.now_ns();
        self.machine.begin_acquire(now);
        match self.drive(now)? {
            Request::FrameReady(info) => {
                let (image, view) = self.shell.image_and_view(info.swapchain, info.image)?;
                let (timeline, _) = self.shell.timeline_signal(info.signal);
                let timing = self
                    .shell
                    .timer()
                    .and_then(|t| t.command_buffers(info.slot));
                Ok(Acquired::Frame(Frame {
                    info,
                    image,
                    view,
                    timeline,
                    timing,
                    owner: self.id,
                }))
            }
            Request::NotReady => Ok(Acquired::NotReady),
            _ => Ok(Acquired::ZeroExtent),
        }
    }

    /// Submits `frame`'s work and records its completion: [`Submission::CommandBuffers`] as one
    /// batch (`vkQueueSubmit`) that waits on the frame's acquire semaphore and signals its
    /// present semaphore and its completion (the frame's fence, or the timeline value);
    /// [`Submission::Batches`] as several in one `vkQueueSubmit2` (see
    /// [`Submission::Batches`]; the batches' host-timeline waits are checked first, and a value
    /// nobody promised or submitted is [`Error::TokenNotSubmitted`], an unregistered stream
    /// [`Error::ForeignToken`], the swapchain's own tokens with the fence backend
    /// [`Error::NotWaitableOnGpu`]). With [`SwapchainConfig::gpu_timestamps`] the work is
    /// framed by two command buffers of vkpace's that write the frame's GPU start and end (no
    /// allocation up to [`MAX_TIMED_COMMAND_BUFFERS`] command buffers in one batch). If the
    /// submission fails or is refused, nothing is submitted and the frame's image stays held:
    /// the next acquire hands the same frame out again.
    ///
    /// A renderer that submits the frame itself declares it with
    /// [`Self::submitted_by_renderer`] instead.
    ///
    /// # Safety
    ///
    /// The command buffers must be valid, recorded, of a pool of the queue's family, not
    /// pending (unless simultaneous use), and stay valid until the frame's token is reached
    /// (`vkQueueSubmit`'s rules). They must leave the image in `PRESENT_SRC_KHR`. A batch's
    /// further semaphores must be valid and follow `vkQueueSubmit2`'s rules (a binary
    /// semaphore waited on has a pending signal, one signalled has none); every promised
    /// host-timeline value waited for must be signalled.
    pub unsafe fn submit(
        &mut self,
        frame: Frame,
        submission: Submission<'_>,
    ) -> Result<SubmittedFrame> {
        match submission {
            Submission::CommandBuffers {
                command_buffers,
                wait_stage,
            } => {
                // SAFETY: the caller's contract.
                unsafe { self.submit_one_batch(frame, command_buffers, wait_stage) }
            }
            Submission::Batches {
                batches,
                acquire_wait_stage,
            } => {
                // SAFETY: the caller's contract.
                unsafe { self.submit_batches(frame, batches, acquire_wait_stage) }
            }
        }
    }

    /// [`Submission::CommandBuffers`]: one `vkQueueSubmit`, framed by the timing command
    /// buffers where GPU timestamps are on.
    ///
    /// # Safety
    ///
    /// As [`Swapchain::submit`].
    unsafe fn submit_one_batch(
        &mut self,
        frame: Frame,
        command_buffers: &[vk::CommandBuffer],
        wait_stage: vk::PipelineStageFlags,
    ) -> Result<SubmittedFrame> {
        self.check_frame(&frame)?;
        let timed = self
            .shell
            .timer()
            .map(|t| t.command_buffers(frame.info.slot));
        let mut framed = [vk::CommandBuffer::null(); MAX_TIMED_COMMAND_BUFFERS + 2];
        let mut framed_vec = Vec::new();
        let buffers = match timed.flatten() {
            Some((begin, end)) if command_buffers.len() <= MAX_TIMED_COMMAND_BUFFERS => {
                let n = command_buffers.len();
                framed[0] = begin;
                framed[1..=n].copy_from_slice(command_buffers);
                framed[n + 1] = end;
                &framed[..n + 2]
            }
            Some((begin, end)) => {
                framed_vec.push(begin);
                framed_vec.extend_from_slice(command_buffers);
                framed_vec.push(end);
                &framed_vec[..]
            }
            None => command_buffers,
        };
        // The submission's time is taken before the call: the GPU may start during it.
        let at = self.shell.now_ns();
        // SAFETY: caller contract.
        unsafe { self.queue_submit_frame(&frame, buffers, wait_stage) }?;
        let slot = timed.flatten().map(|_| frame.info.slot);
        self.record_submission(&frame, at, slot)
    }

    /// `vkQueueSubmit` of the frame's one batch: waits on its acquire semaphore at
    /// `wait_stage`, signals its present semaphore and its fence or timeline value.
    ///
    /// # Safety
    ///
    /// As [`Swapchain::submit`], for `buffers`.
    pub(super) unsafe fn queue_submit_frame(
        &self,
        frame: &Frame,
        buffers: &[vk::CommandBuffer],
        wait_stage: vk::PipelineStageFlags,
    ) -> Result<()> {
        let waits = [frame.info.acquire_semaphore];
        let stages = [wait_stage];
        // With the timeline backend the submission also signals the frame's value.
        let signals = SubmitSignals::new(
            Some(frame.info.present_semaphore),
            self.shell.timeline_signal(frame.info.signal),
        );
        let mut values_info = vk::TimelineSemaphoreSubmitInfo::default();
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .command_buffers(buffers);
        let submit = signals.apply(submit, &mut values_info);
        let fence = frame.info.signal.fence().unwrap_or_default();
        // SAFETY: the core handed these out: the acquire semaphore has a pending signal and no
        // wait, the present semaphore and the fence are unsignalled with nothing pending
        // (VUID-vkQueueSubmit-fence-00063, VUID-vkQueueSubmit-pSignalSemaphores-00067); a
        // timeline value is the next serial, above every value signalled before
        // (VUID-VkSubmitInfo-pSignalSemaphores-03242). The caller vouches for the command
        // buffers.
        unsafe {
            self.shell
                .device()
                .queue_submit(self.shell.queue(), &[submit], fence)
        }
        .during("vkQueueSubmit")
    }

    /// Declares that the renderer submitted `frame` itself. Its submissions may be any number
    /// (all on this swapchain's queue, or on others as long as the last one runs after them);
    /// the first that touches the image waits on [`Frame::acquire_semaphore`], and the last,
    /// on this swapchain's queue, signals [`Frame::present_semaphore`] and [`Frame::fence`]
    /// (fence backend) or [`Frame::timeline_signal`] (timeline backend). Call it right after
    /// that last submission, before any other call to this swapchain. `timing` says whether
    /// the submissions included [`Frame::timing_command_buffers`] ([`RendererTiming::Timed`]
    /// without GPU timestamps is [`Error::InvalidConfig`]).
    ///
    /// # Safety
    ///
    /// The submissions described above were made (vkpace reuses the semaphores and fence
    /// on the strength of this declaration); with [`RendererTiming::Timed`], both timing
    /// command buffers were submitted, in that order, on this swapchain's queue.
    pub unsafe fn submitted_by_renderer(
        &mut self,
        frame: Frame,
        timing: RendererTiming,
    ) -> Result<SubmittedFrame> {
        self.check_frame(&frame)?;
        let timed_slot = match timing {
            RendererTiming::Untimed => None,
            RendererTiming::Timed if frame.timing.is_none() => {
                return Err(Error::InvalidConfig(
                    "RendererTiming::Timed needs SwapchainConfig::gpu_timestamps",
                ));
            }
            RendererTiming::Timed => Some(frame.info.slot),
        };
        let now = self.shell.now_ns();
        self.record_submission(&frame, now, timed_slot)
    }

    pub(crate) fn record_submission(
        &mut self,
        frame: &Frame,
        now: u64,
        timed_slot: Option<usize>,
    ) -> Result<SubmittedFrame> {
        let serial = self
            .machine
            .handle_frame_submitted(frame.info.number, now, timed_slot)?;
        Ok(SubmittedFrame {
            number: frame.info.number,
            owner: self.id,
            token: self.machine.token_of(serial),
        })
    }

    /// Presents a submitted frame. `SUBOPTIMAL` and `OUT_OF_DATE` schedule a recreation for the
    /// next acquire ([`Presented::Recreating`]).
    pub fn present(&mut self, frame: SubmittedFrame) -> Result<Presented> {
        self.check_owner(frame.owner)?;
        let now = self.shell.now_ns();
        self.machine.begin_present(frame.number, now)?;
        match self.drive(now)? {
            Request::Presented(PresentStatus::Recreating) => Ok(Presented::Recreating),
            _ => Ok(Presented::Queued),
        }
    }

    /// The frame is this swapchain's frame in progress, unsubmitted, with the objects the
    /// machine handed out for it now ([`Error::ForeignFrame`] otherwise).
    pub(crate) fn check_frame(&self, frame: &Frame) -> Result<()> {
        self.check_owner(frame.owner)?;
        if self.machine.frame_matches(&frame.info) {
            Ok(())
        } else {
            Err(Error::ForeignFrame)
        }
    }

    pub(crate) fn check_owner(&self, owner: u64) -> Result<()> {
        if owner == self.id && !self.destroyed {
            Ok(())
        } else {
            Err(Error::ForeignFrame)
        }
    }
}
