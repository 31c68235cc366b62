//! The pacer's teardown and its getters: counters, telemetry, the state dump.

use super::{DestroyAction, PacerMachine, PresentPacerStats};
use crate::handle::Handle;
use crate::serial::Serial;
use crate::telemetry::FrameTimes;

impl<S: Handle, W: Handle> PacerMachine<S, W> {
    /// Starts teardown: carry out [`Self::bounded_wait`] until `None` (every present fence
    /// waited for, then an empty submission made after everything), then call
    /// [`Self::finish_shutdown`] and poll the actions. Swapchains the application did not
    /// destroy stay its own.
    pub fn begin_shutdown(&mut self) {
        self.forget_unreported_present();
        self.shutting_down = true;
        self.forced_proof = None;
        self.fences_given_up = false;
        self.forced.clear();
        self.forced
            .extend(self.retired.iter().map(|r| r.state.handle));
    }

    /// A present planned and never reported (its caller stopped between its steps: a panic
    /// under its lock, a step dropped) is forgotten: nothing can report it at teardown (no call
    /// is in progress then), and while it counted as in flight the proof submission could never
    /// be made. Whether the driver's present was made is unknown, so it is treated as made:
    /// its present fences join the ones the bounded waits wait for (a fence of a present made
    /// must not be destroyed before it signals, VUID-vkDestroyFence-fence-01120; where the
    /// present was never made they never signal, and the teardown leaves them alive when its
    /// bound runs out), and its repair semaphore joins the pool, destroyed with the rest by the
    /// same rule as every repair semaphore at teardown (after the proof submission, and the
    /// present fences where there are any: VUID-vkDestroySemaphore-semaphore-01137).
    fn forget_unreported_present(&mut self) {
        if !self.pending.active {
            return;
        }
        self.pending.active = false;
        for t in self.pending.targets.drain(..) {
            if let Some(id) = t.fence {
                self.present_fences.push((id, t.swapchain));
            }
        }
        self.pending.serial = None;
        if let Some(s) = self.pending.semaphore.take() {
            self.pool.push(s);
        }
    }

    /// Ends teardown: every repair semaphore goes out for destruction. Returns whether
    /// everything vkpace made was proven idle (false after a bounded wait timed out: what is
    /// not proven stays alive, a leak the shell logs, rather than destroyed while in use).
    pub fn finish_shutdown(&mut self) -> bool {
        let proven = self
            .forced_proof
            .is_some_and(|s| s.is_complete(self.completed))
            || self.last_submitted == Serial::NONE;
        if !proven || !self.present_fences.is_empty() {
            return false;
        }
        let mut semaphores: Vec<S> = self.pool.drain(..).collect();
        for p in &mut self.live {
            semaphores.extend(p.state.drain_records().into_iter().map(|r| r.semaphore));
        }
        for s in semaphores {
            self.actions.push_back(DestroyAction::DestroySemaphore(s));
        }
        self.retired.is_empty()
    }

    /// Counters since creation.
    #[must_use]
    pub fn stats(&self) -> PresentPacerStats {
        PresentPacerStats {
            semaphores_alive: self.semaphores_held(),
            ..self.stats
        }
    }

    /// The recent frames' timelines of `swapchain`'s lineage, oldest first; none for a
    /// swapchain not made through the pacer (or destroyed).
    pub fn telemetry(&self, swapchain: W) -> impl DoubleEndedIterator<Item = FrameTimes> + '_ {
        self.lineage(swapchain)
            .into_iter()
            .flat_map(|c| c.telemetry.iter())
    }

    /// Repair semaphores the machine holds (histories and pool) plus the one of the present in
    /// progress: every one alive.
    #[must_use]
    pub fn semaphores_held(&self) -> usize {
        let histories = |s: &crate::swapchain_state::SwapchainState<S, W>| s.present_semaphores();
        let live: usize = self.live.iter().map(|p| histories(&p.state)).sum();
        let retired: usize = self.retired.iter().map(|r| histories(&r.state)).sum();
        let pending = usize::from(self.pending.active && self.pending.semaphore.is_some());
        live + retired + self.pool.len() + pending
    }

    /// Swapchains the application destroyed that the machine still keeps.
    #[must_use]
    pub fn retired_pending(&self) -> usize {
        self.retired.len()
    }

    /// The deepest repair-semaphore history of any image of any swapchain.
    #[must_use]
    pub fn deepest_history(&self) -> usize {
        let live = self.live.iter().map(|p| p.state.deepest_history());
        let retired = self.retired.iter().map(|r| r.state.deepest_history());
        live.chain(retired).max().unwrap_or(0)
    }

    /// Everything the machine waits for, for a report: completion, each swapchain's images'
    /// repair semaphores and what proves them free, each destroyed swapchain's proof.
    pub fn debug_state(&self) -> impl std::fmt::Display + '_ {
        Dump(self)
    }
}

struct Dump<'a, S, W>(&'a PacerMachine<S, W>);

impl<S: Handle, W: Handle> std::fmt::Display for Dump<'_, S, W> {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = self.0;
        writeln!(
            out,
            "present pacer: completed {}, last submitted {}, frames in flight {}, repair {}",
            m.completed, m.last_submitted, m.config.pacing.frames_in_flight, m.config.repair
        )?;
        writeln!(
            out,
            "  free repair semaphores {}, alive {}; present fences pending {:?}",
            m.pool.len(),
            m.semaphores_held(),
            m.present_fences
        )?;
        for c in &m.chains {
            writeln!(
                out,
                "  lineage {}: {} swapchain(s) made, frame begun {:?}, gate waits for {}, proven {:?}",
                c.id,
                c.generations,
                c.started,
                c.pacer.serial_to_wait(),
                c.proven
            )?;
        }
        for p in &m.live {
            write!(out, "  lineage {} generation {}: ", p.chain, p.generation)?;
            p.state.dump(out, "")?;
        }
        m.retired.dump(out)
    }
}
