#![doc = include_str!(concat!(env!("OUT_DIR"), "/README.md"))]
//!
//! # What is here
//!
//! Everything a renderer uses is at the crate root: the [`Swapchain`] and its frame path
//! ([`Acquired`], [`Frame`], [`SubmittedFrame`], [`Presented`], [`Batch`]), its configuration
//! ([`SwapchainConfig`], [`Setting`]) and what it reports ([`SwapchainInfo`],
//! [`SwapchainStats`], [`FrameTimes`]), the one support query ([`InstanceSupport`],
//! [`Support`], which also turns paths off: [`OptionalPath`], and fills in the
//! [`EnabledPaths`] both doors' configurations carry), completion tokens ([`SyncToken`], [`TokenSet`], [`HostTimeline`],
//! [`DeferredRelease`]) and render targets that follow the swapchain ([`RenderTargets`]).
//!
//! # How vkpace is built
//!
//! vkpace is the Vulkan shell over a sans-IO frame machine, the `vkpace-core` crate (as quinn
//! is over quinn-proto): the core decides every step of the frame sequence (which semaphore to
//! reuse, when a swapchain may be destroyed, when to pace) with no Vulkan, clock or OS, and this
//! crate carries its requests out. A renderer needs only this crate: its root re-exports the few
//! core types it names ([`SyncToken`], [`FrameTimes`], [`SwapchainStats`], ...), and every
//! fallible call returns this crate's [`Error`]. `vkpace-core` is public for vkpace's simulator
//! and benchmark, which drive the same machine without a GPU; its API follows their needs.
//! The Vulkan definitions ash lacks (present_id2/wait2, present timing) are the
//! `vkpace-registry` crate, shared with the virtual display layer used by the tests.
//!
//! The second door, for an engine that owns its swapchain: [`PresentPacer`] replaces its
//! create, acquire, present and destroy calls one for one ([`PresentPacerDesc`],
//! [`PresentPacerConfig`], [`PresentPacerStats`]); a pacer shared between threads behind a lock
//! runs the same calls in steps ([`PacerCall`], [`CallsDown`], [`CallsMade`]).

mod vk;

pub use ash;

pub use crate::vk::{
    sleep_until, Acquired, Batch, CallsDown, CallsMade, CompletionBackend, DeferredRelease,
    DeviceFeatures, DisplayChoice, DisplayFeedback, EnabledPaths, Error, Frame, FrameLimit,
    FrameTimes, HostTimeline, InstanceSupport, Maintenance1Names, OptionalPath, PacerCall,
    PacingConfig, PresentPacer, PresentPacerConfig, PresentPacerDesc, PresentPacerStats,
    PresentTimingInUse, Presented, Rebuild, RefreshCycle, RenderTargets, RendererTiming, Result,
    Setting, Submission, SubmittedFrame, Support, Swapchain, SwapchainConfig, SwapchainCreateDesc,
    SwapchainInfo, SwapchainStats, SyncToken, TokenSet, MAX_FRAMES_IN_FLIGHT,
    MAX_TIMED_COMMAND_BUFFERS, TELEMETRY_FRAMES,
};
pub use vkpace_core::{DisplayPath, PacingPolicy};
