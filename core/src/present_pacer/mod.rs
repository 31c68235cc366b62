//! The second door's machine ([`PacerMachine`]): the state and decisions of a
//! `vkpace::PresentPacer`, which paces swapchains the application creates, acquires from and
//! presents itself. The application's calls are the inputs; the shell asks the machine before
//! each Vulkan call it adds (a gate, a repair submission, a deferred destruction) and reports
//! what happened. Composed of the modules door 1 uses: per-image present histories
//! ([`super::present_history`]) for the repair semaphores, the retire queue for deferred
//! destruction, [`super::Pacing`] and the frames-in-flight pacer per lineage of swapchains,
//! present ids and telemetry.
//!
//! The present waits on a vkpace semaphore, signalled by an empty submission (the repair) that
//! waited on the application's semaphores; when that semaphore is free again is `proof.rs`.

mod chain;
mod config;
mod destroy;
mod feedback;
mod frames;
mod present;
mod proof;
mod ready_watch;
mod stats;
mod teardown;
#[cfg(test)]
mod tests;
mod timing;

use std::collections::VecDeque;

pub use config::PacerConfig;
pub use destroy::{BoundedWait, DestroyOutcome};
pub use frames::{Gate, SleepWatch};
pub use present::{PresentPlan, PresentStep, RepairSemaphore, TargetPlan};
pub use stats::PresentPacerStats;

use super::error::CoreError;
use super::pacer::validate_frames_in_flight;
use super::present_history::{history_depth, pool_cap};
use super::presenter::DestroyAction;
pub use super::presenter::PresentOutcome;
use super::retire_queue::RetireQueue;
use super::serial::Serial;
use super::swapchain_state::SwapchainState;
use crate::display::PresentIdStructure;
use crate::handle::Handle;
use crate::vk_values::PresentMode;
use chain::Chain;

/// A swapchain made through the pacer, until the pacer destroys it.
#[derive(Debug)]
struct Paced<S, W> {
    state: SwapchainState<S, W>,
    /// The lineage it belongs to (index into `chains` by id).
    chain: u64,
    /// Its place in its lineage: later swapchains (made with an older one as `oldSwapchain`)
    /// have higher generations.
    generation: u64,
    /// The structure its presents carry vkpace's present ids in (the display paths of its
    /// surface), or none.
    ids: PresentIdStructure,
    /// The number of its latest present (presents are numbered in queue order, from 1; 0:
    /// none yet).
    last_present: u64,
    /// Per image, the number of the latest present whose repair semaphore joined its history.
    repaired_present: Vec<u64>,
}

/// A swapchain the application destroyed, as its lineage's proofs see it.
#[derive(Debug, Clone, Copy)]
struct Retiree {
    chain: u64,
    generation: u64,
    /// The first present fence id given after its destruction: a fence from there on proves
    /// every present to it processed.
    fence_floor: u64,
    /// The number of its latest present: a proof covers it only if the present it proves
    /// processed came later in queue order.
    last_present: u64,
}

/// The second door's sans-IO machine, generic over semaphore (`S`) and swapchain (`W`)
/// handles. Completion is by serial on the pacer's one queue: the shell numbers nothing; the
/// machine gives each submission the shell makes its serial.
#[derive(Debug)]
pub struct PacerMachine<S, W> {
    config: PacerConfig,
    /// Swapchains the application may still use.
    live: Vec<Paced<S, W>>,
    /// Swapchains the application destroyed, waiting until provably idle, with what their
    /// lineage's proofs need to know of them.
    retired: RetireQueue<S, W, Retiree>,
    /// Swapchains that must be destroyed before the current call returns (no successor, or
    /// over the cap): the bounded wait works on them.
    forced: Vec<W>,
    /// The proof submission of a bounded wait, once made.
    forced_proof: Option<Serial>,
    /// A bounded wait for a present fence ran out: the forced swapchains are proven by the
    /// empty submission instead (door 1's fallback, [`BoundedWait::SubmitProof`]).
    fences_given_up: bool,
    chains: Vec<Chain<W>>,
    next_chain: u64,
    completed: Serial,
    last_submitted: Serial,
    /// Free repair semaphores (unsignalled, nothing pending), shared by all swapchains.
    pool: Vec<S>,
    pending: present::Pending<S, W>,
    next_present_fence: u64,
    /// Paced presents so far: the number of the latest (queue order).
    presents_queued: u64,
    /// Present fences vkpace added, not yet seen signalled: (id, swapchain).
    present_fences: Vec<(u64, W)>,
    actions: VecDeque<DestroyAction<S, W>>,
    /// Teardown began: every pending present fence and a final proof are waited for.
    shutting_down: bool,
    stats: PresentPacerStats,
}

impl<S: Handle, W: Handle> PacerMachine<S, W> {
    /// A machine with no swapchain yet.
    pub fn new(config: PacerConfig) -> Result<Self, CoreError> {
        config.pacing.check()?;
        let mut config = config;
        config.pacing.max_retired_swapchains = config.pacing.max_retired_swapchains.max(1);
        let cap = config.pacing.max_retired_swapchains + 2;
        Ok(Self {
            live: Vec::with_capacity(4),
            retired: RetireQueue::with_capacity(cap),
            forced: Vec::with_capacity(4),
            forced_proof: None,
            fences_given_up: false,
            chains: Vec::with_capacity(2),
            next_chain: 0,
            completed: Serial::NONE,
            last_submitted: Serial::NONE,
            pool: Vec::with_capacity(pool_cap(super::MAX_FRAMES_IN_FLIGHT)),
            pending: present::Pending::new(),
            next_present_fence: 1,
            presents_queued: 0,
            present_fences: Vec::with_capacity(16),
            actions: VecDeque::with_capacity(16),
            shutting_down: false,
            stats: PresentPacerStats::default(),
            config,
        })
    }

    // ----- settings -----------------------------------------------------------------------

    /// Changes frames in flight (1..=3) from the next frame on. The present histories keep
    /// working because their proofs are serials, not frame counts.
    pub fn set_frames_in_flight(&mut self, frames_in_flight: usize) -> Result<(), CoreError> {
        validate_frames_in_flight(frames_in_flight)?;
        self.config.pacing.frames_in_flight = frames_in_flight;
        for c in &mut self.chains {
            c.set_frames_in_flight(frames_in_flight)?;
        }
        Ok(())
    }

    /// Changes the pacing policy from the next frame on.
    pub fn set_pacing(&mut self, policy: super::PacingPolicy) {
        self.config.pacing.policy = policy;
        for c in &mut self.chains {
            c.pacing.set_policy(policy);
        }
    }

    /// Sets or removes the frame limit from the next frame on.
    pub fn set_frame_limit(&mut self, limit: Option<super::FrameLimit>) {
        self.config.pacing.frame_limit = limit;
        for c in &mut self.chains {
            c.pacing.set_frame_limit(limit);
        }
    }

    // ----- swapchain lifetime -------------------------------------------------------------

    /// A swapchain `handle` of `image_count` images was made through the pacer, with `old` as
    /// its `oldSwapchain` (if that is one of the pacer's, the new one continues its lineage:
    /// the same gate, pacing and telemetry), in present mode `mode`.
    pub fn swapchain_created(
        &mut self,
        handle: W,
        image_count: u32,
        old: Option<W>,
        mode: PresentMode,
    ) -> Result<(), CoreError> {
        if image_count == 0 {
            return Err(CoreError::NoImages);
        }
        if self.find(handle).is_some() {
            return Err(CoreError::OutOfOrder(
                "swapchain_created: handle already known",
            ));
        }
        let depth = history_depth(self.config.pacing.frames_in_flight);
        let lineage = old.and_then(|o| self.find(o)).map(|i| self.live[i].chain);
        let chain = match lineage {
            Some(id) => id,
            None => {
                let id = self.next_chain;
                self.next_chain += 1;
                self.chains.push(Chain::new(id, &self.config)?);
                id
            }
        };
        let c = self.chain_mut(chain)?;
        c.generations += 1;
        let generation = c.generations;
        c.swapchain_changed(mode.queues_frames());
        self.live.push(Paced {
            state: SwapchainState::new(handle, image_count, depth),
            chain,
            generation,
            ids: match self.config.present_ids {
                true => PresentIdStructure::Id2,
                false => PresentIdStructure::None,
            },
            last_present: 0,
            repaired_present: vec![0; image_count as usize],
        });
        self.stats.swapchains_created += 1;
        Ok(())
    }

    /// A call the pacer passed through unpaced (a present on another queue): counted.
    pub fn unpaced_call(&mut self) {
        self.stats.unpaced_calls += 1;
    }

    /// The structure `handle`'s presents carry present ids in ([`DisplayPaths::id_structure`]
    /// of its surface's paths): none where it has neither display feedback nor present timing,
    /// so that no id is counted or awaited that no present carried. Until told, a swapchain
    /// made while [`PacerConfig::present_ids`] is on carries `VkPresentId2KHR`'s.
    ///
    /// [`DisplayPaths::id_structure`]: crate::DisplayPaths::id_structure
    pub fn set_present_ids(&mut self, handle: W, structure: PresentIdStructure) {
        if let Some(i) = self.find(handle) {
            self.live[i].ids = match self.config.present_ids {
                true => structure,
                false => PresentIdStructure::None,
            };
        }
    }

    /// Whether `handle` was made through the pacer and not yet destroyed by the application.
    #[must_use]
    pub fn is_paced(&self, handle: W) -> bool {
        self.find(handle).is_some()
    }

    // ----- completion ---------------------------------------------------------------------

    /// The submission with `serial` (and every earlier one on the queue) completed, seen at
    /// `now`.
    pub fn serial_completed(&mut self, serial: Serial, now: u64) -> Result<(), CoreError> {
        if serial > self.last_submitted {
            return Err(CoreError::CompletedUnsubmitted {
                given: serial,
                last: self.last_submitted,
            });
        }
        if serial <= self.completed {
            return Ok(());
        }
        self.completed = serial;
        for c in &mut self.chains {
            c.completed(serial, now);
        }
        self.collect_idle();
        Ok(())
    }

    /// The present fence with id `id` (from [`PresentPlan::present_fences`]) signalled: the
    /// present's semaphore wait has executed. Returns `false` for an id the machine does not
    /// rely on.
    pub fn present_fence_signalled(&mut self, id: u64) -> bool {
        let Some(at) = self.present_fences.iter().position(|(i, _)| *i == id) else {
            return false;
        };
        let (_, owner) = self.present_fences.swap_remove(at);
        self.prove_by_present_fence(owner, id);
        let states = self
            .live
            .iter_mut()
            .map(|p| &mut p.state)
            .chain(self.retired.iter_mut().map(|r| &mut r.state));
        for state in states.filter(|s| s.handle == owner) {
            for h in &mut state.images {
                h.present_fence_signalled(id);
            }
            state.pending_present_fences = state.pending_present_fences.saturating_sub(1);
        }
        self.collect_idle();
        true
    }

    /// The present fences not yet seen signalled, with their swapchains.
    pub fn pending_present_fences(&self) -> impl Iterator<Item = (u64, W)> + '_ {
        self.present_fences.iter().copied()
    }

    /// The highest completed serial.
    #[must_use]
    pub fn completed(&self) -> Serial {
        self.completed
    }

    /// The last serial given to a submission.
    #[must_use]
    pub fn last_submitted(&self) -> Serial {
        self.last_submitted
    }

    // ----- outputs ------------------------------------------------------------------------

    /// The next thing to carry out, if any. Poll until `None` after every input.
    pub fn poll_action(&mut self) -> Option<DestroyAction<S, W>> {
        self.actions.pop_front()
    }

    // ----- helpers ------------------------------------------------------------------------

    fn find(&self, handle: W) -> Option<usize> {
        self.live.iter().position(|p| p.state.handle == handle)
    }

    /// The lineage of `handle`, a swapchain the application may still use.
    fn lineage(&self, handle: W) -> Option<&Chain<W>> {
        let chain = self.live[self.find(handle)?].chain;
        self.chains.iter().find(|c| c.id == chain)
    }

    /// [`Self::lineage`], to change.
    fn lineage_mut(&mut self, handle: W) -> Option<&mut Chain<W>> {
        let chain = self.live[self.find(handle)?].chain;
        self.chains.iter_mut().find(|c| c.id == chain)
    }

    fn chain_mut(&mut self, id: u64) -> Result<&mut Chain<W>, CoreError> {
        self.chains
            .iter_mut()
            .find(|c| c.id == id)
            .ok_or(CoreError::OutOfOrder("a swapchain of no lineage"))
    }

    /// The next serial, for a submission the shell just made.
    fn take_serial(&mut self) -> Serial {
        self.last_submitted = self.last_submitted.next();
        self.last_submitted
    }

    /// A repair semaphore is free again: pooled, or destroyed when poisoned or over the cap.
    fn recycle(&mut self, semaphore: S, poisoned: bool) {
        if !poisoned && self.pool.len() < pool_cap(self.config.pacing.frames_in_flight) {
            self.pool.push(semaphore);
        } else {
            if poisoned {
                self.stats.semaphores_poisoned += 1;
            }
            self.actions
                .push_back(DestroyAction::DestroySemaphore(semaphore));
        }
    }
}
