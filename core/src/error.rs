//! What the core refuses ([`CoreError`]: a setting out of range or a call out of order) and how an
//! operation of the frame machine can end badly at run time ([`Failure`]).

use super::serial::Serial;
use super::sync_token::SyncToken;
use super::vk_values::VkStatus;

/// A misuse of the core's call order or an out-of-range setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CoreError {
    /// Frames in flight outside 1..=max.
    #[error("frames in flight must be 1..={max}, got {requested}")]
    InvalidFramesInFlight {
        /// What was asked for.
        requested: usize,
        /// The largest supported value.
        max: usize,
    },
    /// A call that needs a swapchain came before one was created.
    #[error("no swapchain yet")]
    NoSwapchain,
    /// An image index at or past the swapchain's image count.
    #[error("image index {index} out of range for a swapchain of {count} images")]
    ImageOutOfRange {
        /// The index given.
        index: u32,
        /// The swapchain's image count.
        count: u32,
    },
    /// A frame step came out of order (for example a submission without an acquired image).
    #[error("call out of order: {0}")]
    OutOfOrder(&'static str),
    /// A frame that is not the frame in progress (presented already, or of another swapchain).
    #[error("frame {given} is not the frame in progress ({current:?})")]
    ForeignFrame {
        /// The frame number given.
        given: u64,
        /// The frame in progress, if any.
        current: Option<u64>,
    },
    /// A serial lower than one already recorded as submitted.
    #[error("serial {given} is not after the last submitted serial {last}")]
    SerialNotIncreasing {
        /// The serial given.
        given: Serial,
        /// The last one recorded.
        last: Serial,
    },
    /// A serial reported complete that was never submitted.
    #[error("serial {given} reported complete but only {last} were submitted")]
    CompletedUnsubmitted {
        /// The serial given.
        given: Serial,
        /// The last one submitted.
        last: Serial,
    },
    /// A frame rate limit that is not a finite rate in 1..=10000 fps.
    #[error("frame limit must be a rate between 1 and 10000 fps, got {0}")]
    InvalidFrameLimit(String),
    /// A GPU clock description out of range (`timestampPeriod`, `timestampValidBits`).
    #[error("invalid GPU clock: {0}")]
    InvalidGpuClock(String),
    /// A swapchain with zero images.
    #[error("a swapchain must have at least one image")]
    NoImages,
    /// A completion token of another stream (another swapchain's, or one destroyed).
    #[error("token ({token}) is not of this swapchain's stream {stream}")]
    ForeignToken {
        /// The token given.
        token: SyncToken,
        /// This machine's stream.
        stream: u64,
    },
    /// A completion token past everything submitted: waiting for it could only hang (a
    /// validated wait refuses it at the call).
    #[error("token ({token}) was never submitted: the last submitted value is {last_submitted}")]
    TokenNotSubmitted {
        /// The token given.
        token: SyncToken,
        /// The stream's last submitted value.
        last_submitted: u64,
    },
    /// A token of a stream the machine does not know (not registered, or removed).
    #[error("token ({token}) is of a stream this swapchain does not know")]
    UnknownStream {
        /// The token given.
        token: SyncToken,
    },
    /// A GPU wait whose target cannot be reached before the waiter itself: the queue would
    /// wait forever.
    #[error("{waiter} waiting for {target} would wait for itself")]
    WaitCycle {
        /// The submission or promise that would wait.
        waiter: SyncToken,
        /// What it would wait for.
        target: SyncToken,
    },
    /// A token backed by fences (the swapchain's own) given as a GPU wait: a queue can wait
    /// only for a timeline semaphore.
    #[error("token ({token}) is backed by fences: the GPU cannot wait for it")]
    NotWaitableOnGpu {
        /// The token given.
        token: SyncToken,
    },
    /// A bound of zero time: every wait must be bounded, and a zero bound never waits at all.
    #[error("the wait timeout must be non-zero")]
    ZeroTimeout,
    /// Present timing needs present ids (its results name presents by id) and 1 to 16
    /// results-queue slots (the presents whose frames the machine remembers).
    #[error("present timing needs present ids and 1 to 16 results-queue slots, not {0}")]
    InvalidPresentTiming(u32),
}

/// How an operation of the frame machine ended badly. The machine stays consistent: the same
/// operation can be tried again, and teardown still releases everything that is provably idle.
/// Not `#[non_exhaustive]`: the shell (the `vkpace` crate) maps every failure to its own error
/// and should stop compiling when one is added.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// A bounded wait ran out of time. Nothing was destroyed early.
    #[error("waiting for {what} timed out after {timeout_ns} ns")]
    Timeout {
        /// What was waited for.
        what: &'static str,
        /// The bound, in nanoseconds.
        timeout_ns: u64,
    },
    /// `VK_ERROR_SURFACE_LOST_KHR`: the window or display is gone.
    #[error("the surface was lost")]
    SurfaceLost,
    /// `VK_ERROR_DEVICE_LOST`.
    #[error("the device was lost")]
    DeviceLost,
    /// Another error code from a Vulkan call.
    #[error("{call} failed: VkResult {}", status.0)]
    Vulkan {
        /// The Vulkan entry point.
        call: &'static str,
        /// What it returned.
        status: VkStatus,
    },
    /// The surface offers none of the formats asked for and falling back was not allowed, or
    /// it offers no format at all.
    #[error("the surface offers none of the formats asked for")]
    NoSurfaceFormat,
    /// Image usage bits asked for that the surface does not support (never dropped silently:
    /// a renderer that copies into the image would fail later, less clearly).
    #[error("image usage {requested:#x} asked for, the surface supports only {supported:#x}")]
    UnsupportedImageUsage {
        /// The usage asked for.
        requested: u32,
        /// What the surface supports.
        supported: u32,
    },
    /// The core refused a call.
    #[error(transparent)]
    Misuse(#[from] CoreError),
}

impl Failure {
    /// The failure a Vulkan call's error code stands for.
    #[must_use]
    pub fn from_status(call: &'static str, status: VkStatus) -> Self {
        match status {
            VkStatus::DEVICE_LOST => Failure::DeviceLost,
            VkStatus::SURFACE_LOST => Failure::SurfaceLost,
            _ => Failure::Vulkan { call, status },
        }
    }
}
