//! The library's error type.

use std::time::Duration;

use ash::vk;

use vkpace_core::{CoreError, Failure, SyncToken};

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
    /// Frames in flight out of range ([`crate::Setting::FramesInFlight`],
    /// [`crate::PacingConfig::frames_in_flight`]): pick one in `1..=max`.
    #[error("frames in flight must be 1..={max}, got {requested}")]
    InvalidFramesInFlight {
        /// What was asked for.
        requested: usize,
        /// The most vkpace supports ([`crate::MAX_FRAMES_IN_FLIGHT`]).
        max: usize,
    },
    /// A frame limit that is not a rate between 1 and 10000 frames per second.
    #[error("frame limit must be a rate between 1 and 10000 fps, got {0}")]
    InvalidFrameLimit(String),
    /// A wait with a zero bound ([`crate::Swapchain::wait`]): give it a non-zero timeout (a
    /// check that never blocks is [`crate::Swapchain::completed`]).
    #[error("the wait timeout must be non-zero")]
    ZeroTimeout,
    /// A GPU wait ([`crate::Batch::waits`]) for one of the swapchain's own tokens while its
    /// completion is backed by fences, which the GPU cannot wait for: use
    /// [`crate::CompletionBackend::TimelineSemaphore`], or wait on the CPU.
    #[error("token ({0}) is backed by fences: the GPU cannot wait for it")]
    NotWaitableOnGpu(SyncToken),
    /// A [`crate::TokenSet`] full: it merges tokens of at most `capacity` streams.
    #[error("a token set holds tokens of at most {capacity} streams")]
    TokenSetFull {
        /// Streams a set can hold.
        capacity: usize,
    },
    /// A GPU wait that would wait for its own submission (a frame waiting for a token its own
    /// submission or a later one signals): wait for an earlier token.
    #[error("{waiter} waiting for {target} would wait for itself")]
    WaitCycle {
        /// The token of the submission that would wait.
        waiter: SyncToken,
        /// The token it would wait for.
        target: SyncToken,
    },
    /// An invariant broke inside vkpace: a bug, not something the caller did. `state` is the
    /// swapchain's state dump at the time (as `{swapchain:?}` prints it): please report both.
    #[error("vkpace's bookkeeping broke an invariant: {message}\n{state}")]
    Internal {
        /// What the core refused.
        message: String,
        /// Everything the swapchain was waiting for (empty where no swapchain was at hand).
        state: String,
    },
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

    /// A bounded `vkWaitForFences`'s answer: whether the fences signalled (`VK_TIMEOUT`: not
    /// in time).
    pub(crate) fn fence_waited(result: ash::prelude::VkResult<()>) -> Result<bool> {
        match result {
            Ok(()) => Ok(true),
            Err(vk::Result::TIMEOUT) => Ok(false),
            Err(e) => Err(Error::vk("vkWaitForFences", e)),
        }
    }
}

/// What the core refused, as vkpace reports it (the shell's `?` on the core's results): a misuse
/// the caller can correct gets its own variant, anything else is [`Error::Internal`].
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
            CoreError::InvalidFramesInFlight { requested, max } => {
                Error::InvalidFramesInFlight { requested, max }
            }
            CoreError::InvalidFrameLimit(why) => Error::InvalidFrameLimit(why),
            CoreError::ZeroTimeout => Error::ZeroTimeout,
            CoreError::NotWaitableOnGpu { token } => Error::NotWaitableOnGpu(token),
            CoreError::WaitCycle { waiter, target } => Error::WaitCycle { waiter, target },
            CoreError::InvalidPresentTiming(_) => {
                Error::InvalidConfig("present timing needs present ids and 1 to 16 result slots")
            }
            e => Error::Internal {
                message: e.to_string(),
                state: String::new(),
            },
        }
    }
}

/// How a core operation ended badly, with the Vulkan result codes as ash's types.
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
