//! The second door's sim shell: it drives the machine that ships (`PacerMachine`) against the
//! simulated [`World`] as the Vulkan shell (`layer/vk/present_pacer/`) drives it against a
//! device, one world operation per step the machine asks for, and makes no decision of its
//! own: the gate, the repair semaphore, the present ids and fences, present timing's
//! requests (`pacer_timing.rs`), when a swapchain the application destroyed may go, are the
//! machine's. It records what it made in the world ([`PacerTruth`]) for the properties, which
//! judge that and the world, not the machine.
//!
//! Completion is by fence, as the Vulkan shell's: each repair submission signals a fence of
//! the core's `FencePool`, the one the Vulkan shell holds, looked at (never waited for) at
//! every call and waited for, bounded, when the machine asks; its serial is reported
//! completed once its fence signalled. A wait is made as the layer's shared door makes it:
//! on a fence lent out of the pool, while another thread's call may look at the fences
//! (`fence_waits.rs`).

use vkpace_core::{
    BoundedWait, DestroyAction, DestroyOutcome, FencePool, Gate, PacerConfig, PacerMachine,
    PresentPlan, PresentStep, RepairSemaphore, SleepWatch, SubmitSignal, VkStatus,
};
use vkpace_core::{FrameLimit, PacingPolicy, PacingSettings, PresentMode};

use crate::driver::SimError;
use crate::own_swapchain::{run_world_until, SwapchainCalls};
use crate::pacer_timing::{DoorTiming, PacerTiming};
use crate::pacer_truth::PacerTruth;
use crate::world::{AcquireResult, Fence, Gen, PresentExtras, PresentResult, Sem, World};

/// The machine as the sim runs it.
pub type SimPacerMachine = PacerMachine<Sem, Gen>;

/// The door's settings in a schedule.
#[derive(Debug, Clone)]
pub struct PacerParams {
    pub frames_in_flight: usize,
    pub max_retired: usize,
    pub repair: bool,
    /// maintenance1: the door adds present fences.
    pub present_fences: bool,
    /// The door adds present ids and polls the display.
    pub present_ids: bool,
    pub pacing: PacingPolicy,
    pub frame_limit: Option<FrameLimit>,
    /// The device enabled present timing, and what the surface offers. `present_ids` must be
    /// on where the offer's present timing path is chosen, as the Vulkan shell's configuration
    /// has it (present timing's results name presents by vkpace's ids).
    pub timing: Option<PacerTiming>,
    /// Percent: the application's destroy of a swapchain it recreated is made from another
    /// thread while its next present is between the door's plan and its result, as the layer's
    /// shared door lets it (`pacer_beside.rs`).
    pub p_destroy_beside: u32,
}

impl PacerParams {
    fn config(&self) -> PacerConfig {
        PacerConfig {
            pacing: PacingSettings {
                frames_in_flight: self.frames_in_flight,
                policy: self.pacing,
                frame_limit: self.frame_limit,
                max_retired_swapchains: self.max_retired,
            },
            repair: self.repair,
            present_fences: self.present_fences,
            present_ids: self.present_ids,
        }
    }
}

/// The machine, the world and the shell's own objects.
pub struct SimPacer {
    pub machine: SimPacerMachine,
    pub world: World,
    pub truth: PacerTruth,
    /// The shell's fences: repair and proof submissions', present fences, free, lent, parked.
    pub(crate) fences: FencePool<Fence>,
    /// The teardown proved everything idle and destroyed it.
    pub clean_teardown: bool,
    /// The display paths and each timed swapchain's present timing (`pacer_timing.rs`).
    pub(crate) timing: DoorTiming,
    /// Destroys made beside the next present (`pacer_beside.rs`).
    pub beside: crate::pacer_beside::Beside,
}

impl SimPacer {
    pub fn new(params: &PacerParams, world: World) -> Result<Self, SimError> {
        Ok(Self {
            machine: PacerMachine::new(params.config())?,
            world,
            truth: PacerTruth::default(),
            fences: FencePool::new(),
            clean_teardown: false,
            timing: DoorTiming::new(params),
            beside: crate::pacer_beside::Beside::new(params.p_destroy_beside),
        })
    }

    /// The repair semaphores the machine counts alive.
    pub fn semaphores_alive(&self) -> usize {
        self.machine.stats().semaphores_alive
    }

    /// Fences the shell holds in its pool (free, lost, parked, or given to a submission or
    /// present). The judge compares them with the world's: a fence that fell out of every
    /// list of the pool is one lost.
    pub fn fences_held(&self) -> usize {
        self.fences.held()
    }

    fn now(&self) -> u64 {
        self.world.now
    }

    fn take_fence(&mut self) -> Fence {
        if let Some(f) = self.fences.take() {
            return f;
        }
        let f = self.world.create_fence();
        self.fences.created(f);
        self.fences.take_this(f);
        f
    }

    /// Looks at the pending fences without waiting: each repair fence signalled completes its
    /// serial (in order: the queue completes in order), each present fence tells the machine;
    /// then carries out what the machine asks.
    pub(crate) fn observe(&mut self) -> Result<(), SimError> {
        let now = self.now();
        while let Some((serial, SubmitSignal::Fence(f))) = self.fences.oldest_submitted() {
            if !self.world.fence_signaled(f)? {
                break;
            }
            self.seen_signalled(f)?;
            self.machine.serial_completed(serial, now)?;
        }
        let presents: Vec<Fence> = (0..).map_while(|i| self.fences.present_fence(i)).collect();
        for f in presents {
            if self.world.fence_signaled(f)? {
                self.present_fence_seen(f)?;
            }
        }
        self.carry_out()
    }

    /// Carries out the machine's actions until it has none.
    pub(crate) fn carry_out(&mut self) -> Result<(), SimError> {
        while let Some(a) = self.machine.poll_action() {
            match a {
                DestroyAction::DestroySemaphore(s) => {
                    self.world.destroy_semaphore(s)?;
                    self.truth.semaphores.remove(&s);
                }
                DestroyAction::DestroySwapchain(g) => {
                    self.world.destroy_swapchain(g)?;
                    self.timing_destroyed(g);
                    self.truth.destroyed.push(g);
                }
            }
        }
        Ok(())
    }

    /// The bounded waits the machine asks for before the application's call returns (a
    /// destroyed swapchain with no successor or over the cap, the teardown).
    fn bounded_waits(&mut self) -> Result<(), SimError> {
        if self.waits()? {
            return Err(SimError::Broken(
                "a present in flight during a wait of a sequential call".into(),
            ));
        }
        self.carry_out()
    }

    /// The machine's bounded waits until it has none, or until it asks to wait for the present
    /// in flight (then `true`: the rest comes once the present returned).
    pub(crate) fn waits(&mut self) -> Result<bool, SimError> {
        while let Some(wait) = self.machine.bounded_wait() {
            self.truth.bounded_waits += 1;
            let done = match wait {
                BoundedWait::PresentFence(id) => self.wait_present_fence(id)?,
                BoundedWait::SubmitProof => {
                    let fence = self.take_fence();
                    self.world.submit_ordered(&[], &[], Some(fence), false)?;
                    let serial = self.machine.proof_submitted()?;
                    self.fences.submitted(serial, SubmitSignal::Fence(fence));
                    true
                }
                BoundedWait::Serial(serial) => self.wait_serial(serial)?,
                BoundedWait::PresentInFlight => return Ok(true),
            };
            if !done {
                self.truth.bounded_timeouts += 1;
                if !self.machine.bounded_wait_timed_out(wait) {
                    break;
                }
            }
        }
        Ok(false)
    }

    /// The frames-in-flight gate and the pacing sleep of `swapchain`'s lineage.
    fn gate(&mut self, swapchain: Gen) -> Result<(), SimError> {
        loop {
            self.observe()?;
            match self.machine.begin_frame(swapchain, self.now())? {
                Gate::Go => return Ok(()),
                Gate::WaitFor(serial) => {
                    if !self.wait_serial(serial)? {
                        self.truth.bounded_timeouts += 1;
                        let now = self.now();
                        return Ok(self.machine.begin_frame_anyway(swapchain, now)?);
                    }
                }
                // A watch ends the sleep early where it saw what it watched for: the machine
                // is asked again, as the Vulkan shell asks.
                Gate::SleepUntil { until, watch } => match watch {
                    Some(SleepWatch::Ready(serial)) => self.watch_ready(serial, until)?,
                    Some(SleepWatch::Display(id)) => self.watch_display(swapchain, id, until)?,
                    None => self.world.advance_to(until.max(self.now())),
                },
            }
        }
    }

    /// The plan of a present of `image` of `swapchain`, after any wait the machine asks for.
    fn plan(
        &mut self,
        swapchain: Gen,
        image: u32,
        own_id: Option<u64>,
    ) -> Result<PresentPlan<Sem>, SimError> {
        let own = own_id.map(|id| [id]);
        loop {
            let ids = own.as_ref().map(|i| &i[..]);
            match self
                .machine
                .before_present(&[(swapchain, image)], ids, false)?
            {
                PresentStep::Plan(p) => return Ok(p),
                PresentStep::WaitFor(serial) => {
                    self.truth.history_waits += 1;
                    if !self.wait_serial(serial)? {
                        return Err(SimError::Broken(format!(
                            "a repair semaphore's proof ({serial}) did not complete within the bound"
                        )));
                    }
                }
            }
        }
    }

    /// The repair: an empty submission on the present's queue waits on the application's
    /// semaphore and signals the door's; returns the semaphore the present waits on.
    fn repair(
        &mut self,
        swapchain: Gen,
        choice: RepairSemaphore<Sem>,
        wait: Sem,
    ) -> Result<Sem, SimError> {
        let s = match choice {
            RepairSemaphore::Reuse(s) => s,
            RepairSemaphore::Create => {
                let s = self.world.create_semaphore();
                self.truth.semaphore_made(s);
                self.machine.semaphore_created(s)?;
                s
            }
        };
        let fence = self.take_fence();
        let number = self
            .world
            .submit_ordered(&[wait], &[s], Some(fence), false)?;
        let serial = self.machine.repair_submitted(self.now())?;
        self.fences.submitted(serial, SubmitSignal::Fence(fence));
        self.truth.repaired(number, swapchain);
        Ok(s)
    }

    /// The present fence the plan adds, from the shell's pool.
    fn present_fence(&mut self, plan: &PresentPlan<Sem>) -> Option<(u64, Fence)> {
        let id = plan.present_fences?;
        let f = self.take_fence();
        self.fences.presented_as(id, f);
        Some((id, f))
    }

    /// The pacing sleep's watch of present `id` on `swapchain` (`SleepWatch::Display`), as the
    /// Vulkan shell makes it: a zero-timeout present-id wait, then one until `until`. A wait
    /// that began before the present was shown and ended because it was says when (within the
    /// world's tick); any other answer is only "shown by now" or "not yet".
    fn watch_display(&mut self, swapchain: Gen, id: u64, until: u64) -> Result<(), SimError> {
        let shown = |w: &World| w.display.id_shown(swapchain, id);
        let polled = shown(&self.world)?;
        let exact = !polled
            && run_world_until(&mut self.world, |w| Ok(shown(w)? || w.now >= until))?
            && shown(&self.world)?;
        let status = match polled || exact {
            true => VkStatus::SUCCESS,
            false => VkStatus::TIMEOUT,
        };
        let now = self.now();
        self.truth.display_watches.count(polled, exact);
        let told = match exact {
            true => self.machine.display_watched(swapchain, status, now),
            false => self.machine.display_answer(swapchain, status, now),
        };
        told.map_err(SimError::Failed)
    }

    /// The display's feedback: one zero-timeout present-id wait, as the machine asks.
    fn display_feedback(&mut self) -> Result<(), SimError> {
        let Some((g, id)) = self.machine.display_query() else {
            return Ok(());
        };
        let status = match self.world.display.id_shown(g, id)? {
            true => VkStatus::SUCCESS,
            false => VkStatus::TIMEOUT,
        };
        let now = self.now();
        self.machine
            .display_answer(g, status, now)
            .map_err(SimError::Failed)
    }
}

impl SwapchainCalls for SimPacer {
    fn world(&mut self) -> &mut World {
        &mut self.world
    }

    fn create_swapchain(
        &mut self,
        images: u32,
        old: Option<Gen>,
        mode: PresentMode,
    ) -> Result<Gen, SimError> {
        self.destroys_held()?;
        self.observe()?;
        let g = self.world.create_swapchain_in(images, old, mode)?;
        self.beside.recreated(old);
        self.machine.swapchain_created(g, images, old, mode)?;
        self.display_created(g)?;
        Ok(g)
    }

    fn acquire(&mut self, swapchain: Gen, semaphore: Sem) -> Result<AcquireResult, SimError> {
        self.gate(swapchain)?;
        let result = self.world.acquire(swapchain, semaphore)?;
        let (status, image) = match result {
            AcquireResult::Image(i, false) => (VkStatus::SUCCESS, i),
            AcquireResult::Image(i, true) => (VkStatus::SUBOPTIMAL, i),
            AcquireResult::OutOfDate => (VkStatus::OUT_OF_DATE, 0),
            AcquireResult::NotReady => (VkStatus::TIMEOUT, 0),
        };
        let now = self.now();
        self.machine.acquired(swapchain, status, image, now)?;
        self.carry_out()?;
        Ok(result)
    }

    fn present(
        &mut self,
        swapchain: Gen,
        image: u32,
        wait: Sem,
        own_id: Option<u64>,
        mode: Option<PresentMode>,
    ) -> Result<PresentResult, SimError> {
        self.observe()?;
        let plan = self.plan(swapchain, image, own_id)?;
        let sem = match plan.repair {
            Some(choice) => self.repair(swapchain, choice, wait)?,
            None => wait,
        };
        let fence = self.present_fence(&plan);
        let (extras, timed) = self.present_extras(swapchain, own_id, mode)?;
        let extras = PresentExtras { mode, ..extras };
        self.truth.ids_sent += u64::from(extras.id != 0);
        let early = self.beside.due() && self.world.rng.chance(50);
        if early {
            self.destroys_beside()?;
        }
        let result =
            self.world
                .present_with(swapchain, (image, sem, fence.map(|f| f.1)), extras)?;
        if !early {
            self.destroys_beside()?;
        }
        let driver_said = result.status();
        let result = self.timing_answer(swapchain, result, timed);
        match (fence, result) {
            // A failed present may never signal its fence: destroyed at teardown, as the
            // Vulkan shell's.
            (Some((id, _)), PresentResult::Failed) => self.fences.lose_present(id),
            (Some(_), _) => self.truth.present_fences += 1,
            (None, _) => {}
        }
        let now = self.now();
        self.machine.present_returned(driver_said, &[], now)?;
        self.waits_after_present()?;
        self.read_timings()?;
        self.display_feedback()?;
        self.carry_out()?;
        // The pacing sleep at the end of the present (the machine's place for it).
        if self.machine.is_paced(swapchain) {
            self.gate(swapchain)?;
        }
        Ok(result)
    }

    fn destroy_swapchain(&mut self, swapchain: Gen) -> Result<(), SimError> {
        if self.beside.hold(swapchain, &mut self.world.rng) {
            return Ok(());
        }
        self.destroys_held()?;
        self.observe()?;
        match self.machine.destroy_requested(swapchain)? {
            DestroyOutcome::Unpaced => {
                self.world.destroy_swapchain(swapchain)?;
                self.timing_destroyed(swapchain);
            }
            DestroyOutcome::Deferred => {}
            DestroyOutcome::Now => self.bounded_waits()?,
        }
        self.carry_out()
    }

    /// The pacer's teardown: its bounded waits, then every repair semaphore and the shell's
    /// fences destroyed. Where a wait timed out (a present fence that never signals) what is not
    /// proven idle stays alive, as the Vulkan shell leaves it (logged), rather than destroyed
    /// in use: `clean_teardown` says so.
    fn shutdown(&mut self) -> Result<(), SimError> {
        self.destroys_held()?;
        self.observe()?;
        self.machine.begin_shutdown();
        self.bounded_waits()?;
        self.clean_teardown = self.machine.finish_shutdown();
        self.carry_out()?;
        self.observe()?;
        self.destroy_fences()
    }
}
