//! The acquire replacements: the pacing of the lineage's next frame (which the present ends
//! with and the acquire checks again: [`super::pause`]), then the driver's acquire.

use ash::prelude::VkResult;
use ash::vk;

use super::PresentPacer;
use crate::vk::shell::status;
use vkpace_core::VkStatus;

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
        // SAFETY: the caller's contract.
        let call = unsafe { Self::acquire_call(swapchain, timeout, semaphore, fence) };
        self.run(call)
            .finish()
            .unwrap_or(Err(vk::Result::ERROR_UNKNOWN))
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
        // SAFETY: the caller's contract.
        let call = unsafe { Self::acquire2_call(info) };
        self.run(call)
            .finish()
            .unwrap_or(Err(vk::Result::ERROR_UNKNOWN))
    }

    /// Tells the machine what the driver's acquire from `swapchain` returned; `in_call`: the
    /// acquire was made with the pacer borrowed (counted).
    pub(super) fn record_acquire(
        &mut self,
        swapchain: vk::SwapchainKHR,
        got: &VkResult<(u32, bool)>,
        in_call: bool,
    ) {
        self.calls_down.count(in_call);
        let (code, image) = match got {
            Ok((image, false)) => (VkStatus::SUCCESS, *image),
            Ok((image, true)) => (VkStatus::SUBOPTIMAL, *image),
            Err(e) => (status(*e), 0),
        };
        if let Err(e) = self.machine.acquired(swapchain, code, image, self.now()) {
            log::error!("vkpace: acquire from {swapchain:?}: {e}");
        }
        if !self.machine.is_paced(swapchain) && !std::mem::replace(&mut self.logged.unpaced, true) {
            log::warn!("vkpace: a swapchain not made through the present pacer is passed through unpaced (counted in stats)");
        }
    }
}
