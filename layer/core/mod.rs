//! The sans-IO bookkeeping core: no Vulkan, no clock, no OS. Inputs are events ("image 2
//! acquired", "serial 7 completed"), outputs are decisions ("wait for serial 5", "destroy
//! swapchain G"). Generic over handle types, so tests drive it with plain integers.
//!
//! The inputs a shell feeds every frame are `#[inline(always)]`: the shell's frame path
//! compiles into a few dense functions, because on a real driver what a frame costs is
//! mostly the code lines and pages it runs (see `vk::Swapchain`'s layout note).
#![forbid(unsafe_code)]

mod acquire_semaphores;
mod error;
mod gpu_clock;
mod pacer;
mod pacing;
mod present_history;
mod presenter;
mod rare;
mod retire_queue;
mod serial;
mod short_vec;
mod swapchain_state;

pub use error::CoreError;
pub use gpu_clock::GpuClock;
pub use pacer::{FramePacer, MAX_FRAMES_IN_FLIGHT};
pub use pacing::{
    FrameLimit, FrameLimiter, LowLatency, Pacing, PacingPolicy, WindowStats, CATCH_UP_AT_ONCE,
    CATCH_UP_SHARE, WINDOW as PACING_WINDOW,
};
pub use present_history::{ImageHistory, PresentRecord, PresentSemaphoreChoice};
pub use presenter::{
    semaphore_bound, Action, FrameGate, FrameSemaphores, PresentOutcome, Presenter,
    PresenterConfig, PresenterStats,
};
pub(crate) use rare::{cold_path, rare};
pub use serial::Serial;
pub(crate) use short_vec::remove_first;
