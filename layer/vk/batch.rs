//! One batch of a frame submitted with `vkQueueSubmit2` ([`Batch`]), and the arrays vkpace
//! fills from a frame's batches ([`Scratch`]): the renderer's batches plus the frame's acquire
//! wait, present signal, completion signal and timing command buffers. What decides which
//! tokens may be waited for lives with the swapchain (`batches.rs`); this file only lays out
//! the submission.

use ash::vk;

use super::error::{Result, VkContext};
use vkpace_core::SyncToken;

/// One batch of a frame (one `VkSubmitInfo2`): its command buffers, the host-timeline tokens it
/// waits for on the GPU, and any further semaphores it waits on or signals.
///
/// ```
/// # use ash::vk;
/// # fn f(cmd: vk::CommandBuffer, token: vkpace::SyncToken) {
/// let waits = [(token, vk::PipelineStageFlags2::FRAGMENT_SHADER)];
/// let cmds = [cmd];
/// let batch = vkpace::Batch::new(&cmds).waits(&waits);
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

/// What vkpace adds to a frame's batches: its acquire wait, present signal, completion signal
/// (timeline backend) and the GPU timer's command buffers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameSync {
    /// Waited on by the first batch.
    pub(crate) acquire: vk::Semaphore,
    /// The stage of the first batch that waits for it.
    pub(crate) acquire_wait_stage: vk::PipelineStageFlags2,
    /// Signalled by the last batch.
    pub(crate) present: vk::Semaphore,
    /// The timeline semaphore and the frame's value (0: fence backend, no timeline signal).
    pub(crate) timeline: (vk::Semaphore, u64),
    /// The GPU timer's begin and end command buffers, if GPU timing is on.
    pub(crate) timed: Option<(vk::CommandBuffer, vk::CommandBuffer)>,
}

impl Scratch {
    /// Fills the arrays from the renderer's batches and the frame's own waits and signals;
    /// `semaphore_of` names the timeline semaphore of a token a batch waits for (or refuses it).
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
    pub(crate) fn fill(
        &mut self,
        batches: &[Batch<'_>],
        frame: FrameSync,
        semaphore_of: impl Fn(SyncToken) -> Result<vk::Semaphore>,
    ) -> Result<()> {
        self.waits.clear();
        self.signals.clear();
        self.commands.clear();
        self.ends.clear();
        let last = batches.len().saturating_sub(1);
        let all = vk::PipelineStageFlags2::ALL_COMMANDS;
        for (i, b) in batches.iter().enumerate() {
            if i == 0 {
                self.waits
                    .push(binary(frame.acquire, frame.acquire_wait_stage));
                self.commands
                    .extend(frame.timed.map(|(begin, _)| command(begin)));
            }
            for &(token, stage) in b.waits {
                let wait = binary(semaphore_of(token)?, stage).value(token.value());
                self.waits.push(wait);
            }
            self.waits.extend(b.wait_semaphores.iter().map(plain));
            self.commands
                .extend(b.command_buffers.iter().copied().map(command));
            self.signals.extend(b.signal_semaphores.iter().map(plain));
            if i == last {
                self.commands
                    .extend(frame.timed.map(|(_, end)| command(end)));
                self.signals.push(binary(frame.present, all));
                let (timeline, value) = frame.timeline;
                if value != 0 {
                    // The timeline backend: the frame's serial, above every earlier value.
                    self.signals.push(binary(timeline, all).value(value));
                }
            }
            self.ends
                .push((self.waits.len(), self.signals.len(), self.commands.len()));
        }
        Ok(())
    }

    /// The filled batches in one `vkQueueSubmit2` on `queue`, signalling `fence`.
    ///
    /// # Safety
    ///
    /// Every handle in the arrays is valid and follows `vkQueueSubmit2`'s rules (as
    /// `Submission::Batches` asks of its caller); `queue` belongs to `device`.
    pub(crate) unsafe fn submit(
        &self,
        device: &ash::Device,
        queue: vk::Queue,
        fence: vk::Fence,
    ) -> Result<()> {
        const ON_STACK: usize = 8;
        let mut starts = (0, 0, 0);
        let infos = self.ends.iter().map(|&(w, s, c)| {
            let info = vk::SubmitInfo2::default()
                .wait_semaphore_infos(&self.waits[starts.0..w])
                .signal_semaphore_infos(&self.signals[starts.1..s])
                .command_buffer_infos(&self.commands[starts.2..c]);
            starts = (w, s, c);
            info
        });
        if self.ends.len() <= ON_STACK {
            let mut array = [vk::SubmitInfo2::default(); ON_STACK];
            let n = array.iter_mut().zip(infos).map(|(a, i)| *a = i).count();
            // SAFETY: caller contract; the infos point into the arrays, alive here.
            unsafe { device.queue_submit2(queue, &array[..n], fence) }
        } else {
            let all: Vec<_> = infos.collect();
            // SAFETY: as above.
            unsafe { device.queue_submit2(queue, &all, fence) }
        }
        .during("vkQueueSubmit2")
    }
}
