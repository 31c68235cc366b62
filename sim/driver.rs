//! The sim's shell: it drives the frame machine that ships ([`vkpace::core::FrameMachine`])
//! against the simulated [`World`], carrying out each request as the Vulkan shell does on a
//! real device, one world operation per request. It makes no decision of its own: which
//! semaphore, which fence, when to wait or recreate is the machine's; the world checks the rule
//! each operation would break.

use vkpace::core::CoreError;
use vkpace::core::{
    Extent, Failure, FrameInfo, FrameMachine, MachineConfig, PresentMode, PresentStatus, Request,
    SurfaceFormat, SurfaceInfo, VkStatus,
};
use vkpace::SyncToken;

use crate::world::{AcquireResult, Fence, Gen, PresentResult, Sem, World};

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

impl From<vkpace::core::CoreError> for SimError {
    fn from(e: vkpace::core::CoreError) -> Self {
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

/// A frame machine and the world it runs against.
pub struct SimSwapchain {
    pub machine: SimMachine,
    pub world: World,
    pub surface: SimSurface,
    /// Virtual time.
    pub now: u64,
}

impl SimSwapchain {
    /// Makes the machine; [`Self::setup`] runs its first operation.
    pub fn new(config: MachineConfig, world: World, surface: SimSurface) -> Result<Self, SimError> {
        Ok(Self {
            machine: FrameMachine::new(config)?,
            world,
            surface,
            now: 0,
        })
    }

    /// Setup: the objects the frame loop needs and the first swapchain.
    pub fn setup(&mut self) -> Result<(), SimError> {
        self.drive().map(|_| ())
    }

    /// One world step: virtual time passes.
    pub fn tick(&mut self) -> Result<(), SimError> {
        self.now += TICK_NS;
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
    /// checked by the machine first (as `Swapchain::submit_batches` does): the first refused
    /// wait is returned and nothing is submitted.
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
        let serial = self
            .machine
            .handle_frame_submitted(frame.number, self.now, None)?;
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
        let now = self.now;
        match request {
            Request::DestroySemaphore(s) => self.world.destroy_semaphore(s)?,
            Request::DestroyFence(f) => self.world.destroy_fence(f)?,
            Request::DestroySwapchain(g) => self.world.destroy_swapchain(g)?,
            Request::SleepUntil(t) => self.now = self.now.max(t),
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
                let result = self.create_swapchain(c.plan.image_count, c.old)?;
                self.machine.handle_swapchain_created(result)?;
            }
            Request::DrainDisplayQueue {
                swapchain,
                acquires,
                ..
            } => {
                let taken = self.world.take_free_images(swapchain, acquires)?;
                self.machine.handle_display_queue_drained(taken)?;
            }
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
            Request::PollPresentId { .. } => {
                self.machine
                    .handle_present_id_status(VkStatus::TIMEOUT, now)?;
            }
            Request::Acquire {
                swapchain,
                semaphore,
                ..
            } => {
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
                let status = match self
                    .world
                    .present(p.swapchain, p.image, p.semaphore, p.fence)?
                {
                    PresentResult::Queued => VkStatus::SUCCESS,
                    PresentResult::QueuedStale => VkStatus::SUBOPTIMAL,
                    PresentResult::Failed => VkStatus::OUT_OF_HOST_MEMORY,
                };
                self.machine.handle_present_result(status, now)?;
            }
            Request::ReadGpuTimes { .. } => self.machine.handle_gpu_ticks(None, now)?,
            Request::CalibrateGpuClock => self.machine.handle_gpu_clock_sample(0, now, now)?,
            other => return Err(SimError::Broken(format!("unexpected request {other:?}"))),
        }
        Ok(())
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
    ) -> Result<Result<(Gen, u32), VkStatus>, SimError> {
        if self.world.rng.chance(self.surface.p_create_fail) {
            if let Some(g) = old {
                // The spec: oldSwapchain is retired even if creation fails.
                self.world.retire(g);
            }
            return Ok(Err(VkStatus::OUT_OF_DEVICE_MEMORY));
        }
        let count = images + self.world.rng.below(self.surface.extra_images + 1);
        let g = self.world.create_swapchain(count, old)?;
        Ok(Ok((g, count)))
    }

    /// Runs the world until `fence` signals, at most [`WAIT_BOUND`] ticks: `false` on timeout.
    fn wait(&mut self, fence: Fence, timeout_ns: u64) -> Result<bool, SimError> {
        let until = self.now.saturating_add(timeout_ns);
        self.run_until(until, |w| w.fence_signaled(fence))
    }

    /// Runs the world until `done` holds or virtual time reaches `until`, at most
    /// [`WAIT_BOUND`] ticks: `false` on timeout.
    fn run_until(
        &mut self,
        until: u64,
        mut done: impl FnMut(&mut World) -> Result<bool, String>,
    ) -> Result<bool, SimError> {
        for _ in 0..WAIT_BOUND {
            if done(&mut self.world)? {
                return Ok(true);
            }
            if self.now >= until {
                return Ok(false);
            }
            self.world.gpu_tick()?;
            self.world.pe_tick()?;
            self.now += TICK_NS;
        }
        Ok(false)
    }
}
