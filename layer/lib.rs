#![doc = include_str!(concat!(env!("OUT_DIR"), "/README.md"))]
//!
//! # What is here
//!
//! Everything a renderer uses is at the crate root: the [`Swapchain`] and its frame path
//! ([`Acquired`], [`Frame`], [`SubmittedFrame`], [`Presented`], [`Batch`]), its configuration
//! ([`SwapchainConfig`], [`Setting`]) and what it reports ([`SwapchainInfo`],
//! [`SwapchainStats`], [`FrameTimes`]), the one support query ([`InstanceSupport`],
//! [`Support`], which also turns paths off: [`OptionalPath`]), completion tokens ([`SyncToken`], [`TokenSet`], [`HostTimeline`],
//! [`DeferredRelease`]) and render targets that follow the swapchain ([`RenderTargets`]).
//!
//! The second door, for an engine that owns its swapchain: [`PresentPacer`] replaces its
//! create, acquire, present and destroy calls one for one ([`PresentPacerDesc`],
//! [`PresentPacerConfig`], [`PresentPacerStats`]).
//!
//! The sans-IO frame machine (`vkpace::core`) and the Vulkan shell (`vkpace::vk`) stay
//! reachable for vkpace's own simulator, benchmark and tests, but are not part of the API:
//! they are hidden from these docs and may change in any release.

#[doc(hidden)]
pub mod core;
#[doc(hidden)]
pub mod vk;

pub use ash;

pub use crate::core::{
    CompletionBackend, DeferredRelease, DisplayPath, FrameLimit, FrameTimes, PacingPolicy,
    PresentPacerStats, SwapchainStats, SyncToken, TokenSet, MAX_FRAMES_IN_FLIGHT, TELEMETRY_FRAMES,
};
pub use crate::vk::{
    sleep_until, Acquired, Batch, DeviceFeatures, DisplayChoice, DisplayFeedback, Error, Frame,
    HostTimeline, InstanceSupport, Maintenance1Names, OptionalPath, PresentPacer,
    PresentPacerConfig, PresentPacerDesc, PresentTimingInUse, Presented, Rebuild, RefreshCycle,
    RenderTargets, RendererTiming, Result, Setting, Submission, SubmittedFrame, Support, Swapchain,
    SwapchainConfig, SwapchainCreateDesc, SwapchainInfo, TakesSupport, MAX_TIMED_COMMAND_BUFFERS,
};
