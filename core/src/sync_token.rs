//! Completion tokens: a point on a stream of submissions that anyone holding the token can test
//! or wait for, without knowing which fence or semaphore stands behind it.
//!
//! The model is Chromium's sync tokens (a release count on a named stream) and the GPU
//! timeline: a stream's values complete in order, and a value already reached stays reached.
//! Today a stream is one frame machine's submissions on its queue, backed by its fence pool:
//! a fence signalled by `vkQueueSubmit` covers "all commands that occur earlier in submission
//! order" (Vulkan spec, *Fence Signaling*), so one signalled fence reaches every earlier value.

use std::sync::atomic::{AtomicU64, Ordering};

use super::serial::Serial;

/// Streams are numbered process-wide, so a token can never be mistaken for one of another
/// swapchain's (the numbers only need to differ, not to be ordered).
static NEXT_STREAM: AtomicU64 = AtomicU64::new(1);

/// A fresh stream number, unique in the process (for a new producer's timeline).
#[must_use]
pub fn new_stream_id() -> u64 {
    NEXT_STREAM.fetch_add(1, Ordering::Relaxed)
}

/// A point on a stream of submissions: reached once every submission up to it has completed
/// on the GPU. Cheap to copy and keep; tested or waited for with vkpace's
/// `Swapchain::completed` and `Swapchain::wait`.
///
/// ```
/// # use vkpace_core::SyncToken;
/// // The token of "nothing submitted yet" is always reached.
/// fn retire_after(token: SyncToken) -> bool { token.is_none() }
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct SyncToken {
    stream: u64,
    value: u64,
}

impl SyncToken {
    /// The token of `value` on stream `stream`. Tokens made by hand are checked like any
    /// other: a wait on an unknown stream or a value nothing submitted or promised is refused.
    #[must_use]
    pub fn new(stream: u64, value: u64) -> Self {
        Self { stream, value }
    }

    /// The stream the token belongs to (one per vkpace swapchain and its queue).
    #[must_use]
    pub fn stream(&self) -> u64 {
        self.stream
    }

    /// The position on the stream: the submission's number, 1 for the first.
    #[must_use]
    pub fn value(&self) -> u64 {
        self.value
    }

    /// The token of "nothing submitted yet" (value 0): always reached.
    #[must_use]
    pub fn is_none(&self) -> bool {
        self.value == 0
    }

    /// The submission serial the token names.
    pub(crate) fn serial(&self) -> Serial {
        Serial(self.value)
    }
}

impl std::fmt::Display for SyncToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stream {} value {}", self.stream, self.value)
    }
}
