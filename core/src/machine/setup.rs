//! Setup: the objects the frame loop needs before the first frame, then the first swapchain.

use super::*;
use crate::handle::Handle;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// Setup: N + 1 present semaphores and N + 1 fences (twice that with present fences) made
    /// before the frame loop, so the steady loop creates nothing; then the first swapchain.
    pub(super) fn poll_setup(&mut self, now: u64) -> Request<S, W, F> {
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
