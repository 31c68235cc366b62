//! The one Vulkan part of draining a FIFO swapchain's display queue before its retirement
//! (why, and the rules each step rests on: `core/machine/drain.rs`).

use std::time::Instant;

use ash::vk;

use super::Shell;
use crate::vk::error::{Error, Result};

impl Shell {
    /// Takes up to `acquires` images back from `swapchain`, the acquires within `timeout_ns`
    /// in all, each with a fence that is waited for before the next; returns how many it got.
    /// Stops at the first acquire with no image (timeout, not ready, out of date, surface lost:
    /// the creation that follows reports what matters). An acquired image's fence signals once
    /// the image is free (Mesa signals it before the acquire returns); its wait is bounded by
    /// the swapchain's wait bound, and a fence that does not signal within it is
    /// `Error::Timeout`, as any wait on the GPU.
    pub(crate) fn drain_display_queue(
        &mut self,
        swapchain: vk::SwapchainKHR,
        acquires: u32,
        timeout_ns: u64,
    ) -> Result<u32> {
        let fence = self.create_fence()?;
        let taken = self.take_images(swapchain, fence, acquires, timeout_ns)?;
        // The fence has no signal pending: every acquire that got an image had its fence
        // waited for, and one that did not leaves it unsignalled with nothing pending. (On the
        // error above, a fence the presentation engine never signalled within the wait bound,
        // it is left alive rather than destroyed with a signal pending.)
        self.destroy_fence(fence);
        Ok(taken)
    }

    fn take_images(
        &self,
        swapchain: vk::SwapchainKHR,
        fence: vk::Fence,
        acquires: u32,
        timeout_ns: u64,
    ) -> Result<u32> {
        let start = Instant::now();
        let mut taken = 0;
        while taken < acquires {
            let spent = crate::vk::clock::ns_of(start.elapsed());
            let left = timeout_ns.saturating_sub(spent);
            if left == 0 {
                break;
            }
            // SAFETY: the swapchain is the live one, not yet retired (the core asks before it
            // creates the successor, VUID-vkAcquireNextImageKHR-swapchain-01285); the fence is
            // unsignalled with nothing pending (VUID-vkAcquireNextImageKHR-fence-01287); no
            // semaphore, so the fence is required (VUID-vkAcquireNextImageKHR-semaphore-01780);
            // the timeout is finite (VUID-vkAcquireNextImageKHR-surface-07783).
            let acquired = unsafe {
                self.swapchain_fn
                    .acquire_next_image(swapchain, left, vk::Semaphore::null(), fence)
            };
            if acquired.is_err() {
                break;
            }
            self.wait_acquire_fence(fence)?;
            taken += 1;
        }
        Ok(taken)
    }

    /// Waits for an acquire's fence (the presentation engine signals it once the image is
    /// free; Mesa at once) within the swapchain's wait bound, and resets it.
    fn wait_acquire_fence(&self, fence: vk::Fence) -> Result<()> {
        let bound = crate::vk::clock::ns_of(self.wait_timeout);
        if self.wait_fence(fence, bound)? {
            Ok(())
        } else {
            Err(Error::Timeout {
                what: "an image taken back before retiring its swapchain",
                timeout: self.wait_timeout,
            })
        }
    }
}
