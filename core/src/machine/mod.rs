//! The frame machine: the whole frame sequence of one swapchain object, sans IO.
//!
//! It owns every decision: the frames-in-flight gate and the pacing policies, the acquire ring,
//! the per-image present histories, the retire queue, recreation (extent, image count, surface
//! format, present mode, composite alpha), the mapping of present results, submission serials,
//! present ids and the telemetry ring. It never calls Vulkan and never reads a clock: the shell
//! starts an operation (`begin_*`), then asks [`FrameMachine::poll`] what to do, carries the
//! [`Request`] out and reports the result with the matching `handle_*` input, until `poll` says
//! the operation ended ([`Request::FrameReady`], [`Request::Presented`], ...). Time is an
//! argument. The simulator in `sim/` drives this same machine against a simulated GPU and
//! presentation engine, so the property tests test the sequence users run.
//!
//! An operation the shell abandons (a Vulkan call that creates an object failed, and the shell
//! returned the error) leaves the machine consistent: every request is derived from the state,
//! so the next operation asks again for what is still missing.
//!
//! # Example
//!
//! ```
//! use vkpace_core::{FrameMachine, MachineConfig, Request, SurfaceInfo, Extent, PresentMode,
//!     SurfaceFormat, VkStatus};
//! # fn main() -> Result<(), vkpace_core::CoreError> {
//! // Handles are plain integers: semaphores u32, swapchains u64, fences u16.
//! let mut m: FrameMachine<u32, u64, u16> = FrameMachine::new(MachineConfig::default())?;
//! let (mut next_sem, mut next_fence) = (1, 1);
//! let surface = SurfaceInfo {
//!     min_image_count: 2, max_image_count: 0, current_extent: None,
//!     min_extent: Extent { width: 1, height: 1 }, max_extent: Extent { width: 8192, height: 8192 },
//!     supported_usage: 0x1f, supported_composite_alpha: 1, current_transform: 1,
//!     formats: vec![SurfaceFormat::BGRA8_SRGB], present_modes: vec![PresentMode::FIFO],
//! };
//! // Setup: the objects the frame loop needs, then the first swapchain.
//! loop {
//!     match m.poll(0) {
//!         Request::CreateSemaphore(_) => { m.handle_semaphore_created(next_sem)?; next_sem += 1; }
//!         Request::CreateFence => { m.handle_fence_created(next_fence)?; next_fence += 1; }
//!         Request::QuerySurface => m.handle_surface(surface.clone())?,
//!         Request::CreateSwapchain(_) => m.handle_swapchain_created(Ok((7, 3)))?,
//!         Request::Done => break,
//!         other => panic!("unexpected {other:?}"),
//!     }
//! }
//! // One acquire.
//! m.begin_acquire(0);
//! let frame = loop {
//!     match m.poll(0) {
//!         Request::CreateSemaphore(_) => { m.handle_semaphore_created(next_sem)?; next_sem += 1; }
//!         Request::Acquire { .. } => m.handle_acquire(Ok((1, false)))?,
//!         Request::FrameReady(frame) => break frame,
//!         other => panic!("unexpected {other:?}"),
//!     }
//! };
//! assert_eq!((frame.number, frame.image, frame.swapchain), (0, 1, 7));
//! // The renderer submits with the frame's semaphores and fence, then presents.
//! m.handle_frame_submitted(frame.number, 1, None)?;
//! m.begin_present(frame.number, 2)?;
//! match m.poll(2) {
//!     Request::Present(p) => m.handle_present_result(VkStatus::SUCCESS, 3)?,
//!     other => panic!("unexpected {other:?}"),
//! }
//! assert!(matches!(m.poll(3), Request::Presented(_)));
//! # Ok(()) }
//! ```

mod acquire;
mod completions;
mod config;
mod debug_state;
mod display_watch;
mod drain;
mod getters;
mod objects;
mod present;
mod recreate;
mod request;
mod settings;
mod setup;
mod shutdown;
mod signals;
mod stats;
mod timing;
mod tokens;

use std::collections::VecDeque;

use super::completion::{CompletionBackend, SubmitSignal};
use super::error::{CoreError, Failure};
use super::fence_pool::FencePool;
use super::gpu_clock::GpuClock;
use super::pacing::{FrameLimit, Pacing, PacingPolicy};
use super::present_ids::PresentIds;
use super::presenter::{DestroyAction, Presenter};
use super::serial::Serial;
use super::surface_plan::{SurfaceInfo, SwapchainPlan};
use super::sync_token::SyncToken;
use super::telemetry::{FrameTimes, Telemetry};
use super::vk_values::{Extent, PresentMode};
use crate::handle::Handle;

pub use crate::display::TimingReport;
pub use config::MachineConfig;
pub use debug_state::DebugState;
pub use request::{
    CreateSwapchain, FrameInfo, PresentInfo, PresentStatus, PresentTimingRequest, Request,
    SemaphoreRole,
};
pub use stats::SwapchainStats;

/// The operation in progress.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Op {
    Idle,
    Setup,
    /// An acquire started at this time.
    Acquire(u64),
    Present,
    Shutdown,
    /// Looking at or waiting for a completion token.
    Token(tokens::TokenOp),
}

/// What a wait is for: what a timeout means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum WaitPurpose {
    Gate,
    PresentSemaphore,
    RetiredPresentFences,
    Proof,
    Shutdown,
    /// A pacing sleep watching a submission fence; a timeout only means the sleep is over.
    PacingWatch,
    /// The renderer waits for a completion token.
    Token,
    /// Absolute targets: whether this frame made its refresh, and if not, when it finished
    /// (module `timing`); a timeout only means it was still rendering then.
    Fate(u64),
}

impl WaitPurpose {
    fn what(self) -> &'static str {
        match self {
            WaitPurpose::Gate => "the frame N back (frames-in-flight gate)",
            WaitPurpose::PresentSemaphore => "a present semaphore's proving submission",
            WaitPurpose::RetiredPresentFences => "present fences of retired swapchains",
            WaitPurpose::Proof => "an empty submission proving earlier presents processed",
            WaitPurpose::Shutdown => "vkpace's submissions and presents at teardown",
            WaitPurpose::PacingWatch => "a submission watched during a pacing sleep",
            WaitPurpose::Token => "a completion token",
            WaitPurpose::Fate(_) => "the newest presented frame (present timing)",
        }
    }
}

/// What a created semaphore is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum SemaphoreFor {
    /// The free present semaphores made before the frame loop.
    Pool,
    Acquire,
    Present,
}

/// The request whose answer is awaited.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Awaiting<S, F> {
    Semaphore(SemaphoreFor),
    Fence,
    Surface,
    CompatibleModes,
    Swapchain,
    Check(SubmitSignal<F>),
    Wait(SubmitSignal<F>, WaitPurpose),
    PresentId(display_watch::PresentQuery),
    PresentTimings,
    Drain,
    Acquire(S),
    /// A `SubmitWait` consuming the held image's acquire semaphore.
    Consume(SubmitSignal<F>),
    /// A `SubmitEmpty` proof.
    Proof(SubmitSignal<F>),
    Present(Option<F>),
    GpuTicks,
    GpuClock,
    /// A `WaitStreamSignal` for this value.
    StreamSignal(SyncToken),
    /// A `ReadStreamValue` or `WaitStreamValue` for this token.
    StreamValue(SyncToken),
}

/// The swapchain presented to.
#[derive(Clone, Debug)]
struct Live<W> {
    handle: W,
    plan: SwapchainPlan,
    generation: u64,
}

/// The frame begun and not yet presented.
#[derive(Copy, Clone, Debug)]
struct Frame<S, F> {
    number: u64,
    /// The acquire semaphore handed to the acquire in progress.
    acquire_semaphore: Option<S>,
    /// The fence the frame's last submission signals (fence backend).
    fence: Option<F>,
    /// An acquire of this frame already found the swapchain out of date once.
    out_of_date_once: bool,
    /// Handed to the renderer.
    handed_out: bool,
    /// An acquire of this frame ended "not ready": the next one starts its clocks again.
    retried: bool,
}

/// What recreation learned so far.
#[derive(Clone, Debug, Default)]
struct Recreation {
    surface: Option<SurfaceInfo>,
    plan: Option<SwapchainPlan>,
    compatible_asked: bool,
    /// The old swapchain's display queue was drained (or needed no draining).
    drained: bool,
    /// Images of the old swapchain given up but still acquired (see `give_back_held_image`).
    images_held: u32,
}

/// The bounded fallback for too many retired swapchains.
#[derive(Copy, Clone, Debug)]
struct Fallback {
    deadline: u64,
    fences_given_up: bool,
    proof: Option<Serial>,
}

/// What the completion round at the start of an acquire still has to look at.
#[derive(Copy, Clone, Debug, Default)]
struct Round {
    active: bool,
    /// The acquire call of this round gave no image in time (`VK_TIMEOUT`, `VK_NOT_READY`).
    image_not_ready: bool,
    submissions_done: bool,
    present_index: usize,
    display_done: bool,
}

/// GPU timestamps: the clock mapping and the frames whose times are to be read.
#[derive(Clone, Debug)]
struct GpuTiming {
    clock: GpuClock,
    calibrated_at: Option<u64>,
    /// (frame, slot, submitted at), oldest first.
    reads: VecDeque<(u64, usize, u64)>,
}

/// Teardown's progress.
#[derive(Copy, Clone, Debug, Default)]
struct Teardown {
    deadline: Option<u64>,
    proof: Option<Serial>,
    /// Everything was handed out for destruction.
    finished: bool,
}

/// The sans-IO frame machine of one swapchain object, generic over the semaphore (`S`),
/// swapchain (`W`) and fence (`F`) handles. See the module documentation.
#[derive(Debug)]
pub struct FrameMachine<S, W, F> {
    config: MachineConfig,
    presenter: Presenter<S, W>,
    fences: FencePool<F>,
    pacing: Pacing,
    telemetry: Telemetry,
    display: Option<PresentIds<W>>,
    timing: Option<timing::PresentTiming>,
    gpu: Option<GpuTiming>,
    live: Option<Live<W>>,
    /// The live handle was passed as `oldSwapchain` to a creation that failed: it is retired
    /// ("even if creation of the new swapchain fails") and must not be passed again.
    live_retired: bool,
    needs_recreate: bool,
    recreation: Recreation,
    /// A compatible mode to switch to with the next present (maintenance1).
    next_mode: Option<PresentMode>,
    next_serial: Serial,
    /// This machine's completion-token stream (process-wide unique).
    stream: u64,
    /// The streams waits are validated against: this machine's and the registered ones.
    sync: super::sync_graph::SyncGraph,
    op: Op,
    frame: Option<Frame<S, F>>,
    awaiting: Option<Awaiting<S, F>>,
    housekeeping: VecDeque<Request<S, W, F>>,
    failure: Option<Failure>,
    round: Round,
    /// Low latency's watch of the display during a pacing sleep.
    watch: display_watch::DisplayWatch,
    fallback: Option<Fallback>,
    teardown: Teardown,
    /// The generation, extent and format of the swapchain of the last frame submitted: what a
    /// frame's "changed" flags compare with.
    submitted_shape: Option<(
        u64,
        super::vk_values::Extent,
        super::vk_values::SurfaceFormat,
    )>,
    /// The present being made is of a frame the renderer submitted and never presented.
    presenting_abandoned: bool,
    stats: SwapchainStats,
    /// The present op's result, handed out by the next poll.
    last_present: Option<PresentStatus>,
    /// Only the mutation `submit_at_present` (`scripts/mutation-check`) fills this: a frame's
    /// submission recorded late, at its present.
    deferred_submission: Option<(Serial, SubmitSignal<F>, u64, Option<usize>)>,
}

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// A machine whose first operation is setup: creating the objects the frame loop needs and
    /// the first swapchain. Poll it until [`Request::Done`].
    pub fn new(config: MachineConfig) -> Result<Self, CoreError> {
        config::validate(&config)?;
        let stream = super::sync_token::new_stream_id();
        let mut sync = super::sync_graph::SyncGraph::new();
        sync.add_stream(stream);
        let presenter = Presenter::new(&config.pacing)?;
        Ok(Self {
            presenter,
            fences: FencePool::new(),
            pacing: config.pacing.start(),
            telemetry: Telemetry::new(),
            display: config.present_ids.then(PresentIds::new),
            timing: config
                .present_timing_slots
                .map(|capacity| timing::PresentTiming {
                    queue: crate::display::TimingQueue::new(capacity),
                    ..Default::default()
                }),
            gpu: config.gpu_clock.map(|clock| GpuTiming {
                clock,
                calibrated_at: None,
                reads: VecDeque::with_capacity(8),
            }),
            live: None,
            live_retired: false,
            needs_recreate: true,
            recreation: Recreation::default(),
            next_mode: None,
            next_serial: Serial(1),
            stream,
            sync,
            op: Op::Setup,
            frame: None,
            awaiting: None,
            housekeeping: VecDeque::with_capacity(16),
            failure: None,
            round: Round::default(),
            watch: display_watch::DisplayWatch::default(),
            fallback: None,
            teardown: Teardown::default(),
            submitted_shape: None,
            presenting_abandoned: false,
            stats: SwapchainStats {
                maintenance1: config.maintenance1,
                ..SwapchainStats::default()
            },
            last_present: None,
            deferred_submission: None,
            config,
        })
    }

    /// What to do next. Answer a request that names a Vulkan call with its `handle_*` input
    /// before polling again; a request not answered counts as abandoned and is asked again.
    pub fn poll(&mut self, now: u64) -> Request<S, W, F> {
        self.awaiting = None;
        self.watch.poll_began();
        if let Some(r) = self.housekeeping.pop_front() {
            return r;
        }
        if let Some(f) = self.failure.take() {
            self.op = Op::Idle;
            return Request::Failed(f);
        }
        if let Some(r) = self.gpu_read_step() {
            return r;
        }
        let r = match self.op {
            Op::Idle => Request::Done,
            Op::Setup => self.poll_setup(now),
            Op::Acquire(since) => self.poll_acquire(now, since),
            Op::Present => self.poll_present(now),
            Op::Shutdown => self.poll_shutdown(now),
            Op::Token(t) => self.poll_token(t, now),
        };
        if matches!(
            r,
            Request::FrameReady(_)
                | Request::ZeroExtent
                | Request::NotReady
                | Request::Presented(_)
                | Request::Done
                | Request::Failed(_)
        ) {
            self.op = Op::Idle;
        }
        r
    }

    // ----- shared internals ------------------------------------------------------------

    /// The bound of every wait.
    fn timeout(&self) -> u64 {
        self.config.wait_timeout_ns
    }

    /// Takes the awaited request if it is the one `matches` accepts.
    fn answer<T>(
        &mut self,
        what: &'static str,
        matches: impl FnOnce(Awaiting<S, F>) -> Option<T>,
    ) -> Result<T, CoreError> {
        self.awaiting
            .take()
            .and_then(matches)
            .ok_or(CoreError::OutOfOrder(what))
    }
}
