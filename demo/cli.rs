//! Command-line flags of the demo.

use ash::vk;
use clap::{Parser, ValueEnum};

/// vkpace demo: paced presentation with stall-free resizing, in a window or headless.
#[derive(Parser, Debug, Clone)]
#[command(version, about)]
pub struct Args {
    /// Render to a VK_EXT_headless_surface instead of a window.
    #[arg(long)]
    pub headless: bool,
    /// Render to a window, or fail when no window system (X11 or Wayland) answers. The default
    /// whenever DISPLAY or WAYLAND_DISPLAY is set; with neither set and no flag, the demo runs
    /// headless for 3 seconds instead.
    #[arg(long, conflicts_with_all = ["headless", "virtual_display"])]
    pub window: bool,
    /// Stop after this many frames (default: run until closed; headless: 600).
    #[arg(long)]
    pub frames: Option<u64>,
    /// Present mode.
    #[arg(long, value_enum, default_value_t = PresentMode::Fifo)]
    pub present_mode: PresentMode,
    /// Frames the CPU may run ahead of the GPU (1..=3).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=3))]
    pub frames_in_flight: u8,
    /// Change the extent every K frames, cycling through several sizes (0: never).
    #[arg(long, default_value_t = 0)]
    pub resize_every: u64,
    /// In a window: every K frames, maximize the window, then make it fullscreen, and so on
    /// (0: never). On Wayland each step is a configure from the compositor with a new size,
    /// the way a user's resizing reaches a renderer.
    #[arg(long, default_value_t = 0)]
    pub window_state_every: u64,
    /// Write one JSON line per resize here: the size, when it was asked for and when its first
    /// frame was presented (CLOCK_MONOTONIC ns, the clock of weston's timeline log).
    #[arg(long)]
    pub resize_log: Option<std::path::PathBuf>,
    /// Khronos validation with synchronization validation; any message makes the exit code 1.
    #[arg(long)]
    pub validation: bool,
    /// Write a JSON report here.
    #[arg(long)]
    pub report: Option<std::path::PathBuf>,
    /// Extra GPU work per frame (0 = none; each unit adds 64 shader loop iterations per pixel).
    #[arg(long, default_value_t = 0.0)]
    pub gpu_load: f32,
    /// Use the proof-based path even where VK_EXT_swapchain_maintenance1 is available.
    #[arg(long)]
    pub no_maintenance1: bool,
    /// Keep frame limits with the CPU limiter even where the display offers
    /// VK_EXT_present_timing (the comparison the benchmark makes).
    #[arg(long)]
    pub no_present_timing: bool,
    /// Switch to the next present mode the surface offers every K frames (0: never).
    #[arg(long, default_value_t = 0)]
    pub switch_present_mode_every: u64,
    /// Pacing policy beyond the frames-in-flight gate.
    #[arg(long, value_enum, default_value_t = Policy::Frames)]
    pub policy: Policy,
    /// Frame rate limit (deadline grid, composes with the policy).
    #[arg(long)]
    pub fps: Option<f64>,
    /// Present to a virtual display: loads the vdisplay layer (libvkpace_vdisplay.so beside
    /// the demo, or VKPACE_VDISPLAY_LIB) for this process and renders to its headless surface
    /// (implies --headless). Its settings come from VDISPLAY_* variables (vdisplay/README.md);
    /// --resize-every changes the display's extent.
    #[arg(long)]
    pub virtual_display: bool,
    /// What backs vkpace's completion tokens: one timeline semaphore, or a fence per frame.
    /// `VKPACE_COMPLETION=fences|timeline`, where set, wins (the test suite uses it).
    #[arg(long, value_enum, default_value_t = Completion::Timeline)]
    pub completion: Completion,
    /// Submit each frame in one vkQueueSubmit, without the producer thread. By default each
    /// frame is two batches of one vkQueueSubmit2, the first waiting on the GPU for the value
    /// a producer thread signals for that frame.
    #[arg(long)]
    pub single_submit: bool,
    /// The producer thread's work per frame, in microseconds.
    #[arg(long, default_value_t = 200)]
    pub producer_us: u64,
}

/// The demo's names of vkpace's completion backends.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Completion {
    /// A timeline semaphore (the context enables `timelineSemaphore`).
    Timeline,
    /// A fence per submission.
    Fences,
}

impl Completion {
    /// The library's value.
    pub fn to_vk(self) -> vkpace::CompletionBackend {
        match self {
            Completion::Timeline => vkpace::CompletionBackend::TimelineSemaphore,
            Completion::Fences => vkpace::CompletionBackend::Fences,
        }
    }
}

/// The demo's names of vkpace's pacing policies.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Start each frame as soon as frame F-N completed.
    Frames,
    /// Start each frame just in time for the GPU.
    LowLatency,
    /// With present timing: a swap interval on the refresh grid the frames keep up with
    /// (Swappy's policy); without it, as `frames`.
    Display,
}

impl Policy {
    /// The library's value.
    pub fn to_core(self) -> vkpace::PacingPolicy {
        match self {
            Policy::Frames => vkpace::PacingPolicy::FramesInFlight,
            Policy::LowLatency => vkpace::PacingPolicy::LowLatency,
            Policy::Display => vkpace::PacingPolicy::Display,
        }
    }
}

/// The flag spelling of a pacing policy.
pub fn policy_name(policy: vkpace::PacingPolicy) -> &'static str {
    match policy {
        vkpace::PacingPolicy::FramesInFlight => "frames",
        vkpace::PacingPolicy::LowLatency => "low-latency",
        vkpace::PacingPolicy::Display => "display",
        _ => "other",
    }
}

/// The present modes of VK_KHR_surface.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresentMode {
    /// VK_PRESENT_MODE_FIFO_KHR.
    Fifo,
    /// VK_PRESENT_MODE_MAILBOX_KHR.
    Mailbox,
    /// VK_PRESENT_MODE_IMMEDIATE_KHR.
    Immediate,
    /// VK_PRESENT_MODE_FIFO_RELAXED_KHR.
    FifoRelaxed,
}

impl PresentMode {
    /// The Vulkan value.
    pub fn to_vk(self) -> vk::PresentModeKHR {
        match self {
            PresentMode::Fifo => vk::PresentModeKHR::FIFO,
            PresentMode::Mailbox => vk::PresentModeKHR::MAILBOX,
            PresentMode::Immediate => vk::PresentModeKHR::IMMEDIATE,
            PresentMode::FifoRelaxed => vk::PresentModeKHR::FIFO_RELAXED,
        }
    }
}

/// The flag spelling of a Vulkan present mode.
pub fn present_mode_name(mode: vk::PresentModeKHR) -> &'static str {
    match mode {
        vk::PresentModeKHR::FIFO => "fifo",
        vk::PresentModeKHR::MAILBOX => "mailbox",
        vk::PresentModeKHR::IMMEDIATE => "immediate",
        vk::PresentModeKHR::FIFO_RELAXED => "fifo-relaxed",
        _ => "other",
    }
}
