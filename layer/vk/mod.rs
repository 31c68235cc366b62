//! The thin Vulkan shell over [`crate::core`]: it owns the Vulkan objects and carries out the
//! frame machine's requests. All `unsafe` of vkpace lives here.

mod batch;
mod batches;
mod clock;
mod config;
mod display;
mod enabled_paths;
mod error;
mod executor;
mod extensions;
mod frame;
mod gpu_timer;
mod host_timeline;
mod images;
mod maintenance1;
mod names;
mod optional_path;
mod present_pacer;
pub mod registry;
mod render_targets;
mod shell;
mod sleep;
mod submission;
mod support;
mod swapchain;
mod swapchain_info;
mod tokens;

/// Per-frame resource slots: keep this many copies of anything a frame writes, indexed by
/// [`Frame::slot`].
pub use crate::core::MAX_FRAMES_IN_FLIGHT;
pub use crate::core::{CompletionBackend, DeferredRelease, SyncToken, TokenSet};
pub use crate::core::{FrameTimes, PresentPacerStats, SwapchainStats, TELEMETRY_FRAMES};
pub use batch::Batch;
pub use config::{SwapchainConfig, SwapchainCreateDesc};
pub use display::{
    DisplayFeedback, PresentTimingInUse, PresentTimingSupport, PresentTimingSurfaceSupport,
    PresentWait2Support, PresentWait2SurfaceSupport, PresentWaitSupport, RefreshCycle,
    PRESENT_TIMING_DEVICE_EXTENSIONS, PRESENT_TIMING_INSTANCE_EXTENSION,
    PRESENT_WAIT2_DEVICE_EXTENSIONS, PRESENT_WAIT2_INSTANCE_EXTENSION,
    PRESENT_WAIT_DEVICE_EXTENSIONS,
};
pub use enabled_paths::{DisplayChoice, TakesSupport};
pub use error::{Error, Result};
pub use frame::{Acquired, Frame, Presented, SubmittedFrame};
pub use gpu_timer::{GpuTimingSupport, GPU_TIMING_DEVICE_EXTENSION};
pub use host_timeline::{HostTimeline, MAX_TIMELINE_STEP};
pub use maintenance1::{Maintenance1Names, Maintenance1Support};
pub use optional_path::OptionalPath;
pub use present_pacer::{PresentPacer, PresentPacerConfig, PresentPacerDesc};
pub use render_targets::{Rebuild, RenderTargets};
pub use sleep::sleep_until;
pub use submission::{RendererTiming, Submission};
pub use support::{DeviceFeatures, InstanceSupport, Support};
pub use swapchain::{Swapchain, MAX_TIMED_COMMAND_BUFFERS};
pub use swapchain_info::{Setting, SwapchainInfo};
