//! A frame submitted in several batches with `vkQueueSubmit2`: the renderer's batches with
//! their own waits and signals, and GPU waits on registered host timelines' tokens, each checked
//! before anything is submitted (seed 000's validated waits). The arrays are laid out in
//! `batch.rs`.

use ash::vk;

use super::batch::{Batch, FrameSync};
use super::error::{Error, Result};
use super::frame::{Frame, SubmittedFrame};
use super::swapchain::Swapchain;
use vkpace_core::SyncToken;

impl Swapchain {
    /// [`super::Submission::Batches`]: the renderer's batches in one `vkQueueSubmit2`, the
    /// first also waiting on the frame's acquire semaphore, the last also signalling its present
    /// semaphore and its fence or timeline value (which cover them all), vkpace's timing
    /// command buffers opening the first and closing the last. Every host-timeline wait is
    /// checked before anything is submitted. No allocation once the batch arrays have grown to
    /// the frame's size.
    ///
    /// # Safety
    ///
    /// As [`Swapchain::submit`].
    pub(super) unsafe fn submit_batches(
        &mut self,
        frame: Frame,
        batches: &[Batch<'_>],
        acquire_wait_stage: vk::PipelineStageFlags2,
    ) -> Result<SubmittedFrame> {
        self.check_frame(&frame)?;
        if !self.shell.sync2() {
            return Err(Error::InvalidConfig(
                "Submission::Batches needs SwapchainConfig::synchronization2",
            ));
        }
        if batches.is_empty() {
            return Err(Error::InvalidConfig(
                "Submission::Batches needs at least one batch",
            ));
        }
        self.check_batch_waits(batches)?;
        self.fill_scratch(&frame, batches, acquire_wait_stage)?;
        let at = self.shell.now_ns();
        // SAFETY: the core handed out the frame's semaphores and fence or timeline value unused
        // (as in `submit`); the token waits were checked above; the caller vouches for the rest.
        let fence = frame.info.signal.fence().unwrap_or_default();
        let sh = &self.shell;
        // SAFETY: as above.
        unsafe { sh.batch_scratch().submit(sh.device(), sh.queue(), fence) }?;
        let slot = self.shell.timer().map(|_| frame.info.slot);
        let submitted = self.record_submission(&frame, at, slot)?;
        // The machine presents the frame only once the host values it waits for are signalled.
        let tokens = batches.iter().flat_map(|b| b.waits.iter().map(|&(t, _)| t));
        self.machine.record_gpu_waits(submitted.token(), tokens)?;
        Ok(submitted)
    }

    /// Every host-timeline wait of the batches, checked before anything is submitted.
    fn check_batch_waits(&mut self, batches: &[Batch<'_>]) -> Result<()> {
        for &(token, _) in batches.iter().flat_map(|b| b.waits) {
            // The swapchain's own tokens: the machine refuses them with the fence backend.
            self.timeline_of(token)?;
            self.machine.check_gpu_wait(token)?;
        }
        Ok(())
    }

    /// Fills the batch arrays from the renderer's batches and the frame's own waits and signals.
    fn fill_scratch(
        &mut self,
        frame: &Frame,
        batches: &[Batch<'_>],
        acquire_wait_stage: vk::PipelineStageFlags2,
    ) -> Result<()> {
        let sh = &mut self.shell;
        let timeline = sh.timeline_signal(frame.info.signal);
        let sync = FrameSync {
            acquire: frame.info.acquire_semaphore,
            acquire_wait_stage,
            present: frame.info.present_semaphore,
            timeline,
            timed: sh.timer().and_then(|t| t.command_buffers(frame.info.slot)),
        };
        let own_stream = self.machine.last_submitted().stream();
        let (scratch, timelines) = sh.batch_parts();
        let semaphore_of = |token: SyncToken| {
            if token.stream() == own_stream && timeline.0 != vk::Semaphore::null() {
                return Ok(timeline.0);
            }
            timelines
                .iter()
                .find(|t| t.stream == token.stream())
                .map(|t| t.semaphore)
                .ok_or(Error::ForeignToken(token))
        };
        scratch.fill(batches, sync, semaphore_of)
    }
}
