//! Settings of a [`super::Swapchain`].

use std::time::Duration;

use ash::vk;

use crate::core::{FrameLimit, PacingPolicy};

/// How a [`super::Swapchain`] is made and paced. Every field documents its default.
#[derive(Clone, Debug)]
pub struct SwapchainConfig {
    /// Frames the CPU may queue ahead of the GPU, 1..=3. Default 2.
    pub frames_in_flight: usize,
    /// Wanted present mode; FIFO (always supported, `VUID`-free fallback) when the surface lacks
    /// it. Default `FIFO`.
    pub present_mode: vk::PresentModeKHR,
    /// Formats to try in order; the surface's first format when none matches. Default
    /// `B8G8R8A8_UNORM`, `R8G8B8A8_UNORM`.
    pub preferred_formats: Vec<vk::Format>,
    /// Usage of the swapchain images. Default `COLOR_ATTACHMENT | TRANSFER_DST`.
    pub image_usage: vk::ImageUsageFlags,
    /// Extent used when the surface leaves it to the application (`currentExtent` of
    /// `0xFFFFFFFF`, as headless surfaces do). Default 640x480.
    pub extent: vk::Extent2D,
    /// Images to ask for beyond the surface's minimum. Default 1 (so one can be acquired while
    /// the engine holds its minimum).
    pub extra_images: u32,
    /// Bound of every wait vkpace makes (fences, acquire). A timeout is an
    /// [`super::Error::Timeout`], never a hang. Default 2 s.
    pub wait_timeout: Duration,
    /// Retired swapchains allowed to wait for proof before a bounded fallback wait. Default 5.
    pub max_retired_swapchains: usize,
    /// Name objects with `VK_EXT_debug_utils`; set only if the instance enabled it. Default false.
    pub debug_utils: bool,
    /// The instance enabled [`super::MAINTENANCE1_INSTANCE_EXTENSIONS`] and the device
    /// [`super::MAINTENANCE1_DEVICE_EXTENSION`] with the `swapchainMaintenance1` feature (see
    /// [`super::Maintenance1Support`]): use present fences, per-present mode switches and image
    /// release. Default false: the proof-based path, which works everywhere.
    pub swapchain_maintenance1: bool,
    /// Create swapchains with `VK_SWAPCHAIN_CREATE_DEFERRED_MEMORY_ALLOCATION_BIT_EXT`
    /// (maintenance1 only): image memory is bound at an image's first acquire, and vkpace makes
    /// its view then. Default false.
    pub deferred_memory_allocation: bool,
    /// When frames begin beyond the frames-in-flight gate. Default
    /// [`PacingPolicy::FramesInFlight`] (as soon as the gate opens).
    pub pacing: PacingPolicy,
    /// A frame rate limit (deadline grid, composes with either policy). Default none.
    pub frame_limit: Option<FrameLimit>,
    /// Measure each frame's GPU start and end (timestamp queries around the command buffers
    /// given to [`super::Swapchain::submit`], mapped to the CPU clock with
    /// `VK_EXT_calibrated_timestamps`), for the telemetry and the low-latency policy. Set only
    /// if the device enabled [`super::GPU_TIMING_DEVICE_EXTENSION`]; see
    /// [`super::GpuTimingSupport`]. Default false: GPU time is estimated from submission to
    /// observed completion.
    pub gpu_timestamps: bool,
    /// Learn when each frame was shown (`VK_KHR_present_id` + `VK_KHR_present_wait`, polled
    /// once per frame without blocking), for the low-latency policy and the telemetry's
    /// `displayed`. Set only if the device enabled [`super::PRESENT_WAIT_DEVICE_EXTENSIONS`]
    /// with the `presentId` and `presentWait` features (see [`super::PresentWaitSupport`]);
    /// without the extension [`super::Swapchain::new`] fails with
    /// [`super::Error::InvalidConfig`]. Default false.
    pub present_wait: bool,
}

impl Default for SwapchainConfig {
    fn default() -> Self {
        Self {
            frames_in_flight: 2,
            present_mode: vk::PresentModeKHR::FIFO,
            preferred_formats: vec![vk::Format::B8G8R8A8_UNORM, vk::Format::R8G8B8A8_UNORM],
            image_usage: vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST,
            extent: vk::Extent2D {
                width: 640,
                height: 480,
            },
            extra_images: 1,
            wait_timeout: Duration::from_secs(2),
            max_retired_swapchains: 5,
            debug_utils: false,
            swapchain_maintenance1: false,
            deferred_memory_allocation: false,
            pacing: PacingPolicy::FramesInFlight,
            frame_limit: None,
            gpu_timestamps: false,
            present_wait: false,
        }
    }
}
