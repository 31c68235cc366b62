//! A present through the pacer: which repair semaphore it signals and waits on (the first paced
//! image's history, N+1 deep, reused only once proven), the present ids and fences added, and
//! what its result means for the semaphore, the swapchains and the lineage's frame.

use super::{PacerMachine, PresentOutcome};
use crate::display::PresentIdStructure;
use crate::error::CoreError;
use crate::handle::Handle;
use crate::present_history::PresentSemaphoreChoice;
use crate::serial::Serial;
use crate::vk_values::VkStatus;

/// The repair semaphore of a present.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RepairSemaphore<S> {
    /// Signal and wait on this one (free: unsignalled, nothing pending).
    Reuse(S),
    /// Create one and report it with [`PacerMachine::semaphore_created`].
    Create,
}

/// What the shell adds to the application's present.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PresentPlan<S> {
    /// Repair: an empty submission waits on the application's semaphores and signals this
    /// semaphore, and the present waits on it alone. `None`: the present waits on the
    /// application's semaphores as given (repair off, or nothing paced in it).
    pub repair: Option<RepairSemaphore<S>>,
    /// Present fences (maintenance1) to add, one per paced swapchain of the present in order,
    /// with ids from this one up; `None`: none.
    pub present_fences: Option<u64>,
    /// The structure that carries the present ids chosen for the paced swapchains
    /// ([`TargetPlan::id`]); `PresentIdStructure::None`: no ids added.
    pub present_ids: PresentIdStructure,
}

/// What vkpace adds to the present in progress for one of its swapchains
/// ([`PacerMachine::plan_target`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetPlan {
    /// The present id (`VkPresentIdKHR` or `VkPresentId2KHR`, as [`PresentPlan::present_ids`]
    /// says); 0: none (a swapchain not paced, its ids in the other structure, or a present
    /// that carries the application's ids).
    pub id: u64,
    /// The present fence's id, where one is added ([`PresentPlan::present_fences`]).
    pub fence: Option<u64>,
    /// The present timing (`VkPresentTimingInfoEXT`), where vkpace times the swapchain.
    pub timing: Option<crate::machine::PresentTimingRequest>,
}

/// The answer to [`PacerMachine::before_present`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum PresentStep<S> {
    /// The first paced image's history is full and its oldest semaphore is proven only by a
    /// submission still running (after frames in flight was lowered): wait (bounded) for this
    /// serial, report it and ask again.
    WaitFor(Serial),
    /// Carry the present out so.
    Plan(PresentPlan<S>),
}

/// One paced swapchain of the present in progress.
#[derive(Copy, Clone, Debug)]
pub(super) struct Target<W> {
    pub(super) swapchain: W,
    pub(super) image: u32,
    /// Its swapchain's lineage, and whether it is the present's first target in it: a present
    /// is one frame of each lineage it presents to.
    pub(super) lineage: u64,
    pub(super) first_of_lineage: bool,
    /// The present id vkpace adds (0: none).
    pub(super) id: u64,
    /// The present fence id vkpace adds, if any.
    pub(super) fence: Option<u64>,
    /// The present timing vkpace adds, once asked ([`PacerMachine::plan_target`]).
    pub(super) timing: Option<crate::machine::PresentTimingRequest>,
    /// The application's own present id for it (0: none).
    pub(super) caller_id: u64,
    /// Its place among the present's swapchains (`pSwapchains`, and so `pResults`).
    pub(super) position: usize,
    /// What the present did for it, once returned: its own result where the driver gave one
    /// per swapchain, else the present's.
    pub(super) result: VkStatus,
    /// The present's mode switch (the application's), if any: whether it is to a FIFO mode
    /// (a target needs one, VUID-VkPresentTimingsInfoEXT-pSwapchains-12235). It takes effect
    /// with the present, unless the present failed or was refused.
    pub(super) switch_to_fifo: Option<bool>,
}

impl<W> Target<W> {
    /// The engine refused the present to it for a full timing results queue: not shown, its
    /// waits executed.
    pub(super) fn refused(&self) -> bool {
        self.result == VkStatus::PRESENT_TIMING_QUEUE_FULL
    }
}

/// The present between [`PacerMachine::before_present`] and
/// [`PacerMachine::present_returned`].
#[derive(Debug)]
pub(super) struct Pending<S, W> {
    pub(super) active: bool,
    pub(super) targets: Vec<Target<W>>,
    pub(super) semaphore: Option<S>,
    pub(super) repair: bool,
    pub(super) serial: Option<Serial>,
    /// Set at the present's result: what `vkQueuePresentKHR` returned.
    pub(super) status: VkStatus,
    /// It carries the application's own present ids (vkpace adds none).
    pub(super) caller_ids: bool,
}

impl<S, W> Pending<S, W> {
    pub(super) fn new() -> Self {
        Self {
            active: false,
            targets: Vec::with_capacity(4),
            semaphore: None,
            repair: false,
            serial: None,
            status: VkStatus::SUCCESS,
            caller_ids: false,
        }
    }
}

impl<S: Handle, W: Handle> PacerMachine<S, W> {
    /// The application presents `targets` (swapchain and image, in its order); `caller_ids`:
    /// the present ids it chained (aligned with `targets`), if any; `caller_fences`: it chained
    /// its own present fences. Swapchains not made through the pacer pass through unpaced.
    pub fn before_present(
        &mut self,
        targets: &[(W, u32)],
        caller_ids: Option<&[u64]>,
        caller_fences: bool,
    ) -> Result<PresentStep<S>, CoreError> {
        if self.pending.active {
            return Err(CoreError::OutOfOrder(
                "before_present while a present is in progress",
            ));
        }
        self.note_caller_ids(targets, caller_ids);
        self.forget_ready_watches(targets);
        let first = targets.iter().find(|(w, _)| self.find(*w).is_some());
        let Some(&(first_w, first_image)) = first else {
            self.stats.unpaced_calls += 1;
            return Ok(PresentStep::Plan(PresentPlan {
                repair: None,
                present_fences: None,
                present_ids: PresentIdStructure::None,
            }));
        };
        let repair = match self.config.repair {
            true => match self.choose_repair(first_w, first_image)? {
                PresentSemaphoreChoice::WaitFor(s) => return Ok(PresentStep::WaitFor(s)),
                PresentSemaphoreChoice::Reuse(s) => Some(RepairSemaphore::Reuse(s)),
                PresentSemaphoreChoice::Create => Some(RepairSemaphore::Create),
            },
            false => None,
        };
        let fences = self.config.present_fences && !caller_fences;
        let ids = self.config.present_ids && caller_ids.is_none();
        let present_ids = match self.plan_targets(targets, fences, ids) {
            Ok(structure) => structure,
            Err(e) => {
                // The semaphore chosen (proven free) is not used: back to the pool.
                if let Some(RepairSemaphore::Reuse(s)) = repair {
                    self.recycle(s, false);
                }
                return Err(e);
            }
        };
        self.give_targets_caller_ids(targets, caller_ids);
        Ok(PresentStep::Plan(self.begin_pending(
            targets.len(),
            caller_ids.is_some(),
            repair,
            present_ids,
        )))
    }

    /// The present planned (its targets, `count` swapchains in all) is in progress: its plan.
    fn begin_pending(
        &mut self,
        count: usize,
        caller_ids: bool,
        repair: Option<RepairSemaphore<S>>,
        present_ids: PresentIdStructure,
    ) -> PresentPlan<S> {
        let p = &mut self.pending;
        p.active = true;
        p.repair = repair.is_some();
        p.semaphore = match repair {
            Some(RepairSemaphore::Reuse(s)) => Some(s),
            _ => None,
        };
        p.serial = None;
        p.caller_ids = caller_ids;
        let present_fences = p.targets.first().and_then(|t| t.fence);
        if count > p.targets.len() {
            self.stats.unpaced_calls += 1;
        }
        PresentPlan {
            repair,
            present_fences,
            present_ids,
        }
    }

    /// Each planned target of the present keeps the id the application gave its swapchain,
    /// if any (its display is awaited under that id).
    fn give_targets_caller_ids(&mut self, targets: &[(W, u32)], caller_ids: Option<&[u64]>) {
        let Some(caller_ids) = caller_ids else { return };
        for (&(w, _), &id) in targets.iter().zip(caller_ids) {
            if let Some(t) = self.pending.targets.iter_mut().find(|t| t.swapchain == w) {
                t.caller_id = id;
            }
        }
    }

    /// The shell could not make the present fence planned for `swapchain` (out of memory): the
    /// present goes without one (`VK_NULL_HANDLE` in its place), so nothing waits for it and
    /// the swapchain's presents are proven as those without a fence are.
    pub fn present_fence_not_added(&mut self, swapchain: W) {
        for t in self.pending.targets.iter_mut() {
            if t.swapchain == swapchain {
                t.fence = None;
            }
        }
    }

    /// The repair semaphore the shell created after [`RepairSemaphore::Create`].
    pub fn semaphore_created(&mut self, semaphore: S) -> Result<(), CoreError> {
        if !self.pending.active || !self.pending.repair || self.pending.semaphore.is_some() {
            return Err(CoreError::OutOfOrder(
                "semaphore_created without a repair asking for one",
            ));
        }
        self.pending.semaphore = Some(semaphore);
        self.stats.semaphores_created += 1;
        self.stats.semaphores_max_alive =
            self.stats.semaphores_max_alive.max(self.semaphores_held());
        Ok(())
    }

    /// The repair submission was made (at `now`); returns its serial. It stands for the
    /// frame's submission in the lineage's gate and pacing.
    pub fn repair_submitted(&mut self, now: u64) -> Result<Serial, CoreError> {
        if !self.pending.active || self.pending.semaphore.is_none() || self.pending.serial.is_some()
        {
            return Err(CoreError::OutOfOrder("repair_submitted without a repair"));
        }
        let serial = self.take_serial();
        self.pending.serial = Some(serial);
        self.stats.repair_submits += 1;
        for k in 0..self.pending.targets.len() {
            let t = self.pending.targets[k];
            if !t.first_of_lineage {
                continue;
            }
            let c = self.chain_mut(t.lineage)?;
            c.pacer.frame_submitted(serial);
            let frame = c.frame(now);
            c.telemetry.submitted(frame, now, serial, None);
            c.pacing.frame_submitted(frame, now);
            c.ready_unknown = Some((frame, serial));
        }
        Ok(serial)
    }

    /// The repair submission failed (nothing was submitted): the semaphore is still
    /// unsignalled and goes back to the pool, and the present waits on the application's
    /// semaphores as given.
    pub fn repair_failed(&mut self) {
        if let Some(s) = self.pending.semaphore.take() {
            self.recycle(s, false);
        }
        self.pending.repair = false;
    }

    /// The driver's present returned `status` at `now`, and `results` for its swapchains in
    /// the application's order (`pResults`; empty where not read: each swapchain's is
    /// `status`). What it means for the present's waits is [`PresentOutcome::of`]'s of
    /// `status`, as in door 1: the repair semaphore is recorded in the first paced image's
    /// history. Each paced swapchain is recorded by its own result, which the spec gives per
    /// swapchain (`pResults`: "the VkResult for presenting the swapchain corresponding to the
    /// same index in pSwapchains"): a swapchain that failed or was refused
    /// (`VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`: not shown, its waits executed) does not make
    /// the present's other swapchains failed or refused, nor they it.
    pub fn present_returned(
        &mut self,
        status: VkStatus,
        results: &[VkStatus],
        now: u64,
    ) -> Result<(), CoreError> {
        if !self.pending.active {
            return Err(CoreError::OutOfOrder("present_returned without a present"));
        }
        self.pending.active = false;
        if self.pending.targets.is_empty() {
            return Ok(());
        }
        self.stats.presents += 1;
        self.presents_queued += 1;
        self.pending.status = status;
        self.stats.out_of_date_or_suboptimal += u64::from(status.is_stale_swapchain());
        let failed = PresentOutcome::of(status) == PresentOutcome::Failed;
        let mut targets = std::mem::take(&mut self.pending.targets);
        for t in &mut targets {
            t.result = results.get(t.position).copied().unwrap_or(status);
            self.record_target(t)?;
        }
        if let (Some(s), Some(serial), Some(first)) = (
            self.pending.semaphore.take(),
            self.pending.serial.take(),
            targets.first(),
        ) {
            self.record_repaired(first, s, serial, failed)?;
        }
        self.end_frames(&targets, now)?;
        self.mode_switches_taken(&targets);
        self.pending.targets = targets;
        self.pending.targets.clear();
        self.collect_idle();
        Ok(())
    }

    /// Whether the present failed for `t`: the whole present did, or its swapchain's own
    /// result is a failure (its present fence may never signal).
    pub(super) fn failed_for(&self, t: &Target<W>) -> bool {
        PresentOutcome::of(self.pending.status) == PresentOutcome::Failed
            || PresentOutcome::of(t.result) == PresentOutcome::Failed
    }

    /// Whether `t`'s frame may be shown and its display waited for: the present and its
    /// swapchain both returned a success code and did not fail
    /// (VUID-vkWaitForPresent2KHR-presentId-10817).
    pub(super) fn may_show_for(&self, t: &Target<W>) -> bool {
        PresentOutcome::may_show(self.pending.status) && PresentOutcome::may_show(t.result)
    }

    // ----- helpers ------------------------------------------------------------------------

    fn note_caller_ids(&mut self, targets: &[(W, u32)], caller_ids: Option<&[u64]>) {
        for (&(w, _), &id) in targets.iter().zip(caller_ids.unwrap_or_default()) {
            if let Some(c) = self.lineage_mut(w) {
                c.ids.skip_past(id);
            }
        }
    }

    fn choose_repair(
        &mut self,
        swapchain: W,
        image: u32,
    ) -> Result<PresentSemaphoreChoice<S>, CoreError> {
        let i = self.find(swapchain).ok_or(CoreError::NoSwapchain)?;
        let depth = crate::present_history::history_depth(self.config.pacing.frames_in_flight);
        let completed = self.completed;
        let history = self.live[i].state.image_mut(image)?;
        let mut poisoned = Vec::new();
        let choice = history.choose(depth, completed, &mut self.pool, |s| poisoned.push(s));
        for s in poisoned {
            self.recycle(s, true);
        }
        Ok(choice)
    }

    /// Plans the present's paced targets, each with its present id (`ids`: vkpace adds them)
    /// and fence id (`fences`); returns the structure that carries the ids. One structure
    /// carries them all: that of the first swapchain given an id. A swapchain whose ids go in
    /// the other one gets none (a nonzero id needs the swapchain made for its structure,
    /// VUID-VkPresentId2KHR-None-10820): its display is not awaited, and its lineage's ids go
    /// on from the same number.
    fn plan_targets(
        &mut self,
        targets: &[(W, u32)],
        fences: bool,
        ids: bool,
    ) -> Result<PresentIdStructure, CoreError> {
        self.pending.targets.clear();
        let mut chosen = PresentIdStructure::None;
        for (position, &(w, image)) in targets.iter().enumerate() {
            let Some(i) = self.find(w) else { continue };
            self.live[i].state.image_mut(image)?;
            let (chain, generation) = (self.live[i].chain, self.live[i].generation);
            let structure = self.live[i].ids;
            let first_of_lineage = !self.pending.targets.iter().any(|t| t.lineage == chain);
            let c = self.chain_mut(chain)?;
            // A retired swapchain (a newer one was made from it) is never asked about its
            // presents (VUID-vkWaitForPresentKHR-swapchain-04997): no id for it.
            let newest = c.generations == generation;
            if chosen == PresentIdStructure::None && ids && newest {
                chosen = structure;
            }
            let id = match ids && newest && structure != PresentIdStructure::None {
                true if structure == chosen => c.ids.next_id(),
                _ => 0,
            };
            let fence = fences.then(|| {
                let id = self.next_present_fence;
                self.next_present_fence += 1;
                id
            });
            self.pending.targets.push(super::present::Target {
                swapchain: w,
                image,
                lineage: chain,
                first_of_lineage,
                id,
                fence,
                timing: None,
                caller_id: 0,
                position,
                result: VkStatus::SUCCESS,
                switch_to_fifo: None,
            });
        }
        Ok(chosen)
    }

    /// Marks a paced swapchain presented to, with or without a present fence it can rely on.
    fn record_target(&mut self, t: &Target<W>) -> Result<(), CoreError> {
        let failed = self.failed_for(t);
        let serial = self.pending.serial.unwrap_or(Serial::NONE);
        let i = self.find(t.swapchain).ok_or(CoreError::NoSwapchain)?;
        self.live[i].last_present = self.presents_queued;
        let state = &mut self.live[i].state;
        let fence = t.fence.filter(|_| !failed);
        state.present_recorded(fence);
        state.last_serial = state.last_serial.max(serial);
        if let Some(id) = fence {
            self.present_fences.push((id, t.swapchain));
            self.stats.present_fences_added += 1;
        }
        Ok(())
    }
}
