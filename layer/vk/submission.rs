//! The two ways a frame's work reaches the GPU: vkpace submits it ([`Submission`], taken by
//! [`super::Swapchain::submit`]), or the renderer submits it and declares that it did
//! ([`RendererTiming`], taken by [`super::Swapchain::submitted_by_renderer`]).

use ash::vk;

use super::batch::Batch;

/// What [`super::Swapchain::submit`] submits for a frame.
///
/// ```
/// # use ash::vk;
/// # fn f(cmd: vk::CommandBuffer, token: vkpace::SyncToken) {
/// // One batch (`vkQueueSubmit`), the common case.
/// let cmds = [cmd];
/// let one = vkpace::Submission::command_buffers(&cmds, vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT);
/// // Several batches in one `vkQueueSubmit2` (needs `SwapchainConfig::synchronization2`).
/// let waits = [(token, vk::PipelineStageFlags2::FRAGMENT_SHADER)];
/// let batches = [vkpace::Batch::new(&cmds).waits(&waits)];
/// let several = vkpace::Submission::batches(&batches, vk::PipelineStageFlags2::ALL_TRANSFER);
/// # let _ = (one, several); }
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum Submission<'a> {
    /// One batch with `vkQueueSubmit`: `command_buffers` in order, waiting on the frame's
    /// acquire semaphore at `wait_stage`.
    CommandBuffers {
        /// The frame's command buffers, in order.
        command_buffers: &'a [vk::CommandBuffer],
        /// Where they wait for the image (usually `COLOR_ATTACHMENT_OUTPUT`).
        wait_stage: vk::PipelineStageFlags,
    },
    /// Several batches in one `vkQueueSubmit2`: the first also waits on the frame's acquire
    /// semaphore at `acquire_wait_stage`, the last also signals the frame's present semaphore
    /// and completion. Needs [`super::SwapchainConfig::synchronization2`].
    Batches {
        /// The batches, in submission order (at least one).
        batches: &'a [Batch<'a>],
        /// Where the first batch waits for the image.
        acquire_wait_stage: vk::PipelineStageFlags2,
    },
}

impl<'a> Submission<'a> {
    /// One batch of `command_buffers` waiting for the image at `wait_stage`.
    #[must_use]
    pub fn command_buffers(
        command_buffers: &'a [vk::CommandBuffer],
        wait_stage: vk::PipelineStageFlags,
    ) -> Self {
        Self::CommandBuffers {
            command_buffers,
            wait_stage,
        }
    }

    /// Several batches, the first waiting for the image at `acquire_wait_stage`.
    #[must_use]
    pub fn batches(batches: &'a [Batch<'a>], acquire_wait_stage: vk::PipelineStageFlags2) -> Self {
        Self::Batches {
            batches,
            acquire_wait_stage,
        }
    }
}

/// Whether a frame the renderer submitted itself carried vkpace's GPU timing command buffers
/// ([`super::Frame::timing_command_buffers`]), told to
/// [`super::Swapchain::submitted_by_renderer`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RendererTiming {
    /// The submissions did not include them: the frame has no GPU times.
    Untimed,
    /// They included both, the first before all of the frame's work and the second after it,
    /// on the swapchain's queue: the frame's GPU start and end reach the telemetry. Needs
    /// [`super::SwapchainConfig::gpu_timestamps`].
    Timed,
}
