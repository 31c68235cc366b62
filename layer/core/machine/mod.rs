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
//! use vkpace::core::{FrameMachine, MachineConfig, Request, SurfaceInfo, Extent, PresentMode,
//!     SurfaceFormat, VkStatus};
//! # fn main() -> Result<(), vkpace::core::CoreError> {
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
mod debug_state;
mod drain;
mod present;
mod recreate;
mod request;
mod shutdown;
mod stats;
mod timing;
mod tokens;

use std::collections::VecDeque;

use super::completion::{CompletionBackend, SubmitSignal};
use super::error::{CoreError, Failure};
use super::fence_pool::FencePool;
use super::gpu_clock::GpuClock;
use super::pacer::validate_frames_in_flight;
use super::pacing::{FrameLimit, Pacing, PacingPolicy};
use super::present_ids::PresentIds;
use super::presenter::{Action, Presenter, PresenterConfig};
use super::serial::Serial;
use super::surface_plan::{SurfaceInfo, SurfaceWishes, SwapchainPlan};
use super::telemetry::{FrameTimes, Telemetry};
use super::vk_values::{Extent, PresentMode, SurfaceFormat};

pub use debug_state::DebugState;
pub use request::{CreateSwapchain, FrameInfo, PresentInfo, PresentStatus, Request, SemaphoreRole};
pub use stats::SwapchainStats;
pub use timing::{PresentTimingRequest, TimingReport};

/// How the machine runs. Every field documents its default.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct MachineConfig {
    /// Frames the CPU may queue ahead of the GPU, 1..=3. Default 2.
    pub frames_in_flight: usize,
    /// Retired swapchains allowed to wait for proof before the bounded fallback. Default 5,
    /// as ANGLE (some drivers refuse a new swapchain past about 20 alive).
    pub max_retired_swapchains: usize,
    /// What every swapchain should look like. Default: the SRGB formats first, FIFO,
    /// color attachment and transfer destination, 640x480, one image beyond the minimum.
    pub surface: SurfaceWishes,
    /// Bound of every wait, in nanoseconds. Default 2 s.
    pub wait_timeout_ns: u64,
    /// `VK_EXT_swapchain_maintenance1` (or its KHR promotion): present fences, image release,
    /// per-present mode switches. Default false.
    pub maintenance1: bool,
    /// `VK_KHR_present_id` + `VK_KHR_present_wait`: present ids and display times. Default false.
    pub present_ids: bool,
    /// `VK_EXT_present_timing` with this many results-queue slots per swapchain (at most 16):
    /// target present times and stage times read back, instead of present-wait polls. Needs
    /// `present_ids` (results are matched to presents by id). Default none.
    pub present_timing_slots: Option<u32>,
    /// GPU timestamps: the device clock's description. Default none.
    pub gpu_clock: Option<GpuClock>,
    /// When frames begin beyond the gate. Default [`PacingPolicy::FramesInFlight`].
    pub pacing: PacingPolicy,
    /// A frame rate limit. Default none.
    pub frame_limit: Option<FrameLimit>,
    /// What backs the completion of tracked submissions (and so the machine's tokens).
    /// Default [`CompletionBackend::Fences`].
    pub completion: CompletionBackend,
}

impl Default for MachineConfig {
    fn default() -> Self {
        Self {
            frames_in_flight: 2,
            max_retired_swapchains: 5,
            surface: SurfaceWishes {
                formats: vec![
                    SurfaceFormat::BGRA8_SRGB,
                    SurfaceFormat::RGBA8_SRGB,
                    SurfaceFormat::BGRA8_UNORM,
                    SurfaceFormat::RGBA8_UNORM,
                ],
                any_format_if_none_offered: true,
                present_mode: PresentMode::FIFO,
                // COLOR_ATTACHMENT | TRANSFER_DST
                usage: 0x10 | 0x2,
                extent: Extent {
                    width: 640,
                    height: 480,
                },
                extra_images: 1,
            },
            wait_timeout_ns: 2_000_000_000,
            maintenance1: false,
            present_ids: false,
            present_timing_slots: None,
            gpu_clock: None,
            pacing: PacingPolicy::FramesInFlight,
            frame_limit: None,
            completion: CompletionBackend::Fences,
        }
    }
}

/// Checks the settings a machine cannot run with.
fn validate(config: &MachineConfig) -> Result<(), CoreError> {
    validate_frames_in_flight(config.frames_in_flight)?;
    if config.wait_timeout_ns == 0 {
        return Err(CoreError::ZeroTimeout);
    }
    match config.present_timing_slots {
        Some(slots) if !config.present_ids || !(1..=16).contains(&slots) => {
            Err(CoreError::InvalidPresentTiming(slots))
        }
        _ => Ok(()),
    }
}

/// Whether a present mode shows every frame in order at the display's refresh (FIFO and
/// FIFO_RELAXED), so the display can be a bottleneck frames wait for.
fn queues_frames(mode: PresentMode) -> bool {
    mode == PresentMode::FIFO || mode == PresentMode::FIFO_RELAXED
}

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
    PresentId,
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

impl<S, W, F> FrameMachine<S, W, F>
where
    S: Copy + PartialEq + std::fmt::Debug,
    W: Copy + PartialEq + std::fmt::Debug,
    F: Copy + PartialEq + std::fmt::Debug,
{
    /// A machine whose first operation is setup: creating the objects the frame loop needs and
    /// the first swapchain. Poll it until [`Request::Done`].
    pub fn new(config: MachineConfig) -> Result<Self, CoreError> {
        validate(&config)?;
        let stream = super::sync_token::new_stream_id();
        let mut sync = super::sync_graph::SyncGraph::new();
        sync.add_stream(stream);
        let presenter = Presenter::new(PresenterConfig {
            frames_in_flight: config.frames_in_flight,
            max_retired_swapchains: config.max_retired_swapchains,
        })?;
        Ok(Self {
            presenter,
            fences: FencePool::new(),
            pacing: Pacing::new(config.pacing, config.frame_limit),
            telemetry: Telemetry::new(),
            display: config.present_ids.then(PresentIds::new),
            timing: config
                .present_timing_slots
                .map(|capacity| timing::PresentTiming {
                    capacity,
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

    // ----- settings ----------------------------------------------------------------------

    /// Asks for a new extent (used where the surface lets the application choose it). The
    /// swapchain is recreated at most once, at the next acquire.
    pub fn resize(&mut self, extent: Extent) {
        if extent != self.config.surface.extent {
            self.config.surface.extent = extent;
            self.needs_recreate = true;
        }
    }

    /// Recreates the swapchain at the next acquire (the surface tells the size).
    pub fn request_recreate(&mut self) {
        self.needs_recreate = true;
    }

    /// Switches the present mode: with the next present where the live swapchain can switch
    /// to it (maintenance1, a compatible mode), else by recreation at the next acquire.
    pub fn set_present_mode(&mut self, mode: PresentMode) {
        self.config.surface.present_mode = mode;
        let Some(live) = self.live.as_ref() else {
            return;
        };
        if self.next_mode.unwrap_or(live.plan.present_mode) == mode {
            self.next_mode = None;
        } else if self.config.maintenance1 && live.plan.compatible_modes.contains(&mode) {
            self.next_mode = (mode != live.plan.present_mode).then_some(mode);
        } else {
            self.next_mode = None;
            self.needs_recreate = true;
            self.stats.present_mode_recreations += 1;
        }
    }

    /// Changes frames in flight (1..=3); the next frame paces by it. Slots stay safe: they are
    /// chosen by completion.
    pub fn set_frames_in_flight(&mut self, frames_in_flight: usize) -> Result<(), CoreError> {
        self.presenter.set_frames_in_flight(frames_in_flight)?;
        self.config.frames_in_flight = frames_in_flight;
        Ok(())
    }

    /// Switches the pacing policy from the next frame on.
    pub fn set_pacing_policy(&mut self, policy: PacingPolicy) {
        self.pacing.set_policy(policy);
    }

    /// Sets or removes the frame limit from the next frame on.
    pub fn set_frame_limit(&mut self, limit: Option<FrameLimit>) {
        self.pacing.set_frame_limit(limit);
    }

    // ----- getters -----------------------------------------------------------------------

    /// Frames in flight N.
    #[must_use]
    pub fn frames_in_flight(&self) -> usize {
        self.presenter.frames_in_flight()
    }

    /// How frames are paced to the display now: on the refresh grid with present timing, or
    /// by the CPU.
    #[must_use]
    pub fn display_path(&self) -> super::pacing::DisplayPath {
        self.pacing.schedule().path()
    }

    /// The pacing policy.
    #[must_use]
    pub fn pacing_policy(&self) -> PacingPolicy {
        self.pacing.policy()
    }

    /// The frame limit.
    #[must_use]
    pub fn frame_limit(&self) -> Option<FrameLimit> {
        self.pacing.frame_limit()
    }

    /// The live swapchain's handle.
    #[must_use]
    pub fn swapchain(&self) -> Option<W> {
        self.live.as_ref().map(|l| l.handle)
    }

    /// The present mode in use (after a pending per-present switch, the mode switched to).
    #[must_use]
    pub fn present_mode(&self) -> Option<PresentMode> {
        self.live.as_ref().map(|l| l.plan.present_mode)
    }

    /// The live swapchain's extent.
    #[must_use]
    pub fn extent(&self) -> Option<Extent> {
        self.live.as_ref().map(|l| l.plan.extent)
    }

    /// The live swapchain's surface format (kept across recreation).
    #[must_use]
    pub fn surface_format(&self) -> Option<SurfaceFormat> {
        self.live.as_ref().map(|l| l.plan.format)
    }

    /// How many swapchains were created (the live one is this generation).
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.live.as_ref().map_or(0, |l| l.generation)
    }

    /// Retired swapchains not yet destroyed.
    #[must_use]
    pub fn retired_pending(&self) -> usize {
        self.presenter.retired_pending()
    }

    /// Semaphores the machine holds (acquire ring, present histories, pool, frame in progress).
    #[must_use]
    pub fn semaphores_held(&self) -> usize {
        self.presenter.semaphores_held()
    }

    /// The deepest present history of any image of any live swapchain.
    #[must_use]
    pub fn deepest_history(&self) -> usize {
        self.presenter.deepest_history()
    }

    /// Submitted frames whose submission is not known complete.
    #[must_use]
    pub fn frames_pending(&self) -> usize {
        self.presenter.frames_pending()
    }

    /// The frame handed out and not yet presented, if any, and whether it was submitted.
    #[must_use]
    pub fn frame_in_progress(&self) -> Option<(u64, bool)> {
        let frame = self.frame.filter(|f| f.handed_out)?;
        let submitted = self
            .presenter
            .frame()
            .is_some_and(|f| f.submitted.is_some());
        Some((frame.number, submitted))
    }

    /// Counters since creation.
    #[must_use]
    pub fn stats(&self) -> SwapchainStats {
        let p = self.presenter.stats();
        let fences = self.fences.counts();
        SwapchainStats {
            old_swapchains_max_pending: p.retired_max_pending,
            fallback_waits: p.fallback_waits,
            fences_created: fences.created,
            fences_max_alive: fences.max_alive,
            ..self.stats
        }
    }

    /// The recent frames' timelines, oldest first.
    pub fn telemetry(&self) -> impl DoubleEndedIterator<Item = FrameTimes> + '_ {
        self.telemetry.iter()
    }

    // ----- shared internals ------------------------------------------------------------

    /// The bound of every wait.
    fn timeout(&self) -> u64 {
        self.config.wait_timeout_ns
    }

    /// Turns the presenter's decisions into housekeeping requests.
    fn drain_actions(&mut self) {
        while let Some(action) = self.presenter.poll_action() {
            let request = match action {
                Action::DestroySemaphore(s) => {
                    self.stats.semaphores_alive = self.stats.semaphores_alive.saturating_sub(1);
                    Request::DestroySemaphore(s)
                }
                Action::DestroySwapchain(w) => Request::DestroySwapchain(w),
            };
            self.housekeeping.push_back(request);
        }
    }

    /// The next submission serial.
    fn take_serial(&mut self) -> Serial {
        let s = self.next_serial;
        self.next_serial = s.next();
        s
    }

    /// Asks for a semaphore.
    fn create_semaphore(&mut self, purpose: SemaphoreFor) -> Request<S, W, F> {
        self.awaiting = Some(Awaiting::Semaphore(purpose));
        let role = match purpose {
            SemaphoreFor::Acquire => SemaphoreRole::Acquire,
            SemaphoreFor::Pool | SemaphoreFor::Present => SemaphoreRole::Present,
        };
        Request::CreateSemaphore(role)
    }

    /// Asks for a fence (it joins the free ones).
    fn create_fence(&mut self) -> Request<S, W, F> {
        self.awaiting = Some(Awaiting::Fence);
        Request::CreateFence
    }

    /// Waits for `signal`, bounded by the timeout or by `deadline` if given.
    fn wait(
        &mut self,
        signal: SubmitSignal<F>,
        purpose: WaitPurpose,
        deadline: Option<u64>,
        now: u64,
    ) -> Request<S, W, F> {
        let timeout_ns = deadline.map_or(self.timeout(), |d| d.saturating_sub(now).max(1));
        self.awaiting = Some(Awaiting::Wait(signal, purpose));
        match signal {
            SubmitSignal::Fence(fence) => Request::WaitFence { fence, timeout_ns },
            SubmitSignal::Timeline(value) => Request::WaitTimeline { value, timeout_ns },
        }
    }

    /// Whether tracked submissions signal fences (else the timeline).
    fn uses_fences(&self) -> bool {
        self.config.completion == CompletionBackend::Fences
    }

    /// What the next tracked submission the machine makes itself signals: the timeline's next
    /// value, or a free fence (`Err`: a fence must be created first).
    fn next_signal(&mut self) -> Result<SubmitSignal<F>, Request<S, W, F>> {
        if !self.uses_fences() {
            return Ok(SubmitSignal::Timeline(self.next_serial.0));
        }
        match self.fences.peek() {
            Some(f) => Ok(SubmitSignal::Fence(f)),
            None => Err(self.create_fence()),
        }
    }

    /// The submission `serial`, signalling `signal`, was made: it is pending from now on.
    fn track_submission(&mut self, serial: Serial, signal: SubmitSignal<F>) {
        let signal = match signal {
            SubmitSignal::Fence(f) => {
                self.fences.take_this(f);
                SubmitSignal::Fence(f)
            }
            // The value the submission signalled is its serial.
            SubmitSignal::Timeline(_) => SubmitSignal::Timeline(serial.0),
        };
        self.fences.submitted(serial, signal);
    }

    /// What backs the machine's completion tokens.
    #[must_use]
    pub fn completion_backend(&self) -> CompletionBackend {
        self.config.completion
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

    // ----- answers to object requests ----------------------------------------------------

    /// A semaphore asked for with [`Request::CreateSemaphore`] was created.
    pub fn handle_semaphore_created(&mut self, semaphore: S) -> Result<(), CoreError> {
        let purpose = self.answer("a semaphore nobody asked for", |a| match a {
            Awaiting::Semaphore(p) => Some(p),
            _ => None,
        })?;
        self.stats.semaphore_created();
        match purpose {
            SemaphoreFor::Pool => {
                if let Err(s) = self.presenter.add_free_present_semaphore(semaphore) {
                    self.stats.semaphores_alive -= 1;
                    self.housekeeping.push_back(Request::DestroySemaphore(s));
                }
            }
            SemaphoreFor::Acquire => {
                self.presenter.acquire_semaphore_created(semaphore);
                if let Some(f) = self.frame.as_mut() {
                    f.acquire_semaphore = Some(semaphore);
                }
            }
            SemaphoreFor::Present => self.presenter.present_semaphore_created(semaphore)?,
        }
        Ok(())
    }

    /// A fence asked for with [`Request::CreateFence`] was created (unsignalled).
    pub fn handle_fence_created(&mut self, fence: F) -> Result<(), CoreError> {
        self.answer("a fence nobody asked for", |a| {
            (a == Awaiting::Fence).then_some(())
        })?;
        self.fences.created(fence);
        Ok(())
    }

    // ----- setup ---------------------------------------------------------------------------

    /// Setup: N + 1 present semaphores and N + 1 fences (twice that with present fences) made
    /// before the frame loop, so the steady loop creates nothing; then the first swapchain.
    fn poll_setup(&mut self, now: u64) -> Request<S, W, F> {
        let n1 = self.presenter.frames_in_flight() + 1;
        if self.presenter.free_present_semaphores() < n1 {
            return self.create_semaphore(SemaphoreFor::Pool);
        }
        // Submission fences (fence backend) and present fences (maintenance1).
        let fences = n1 * (usize::from(self.uses_fences()) + usize::from(self.config.maintenance1));
        if self.fences.free_count() < fences {
            return self.create_fence();
        }
        match self.recreate_step(now) {
            Some(Request::ZeroExtent) | None => Request::Done,
            Some(r) => r,
        }
    }
}
