//! The acquire replacements and the pacing of a lineage's next frame (the frames-in-flight
//! gate, then the frame limit's or policy's sleep), which the present ends with and the
//! acquire checks again.

use ash::prelude::VkResult;
use ash::vk;

use super::PresentPacer;
use crate::core::{Gate, VkStatus};
use crate::vk::error::Result;
use crate::vk::shell::status;

impl PresentPacer {
    /// `vkAcquireNextImageKHR`, through the pacer: the frames-in-flight gate (and, for a frame
    /// not begun at the end of the last present, the pacing sleep) comes first, then the
    /// driver's acquire with the caller's semaphore and fence, untouched. Returns the driver's
    /// result.
    ///
    /// # Safety
    ///
    /// As `vkAcquireNextImageKHR`.
    pub unsafe fn acquire_next_image(
        &mut self,
        swapchain: vk::SwapchainKHR,
        timeout: u64,
        semaphore: vk::Semaphore,
        fence: vk::Fence,
    ) -> VkResult<(u32, bool)> {
        self.pace_logged(swapchain);
        // SAFETY: the caller's contract is vkAcquireNextImageKHR's.
        let got = unsafe {
            self.swapchain_fn
                .acquire_next_image(swapchain, timeout, semaphore, fence)
        };
        self.record_acquire(swapchain, &got);
        got
    }

    /// `vkAcquireNextImage2KHR`, through the pacer, as [`Self::acquire_next_image`].
    ///
    /// # Safety
    ///
    /// As `vkAcquireNextImage2KHR`.
    pub unsafe fn acquire_next_image2(
        &mut self,
        info: &vk::AcquireNextImageInfoKHR<'_>,
    ) -> VkResult<(u32, bool)> {
        self.pace_logged(info.swapchain);
        // SAFETY: the caller's contract is vkAcquireNextImage2KHR's.
        let got = unsafe { self.swapchain_fn.acquire_next_image2(info) };
        self.record_acquire(info.swapchain, &got);
        got
    }

    fn record_acquire(&mut self, swapchain: vk::SwapchainKHR, got: &VkResult<(u32, bool)>) {
        let (code, image) = match got {
            Ok((image, false)) => (VkStatus::SUCCESS, *image),
            Ok((image, true)) => (VkStatus::SUBOPTIMAL, *image),
            Err(e) => (status(*e), 0),
        };
        if let Err(e) = self.machine.acquired(swapchain, code, image, self.now()) {
            log::error!("vkpace: acquire from {swapchain:?}: {e}");
        }
        if !self.machine.is_paced(swapchain) {
            self.log_unpaced();
        }
    }

    /// [`Self::pace`], its error logged: a Vulkan failure of vkpace's own waits is reported by
    /// the application's next call to the driver (a lost device) rather than invented here.
    pub(super) fn pace_logged(&mut self, swapchain: vk::SwapchainKHR) {
        if let Err(e) = self.pace(swapchain) {
            log::error!("vkpace: pacing {swapchain:?}: {e}");
        }
    }

    /// Lets the next frame of `swapchain`'s lineage begin: waits (bounded) for the gate, sleeps
    /// where the pacing asks.
    fn pace(&mut self, swapchain: vk::SwapchainKHR) -> Result<()> {
        self.poll_completion()?;
        let deadline = self.now().saturating_add(self.timeout_ns());
        loop {
            let now = self.now();
            match self.machine.begin_frame(swapchain, now)? {
                Gate::Go => return Ok(()),
                Gate::SleepUntil(at) => crate::vk::sleep_until(self.clock.instant_at(at)),
                Gate::WaitFor(serial) => {
                    let left = deadline.saturating_sub(now);
                    if self.fences.wait_serial(&self.device, serial, left)? {
                        self.machine.serial_completed(serial, self.now())?;
                    } else {
                        if !std::mem::replace(&mut self.logged.gate_timeout, true) {
                            log::warn!(
                                "vkpace: the frames-in-flight gate waited {:?} for the GPU; the frame begins anyway",
                                self.config.wait_timeout
                            );
                        }
                        self.machine.begin_frame_anyway(swapchain, self.now())?;
                        return Ok(());
                    }
                }
            }
        }
    }

    pub(super) fn log_unpaced(&mut self) {
        if !std::mem::replace(&mut self.logged.unpaced, true) {
            log::warn!("vkpace: a swapchain not made through the present pacer is passed through unpaced (counted in stats)");
        }
    }
}
