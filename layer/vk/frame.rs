//! What one acquire hands the renderer.

use std::time::Duration;

use ash::vk;

/// One frame: the image to render to and the three sync objects the renderer's submission
/// must use. Pass it back to [`super::Swapchain::present`].
///
/// The renderer's one submission for the frame must wait on [`Frame::acquire_semaphore`]
/// (at the stage that first writes the image), signal [`Frame::present_semaphore`] and signal
/// [`Frame::fence`]. [`super::Swapchain::submit`] does exactly that for a list of command
/// buffers. Dropping a frame *before* submitting keeps its image for the next acquire; dropping
/// it after submitting without presenting breaks the present semaphore's bookkeeping.
#[derive(Debug)]
#[must_use = "a frame must be presented (or dropped before submitting, to keep its image)"]
pub struct Frame {
    /// Index of the acquired image in the swapchain.
    pub image_index: u32,
    /// The image.
    pub image: vk::Image,
    /// A 2D color view of the image, made by vkpace.
    pub image_view: vk::ImageView,
    /// The image's extent.
    pub extent: vk::Extent2D,
    /// The image's format.
    pub format: vk::Format,
    /// Wait on this before writing the image.
    pub acquire_semaphore: vk::Semaphore,
    /// Signal this when rendering is done; the present waits on it.
    pub present_semaphore: vk::Semaphore,
    /// Signal this with the frame's submission; vkpace paces on it.
    pub fence: vk::Fence,
    /// Per-frame resource slot in `0..vkpace::core::MAX_FRAMES_IN_FLIGHT` (3): resources indexed
    /// by it (command buffers, uniform buffers) are free, because the submission that last used
    /// the slot has completed. Chosen by completion, so it stays right when frames in flight
    /// change at run time; keep 3 sets of per-frame resources.
    pub slot: usize,
    /// Time this acquire spent blocked (pacing wait plus `vkAcquireNextImageKHR`).
    pub cpu_wait: Duration,
    /// Swapchain generation the image belongs to (1 for the first swapchain).
    pub generation: u64,
}

/// The result of [`super::Swapchain::acquire`].
#[derive(Debug)]
#[must_use]
pub enum Acquired {
    /// Render this frame, then present it.
    Frame(Frame),
    /// Nothing to render now: the window has zero extent (minimized). No image was acquired and
    /// nothing waits; call acquire again when the window changes.
    ZeroExtent,
}

/// What presenting reported.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Presented {
    /// Queued, swapchain up to date.
    Queued,
    /// Queued, but the swapchain no longer matches the surface (`SUBOPTIMAL` or `OUT_OF_DATE`):
    /// it is recreated at the next acquire.
    Recreating,
}
