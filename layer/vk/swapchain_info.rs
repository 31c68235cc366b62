//! [`SwapchainInfo`]: everything a [`super::Swapchain`] says about itself in one value, and
//! [`Setting`]: what the renderer may change between frames.

use std::time::Instant;

use ash::vk;

use super::display::{DisplayFeedback, PresentTimingInUse};
use super::maintenance1::Maintenance1Names;
use vkpace_core::{CompletionBackend, DisplayPath, PacingPolicy};

use super::frame_limit::FrameLimit;

/// The live swapchain and the settings and paths in use, from
/// [`super::Swapchain::info`]. A plain copy: read it as often as you like (no allocation, no
/// Vulkan call).
///
/// ```no_run
/// # fn f(swapchain: &vkpace::Swapchain) {
/// let info = swapchain.info();
/// if let Some(extent) = info.extent {
///     println!("{}x{} in {:?}, {} frames in flight", extent.width, extent.height,
///         info.present_mode, info.frames_in_flight);
/// }
/// # }
/// ```
#[derive(Copy, Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SwapchainInfo {
    /// The extent of the current swapchain; `None` while there is none (zero extent).
    pub extent: Option<vk::Extent2D>,
    /// The format and color space of its images (kept across recreation while the surface
    /// offers it).
    pub surface_format: Option<vk::SurfaceFormatKHR>,
    /// The present mode in use.
    pub present_mode: Option<vk::PresentModeKHR>,
    /// Frames in flight N: per-frame resources need this many copies ([`super::Frame::slot`]).
    pub frames_in_flight: usize,
    /// The pacing policy in use.
    pub pacing: PacingPolicy,
    /// The frame limit in use.
    pub frame_limit: Option<FrameLimit>,
    /// What backs the completion tokens ([`super::SwapchainConfig::completion`]).
    pub completion: CompletionBackend,
    /// Which names of swapchain maintenance1 are in use, if that path is.
    pub maintenance1: Option<Maintenance1Names>,
    /// How frames are paced to the display now: [`DisplayPath::RefreshGrid`] with the swap
    /// interval while present timing targets refreshes, else [`DisplayPath::Cpu`].
    pub display_path: DisplayPath,
    /// Which display feedback this swapchain object uses (present_wait2, present_wait or
    /// none), chosen at creation from the config and what the surface supports.
    pub display_feedback: DisplayFeedback,
    /// The present timing in use (`VK_EXT_present_timing`), or `None`: not asked for or not
    /// supported by the surface, so frame limits are kept by the CPU limiter.
    pub present_timing: Option<PresentTimingInUse>,
    /// Retired swapchains not yet destroyed (each waits for proof its presents were
    /// processed, bounded by [`super::PacingConfig::max_retired_swapchains`]).
    pub old_swapchains_pending: usize,
    /// The instant the telemetry's times count from.
    pub telemetry_epoch: Instant,
}

impl SwapchainInfo {
    /// The image format, if there is a swapchain.
    #[must_use]
    pub fn format(&self) -> Option<vk::Format> {
        self.surface_format.map(|f| f.format)
    }
}

/// A setting the renderer may change between frames ([`super::Swapchain::set`]); each takes
/// effect at a frame boundary vkpace chooses.
#[derive(Copy, Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Setting {
    /// Switches the present mode. On the maintenance1 path a mode compatible with the current
    /// swapchain switches with the next present, without recreation; otherwise the swapchain
    /// is recreated at the next acquire (FIFO where the surface lacks the mode).
    PresentMode(vk::PresentModeKHR),
    /// Frames in flight, 1..=3 (else [`super::Error::InvalidFramesInFlight`]); the next acquire
    /// paces by it. [`super::Frame::slot`] stays safe across the change (chosen by
    /// completion).
    FramesInFlight(usize),
    /// The pacing policy, from the next frame on.
    Pacing(PacingPolicy),
    /// Sets or removes the frame limit from the next frame on.
    FrameLimit(Option<FrameLimit>),
}
