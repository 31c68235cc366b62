//! The library's error type.

use std::time::Duration;

use ash::vk;

use crate::core::{CoreError, Failure, SyncToken};

/// Everything vkpace can fail with. Each variant says what was being done.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A Vulkan call failed.
    #[error("{call} failed: {result}")]
    Vulkan {
        /// The Vulkan entry point.
        call: &'static str,
        /// What it returned.
        result: vk::Result,
    },
    /// A bounded wait on the GPU ran out of time (a fence, a timeline value, a present fence).
    /// Nothing was destroyed early; the call may be made again. (An acquire that gets no image
    /// in time is `Acquired::NotReady`, not this.)
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
    /// The surface offers none of the formats asked for (and falling back was not allowed),
    /// or none at all.
    #[error("the surface offers none of the formats asked for")]
    NoSurfaceFormat,
    /// Image usage asked for that the surface does not support.
    #[error("image usage {requested:?} asked for; the surface supports only {supported:?}")]
    UnsupportedImageUsage {
        /// What was asked for.
        requested: vk::ImageUsageFlags,
        /// What the surface supports.
        supported: vk::ImageUsageFlags,
    },
    /// A setting out of range or an option the device did not enable.
    #[error("invalid configuration: {0}")]
    InvalidConfig(&'static str),
    /// A frame that is not the frame in progress of this swapchain (presented already, or of
    /// another swapchain object).
    #[error("this frame is not the frame in progress of this swapchain")]
    ForeignFrame,
    /// A completion token of another swapchain (or of one destroyed).
    #[error("token ({0}) is not of this swapchain")]
    ForeignToken(SyncToken),
    /// A completion token past everything submitted: waiting for it could only hang, so the
    /// wait is refused at the call.
    #[error("token ({token}) was never submitted: the last submitted value is {last_submitted}")]
    TokenNotSubmitted {
        /// The token given.
        token: SyncToken,
        /// The swapchain's last submitted value.
        last_submitted: u64,
    },
    /// A host timeline value that would break a timeline semaphore rule (not above the last
    /// signalled value, or too far past it); nothing was signalled or promised.
    #[error("host timeline value {value} refused (last signalled {last_signalled}): {why}")]
    InvalidTimelineValue {
        /// The value given.
        value: u64,
        /// The timeline's last signalled value.
        last_signalled: u64,
        /// Which rule.
        why: &'static str,
    },
    /// The bookkeeping core refused a call (a bug in vkpace or misuse of the frame order).
    #[error(transparent)]
    Core(CoreError),
}

/// `Result` with vkpace's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// Maps a `vk::Result` from `call`, giving device and surface loss their own variants.
    pub(crate) fn vk(call: &'static str, result: vk::Result) -> Self {
        match result {
            vk::Result::ERROR_DEVICE_LOST => Error::DeviceLost,
            vk::Result::ERROR_SURFACE_LOST_KHR => Error::SurfaceLost,
            _ => Error::Vulkan { call, result },
        }
    }
}

impl From<CoreError> for Error {
    fn from(e: CoreError) -> Self {
        match e {
            CoreError::ForeignFrame { .. } => Error::ForeignFrame,
            CoreError::ForeignToken { token, .. } | CoreError::UnknownStream { token } => {
                Error::ForeignToken(token)
            }
            CoreError::TokenNotSubmitted {
                token,
                last_submitted,
            } => Error::TokenNotSubmitted {
                token,
                last_submitted,
            },
            e => Error::Core(e),
        }
    }
}

impl From<Failure> for Error {
    fn from(f: Failure) -> Self {
        match f {
            Failure::Timeout { what, timeout_ns } => Error::Timeout {
                what,
                timeout: Duration::from_nanos(timeout_ns),
            },
            Failure::SurfaceLost => Error::SurfaceLost,
            Failure::DeviceLost => Error::DeviceLost,
            Failure::Vulkan { call, status } => Error::Vulkan {
                call,
                result: vk::Result::from_raw(status.0),
            },
            Failure::NoSurfaceFormat => Error::NoSurfaceFormat,
            Failure::UnsupportedImageUsage {
                requested,
                supported,
            } => Error::UnsupportedImageUsage {
                requested: vk::ImageUsageFlags::from_raw(requested),
                supported: vk::ImageUsageFlags::from_raw(supported),
            },
            Failure::Misuse(e) => e.into(),
        }
    }
}

/// Adds the call name to a `VkResult`.
pub(crate) trait VkContext<T> {
    fn during(self, call: &'static str) -> Result<T>;
}

impl<T> VkContext<T> for Result<T, vk::Result> {
    fn during(self, call: &'static str) -> Result<T> {
        self.map_err(|r| Error::vk(call, r))
    }
}
