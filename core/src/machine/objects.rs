//! The objects the machine asks the shell for (semaphores, fences) and what becomes of them:
//! made on request, answered with their handles, destroyed as the presenter's actions say.

use super::*;
use crate::handle::Handle;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// Turns the presenter's decisions into housekeeping requests.
    pub(super) fn drain_actions(&mut self) {
        while let Some(action) = self.presenter.poll_action() {
            let request = match action {
                DestroyAction::DestroySemaphore(s) => {
                    self.stats.semaphores_alive = self.stats.semaphores_alive.saturating_sub(1);
                    Request::DestroySemaphore(s)
                }
                DestroyAction::DestroySwapchain(w) => Request::DestroySwapchain(w),
            };
            self.housekeeping.push_back(request);
        }
    }

    /// Asks for a semaphore.
    pub(super) fn create_semaphore(&mut self, purpose: SemaphoreFor) -> Request<S, W, F> {
        self.awaiting = Some(Awaiting::Semaphore(purpose));
        let role = match purpose {
            SemaphoreFor::Acquire => SemaphoreRole::Acquire,
            SemaphoreFor::Pool | SemaphoreFor::Present => SemaphoreRole::Present,
        };
        Request::CreateSemaphore(role)
    }

    /// Asks for a fence (it joins the free ones).
    pub(super) fn create_fence(&mut self) -> Request<S, W, F> {
        self.awaiting = Some(Awaiting::Fence);
        Request::CreateFence
    }

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
}
