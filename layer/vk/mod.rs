//! The thin Vulkan shell over [`crate::core`]: creates and owns the Vulkan objects and carries
//! out the core's decisions. All `unsafe` of vkpace lives here.

mod config;
mod error;
mod fences;
mod frame;
mod names;
mod stats;
mod swapchain;

pub use config::SwapchainConfig;
pub use error::{Error, Result};
pub use frame::{Acquired, Frame, Presented};
pub use stats::SwapchainStats;
pub use swapchain::Swapchain;
