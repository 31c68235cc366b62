//! A frame submitted in several batches with `vkQueueSubmit2`: the renderer's batches with
//! their own waits and signals, and GPU waits on registered host timelines' tokens, each checked
//! before anything is submitted (seed 000's validated waits).

use std::sync::Arc;
use std::time::Instant;

use ash::vk;

use super::error::{Error, Result, VkContext};
use super::frame::{Frame, SubmittedFrame};
use super::swapchain::Swapchain;
use crate::core::SyncToken;

/// One batch of a frame (one `VkSubmitInfo2`): its command buffers, the host-timeline tokens it
/// waits for on the GPU, and any further semaphores it waits on or signals.
///
/// ```
/// # use ash::vk;
/// # fn f(cmd: vk::CommandBuffer, token: vkpace::vk::SyncToken) {
/// let waits = [(token, vk::PipelineStageFlags2::FRAGMENT_SHADER)];
/// let cmds = [cmd];
/// let batch = vkpace::vk::Batch::new(&cmds).waits(&waits);
/// # let _ = batch; }
/// ```
#[derive(Clone, Copy, Debug, Default)]
#[non_exhaustive]
pub struct Batch<'a> {
    /// Command buffers, in order.
    pub command_buffers: &'a [vk::CommandBuffer],
    /// Tokens of registered [`super::HostTimeline`]s to wait for, with the stages that wait.
    pub waits: &'a [(SyncToken, vk::PipelineStageFlags2)],
    /// Further semaphores to wait on (semaphore, value, stage; `pNext` is not passed on).
    pub wait_semaphores: &'a [vk::SemaphoreSubmitInfo<'a>],
    /// Further semaphores to signal (as above).
    pub signal_semaphores: &'a [vk::SemaphoreSubmitInfo<'a>],
}

impl<'a> Batch<'a> {
    /// A batch of these command buffers, waiting and signalling nothing of its own.
    #[must_use]
    pub fn new(command_buffers: &'a [vk::CommandBuffer]) -> Self {
        Self {
            command_buffers,
            ..Self::default()
        }
    }

    /// Tokens to wait for on the GPU, at these stages: of registered host timelines, and (timeline
    /// backend) the swapchain's own.
    #[must_use]
    pub fn waits(mut self, waits: &'a [(SyncToken, vk::PipelineStageFlags2)]) -> Self {
        self.waits = waits;
        self
    }

    /// Further semaphores to wait on.
    #[must_use]
    pub fn wait_semaphores(mut self, semaphores: &'a [vk::SemaphoreSubmitInfo<'a>]) -> Self {
        self.wait_semaphores = semaphores;
        self
    }

    /// Further semaphores to signal.
    #[must_use]
    pub fn signal_semaphores(mut self, semaphores: &'a [vk::SemaphoreSubmitInfo<'a>]) -> Self {
        self.signal_semaphores = semaphores;
        self
    }
}

/// The arrays a batched submission points into, kept between frames.
#[derive(Default)]
pub(crate) struct Scratch {
    waits: Vec<vk::SemaphoreSubmitInfo<'static>>,
    signals: Vec<vk::SemaphoreSubmitInfo<'static>>,
    commands: Vec<vk::CommandBufferSubmitInfo<'static>>,
    /// Per batch: where its waits, signals and command buffers end in the arrays above.
    ends: Vec<(usize, usize, usize)>,
}

/// A copy of `s` without its `pNext` chain.
fn plain(s: &vk::SemaphoreSubmitInfo<'_>) -> vk::SemaphoreSubmitInfo<'static> {
    vk::SemaphoreSubmitInfo::default()
        .semaphore(s.semaphore)
        .value(s.value)
        .stage_mask(s.stage_mask)
        .device_index(s.device_index)
}

fn binary(
    semaphore: vk::Semaphore,
    stage: vk::PipelineStageFlags2,
) -> vk::SemaphoreSubmitInfo<'static> {
    vk::SemaphoreSubmitInfo::default()
        .semaphore(semaphore)
        .stage_mask(stage)
}

fn command(cmd: vk::CommandBuffer) -> vk::CommandBufferSubmitInfo<'static> {
    vk::CommandBufferSubmitInfo::default().command_buffer(cmd)
}

impl Swapchain {
    /// Submits `frame` as several batches in one `vkQueueSubmit2`: the first batch also waits on
    /// the frame's acquire semaphore (at `acquire_wait_stage`), the last also signals its present
    /// semaphore and the frame's fence or timeline value, which cover them all. Batches may
    /// wait for registered [`super::HostTimeline`] tokens and, with the timeline backend, for
    /// the swapchain's own ([`Batch::waits`]); each is checked first: a value nobody promised
    /// or submitted is [`Error::TokenNotSubmitted`], an unregistered stream
    /// [`Error::ForeignToken`], the swapchain's own tokens with the fence backend
    /// `NotWaitableOnGpu`, and nothing is submitted then (the frame stays held and can be
    /// submitted again). With GPU timestamps on, vkpace's
    /// timing command buffers open the first batch and close the last.
    ///
    /// Needs [`super::SwapchainConfig::synchronization2`]. No allocation once the batch
    /// arrays have grown to the frame's size.
    ///
    /// # Safety
    ///
    /// As [`Swapchain::submit`] for every command buffer; the further semaphores must be valid
    /// and follow `vkQueueSubmit2`'s rules (a binary semaphore waited on has a pending signal,
    /// one signalled has none); every promised host-timeline value waited for must be signalled.
    pub unsafe fn submit_batches(
        &mut self,
        frame: Frame,
        batches: &[Batch<'_>],
        acquire_wait_stage: vk::PipelineStageFlags2,
    ) -> Result<SubmittedFrame> {
        self.check_frame(&frame)?;
        if !self.shell.sync2 {
            return Err(Error::InvalidConfig(
                "submit_batches needs SwapchainConfig::synchronization2",
            ));
        }
        if batches.is_empty() {
            return Err(Error::InvalidConfig(
                "submit_batches needs at least one batch",
            ));
        }
        self.check_batch_waits(batches)?;
        self.fill_scratch(&frame, batches, acquire_wait_stage)?;
        let at = self.shell.clock.now_ns();
        // SAFETY: the core handed out the frame's semaphores and fence or timeline value unused
        // (as in `submit`); the token waits were checked above; the caller vouches for the rest.
        unsafe { self.queue_submit2(frame.info.signal.fence().unwrap_or_default()) }?;
        let slot = self.shell.timer.as_ref().map(|_| frame.info.slot);
        let submitted = self.record_submission(&frame, at, slot)?;
        // Noted first: whatever happens next, the frame is not presented before its values.
        self.note_host_waits(batches);
        let tokens = batches.iter().flat_map(|b| b.waits.iter().map(|&(t, _)| t));
        self.machine.record_gpu_waits(submitted.token(), tokens)?;
        Ok(submitted)
    }

    /// Remembers the host-timeline values the frame waits for, to be settled before its present.
    fn note_host_waits(&mut self, batches: &[Batch<'_>]) {
        let sh = &mut self.shell;
        sh.frame_host_waits.clear();
        for &(token, _) in batches.iter().flat_map(|b| b.waits) {
            if let Some(t) = sh.timelines.iter().find(|t| t.stream == token.stream()) {
                sh.frame_host_waits.push((Arc::clone(t), token.value()));
            }
        }
    }

    /// Waits (bounded) until every host-timeline value the submitted frame waits for has been
    /// signalled. A present may not wait on a semaphore whose signal depends on a timeline
    /// value not yet signalled ("any semaphore signal operations on which it depends must have
    /// also been submitted for execution", VUID-vkQueuePresentKHR-pWaitSemaphores-03268), so a
    /// frame that waits before the producer's signal is presented only after it.
    /// One bound for all of them; a timeline destroyed meanwhile (against its contract) is
    /// skipped rather than waited on.
    pub(super) fn settle_host_waits(&mut self) -> Result<()> {
        let sh = &self.shell;
        if sh.frame_host_waits.is_empty() {
            return Ok(());
        }
        let deadline = Instant::now() + sh.wait_timeout;
        for (timeline, value) in &sh.frame_host_waits {
            if timeline.destroyed() {
                continue;
            }
            timeline.wait_signalled(*value, deadline, sh.wait_timeout)?;
        }
        self.shell.frame_host_waits.clear();
        Ok(())
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

    /// Fills the batch arrays: the renderer's batches plus the frame's acquire wait, present
    /// signal and timing command buffers.
    ///
    /// One wait and one signal serve all batches: a semaphore wait's second synchronization
    /// scope includes "every command submitted in the same batch" and "all commands that occur
    /// later in submission order" (spec, *Semaphore Waiting*), so waiting in the first batch
    /// orders every later batch's image writes after the acquire; a signal's first scope
    /// includes "all commands that occur earlier in submission order" (*Semaphore Signaling*),
    /// so signalling in the last batch covers them all. The fence of the `vkQueueSubmit2` call
    /// covers every batch of it (*Fence Signaling*), and so does the timeline value signalled
    /// in the last batch (the same sentence of *Semaphore Signaling*): the frame stays one
    /// serial.
    fn fill_scratch(
        &mut self,
        frame: &Frame,
        batches: &[Batch<'_>],
        acquire_wait_stage: vk::PipelineStageFlags2,
    ) -> Result<()> {
        let timed = self
            .shell
            .timer
            .as_ref()
            .and_then(|t| t.command_buffers(frame.info.slot));
        let (timeline, value) = self.shell.timeline_signal(frame.info.signal);
        let own_stream = self.machine.last_submitted().stream();
        let semaphore_of = |token: SyncToken| {
            if token.stream() == own_stream && timeline != vk::Semaphore::null() {
                return Ok(timeline);
            }
            self.shell
                .timelines
                .iter()
                .find(|t| t.stream == token.stream())
                .map(|t| t.semaphore)
                .ok_or(Error::ForeignToken(token))
        };
        let sc = &mut self.shell.batch_scratch;
        sc.waits.clear();
        sc.signals.clear();
        sc.commands.clear();
        sc.ends.clear();
        let last = batches.len() - 1;
        for (i, b) in batches.iter().enumerate() {
            if i == 0 {
                sc.waits
                    .push(binary(frame.info.acquire_semaphore, acquire_wait_stage));
                sc.commands.extend(timed.map(|(begin, _)| command(begin)));
            }
            for &(token, stage) in b.waits {
                let wait = binary(semaphore_of(token)?, stage).value(token.value());
                sc.waits.push(wait);
            }
            sc.waits.extend(b.wait_semaphores.iter().map(plain));
            sc.commands
                .extend(b.command_buffers.iter().copied().map(command));
            sc.signals.extend(b.signal_semaphores.iter().map(plain));
            if i == last {
                sc.commands.extend(timed.map(|(_, end)| command(end)));
                let all = vk::PipelineStageFlags2::ALL_COMMANDS;
                sc.signals.push(binary(frame.info.present_semaphore, all));
                if value != 0 {
                    // The timeline backend: the frame's serial, above every earlier value.
                    sc.signals.push(binary(timeline, all).value(value));
                }
            }
            sc.ends
                .push((sc.waits.len(), sc.signals.len(), sc.commands.len()));
        }
        Ok(())
    }

    /// The filled batches in one `vkQueueSubmit2` signalling `fence`.
    ///
    /// # Safety
    ///
    /// As [`Swapchain::submit_batches`].
    unsafe fn queue_submit2(&self, fence: vk::Fence) -> Result<()> {
        const ON_STACK: usize = 8;
        let sc = &self.shell.batch_scratch;
        let mut starts = (0, 0, 0);
        let infos = sc.ends.iter().map(|&(w, s, c)| {
            let info = vk::SubmitInfo2::default()
                .wait_semaphore_infos(&sc.waits[starts.0..w])
                .signal_semaphore_infos(&sc.signals[starts.1..s])
                .command_buffer_infos(&sc.commands[starts.2..c]);
            starts = (w, s, c);
            info
        });
        let (device, queue) = (&self.shell.device, self.shell.queue);
        if sc.ends.len() <= ON_STACK {
            let mut array = [vk::SubmitInfo2::default(); ON_STACK];
            let n = array.iter_mut().zip(infos).map(|(a, i)| *a = i).count();
            // SAFETY: caller contract; the infos point into the scratch arrays, alive here.
            unsafe { device.queue_submit2(queue, &array[..n], fence) }
        } else {
            let all: Vec<_> = infos.collect();
            // SAFETY: as above.
            unsafe { device.queue_submit2(queue, &all, fence) }
        }
        .during("vkQueueSubmit2")
    }
}
