//! Errors of the bookkeeping core.

use super::serial::Serial;

/// What the core refuses, each a misuse of its call order or an out-of-range setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoreError {
    /// Frames in flight outside 1..=max.
    #[error("frames in flight must be 1..={max}, got {requested}")]
    InvalidFramesInFlight {
        /// What was asked for.
        requested: usize,
        /// The largest supported value.
        max: usize,
    },
    /// A call that needs a swapchain came before `swapchain_created`.
    #[error("no swapchain: call swapchain_created first")]
    NoSwapchain,
    /// An image index at or past the swapchain's image count.
    #[error("image index {index} out of range for a swapchain of {count} images")]
    ImageOutOfRange {
        /// The index given.
        index: u32,
        /// The swapchain's image count.
        count: u32,
    },
    /// A frame step came out of order (for example `submitted` without an acquired image).
    #[error("call out of order: {0}")]
    OutOfOrder(&'static str),
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
}
