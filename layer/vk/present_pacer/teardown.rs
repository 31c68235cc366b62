//! The pacer's teardown: bounded waits for every present fence and for an empty submission
//! made after everything, then vkpace's semaphores, fences and the swapchains whose destruction
//! was deferred are destroyed. Never a device or queue idle wait.

use super::PresentPacer;
use crate::vk::error::{Error, Result};

impl PresentPacer {
    /// Destroys vkpace's objects and every swapchain whose destruction it deferred, after
    /// bounded waits. A wait that runs out is [`Error::Timeout`]: what it was for stays alive
    /// (a leak) rather than destroyed while in use. Swapchains the application did not destroy
    /// stay its own.
    ///
    /// # Safety
    ///
    /// The pacer's device and queue are still valid, no call of the pacer is in progress (no
    /// [`super::PacerCall`] of it is between a plan and its report, on any thread), and the
    /// allocation callbacks given for deferred destructions are still valid.
    pub unsafe fn destroy(mut self) -> Result<()> {
        self.destroyed = true;
        // A present planned and never reported (a panic under the caller's lock, a step
        // dropped): the machine forgets it, and its repair fence is destroyed with the rest
        // once everything is proven idle (the submission that may signal it completes before
        // the proof's).
        if let Some(f) = self.unreported_repair.take() {
            self.fences.pool.lost(f);
        }
        self.machine.begin_shutdown();
        let waited = self.bounded_waits();
        let idle = self.machine.finish_shutdown();
        self.drain_actions();
        if !(waited? && idle) {
            return Err(Error::Timeout {
                what: "the present pacer's presents at teardown",
                timeout: self.config.pacing.wait_timeout,
            });
        }
        self.fences.destroy_all(&self.vk.device);
        Ok(())
    }
}

/// A pacer not destroyed leaks its objects (see the type's `# Drop`): said, never done here.
impl Drop for PresentPacer {
    fn drop(&mut self) {
        if !self.destroyed {
            log::warn!("vkpace: a PresentPacer dropped without destroy(): its Vulkan objects (repair semaphores, present fences, deferred swapchains) leak");
        }
    }
}
