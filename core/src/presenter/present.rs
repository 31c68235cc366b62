//! The present side of the presenter: which present semaphore a frame may use (the image's
//! history N+1 deep, reused only once provably waited on), the frame's submission and present,
//! and maintenance1 present fences.

use super::*;
use crate::handle::Handle;

impl<S: Handle, W: Handle> Presenter<S, W> {
    /// The frame in progress (acquired, maybe submitted), or an image held from a frame that
    /// was not submitted.
    #[must_use]
    pub fn frame(&self) -> Option<FrameSemaphores<S>> {
        self.frame
    }

    /// Picks the present semaphore of the frame in progress.
    pub fn choose_present_semaphore(&mut self) -> Result<PresentSemaphoreChoice<S>, CoreError> {
        let frame = self.frame.ok_or(CoreError::OutOfOrder(
            "choose_present_semaphore without an image",
        ))?;
        if let Some(p) = frame.present {
            return Ok(PresentSemaphoreChoice::Reuse(p));
        }
        let depth = self.depth();
        let completed = self.completed;
        let cur = self.current.as_mut().ok_or(CoreError::NoSwapchain)?;
        let history = &mut cur.images[frame.image as usize];
        // A poisoned semaphore that left the history is destroyed.
        let actions = &mut self.actions;
        let choice = history.choose(depth, completed, &mut self.pool, |s| {
            actions.push_back(DestroyAction::DestroySemaphore(s));
        });
        if let PresentSemaphoreChoice::Reuse(s) = choice {
            if let Some(f) = self.frame.as_mut() {
                f.present = Some(s);
            }
        }
        Ok(choice)
    }

    /// Adds a new, unsignalled present semaphore to the free pool ahead of need (so a shell can
    /// create its semaphores before the frame loop). Returns it back when the pool is full.
    pub fn add_free_present_semaphore(&mut self, semaphore: S) -> Result<(), S> {
        if self.pool.len() < self.pool_cap() {
            self.pool.push(semaphore);
            Ok(())
        } else {
            Err(semaphore)
        }
    }

    /// How many free present semaphores the pool holds.
    #[must_use]
    pub fn free_present_semaphores(&self) -> usize {
        self.pool.len()
    }

    /// Registers a present semaphore the shell created after [`PresentSemaphoreChoice::Create`].
    pub fn present_semaphore_created(&mut self, semaphore: S) -> Result<(), CoreError> {
        match self.frame.as_mut() {
            Some(f) if f.present.is_none() => {
                f.present = Some(semaphore);
                Ok(())
            }
            _ => Err(CoreError::OutOfOrder(
                "present_semaphore_created without a choice",
            )),
        }
    }

    /// The frame's submission (waiting on its acquire semaphore, signalling its present
    /// semaphore) was made with `serial`.
    pub fn frame_submitted(&mut self, serial: Serial) -> Result<(), CoreError> {
        let frame = self
            .frame
            .ok_or(CoreError::OutOfOrder("frame_submitted without an image"))?;
        if frame.present.is_none() || frame.submitted.is_some() {
            return Err(CoreError::OutOfOrder(
                "frame_submitted needs a chosen present semaphore and no earlier submit",
            ));
        }
        self.record_submission(serial)?;
        self.acquire.waited_by(frame.acquire, serial);
        self.pacer.frame_submitted(serial);
        self.slots[frame.slot] = serial;
        let cur = self.current.as_mut().ok_or(CoreError::NoSwapchain)?;
        cur.last_serial = serial;
        // This submission waited on a new acquire of the image: it proves the image's earlier
        // presents, and (presents being processed in order) every present to older swapchains.
        if cur.images[frame.image as usize].prove_previous(serial) {
            self.retired.prove_all(serial);
        }
        if let Some(f) = self.frame.as_mut() {
            f.submitted = Some(serial);
        }
        Ok(())
    }

    /// The frame was handed to `vkQueuePresentKHR` with present fence `present_fence`
    /// (`VK_EXT_swapchain_maintenance1`); report it with [`Presenter::present_fence_signalled`].
    /// A failed present's fence is not relied on (it may never signal).
    pub fn frame_presented_with_fence(
        &mut self,
        outcome: PresentOutcome,
        present_fence: Option<u64>,
    ) -> Result<(), CoreError> {
        let frame = match self.frame {
            Some(f) if f.submitted.is_some() => f,
            _ => {
                return Err(CoreError::OutOfOrder(
                    "frame_presented before frame_submitted",
                ))
            }
        };
        let present = frame.present.ok_or(CoreError::OutOfOrder(
            "frame_presented without a present semaphore",
        ))?;
        let failed = outcome == PresentOutcome::Failed;
        let fence = present_fence.filter(|_| !failed);
        let cur = self.current.as_mut().ok_or(CoreError::NoSwapchain)?;
        cur.images[frame.image as usize].push(present, failed, fence);
        cur.present_recorded(fence);
        self.frame = None;
        Ok(())
    }

    /// Present fence `id` signalled. Returns `false` for a fence the core does not rely on
    /// (that of a failed present). Destroys what that proves idle.
    pub fn present_fence_signalled(&mut self, id: u64) -> bool {
        let found = self
            .current
            .iter_mut()
            .chain(self.retired.iter_mut().map(|r| &mut r.state))
            .find_map(|state| {
                let hit = state
                    .images
                    .iter_mut()
                    .any(|h| h.present_fence_signalled(id));
                hit.then_some(state)
            });
        match found {
            Some(state) => {
                state.pending_present_fences = state.pending_present_fences.saturating_sub(1);
                self.collect_retired();
                true
            }
            None => false,
        }
    }

    pub(super) fn record_submission(&mut self, serial: Serial) -> Result<(), CoreError> {
        if serial <= self.last_submitted {
            return Err(CoreError::SerialNotIncreasing {
                given: serial,
                last: self.last_submitted,
            });
        }
        self.last_submitted = serial;
        Ok(())
    }

    pub(super) fn recycle_present_semaphore(&mut self, semaphore: S, poisoned: bool) {
        if !poisoned && self.pool.len() < self.pool_cap() {
            self.pool.push(semaphore);
        } else {
            self.actions
                .push_back(DestroyAction::DestroySemaphore(semaphore));
        }
    }
}
