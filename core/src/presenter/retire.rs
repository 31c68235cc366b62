//! Retired swapchains and completion: what a completed serial, a bounded fallback wait or a
//! shutdown wait proves, and which retired swapchains may then be destroyed.

use super::*;
use crate::handle::Handle;

impl<S: Handle, W: Handle> Presenter<S, W> {
    /// A batch waiting on `semaphore` (returned by [`Presenter::swapchain_created`] or
    /// [`Presenter::release_held`]) was submitted with `serial`.
    pub fn consume_submitted(&mut self, semaphore: S, serial: Serial) -> Result<(), CoreError> {
        self.record_submission(serial)?;
        if !self.acquire.waited_by(semaphore, serial) {
            return Err(CoreError::OutOfOrder(
                "consume_submitted: unknown acquire semaphore",
            ));
        }
        if !self.retired.consume_submitted(semaphore, serial) {
            if let Some(cur) = self.current.as_mut() {
                cur.last_serial = cur.last_serial.max(serial);
            }
        }
        Ok(())
    }

    /// A submission that waits on nothing was made with `serial` (the proof submission of the
    /// bounded fallback and of teardown).
    pub fn empty_submitted(&mut self, serial: Serial) -> Result<(), CoreError> {
        self.record_submission(serial)
    }

    /// Every submission up to `serial` has completed (a fence of `serial` signalled).
    pub fn serial_completed(&mut self, serial: Serial) -> Result<(), CoreError> {
        if serial > self.last_submitted {
            return Err(CoreError::CompletedUnsubmitted {
                given: serial,
                last: self.last_submitted,
            });
        }
        if serial > self.completed {
            self.completed = serial;
            self.collect_retired();
        }
        Ok(())
    }

    /// With more retired swapchains pending than the cap, the serial the shell must wait for,
    /// followed by the queue going idle (the bounded fallback), before calling
    /// [`Presenter::fallback_waited`].
    #[must_use]
    pub fn retired_over_cap(&self) -> Option<Serial> {
        (self.retired.len() > self.max_retired).then_some(self.last_submitted)
    }

    /// The shell waited for `serial` and for the presenting queue to go idle: every present
    /// queued so far has consumed its wait. Destroys what that proves idle.
    pub fn fallback_waited(&mut self, serial: Serial) -> Result<(), CoreError> {
        self.serial_completed(serial)?;
        self.fallback_waits += 1;
        self.prove_everything_presented();
        self.collect_retired();
        Ok(())
    }

    /// At shutdown, after [`Presenter::release_held`], a wait for
    /// [`Presenter::last_submitted`] and the queue going idle: retires everything and emits the
    /// actions that destroy it. Returns an error if something still has a pending signal with no
    /// wait submitted (a held image that was not consumed), in which case nothing is released.
    pub fn shutdown_waited(&mut self) -> Result<(), CoreError> {
        if self.frame.is_some() {
            return Err(CoreError::OutOfOrder("shutdown with a frame in progress"));
        }
        if !self.acquire.every_signal_waited() {
            return Err(CoreError::OutOfOrder(
                "shutdown with an unconsumed acquire semaphore",
            ));
        }
        self.serial_completed(self.last_submitted)?;
        if let Some(cur) = self.current.take() {
            self.retired.retire(cur, None);
        }
        self.prove_everything_presented();
        self.collect_retired();
        for s in self.acquire.drain().chain(self.pool.drain(..)) {
            self.actions.push_back(DestroyAction::DestroySemaphore(s));
        }
        Ok(())
    }

    /// After a queue-idle wait every queued present has consumed its wait.
    pub(super) fn prove_everything_presented(&mut self) {
        self.retired.prove_all(Serial::NONE);
        let retired = self.retired.iter_mut().map(|r| &mut r.state);
        for state in retired.chain(self.current.as_mut()) {
            state.prove_previous(Serial::NONE);
        }
    }

    /// Destroys (as actions) the retired swapchains now provably idle and recycles their
    /// present semaphores.
    pub(super) fn collect_retired(&mut self) {
        if self.retired.is_empty() {
            return;
        }
        let completed = self.completed;
        let mut released: Vec<Retired<S, W>> = Vec::new();
        self.retired.collect_idle(completed, |r| released.push(r));
        for mut r in released {
            self.actions
                .push_back(DestroyAction::DestroySwapchain(r.state.handle));
            for rec in r.state.drain_records() {
                self.recycle_present_semaphore(rec.semaphore, rec.poisoned);
            }
        }
    }
}
