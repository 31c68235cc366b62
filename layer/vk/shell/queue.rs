//! The shell's queue work: acquires, empty submissions, presents, the completion timeline,
//! present-id polls and the GPU clock.

use super::*;
use crate::vk::present_chain::{present_code, PresentChain};

impl Shell {
    /// `vkAcquireNextImageKHR`.
    pub(crate) fn acquire(
        &self,
        swapchain: vk::SwapchainKHR,
        semaphore: vk::Semaphore,
        timeout_ns: u64,
    ) -> Result<(u32, bool), VkStatus> {
        // SAFETY: the semaphore is unsignalled with nothing pending (the core handed it out:
        // VUID-vkAcquireNextImageKHR-semaphore-01286/01779); the timeout is finite
        // (VUID-vkAcquireNextImageKHR-surface-07783); the swapchain is not retired.
        unsafe {
            self.swapchain_fn.acquire_next_image(
                swapchain,
                timeout_ns,
                semaphore,
                vk::Fence::null(),
            )
        }
        .map_err(status)
    }

    /// An empty submission waiting on `wait` (if any) at all commands and signalling `signal`.
    pub(crate) fn submit_empty(
        &self,
        wait: Option<vk::Semaphore>,
        signal: SubmitSignal<vk::Fence>,
    ) -> Result<(), VkStatus> {
        let waits: Vec<vk::Semaphore> = wait.into_iter().collect();
        let stages = [vk::PipelineStageFlags::ALL_COMMANDS];
        let mut submit = vk::SubmitInfo::default();
        if !waits.is_empty() {
            submit = submit
                .wait_semaphores(&waits)
                .wait_dst_stage_mask(&stages[..waits.len()]);
        }
        let signals = SubmitSignals::new(None, self.timeline_signal(signal));
        let mut values_info = vk::TimelineSemaphoreSubmitInfo::default();
        let submit = signals.apply(submit, &mut values_info);
        let fence = signal.fence().unwrap_or_default();
        // SAFETY: a semaphore waited on has a pending signal from a successful acquire and no
        // wait yet; the fence is unsignalled and unused (the core's pool); a timeline value is
        // the next serial, above every value signalled before
        // (VUID-VkSubmitInfo-pSignalSemaphores-03242).
        unsafe { self.device.queue_submit(self.queue, &[submit], fence) }.map_err(status)
    }

    /// The timeline semaphore and value a tracked submission signals; value 0 for a fence.
    pub(crate) fn timeline_signal(&self, signal: SubmitSignal<vk::Fence>) -> (vk::Semaphore, u64) {
        match (signal, self.timeline) {
            (SubmitSignal::Timeline(v), Some(t)) => (t, v),
            _ => (vk::Semaphore::null(), 0),
        }
    }

    /// `vkGetSemaphoreCounterValue` of the timeline.
    pub(crate) fn read_timeline(&self) -> Result<u64> {
        let Some(t) = self.timeline else {
            return Err(Error::InvalidConfig(
                "a timeline read without the timeline backend",
            ));
        };
        // SAFETY: the timeline semaphore belongs to this device and is alive.
        unsafe { self.device.get_semaphore_counter_value(t) }.during("vkGetSemaphoreCounterValue")
    }

    /// `vkWaitSemaphores` for the timeline to reach `value`, bounded; returns the counter
    /// read afterwards (below `value` when the wait timed out).
    pub(crate) fn wait_timeline(&self, value: u64, timeout_ns: u64) -> Result<u64> {
        let Some(t) = self.timeline else {
            return Err(Error::InvalidConfig(
                "a timeline wait without the timeline backend",
            ));
        };
        // The semaphore is alive; the core waits only for values a submission made on this
        // queue signals (a wait can end).
        let bound = std::time::Duration::from_nanos(timeout_ns);
        match crate::vk::host_timeline::wait_value(&self.device, t, value, bound) {
            Ok(()) | Err(Error::Timeout { .. }) => self.read_timeline(),
            Err(e) => Err(e),
        }
    }

    /// `vkQueuePresentKHR` with the extension structures the present needs.
    pub(crate) fn present(
        &self,
        p: &PresentInfo<vk::Semaphore, vk::SwapchainKHR, vk::Fence>,
    ) -> VkStatus {
        let (waits, swapchains, indices) = ([p.semaphore], [p.swapchain], [p.image]);
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        let fences = p.fence.map(|f| [f]);
        let ids = p.present_id.map(|id| [id]);
        let timings = self.timing_info(p).map(|t| [t]);
        let modes = p.mode.map(|m| [vk::PresentModeKHR::from_raw(m.0)]);
        // The swapchain was made with the id structure's flag for a surface that supports it
        // (VUID-VkPresentInfoKHR-presentId2Supported-10822, checked when its paths were chosen).
        let chain = PresentChain {
            fences: fences.as_ref().map(|f| &f[..]),
            id_structure: ids.map_or(PresentIdStructure::None, |_| self.ids),
            ids: ids.as_ref().map_or(&[][..], |i| &i[..]),
            timings: timings.as_ref().map(|t| &t[..]),
            modes: modes.as_ref().map(|m| &m[..]),
        };
        // SAFETY: the image was acquired from the swapchain and not yet presented; the
        // semaphore has a signal pending from the frame's submission
        // (VUID-vkQueuePresentKHR-pWaitSemaphores-03268); a present fence is unsignalled and
        // unused (VUID-VkSwapchainPresentFenceInfoEXT-pFences-07759); each structure's
        // extension is enabled (the shell's paths).
        status(present_code(unsafe {
            chain.queue_present(&self.swapchain_fn, self.queue, info)
        }))
    }

    /// The present timing structure of a present, if it asks for one.
    pub(super) fn timing_info(
        &self,
        p: &PresentInfo<vk::Semaphore, vk::SwapchainKHR, vk::Fence>,
    ) -> Option<vkpace_registry::PresentTimingInfoEXT<'static>> {
        self.timing
            .as_ref()?
            .present_info(p.swapchain, p.timing.as_ref()?)
    }

    /// present_wait or present_wait2: whether present `id` was shown, waiting at most
    /// `timeout_ns`.
    pub(crate) fn wait_present_id(
        &self,
        swapchain: vk::SwapchainKHR,
        id: u64,
        timeout_ns: u64,
    ) -> VkStatus {
        match &self.display {
            // SAFETY: the core asks only about the live (non-retired) swapchain's presents,
            // which this shell made with the path's create flags.
            Some(d) => status(unsafe { d.wait(swapchain, id, timeout_ns) }),
            None => VkStatus::TIMEOUT,
        }
    }

    /// The display feedback path in use.
    pub(crate) fn feedback(&self) -> DisplayFeedback {
        self.display
            .as_ref()
            .map_or(DisplayFeedback::None, DisplayFns::feedback)
    }

    /// GPU timestamps of a completed frame's slot.
    pub(crate) fn read_gpu_ticks(&self, slot: usize) -> Option<(u64, u64)> {
        let timer = self.timer.as_ref()?;
        // SAFETY: the core asks only once the frame's submission completed.
        unsafe { timer.read(&self.device, slot) }
    }

    /// GPU timestamps: the device clock against this shell's clock.
    pub(crate) fn calibrate(&self) -> Result<(u64, u64)> {
        match &self.timer {
            Some(t) => t.calibrate(&self.clock),
            None => Ok((0, self.clock.now_ns())),
        }
    }
}
