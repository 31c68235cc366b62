//! The thin Vulkan shell over the sans-IO core (the `vkpace-core` crate): it owns the Vulkan
//! objects and carries out the frame machine's requests. All `unsafe` of vkpace lives here.
//! Private: the crate root re-exports what a renderer names.

mod batch;
mod batches;
mod clock;
mod config;
mod deferred_release;
mod display;
mod enabled_paths;
mod error;
mod executor;
mod extensions;
mod frame;
mod frame_limit;
mod gpu_timer;
mod host_timeline;
mod images;
mod maintenance1;
mod names;
mod optional_path;
mod pacing_config;
mod present_chain;
mod present_pacer;
mod render_targets;
mod shell;
mod sleep;
mod submission;
mod support;
mod swapchain;
mod swapchain_info;
mod token_set;
mod tokens;

pub use batch::Batch;
pub use config::{SwapchainConfig, SwapchainCreateDesc};
pub use deferred_release::DeferredRelease;
pub use display::{DisplayFeedback, PresentTimingInUse, RefreshCycle};
pub use enabled_paths::{DisplayChoice, EnabledPaths};
pub use error::{Error, Result};
pub use frame::{Acquired, Frame, Presented, SubmittedFrame};
pub use frame_limit::FrameLimit;
pub use host_timeline::HostTimeline;
pub use maintenance1::Maintenance1Names;
pub use optional_path::OptionalPath;
pub use pacing_config::PacingConfig;
pub use present_pacer::{
    CallsDown, CallsMade, PacerCall, PresentPacer, PresentPacerConfig, PresentPacerDesc,
};
pub use render_targets::{Rebuild, RenderTargets};
pub use sleep::sleep_until;
pub use submission::{RendererTiming, Submission};
pub use support::{DeviceFeatures, InstanceSupport, Support};
pub use swapchain::{Swapchain, MAX_TIMED_COMMAND_BUFFERS};
pub use swapchain_info::{Setting, SwapchainInfo};
pub use token_set::TokenSet;
/// Per-frame resource slots: keep this many copies of anything a frame writes, indexed by
/// [`Frame::slot`].
pub use vkpace_core::MAX_FRAMES_IN_FLIGHT;
pub use vkpace_core::{CompletionBackend, SyncToken};
pub use vkpace_core::{FrameTimes, PresentPacerStats, SwapchainStats, TELEMETRY_FRAMES};
