//! How a [`super::PresentPacer`] is made: the handles it works with ([`PresentPacerDesc`]) and
//! its settings ([`PresentPacerConfig`]).

use ash::vk;

use crate::vk::enabled_paths::{DisplayChoice, EnabledPaths, Sealed};
use crate::vk::pacing_config::PacingConfig;

/// The Vulkan objects a [`super::PresentPacer`] works with: those of
/// [`crate::SwapchainCreateDesc`] without the surface (the application creates its swapchains
/// through the pacer, for any surface). All must be valid and outlive the pacer; see
/// [`super::PresentPacer::new`]'s safety contract.
pub struct PresentPacerDesc<'a> {
    /// The loaded Vulkan entry.
    pub entry: &'a ash::Entry,
    /// The instance the surfaces and device belong to. Its `vkGetDeviceProcAddr` looks up the
    /// swapchain commands the pacer calls: a layer gives a table whose `vkGetDeviceProcAddr` is
    /// the next layer's for the device (else the loader's dispatching entry points would call
    /// the layer again).
    pub instance: &'a ash::Instance,
    /// The physical device of `device`.
    pub physical_device: vk::PhysicalDevice,
    /// The device, created with `VK_KHR_swapchain` enabled. A layer builds it from the next
    /// layer's `vkGetDeviceProcAddr`: the pacer calls only through it.
    pub device: &'a ash::Device,
    /// The queue the application presents on; vkpace's repair submissions go to it.
    pub queue: vk::Queue,
    /// The family of `queue`.
    pub queue_family: u32,
    /// Settings.
    pub config: PresentPacerConfig,
}

/// How a [`super::PresentPacer`] paces. Every field documents its default; start from
/// [`PresentPacerConfig::default`], let [`crate::Support::apply`] set what the device enabled,
/// and change what you need:
///
/// ```
/// let mut config = vkpace::PresentPacerConfig::default();
/// config.pacing.frames_in_flight = 1;
/// config.pacing.frame_limit = Some(vkpace::FrameLimit::fps(60.0)?);
/// # Ok::<(), vkpace::Error>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PresentPacerConfig {
    /// How frames are paced, as [`crate::SwapchainConfig::pacing`]. Frames in flight counts
    /// presents: the next frame waits until the repair submission of the present this many
    /// presents back has completed, so keep it at most the application's own frames in flight
    /// (the repair that consumed a semaphore has then completed before the application
    /// signals it again). With repair off there is no repair to wait for, and the
    /// application's own fences pace.
    pub pacing: PacingConfig,
    /// Which display path to take among those the device enabled ([`Self::paths`]), as
    /// [`crate::SwapchainConfig::display`]. Default [`DisplayChoice::Auto`].
    pub display: DisplayChoice,
    /// The presentation paths the device enabled, as [`crate::SwapchainConfig::paths`]: the
    /// pacer adds present ids, present fences and present timing where the application passed
    /// none. Set by [`crate::Support::apply`]. Default: none, the proof-based path.
    pub paths: EnabledPaths,
    /// Repair present semaphores: the present waits on a vkpace semaphore signalled by an empty
    /// submission that waited on the application's semaphores, so that their reuse is ordered
    /// by a queue submission (see the design notes, "The second door"). Default true.
    pub repair_present_semaphores: bool,
}

impl Default for PresentPacerConfig {
    fn default() -> Self {
        Self {
            pacing: PacingConfig::default(),
            display: DisplayChoice::Auto,
            paths: EnabledPaths::default(),
            repair_present_semaphores: true,
        }
    }
}

impl Sealed for PresentPacerConfig {
    fn enabled_paths(&mut self) -> (&mut EnabledPaths, Option<&mut bool>) {
        (&mut self.paths, None)
    }
}
