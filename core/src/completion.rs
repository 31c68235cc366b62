//! How the machine learns that its submissions completed: the two backends of its completion
//! tokens, and what one tracked submission signals.
//!
//! Both backends give the same answers: a submission's completion proves every earlier
//! submission on the same queue complete, never one on another queue.
//! - A fence signalled by `vkQueueSubmit` has in its first synchronization scope "all commands
//!   that occur earlier in submission order" (spec, *Fence Signaling*).
//! - A semaphore signal operation defined by `vkQueueSubmit` or `vkQueueSubmit2` "additionally
//!   include[s] all commands that occur earlier in submission order" (spec, *Semaphore
//!   Signaling*); with a timeline semaphore the counter then holds the signalled value. One
//!   counter read answers for every submission up to the value read.

/// Which Vulkan object backs the completion of the submissions a swapchain tracks.
///
/// ```
/// use vkpace_core::CompletionBackend;
/// use vkpace_core::MachineConfig;
/// let mut config = MachineConfig::default();
/// assert_eq!(config.completion, CompletionBackend::Fences);
/// // The device enabled `timelineSemaphore` (Vulkan 1.2): one semaphore, no fence per frame.
/// config.completion = CompletionBackend::TimelineSemaphore;
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum CompletionBackend {
    /// A binary fence per submission, from a pool made before the frame loop. Works everywhere.
    #[default]
    Fences,
    /// One timeline semaphore per swapchain: submission serial `s` signals the value `s`.
    /// Needs the device feature `timelineSemaphore`. Its tokens can also be waited for on the
    /// GPU by another submission.
    TimelineSemaphore,
}

impl CompletionBackend {
    /// A short name for reports and logs.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CompletionBackend::Fences => "fences",
            CompletionBackend::TimelineSemaphore => "timeline",
        }
    }
}

/// What a submission the machine tracks signals, so that its completion can be seen.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SubmitSignal<F> {
    /// This fence (the [`CompletionBackend::Fences`] backend).
    Fence(F),
    /// The swapchain's timeline semaphore, to this value (the
    /// [`CompletionBackend::TimelineSemaphore`] backend). The value is the submission's serial.
    Timeline(u64),
}

impl<F: Copy> SubmitSignal<F> {
    /// The fence, for the fence backend.
    #[must_use]
    pub fn fence(self) -> Option<F> {
        match self {
            SubmitSignal::Fence(f) => Some(f),
            SubmitSignal::Timeline(_) => None,
        }
    }

    /// The timeline value, for the timeline backend.
    #[must_use]
    pub fn timeline_value(self) -> Option<u64> {
        match self {
            SubmitSignal::Fence(_) => None,
            SubmitSignal::Timeline(v) => Some(v),
        }
    }
}

impl<F: std::fmt::Debug> std::fmt::Display for SubmitSignal<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SubmitSignal::Fence(fence) => write!(f, "fence {fence:?}"),
            SubmitSignal::Timeline(v) => write!(f, "timeline value {v}"),
        }
    }
}
