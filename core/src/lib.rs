//! vkpace's sans-IO core: no Vulkan, no clock, no OS. [`FrameMachine`] owns the whole frame
//! sequence of a swapchain and speaks in [`Request`]s its shell carries out and `handle_*`
//! inputs the shell reports back; time is an argument. Generic over handle types, so the
//! simulator and the tests drive it with plain integers. The pacing policies ([`Pacing`]) and
//! the GPU clock mapping ([`GpuClock`]) are public too: the benchmark's simulator runs them.
//!
//! The `vkpace` crate is the Vulkan shell over this machine (as quinn is over quinn-proto):
//! a renderer uses `vkpace`, whose root re-exports the few types of this crate it needs
//! ([`SyncToken`], [`FrameTimes`], [`SwapchainStats`], ...). This crate is public for
//! vkpace's simulator (`vkpace-sim`), its benchmark and its tests, which drive the same machine
//! the shell ships, without a GPU. Its API follows vkpace's needs and may change in any
//! release.
#![forbid(unsafe_code)]

mod acquire_semaphores;
mod completion;
mod display;
mod error;
mod fence_pool;
mod gpu_clock;
mod handle;
mod machine;
mod pacer;
mod pacing;
mod present_history;
mod present_ids;
mod present_pacer;
mod presenter;
mod retire_queue;
mod serial;
mod surface_plan;
mod swapchain_state;
mod sync_graph;
mod sync_token;
mod telemetry;
mod vk_values;

pub use completion::{CompletionBackend, SubmitSignal};
pub use display::{
    calibration_from, calibration_plan, choose_domain, choose_paths, shift, target_stage,
    Calibrateable, Calibration, DisplayFeedback, DisplayOffer, DisplayPaths, PresentIdStructure,
    RawTiming, Reading, RefreshCycle, Rereads, Stages, Targets, TimeDomain, TimingBook,
    TimingOffer,
};
pub use error::{CoreError, Failure};
pub use fence_pool::{FenceCounts, FencePool, Signalled};
pub use gpu_clock::GpuClock;
pub use machine::{
    CreateSwapchain, DebugState, FrameInfo, FrameMachine, MachineConfig, PresentInfo,
    PresentStatus, PresentTimingRequest, Request, SemaphoreRole, SwapchainStats, TimingReport,
};
pub use pacer::{validate_wait_timeout, MAX_FRAMES_IN_FLIGHT};
pub use pacing::{
    DisplayAnchor, DisplayPath, DisplayRefresh, DisplaySchedule, DisplayTiming, Follow, FrameLimit,
    FrameLimiter, LeadAim, LeadEstimator, LeadVerdict, LowLatency, Pacing, PacingPolicy,
    PacingSettings, PresentTarget, GRID_MISS_RATE, LOW_LATENCY_MISS_RATE,
};
pub use present_pacer::{
    BoundedWait, DestroyOutcome, Gate, PacerConfig, PacerMachine, PresentOutcome,
    PresentPacerStats, PresentPlan, PresentStep, RepairSemaphore, SleepWatch, TargetPlan,
};
pub use presenter::DestroyAction;
pub use serial::Serial;
pub use surface_plan::{SurfaceInfo, SurfaceWishes, SwapchainPlan};
pub use sync_graph::SyncGraph;
pub use sync_token::{new_stream_id, SyncToken};
pub use telemetry::{FrameTimes, PresentStages, TELEMETRY_FRAMES};
pub use vk_values::{composite_alpha, Extent, PresentMode, SurfaceFormat, VkStatus};
