//! Teardown: present a submitted frame, give back a held image, wait (bounded) for vkpace's
//! submissions, for an empty submission made after everything and (maintenance1) for the present
//! fences, then destroy everything. Nothing waits for the device or a queue to go idle, and a
//! wait that times out leaves the objects alive (a leak, logged by the shell) rather than
//! destroyed while in use.

use super::{FrameMachine, Op, Teardown, WaitPurpose};
use crate::completion::SubmitSignal;

use super::request::Request;
use crate::handle::Handle;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// Starts teardown at `now`: poll until [`Request::Done`] (every object was handed back
    /// for destruction) or [`Request::Failed`] (a bounded wait timed out).
    pub fn begin_shutdown(&mut self, now: u64) {
        self.op = Op::Shutdown;
        self.failure = None;
        self.round.active = false;
        self.teardown = Teardown {
            deadline: Some(now.saturating_add(self.timeout())),
            proof: None,
            finished: false,
        };
    }

    pub(super) fn poll_shutdown(&mut self, now: u64) -> Request<S, W, F> {
        if self.teardown.finished {
            return Request::Done;
        }
        if let Some(r) = self.present_abandoned(now) {
            return r;
        }
        if let Some(r) = self.give_back_held_image() {
            return r;
        }
        let deadline = self.teardown.deadline;
        let completed = self.presenter.completed();
        if let Some((_, f)) = self
            .fences
            .newest_submitted()
            .filter(|(s, _)| *s > completed)
        {
            return self.wait(f, WaitPurpose::Shutdown, deadline, now);
        }
        if let Some(r) = self.teardown_proof(now) {
            return r;
        }
        // Every present fence still pending, also those of swapchains already destroyed by the
        // acquire proof: a fence may not be destroyed while a present will signal it
        // (VUID-vkDestroyFence-fence-01120).
        if let Some(f) = self.fences.present_fence(0) {
            return self.wait(SubmitSignal::Fence(f), WaitPurpose::Shutdown, deadline, now);
        }
        self.release_everything()
    }

    /// An empty submission after everything, waited on: the presents before it consumed their
    /// waits (the assumption the module documentation of recreation states).
    fn teardown_proof(&mut self, now: u64) -> Option<Request<S, W, F>> {
        match self.teardown.proof {
            None => Some(self.submit_empty()),
            Some(serial) if serial > self.presenter.completed() => {
                let f = self.fences.signal_for(serial)?;
                let deadline = self.teardown.deadline;
                Some(self.wait(f, WaitPurpose::Shutdown, deadline, now))
            }
            Some(_) => None,
        }
    }

    /// Everything is idle: every semaphore, swapchain and fence goes out as housekeeping.
    fn release_everything(&mut self) -> Request<S, W, F> {
        if let Err(e) = self.presenter.shutdown_waited() {
            return Request::Failed(e.into());
        }
        self.drain_actions();
        if let Some(f) = self.frame.take().and_then(|f| f.fence) {
            self.fences.untake(f);
        }
        for f in self.fences.drain_all() {
            self.housekeeping.push_back(Request::DestroyFence(f));
        }
        self.live = None;
        self.teardown.finished = true;
        self.housekeeping.pop_front().unwrap_or(Request::Done)
    }
}
