//! Deferred destruction. `vkDestroySwapchainKHR` requires that "all uses of presentable images
//! acquired from swapchain" have completed (VUID-vkDestroySwapchainKHR-swapchain-01282), and a
//! present's semaphore wait is such a use. The pacer keeps a destroyed swapchain until it is
//! provably idle, by door 1's retire rules ([`crate::retire_queue`]): its present fences
//! all signalled, or a present to a newer swapchain of its lineage proven processed. A
//! swapchain with no live successor gets no such proof: the application may destroy its
//! surface next (VUID-vkDestroySurfaceKHR-surface-01266), so it is destroyed before the call
//! returns, after a bounded wait ([`BoundedWait`]): its present fences where all its presents
//! had one, else an empty submission made after everything (door 1's teardown assumption, as
//! ANGLE makes of `vkQueueWaitIdle`, but bounded). A present fence that does not signal in time
//! (seen on drivers for the fences of retired swapchains) is given up for that empty submission,
//! as door 1's fallback gives up its retired present fences (`FrameMachine`'s
//! `fallback_step`, then `Presenter::fallback_waited`): the submission's completion proves every
//! present queued before it processed. The same wait serves the cap on destroyed swapchains
//! waiting for proof, and the pacer's teardown.

use super::PacerMachine;
use crate::error::CoreError;
use crate::handle::Handle;
use crate::retire_queue::Retired;
use crate::serial::Serial;

/// What became of a swapchain the application destroyed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum DestroyOutcome {
    /// Not one of the pacer's: destroy it now, as the application asked.
    Unpaced,
    /// Kept until provably idle; a later input destroys it ([`super::DestroyAction`]).
    Deferred,
    /// To be destroyed before the call returns: carry out [`PacerMachine::bounded_wait`] until
    /// `None`, then poll the actions.
    Now,
}

/// A wait the shell carries out, bounded, before the application's call returns.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum BoundedWait {
    /// Wait for this present fence; report it with [`PacerMachine::present_fence_signalled`].
    PresentFence(u64),
    /// Make an empty submission with a completion signal and report it with
    /// [`PacerMachine::proof_submitted`].
    SubmitProof,
    /// A present is between [`PacerMachine::before_present`] and
    /// [`PacerMachine::present_returned`] (made by another thread, the shell's lock released):
    /// its repair submission may be on the queue without its serial yet, so a proof submitted
    /// now could be numbered before it while queued after it. Wait (bounded, the lock
    /// released) until that present returned, then ask again.
    PresentInFlight,
    /// Wait for this serial; report it with [`PacerMachine::serial_completed`].
    Serial(Serial),
}

impl<S: Handle, W: Handle> PacerMachine<S, W> {
    /// The application destroyed `swapchain`.
    pub fn destroy_requested(&mut self, swapchain: W) -> Result<DestroyOutcome, CoreError> {
        let Some(i) = self.find(swapchain) else {
            return Ok(DestroyOutcome::Unpaced);
        };
        self.not_being_presented(swapchain)?;
        let paced = self.live.remove(i);
        let (chain, generation) = (paced.chain, paced.generation);
        let successor = self
            .live
            .iter()
            .any(|p| p.chain == chain && p.generation > generation);
        let c = self.chain_mut(chain)?;
        let proof = c.proof_for(generation, paced.last_present);
        if c.timing.is_some_and(|t| t.swapchain == swapchain) {
            // The application is done with it: no more results are read (its handle may be
            // given to a new swapchain once vkpace destroys it).
            c.timing = None;
            c.pacing
                .set_display_refresh(crate::pacing::DisplayRefresh::Unreported);
        }
        self.retired.push(Retired {
            state: paced.state,
            proof,
            awaiting_consume: None,
            tag: super::Retiree {
                chain,
                generation,
                fence_floor: self.next_present_fence,
                last_present: paced.last_present,
            },
        });
        let pending = self.retired.len();
        self.stats.retired_max_pending = self.stats.retired_max_pending.max(pending);
        if !successor {
            // No present will come to a newer swapchain of the lineage: neither this one nor
            // the older ones still waiting can be proven by one any more.
            let same = self.retired.iter().filter(|r| r.tag.chain == chain);
            self.forced.extend(same.map(|r| r.state.handle));
        }
        if pending > self.config.pacing.max_retired_swapchains {
            self.stats.fallback_waits += 1;
            self.forced.clear();
            self.forced
                .extend(self.retired.iter().map(|r| r.state.handle));
        }
        self.collect_idle();
        Ok(match self.forced.is_empty() {
            true if self.is_retired(swapchain) => DestroyOutcome::Deferred,
            _ => DestroyOutcome::Now,
        })
    }

    /// The present in progress holds its swapchains (vkQueuePresentKHR: host access to each
    /// swapchain of pSwapchains must be externally synchronized): destroying one is an
    /// application bug. Another swapchain may be destroyed meanwhile, by another thread, while
    /// a shell makes the present without its lock; its proofs then ignore that present (its
    /// fence id and number come after the destruction's floor).
    fn not_being_presented(&self, swapchain: W) -> Result<(), CoreError> {
        match self
            .pending
            .targets
            .iter()
            .any(|t| t.swapchain == swapchain)
        {
            true => Err(CoreError::OutOfOrder(
                "destroy of a swapchain being presented",
            )),
            false => Ok(()),
        }
    }

    /// The next bounded wait before the application's call may return, if any.
    pub fn bounded_wait(&mut self) -> Option<BoundedWait> {
        let retired = &self.retired;
        self.forced
            .retain(|w| retired.iter().any(|r| r.state.handle == *w));
        if self.forced.is_empty() && !self.shutting_down {
            self.wait_done();
            return None;
        }
        if let Some(id) = self.fence_to_wait() {
            return Some(BoundedWait::PresentFence(id));
        }
        if !self.proof_needed() {
            self.wait_done();
            return None;
        }
        match self.forced_proof {
            None if self.pending.active => Some(BoundedWait::PresentInFlight),
            None => Some(BoundedWait::SubmitProof),
            Some(s) if !s.is_complete(self.completed) => Some(BoundedWait::Serial(s)),
            Some(s) => {
                // Complete, yet something forced is not idle: the proof covers it now.
                self.prove_forced(s);
                self.collect_idle();
                self.forced.clear();
                // The proof stays for `finish_shutdown`; the next wait starts afresh.
                self.fences_given_up = false;
                None
            }
        }
    }

    /// The proof submission of [`BoundedWait::SubmitProof`] was made; returns its serial.
    /// Refused while a present is in progress ([`BoundedWait::PresentInFlight`]).
    pub fn proof_submitted(&mut self) -> Result<Serial, CoreError> {
        if self.pending.active {
            return Err(CoreError::OutOfOrder("proof_submitted during a present"));
        }
        let serial = self.take_serial();
        if !self.shutting_down {
            self.stats.proof_submits += 1;
        }
        self.forced_proof = Some(serial);
        self.prove_forced(serial);
        Ok(serial)
    }

    /// The bounded wait `wait` (the last one [`Self::bounded_wait`] returned) ran out of
    /// time. Returns whether to go on with [`Self::bounded_wait`], with a bound of its own: a
    /// present fence that did not signal is given up for the proof by an empty submission
    /// (door 1's fallback). Else (the proof itself ran out) the swapchains it was for stay
    /// (destroyed later, or at teardown), and the application's call returns (the shell logs
    /// it).
    pub fn bounded_wait_timed_out(&mut self, wait: BoundedWait) -> bool {
        if matches!(wait, BoundedWait::PresentFence(_)) && !self.fences_given_up {
            self.fences_given_up = true;
            return true;
        }
        self.forced.clear();
        self.wait_done();
        false
    }

    /// The bounded wait is over: the next one starts afresh.
    fn wait_done(&mut self) {
        self.forced_proof = None;
        self.fences_given_up = false;
    }

    fn is_retired(&self, swapchain: W) -> bool {
        self.retired.iter().any(|r| r.state.handle == swapchain)
    }

    /// A present fence of a forced swapchain whose presents all had one (during teardown: any
    /// pending present fence, which may not be destroyed while a present will signal it,
    /// VUID-vkDestroyFence-fence-01120); none once a fence wait ran out.
    fn fence_to_wait(&self) -> Option<u64> {
        if self.fences_given_up {
            return None;
        }
        let fenced = |w: &W| {
            self.retired
                .iter()
                .any(|r| r.state.handle == *w && r.state.unfenced_presents == 0)
        };
        self.present_fences
            .iter()
            .find(|(_, w)| self.shutting_down || (self.forced.contains(w) && fenced(w)))
            .map(|(id, _)| *id)
    }

    /// Whether a forced swapchain (or, at teardown, a repair semaphore) still lacks its proof.
    fn proof_needed(&self) -> bool {
        let completed = self.completed;
        let forced_waiting = self
            .retired
            .iter()
            .any(|r| self.forced.contains(&r.state.handle) && !r.is_idle(completed));
        forced_waiting || (self.shutting_down && self.last_submitted > Serial::NONE)
    }

    fn prove_forced(&mut self, serial: Serial) {
        for r in self.retired.iter_mut() {
            if self.forced.contains(&r.state.handle) {
                r.proof = Some(r.proof.map_or(serial, |p| p.min(serial)));
                r.state.prove_previous(serial);
            }
        }
        if self.shutting_down {
            for p in &mut self.live {
                p.state.prove_previous(serial);
            }
        }
    }

    /// Destroys (as actions) the destroyed swapchains now provably idle and recycles their
    /// repair semaphores.
    pub(super) fn collect_idle(&mut self) {
        if self.retired.is_empty() {
            return;
        }
        let mut released: Vec<Retired<S, W, super::Retiree>> = Vec::new();
        self.retired
            .collect_idle(self.completed, |r| released.push(r));
        for mut r in released {
            let w = r.state.handle;
            self.forced.retain(|h| *h != w);
            self.actions
                .push_back(super::DestroyAction::DestroySwapchain(w));
            self.stats.swapchains_destroyed += 1;
            for rec in r.state.drain_records() {
                self.recycle(rec.semaphore, rec.poisoned);
            }
        }
        self.drop_idle_chains();
    }

    /// A lineage with no swapchain left is forgotten.
    fn drop_idle_chains(&mut self) {
        let (live, retired) = (&self.live, &self.retired);
        self.chains.retain(|c| {
            live.iter().any(|p| p.chain == c.id) || retired.iter().any(|r| r.tag.chain == c.id)
        });
    }
}
