//! The sim's shell: it drives the frame machine that ships (`vkpace_core::FrameMachine`)
//! against the simulated [`World`], carrying out each request as the Vulkan shell does on a
//! real device, one world operation per request. It makes no decision of its own: which
//! semaphore, which fence, when to wait or recreate is the machine's; the world checks the rule
//! each operation would break.

use std::collections::BTreeMap;

use vkpace_core::CoreError;
use vkpace_core::SyncToken;
use vkpace_core::{
    choose_paths, DisplayFeedback, DisplayOffer, DisplayPaths, Extent, Failure, FrameInfo,
    FrameMachine, GpuClock, MachineConfig, PresentInfo, PresentMode, PresentStatus, PresentTarget,
    Request, SurfaceFormat, SurfaceInfo, Targets, VkStatus,
};

pub use crate::driver_load::WakeLateness;
use crate::timing_shell::SimTiming;
use crate::world::{AcquireResult, ClockFaults, Fence, Gen, PresentExtras, Sem, World};

/// The machine as the sim runs it.
pub type SimMachine = FrameMachine<Sem, Gen, Fence>;

/// The longest a bounded wait may run the world before it times out.
pub const WAIT_BOUND: u32 = 5_000;

/// Virtual nanoseconds per world tick.
const TICK_NS: u64 = 100_000;

/// How an operation of the sim ended badly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SimError {
    /// A Vulkan rule was broken (or the machine refused a call): the test fails.
    Broken(String),
    /// The machine ended the operation with a typed failure.
    Failed(Failure),
}

impl From<String> for SimError {
    fn from(s: String) -> Self {
        SimError::Broken(s)
    }
}

impl From<vkpace_core::CoreError> for SimError {
    fn from(e: vkpace_core::CoreError) -> Self {
        SimError::Broken(format!("the machine refused a call: {e}"))
    }
}

/// What the simulated surface offers.
#[derive(Debug, Clone)]
pub struct SimSurface {
    pub min_images: u32,
    /// Images the "driver" adds beyond the request, at random in `0..=extra`.
    pub extra_images: u32,
    /// Percent chance a swapchain creation fails (the old swapchain is retired all the same).
    pub p_create_fail: u32,
    pub present_modes: Vec<PresentMode>,
    /// The modes maintenance1 may switch between per present.
    pub compatible_modes: Vec<PresentMode>,
}

/// The simulated device clock that GPU timestamps count in: `period_ns` per tick, only
/// `valid_bits` low bits kept (so it wraps), starting at `offset` ticks at virtual time 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimGpuClock {
    pub period_ns: f64,
    pub valid_bits: u32,
    pub offset: u64,
}

impl SimGpuClock {
    /// The device clock at virtual time `ns` (rounded down: a timestamp is never later than
    /// what it marks).
    pub fn ticks(&self, ns: u64) -> u64 {
        let mask = if self.valid_bits >= 64 {
            u64::MAX
        } else {
            (1u64 << self.valid_bits) - 1
        };
        ((ns as f64 / self.period_ns) as u64).wrapping_add(self.offset) & mask
    }

    /// The description the machine is configured with (`MachineConfig::gpu_clock`).
    pub fn config(&self) -> Result<GpuClock, CoreError> {
        GpuClock::new(self.period_ns, self.valid_bits)
    }
}

/// A frame machine and the world it runs against.
pub struct SimSwapchain {
    pub machine: SimMachine,
    pub world: World,
    pub surface: SimSurface,
    /// Virtual time.
    pub now: u64,
    /// GPU timestamps: the device clock (set with `MachineConfig::gpu_clock` from it).
    pub gpu_clock: Option<SimGpuClock>,
    /// GPU timestamps: the world's submission of each frame whose times are not read yet.
    gpu_frames: BTreeMap<u64, u64>,
    /// GPU time reads answered with times and without.
    pub gpu_reads: (u64, u64),
    /// How late each wake-up from a `Request::SleepUntil` is (none: exact).
    pub wake: Option<WakeLateness>,
    /// The display paths in use (the core's `choose_paths`, as the Vulkan shell takes them):
    /// what each present may carry is checked against them.
    pub paths: DisplayPaths,
    /// What the surface and device offered for them (None: whatever the paths need).
    pub offer: Option<DisplayOffer>,
    /// Present timing's bookkeeping (a `vkpace_core::TimingBook` per swapchain), where the
    /// machine is configured for it.
    pub timing: Option<SimTiming>,
}

impl SimSwapchain {
    /// Makes the machine; [`Self::setup`] runs its first operation.
    /// Without [`Self::set_paths`], the paths follow the configuration: present_wait where
    /// it asks for present ids, present timing where it sizes a results queue, with the kind of
    /// targets the world's display takes, reported in `CLOCK_MONOTONIC` (the world's clock).
    pub fn new(config: MachineConfig, world: World, surface: SimSurface) -> Result<Self, SimError> {
        let targets = match world.display.config.relative_targets {
            true => Targets::Relative,
            false => Targets::Absolute,
        };
        let timing = config.present_timing_slots.is_some().then_some(targets);
        let paths = DisplayPaths {
            feedback: match config.present_ids {
                true => DisplayFeedback::PresentWait,
                false => DisplayFeedback::None,
            },
            timing,
        };
        let faults = ClockFaults {
            offers_monotonic: true,
            ..ClockFaults::default()
        };
        let timing = timing.map(|t| SimTiming::new(t, faults, 0));
        Ok(Self {
            machine: FrameMachine::new(config)?,
            world,
            surface,
            now: 0,
            gpu_clock: None,
            gpu_frames: BTreeMap::new(),
            gpu_reads: (0, 0),
            wake: None,
            paths,
            offer: None,
            timing,
        })
    }

    /// The paths the core chooses for `offer` (`choose_paths`, as the Vulkan shell asks it)
    /// and, with present timing, how the engine's clocks behave: set before [`Self::setup`].
    /// The machine's configuration must ask for what they use (present ids with either, a
    /// results queue with present timing). Returns the paths.
    pub fn set_paths(
        &mut self,
        offer: DisplayOffer,
        clocks: ClockFaults,
        seed: u64,
    ) -> DisplayPaths {
        let paths = choose_paths(&offer);
        self.paths = paths;
        self.offer = Some(offer);
        self.timing = paths.timing.map(|t| SimTiming::new(t, clocks, seed));
        paths
    }

    /// Virtual time moves on to `t` (never back): the display catches up.
    pub fn advance(&mut self, t: u64) {
        self.now = self.now.max(t);
        self.world.advance_to(self.now);
    }

    /// Setup: the objects the frame loop needs and the first swapchain.
    pub fn setup(&mut self) -> Result<(), SimError> {
        self.drive().map(|_| ())
    }

    /// One world step: virtual time passes.
    pub fn tick(&mut self) -> Result<(), SimError> {
        self.advance(self.now + TICK_NS);
        Ok(self.world.tick()?)
    }

    /// An acquire: `Ok(None)` for a zero extent.
    pub fn acquire(&mut self) -> Result<Option<FrameInfo<Sem, Gen, Fence>>, SimError> {
        self.machine.begin_acquire(self.now);
        match self.drive()? {
            Request::FrameReady(f) => Ok(Some(f)),
            _ => Ok(None),
        }
    }

    /// The renderer's one submission of `frame`: waits on its acquire semaphore, signals its
    /// present semaphore and its fence or timeline value. Returns the world's number of the
    /// submission and the machine's token for it.
    pub fn submit(
        &mut self,
        frame: &FrameInfo<Sem, Gen, Fence>,
    ) -> Result<(u64, SyncToken), SimError> {
        // No wait to refuse: a refusal here is a broken rule.
        self.submit_waiting(frame, &[])?.map_err(SimError::from)
    }

    /// The frame's one submission, also waiting on the GPU for other queues' `waits`, each
    /// checked by the machine first (as `Swapchain::submit` does for `Submission::Batches`): the
    /// first refused wait is returned and nothing is submitted.
    pub fn submit_waiting(
        &mut self,
        frame: &FrameInfo<Sem, Gen, Fence>,
        waits: &[SyncToken],
    ) -> Result<Result<(u64, SyncToken), CoreError>, SimError> {
        for &t in waits {
            if let Err(e) = self.machine.check_gpu_wait(t) {
                return Ok(Err(e));
            }
        }
        let stream_waits: Vec<(u64, u64)> = waits.iter().map(|t| (t.stream(), t.value())).collect();
        let number = self.world.submit_waiting(
            &[frame.acquire_semaphore],
            &stream_waits,
            &[frame.present_semaphore],
            Some(frame.signal),
            true,
        )?;
        let timed_slot = self.gpu_clock.map(|_| frame.slot);
        if timed_slot.is_some() {
            self.gpu_frames.insert(frame.number, number);
        }
        let serial = self
            .machine
            .handle_frame_submitted(frame.number, self.now, timed_slot)?;
        let token = self.machine.token_of(serial);
        self.machine
            .record_gpu_waits(token, waits.iter().copied())?;
        Ok(Ok((number, token)))
    }

    /// Whether `token` is reached, looking without blocking (as `Swapchain::completed`).
    pub fn completed(&mut self, token: SyncToken) -> Result<bool, SimError> {
        self.machine.begin_token_check(token)?;
        self.drive()?;
        Ok(self.machine.token_reached(token))
    }

    /// Waits up to `timeout_ns` of virtual time for `token` (as `Swapchain::wait`).
    pub fn wait_token(&mut self, token: SyncToken, timeout_ns: u64) -> Result<(), SimError> {
        self.machine.begin_token_wait(token, timeout_ns)?;
        self.drive()?;
        if self.machine.token_reached(token) {
            Ok(())
        } else {
            Err(SimError::Broken(format!(
                "a token wait ended without its token ({token}) reached or a timeout"
            )))
        }
    }

    /// Presents frame `number`.
    pub fn present(&mut self, number: u64) -> Result<PresentStatus, SimError> {
        self.machine.begin_present(number, self.now)?;
        match self.drive()? {
            Request::Presented(s) => Ok(s),
            other => Err(SimError::Broken(format!("present ended with {other:?}"))),
        }
    }

    /// Teardown.
    pub fn shutdown(&mut self) -> Result<(), SimError> {
        self.machine.begin_shutdown(self.now);
        self.drive().map(|_| ())
    }

    /// Polls and carries out requests until the operation ends.
    fn drive(&mut self) -> Result<Request<Sem, Gen, Fence>, SimError> {
        loop {
            match self.machine.poll(self.now) {
                r @ (Request::FrameReady(_)
                | Request::ZeroExtent
                | Request::NotReady
                | Request::Presented(_)
                | Request::Done) => return Ok(r),
                Request::Failed(f) => return Err(SimError::Failed(f)),
                other => self.execute(other)?,
            }
        }
    }

    /// One request, one world operation, its result reported to the machine.
    fn execute(&mut self, request: Request<Sem, Gen, Fence>) -> Result<(), SimError> {
        match request {
            Request::DestroySemaphore(s) => self.world.destroy_semaphore(s)?,
            Request::DestroyFence(f) => self.world.destroy_fence(f)?,
            Request::DestroySwapchain(g) => {
                if let Some(t) = self.timing.as_mut() {
                    t.destroyed(g);
                }
                self.world.destroy_swapchain(g)?
            }
            Request::SleepUntil(t) => self.sleep_until(t)?,
            Request::CreateSemaphore(_) => {
                let s = self.world.create_semaphore();
                self.machine.handle_semaphore_created(s)?;
            }
            Request::CreateFence => {
                let f = self.world.create_fence();
                self.machine.handle_fence_created(f)?;
            }
            Request::QuerySurface => self.machine.handle_surface(self.surface_info())?,
            Request::QueryCompatibleModes(_) => self
                .machine
                .handle_compatible_modes(self.surface.compatible_modes.clone())?,
            Request::CreateSwapchain(c) => {
                let mode = c.plan.present_mode;
                let result = self.create_swapchain(c.plan.image_count, c.old, mode)?;
                let made = result.as_ref().ok().map(|(g, _)| *g);
                self.machine.handle_swapchain_created(result)?;
                if let (Some(g), Some(t)) = (made, self.timing.as_mut()) {
                    // As the shell: the new swapchain's book, its refresh and domains read.
                    let refresh = self.world.display.config.refresh_ns;
                    let timing = t.created(g, refresh, self.now)?;
                    self.machine.handle_display_timing(timing);
                }
            }
            Request::DrainDisplayQueue {
                swapchain,
                acquires,
                ..
            } => {
                let taken = self.world.take_free_images(swapchain, acquires)?;
                self.machine.handle_display_queue_drained(taken)?;
            }
            other => self.execute_completions(other)?,
        }
        Ok(())
    }

    /// Fence and timeline checks and waits, host values, display feedback.
    fn execute_completions(&mut self, request: Request<Sem, Gen, Fence>) -> Result<(), SimError> {
        let now = self.now;
        match request {
            Request::CheckFence(f) => {
                let signalled = self.world.fence_signaled(f)?;
                if signalled {
                    self.world.reset_fence(f)?;
                }
                self.machine.handle_fence_status(f, signalled, now)?;
            }
            Request::WaitFence { fence, timeout_ns } => {
                let signalled = self.wait(fence, timeout_ns)?;
                if signalled {
                    self.world.reset_fence(fence)?;
                }
                self.machine
                    .handle_fence_status(fence, signalled, self.now)?;
            }
            Request::ReadTimeline => self
                .machine
                .handle_timeline_value(self.world.timeline, now)?,
            Request::WaitTimeline { value, timeout_ns } => {
                let until = self.now.saturating_add(timeout_ns);
                self.run_until(until, |w| Ok(w.timeline >= value))?;
                self.machine
                    .handle_timeline_value(self.world.timeline, self.now)?;
            }
            Request::ReadStreamValue { token } => self.stream_value(token, 0)?,
            Request::WaitStreamValue { token, timeout_ns } => {
                self.stream_value(token, timeout_ns)?
            }
            Request::WaitStreamSignal { token, .. } => {
                let signalled = self.world.signal_promised(token.stream(), token.value())?;
                let signalled = SyncToken::new(token.stream(), signalled);
                self.machine.handle_stream_signalled(signalled)?;
            }
            Request::PollPresentId {
                swapchain,
                id,
                timeout_ns,
            } => {
                let until = self.now.saturating_add(timeout_ns);
                let shown = self.run_until(until, |w| w.display.id_shown(swapchain, id))?;
                let status = if shown {
                    VkStatus::SUCCESS
                } else {
                    VkStatus::TIMEOUT
                };
                self.machine.handle_present_id_status(status, self.now)?;
            }
            Request::ReadPresentTimings { swapchain } => self.read_timings(swapchain)?,
            other => self.execute_queue_work(other)?,
        }
        Ok(())
    }

    /// `Request::ReadStreamValue` (`timeout_ns` 0) and `Request::WaitStreamValue`: another
    /// queue's timeline value, after waiting up to `timeout_ns` for `token`'s.
    fn stream_value(&mut self, token: SyncToken, timeout_ns: u64) -> Result<(), SimError> {
        let until = self.now.saturating_add(timeout_ns);
        let reached = |w: &World| w.queue_of(token.stream()).map_or(0, |q| q.reached);
        self.run_until(until, |w| Ok(reached(w) >= token.value()))?;
        let value = reached(&self.world);
        self.machine
            .handle_stream_value(SyncToken::new(token.stream(), value))?;
        Ok(())
    }

    /// Acquires, submissions, presents and GPU clock readings.
    fn execute_queue_work(&mut self, request: Request<Sem, Gen, Fence>) -> Result<(), SimError> {
        let now = self.now;
        match request {
            Request::Acquire {
                swapchain,
                semaphore,
                timeout_ns,
            } => {
                self.wait_for_free_image(swapchain, timeout_ns)?;
                let result = match self.world.acquire(swapchain, semaphore)? {
                    AcquireResult::Image(i, suboptimal) => Ok((i, suboptimal)),
                    AcquireResult::OutOfDate => Err(VkStatus::OUT_OF_DATE),
                    AcquireResult::NotReady => Err(VkStatus::TIMEOUT),
                };
                self.machine.handle_acquire(result)?;
            }
            Request::SubmitWait { semaphore, signal } => {
                self.world.submit(&[semaphore], &[], Some(signal), false)?;
                self.machine.handle_submitted(Ok(()))?;
            }
            Request::SubmitEmpty { signal } => {
                self.world.submit(&[], &[], Some(signal), false)?;
                self.machine.handle_submitted(Ok(()))?;
            }
            Request::Present(p) => {
                let status = self.present_request(&p)?;
                self.machine.handle_present_result(status, now)?;
            }
            Request::ReadGpuTimes { frame, .. } => {
                let ticks = self.gpu_ticks(frame);
                let got = u64::from(ticks.is_some());
                self.gpu_reads = (self.gpu_reads.0 + got, self.gpu_reads.1 + 1 - got);
                self.machine.handle_gpu_ticks(ticks, now)?;
            }
            Request::CalibrateGpuClock => {
                let ticks = self.gpu_clock.map_or(0, |c| c.ticks(now));
                self.machine.handle_gpu_clock_sample(ticks, now, now)?;
            }
            other => return Err(SimError::Broken(format!("unexpected request {other:?}"))),
        }
        Ok(())
    }

    /// `vkQueuePresentKHR` with the present's id, target and stage request.
    fn present_request(&mut self, p: &PresentInfo<Sem, Gen, Fence>) -> Result<VkStatus, SimError> {
        let extras = PresentExtras {
            id: p.present_id.unwrap_or(0),
            target: self.engine_target(p.timing.map_or(PresentTarget::None, |t| t.target))?,
            stages: p.timing.is_some_and(|t| t.query_stages),
            mode: p.mode,
        };
        self.check_path(&extras)?;
        let result =
            self.world
                .present_with(p.swapchain, (p.image, p.semaphore, p.fence), extras)?;
        Ok(result.status())
    }

    /// The two timestamps `frame`'s submission wrote, in device ticks (None: no times).
    fn gpu_ticks(&mut self, frame: u64) -> Option<(u64, u64)> {
        let number = self.gpu_frames.remove(&frame)?;
        self.gpu_frames.retain(|&f, _| f > frame);
        let clock = self.gpu_clock?;
        let &(start, end) = self.world.gpu_times.get(&number)?;
        Some((clock.ticks(start), clock.ticks(end)))
    }

    fn surface_info(&self) -> SurfaceInfo {
        SurfaceInfo {
            min_image_count: self.surface.min_images,
            max_image_count: 0,
            current_extent: None,
            min_extent: Extent {
                width: 1,
                height: 1,
            },
            max_extent: Extent {
                width: 16384,
                height: 16384,
            },
            supported_usage: 0xff,
            supported_composite_alpha: 1,
            current_transform: 1,
            formats: vec![SurfaceFormat::BGRA8_SRGB, SurfaceFormat::BGRA8_UNORM],
            present_modes: self.surface.present_modes.clone(),
        }
    }

    fn create_swapchain(
        &mut self,
        images: u32,
        old: Option<Gen>,
        mode: PresentMode,
    ) -> Result<Result<(Gen, u32), VkStatus>, SimError> {
        if self.world.rng.chance(self.surface.p_create_fail) {
            if let Some(g) = old {
                // The spec: oldSwapchain is retired even if creation fails.
                self.world.retire(g);
            }
            return Ok(Err(VkStatus::OUT_OF_DEVICE_MEMORY));
        }
        let count = images + self.world.rng.below(self.surface.extra_images + 1);
        let g = self.world.create_swapchain_in(count, old, mode)?;
        Ok(Ok((g, count)))
    }

    /// Runs the world until `fence` signals, at most [`WAIT_BOUND`] ticks: `false` on timeout.
    fn wait(&mut self, fence: Fence, timeout_ns: u64) -> Result<bool, SimError> {
        let until = self.now.saturating_add(timeout_ns);
        self.run_until(until, |w| w.fence_signaled(fence))
    }

    /// Runs the world until `done` holds or virtual time reaches `until`, at most
    /// [`WAIT_BOUND`] ticks: `false` on timeout.
    pub(crate) fn run_until(
        &mut self,
        until: u64,
        mut done: impl FnMut(&mut World) -> Result<bool, String>,
    ) -> Result<bool, SimError> {
        if self.world.load.is_some() {
            return self.run_events_until(until, done);
        }
        for _ in 0..WAIT_BOUND {
            if done(&mut self.world)? {
                return Ok(true);
            }
            if self.now >= until {
                return Ok(false);
            }
            self.world.gpu_tick()?;
            self.world.pe_tick()?;
            self.advance(self.now + TICK_NS);
        }
        Ok(false)
    }
}
