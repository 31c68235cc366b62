//! The library's error type.

use std::time::Duration;

use ash::vk;

use crate::core::{cold_path, CoreError};

/// Everything vkpace can fail with. Each variant says what was being done.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The Vulkan entry point.
        call: &'static str,
        /// What it returned.
        result: vk::Result,
    },
    /// A bounded wait ran out of time (a fence, an acquire). Nothing was destroyed early.
    #[error("waiting for {what} timed out after {timeout:?}")]
    Timeout {
        /// What was waited for.
        what: &'static str,
        /// The configured bound.
        timeout: Duration,
    },
    /// The surface is gone (window destroyed, display lost): `VK_ERROR_SURFACE_LOST_KHR`.
    #[error("the surface was lost (window or display gone)")]
    SurfaceLost,
    /// The device is lost: `VK_ERROR_DEVICE_LOST`.
    #[error("the Vulkan device was lost")]
    DeviceLost,
    /// The queue family cannot present to the surface.
    #[error("queue family {0} cannot present to this surface")]
    QueueCannotPresent(u32),
    /// The surface offers no format vkpace can use.
    #[error("the surface offers no usable format")]
    NoSurfaceFormat,
    /// A setting out of range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(&'static str),
    /// A frame from another swapchain, or presented twice.
    #[error("frame does not belong to the frame in progress of this swapchain")]
    ForeignFrame,
    /// The bookkeeping core refused a call (a bug in vkpace or misuse of the frame order).
    #[error(transparent)]
    Core(#[from] CoreError),
}

/// `Result` with vkpace's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Maps a `vk::Result` from `call`, giving device and surface loss their own variants.
    /// Cold and out of line: the paths that build an error are laid out away from the frame
    /// path, whose code stays dense, and take little room (see `Swapchain`'s layout note).
    #[cold]
    #[inline(never)]
    pub(crate) fn vk(call: &'static str, result: vk::Result) -> Self {
        match result {
            vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost,
            vk::Result::ERROR_SURFACE_LOST_KHR => Error::SurfaceLost,
            _ => Error::Vulkan { call, result },
        }
    }
}

/// Adds the call name to a `VkResult`.
pub(crate) trait VkContext<T> {
    fn during(self, call: &'static str) -> Result<T>;
}

impl<T> VkContext<T> for Result<T, vk::Result> {
    #[inline(always)]
    fn during(self, call: &'static str) -> Result<T> {
        match self {
            Ok(v) => Ok(v),
            Err(r) => {
                // Marked here too: the call alone leaves the compiler checking its result
                // again on the hot side.
                cold_path();
                Err(Error::vk(call, r))
            }
        }
    }
}
