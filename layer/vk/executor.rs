//! Carrying out the frame machine's requests: one Vulkan call each (through the [`Shell`]), its
//! result reported to the machine, until the machine says the operation ended.

use ash::vk;

use super::error::{Error, Result};
use super::swapchain::Swapchain;
use vkpace_core::Request;

type VkRequest = Request<vk::Semaphore, vk::SwapchainKHR, vk::Fence>;

impl Swapchain {
    /// Polls the machine and carries out its requests until the operation ends; returns the
    /// request that ended it.
    ///
    /// `now` is a clock reading taken when the operation began; the clock is read again only
    /// after a call that can take time (a wait, a sleep, an acquire, a present, a creation).
    pub(super) fn drive(&mut self, now: u64) -> Result<VkRequest> {
        let result = self.drive_requests(now);
        result.map_err(|e| self.with_state(e))
    }

    /// An internal error with the state dump attached, for the report a bug needs.
    pub(super) fn with_state(&self, e: Error) -> Error {
        match e {
            Error::Internal { message, state } if state.is_empty() => Error::Internal {
                message,
                state: self.machine.debug_state().to_string(),
            },
            e => e,
        }
    }

    /// The loop of [`Self::drive`].
    fn drive_requests(&mut self, mut now: u64) -> Result<VkRequest> {
        loop {
            let request = self.machine.poll(now);
            match request {
                Request::FrameReady(_)
                | Request::ZeroExtent
                | Request::NotReady
                | Request::Presented(_)
                | Request::Done => return Ok(request),
                Request::Failed(f) => return Err(f.into()),
                other => {
                    if let Some(later) = self.execute(other, now)? {
                        now = later;
                    }
                }
            }
        }
    }

    /// One request. Returns a new clock reading after a call that can take time.
    fn execute(&mut self, request: VkRequest, now: u64) -> Result<Option<u64>> {
        match request {
            r @ (Request::CheckFence(_)
            | Request::WaitFence { .. }
            | Request::ReadTimeline
            | Request::WaitTimeline { .. }
            | Request::WaitStreamSignal { .. }
            | Request::ReadStreamValue { .. }
            | Request::WaitStreamValue { .. }) => self.execute_completion_checks(r, now),
            r @ (Request::PollPresentId { .. }
            | Request::ReadPresentTimings { .. }
            | Request::Acquire { .. }
            | Request::SubmitWait { .. }
            | Request::SubmitEmpty { .. }
            | Request::Present(_)
            | Request::ReadGpuTimes { .. }
            | Request::CalibrateGpuClock) => self.execute_queue_work(r, now),
            r @ (Request::DestroySemaphore(_)
            | Request::DestroyFence(_)
            | Request::DestroySwapchain(_)
            | Request::SleepUntil(_)
            | Request::CreateSemaphore(_)
            | Request::CreateFence
            | Request::QuerySurface
            | Request::QueryCompatibleModes(_)
            | Request::DrainDisplayQueue { .. }
            | Request::CreateSwapchain(_)) => self.execute_objects(r),
            // The operation's end: `drive_requests` returns these before asking here.
            Request::FrameReady(_)
            | Request::ZeroExtent
            | Request::NotReady
            | Request::Presented(_)
            | Request::Done
            | Request::Failed(_) => Err(misrouted()),
        }
    }

    /// Creations, destructions, surface queries, sleeps.
    fn execute_objects(&mut self, request: VkRequest) -> Result<Option<u64>> {
        let (m, sh) = (&mut self.machine, &mut self.shell);
        let blocking = matches!(
            request,
            Request::SleepUntil(_)
                | Request::CreateSwapchain(_)
                | Request::DrainDisplayQueue { .. }
        );
        match request {
            Request::DestroySemaphore(s) => sh.destroy_semaphore(s),
            Request::DestroyFence(f) => sh.destroy_fence(f),
            Request::DestroySwapchain(w) => sh.destroy_swapchain(w),
            Request::SleepUntil(at) => sh.sleep_until(at),
            Request::CreateSemaphore(role) => {
                m.handle_semaphore_created(sh.create_semaphore(role)?)?
            }
            Request::CreateFence => m.handle_fence_created(sh.create_fence()?)?,
            Request::QuerySurface => m.handle_surface(sh.query_surface()?)?,
            Request::QueryCompatibleModes(mode) => {
                m.handle_compatible_modes(sh.compatible_modes(mode)?)?
            }
            Request::DrainDisplayQueue {
                swapchain,
                acquires,
                timeout_ns,
            } => m.handle_display_queue_drained(
                sh.drain_display_queue(swapchain, acquires, timeout_ns)?,
            )?,
            Request::CreateSwapchain(c) => {
                let generation = m.stats().swapchains_created + 1;
                m.handle_swapchain_created(sh.create_swapchain(&c, generation)?)?;
                if let Some(refresh) = sh.take_display_timing() {
                    m.handle_display_timing(refresh);
                }
            }
            _ => return Err(misrouted()),
        }
        Ok(blocking.then(|| self.shell.now_ns()))
    }

    /// Looks at and waits for fences, the swapchain's timeline and host timelines' signals.
    fn execute_completion_checks(&mut self, request: VkRequest, now: u64) -> Result<Option<u64>> {
        let (m, sh) = (&mut self.machine, &mut self.shell);
        match request {
            Request::CheckFence(f) => {
                let signalled = sh.fence_signalled(f)?;
                m.handle_fence_status(f, signalled, now)?;
            }
            Request::WaitFence { fence, timeout_ns } => {
                let signalled = sh.wait_fence(fence, timeout_ns)?;
                let later = sh.now_ns();
                m.handle_fence_status(fence, signalled, later)?;
                return Ok(Some(later));
            }
            Request::ReadTimeline => m.handle_timeline_value(sh.read_timeline()?, now)?,
            Request::WaitTimeline { value, timeout_ns } => {
                let reached = sh.wait_timeline(value, timeout_ns)?;
                let later = sh.now_ns();
                m.handle_timeline_value(reached, later)?;
                return Ok(Some(later));
            }
            Request::WaitStreamSignal { token, timeout_ns } => {
                m.handle_stream_signalled(sh.wait_stream_signal(token, timeout_ns))?;
                return Ok(Some(sh.now_ns()));
            }
            Request::ReadStreamValue { token } => {
                m.handle_stream_value(sh.stream_value(token, 0)?)?
            }
            Request::WaitStreamValue { token, timeout_ns } => {
                m.handle_stream_value(sh.stream_value(token, timeout_ns)?)?;
                return Ok(Some(sh.now_ns()));
            }
            _ => return Err(misrouted()),
        }
        Ok(None)
    }

    /// Present-id polls, timing reads, acquires, submissions, presents and timestamp readings.
    fn execute_queue_work(&mut self, request: VkRequest, now: u64) -> Result<Option<u64>> {
        let (m, sh) = (&mut self.machine, &mut self.shell);
        match request {
            Request::PollPresentId {
                swapchain,
                id,
                timeout_ns,
            } => {
                // The time it answered: "shown by then" (a poll), or when it was (a watch).
                let status = sh.wait_present_id(swapchain, id, timeout_ns);
                let now = sh.now_ns();
                m.handle_present_id_status(status, now)?;
                return Ok(Some(now));
            }
            Request::ReadPresentTimings { swapchain } => {
                let (reports, refresh) = sh.read_present_timings(swapchain);
                m.handle_present_timings(reports, now)?;
                if let Some(refresh) = refresh? {
                    m.handle_display_timing(refresh);
                }
            }
            Request::Acquire {
                swapchain,
                semaphore,
                timeout_ns,
            } => {
                m.handle_acquire(sh.acquire(swapchain, semaphore, timeout_ns))?;
                return Ok(Some(sh.now_ns()));
            }
            Request::SubmitWait { semaphore, signal } => {
                m.handle_submitted(sh.submit_empty(Some(semaphore), signal))?
            }
            Request::SubmitEmpty { signal } => m.handle_submitted(sh.submit_empty(None, signal))?,
            Request::Present(p) => {
                let result = sh.present(&p);
                let later = sh.now_ns();
                m.handle_present_result(result, later)?;
                return Ok(Some(later));
            }
            Request::ReadGpuTimes { slot, .. } => {
                m.handle_gpu_ticks(sh.read_gpu_ticks(slot), now)?
            }
            Request::CalibrateGpuClock => {
                let (ticks, cpu_ns) = sh.calibrate()?;
                m.handle_gpu_clock_sample(ticks, cpu_ns, now)?;
            }
            _ => return Err(misrouted()),
        }
        Ok(None)
    }
}

/// A request handed to a group of the executor that does not carry it out: a bug in `execute`'s
/// routing (an unanswered request would otherwise be asked again forever).
fn misrouted() -> Error {
    Error::Internal {
        message: "the executor routed a request to a group that does not carry it out".into(),
        state: String::new(),
    }
}
