//! The thin Vulkan shell over [`crate::core`]: creates and owns the Vulkan objects and carries
//! out the core's decisions. All `unsafe` of vkpace lives here.

mod clock;
mod config;
mod error;
mod extensions;
mod fences;
mod frame;
mod gpu_timer;
mod maintenance1;
mod names;
mod present_fences;
mod present_wait;
pub mod registry;
mod sleep;
mod stats;
mod swapchain;
mod telemetry;

pub use config::SwapchainConfig;
pub use error::{Error, Result};
pub use frame::{Acquired, Frame, Presented};
pub use gpu_timer::{GpuTimingSupport, GPU_TIMING_DEVICE_EXTENSION};
pub use maintenance1::{
    Maintenance1Support, MAINTENANCE1_DEVICE_EXTENSION, MAINTENANCE1_INSTANCE_EXTENSIONS,
};
pub use present_wait::{PresentWaitSupport, PRESENT_WAIT_DEVICE_EXTENSIONS};
pub use sleep::sleep_until;
pub use stats::SwapchainStats;
pub use swapchain::{Swapchain, MAX_TIMED_COMMAND_BUFFERS};
pub use telemetry::{FrameTimes, TELEMETRY_FRAMES};
