//! Present timing in the second door's sim shell, carried out as the Vulkan shell does it
//! (`layer/vk/present_pacer/create.rs`, `present.rs`): the display paths chosen for the
//! surface's offer (`choose_paths`), and for each swapchain made on the present timing path a
//! book of its own (`timing_shell.rs`: its refresh, time domains and results converted and
//! checked against the world's), its results queue sized and the machine told
//! (`set_present_timing`); each present carries the machine's request for it
//! (`plan_target`: its target as the engine gets it, its stage query); a
//! `PRESENT_TIMING_QUEUE_FULL` answer to a present vkpace timed is vkpace's doing, success to the
//! application; after each present every timed swapchain's results are read without blocking
//! and handed over (`present_timings`, `display_timing_changed`). What the shell sent and read
//! is recorded ([`TimingTruth`]) for the properties.

use std::collections::{BTreeMap, BTreeSet};

use vkpace_core::{
    choose_paths, DisplayFeedback, DisplayOffer, DisplayPaths, PresentMode, PresentTarget,
};

use crate::driver::SimError;
use crate::driver_timing::check_extras;
use crate::pacer_driver::{PacerParams, SimPacer};
use crate::timing_shell::SimTiming;
use crate::world::{ClockFaults, Gen, PresentExtras, PresentResult};

/// Present timing in a schedule of the door: the device enabled it, and what the surface and
/// device offer (`offer`, display feedback included), how the engine's clocks behave, and
/// the results-queue slots the shell sizes each timed swapchain's queue to
/// (`vkSetSwapchainPresentTimingQueueSizeEXT`; the world's engine may have fewer).
#[derive(Debug, Clone, Copy)]
pub struct PacerTiming {
    pub offer: DisplayOffer,
    pub clocks: ClockFaults,
    pub slots: u32,
    /// The engines' clocks' random streams (one per swapchain).
    pub seed: u64,
}

/// What the shell did with present timing, as the world saw it.
#[derive(Debug, Default, Clone)]
pub struct TimingTruth {
    /// Swapchains set up with present timing.
    pub swapchains_timed: u64,
    /// Presents that asked for stage times, by swapchain and vkpace's present id.
    pub asked: BTreeSet<(Gen, u64)>,
    /// Presents that asked for stage times with the application's own present id (by which
    /// results would be named).
    pub asked_with_caller_ids: u64,
    /// Presents that carried a target.
    pub targets: u64,
    /// Results handed to the machine, in order: swapchain, present id, complete.
    pub results: Vec<(Gen, u64, bool)>,
    /// Presents the world refused for a full results queue, by swapchain.
    pub refused: BTreeMap<Gen, u32>,
}

/// The shell's present timing: the paths chosen, and each timed swapchain's book.
#[derive(Debug)]
pub(crate) struct DoorTiming {
    pub(crate) paths: DisplayPaths,
    offer: Option<DisplayOffer>,
    params: Option<PacerTiming>,
    books: BTreeMap<Gen, SimTiming>,
}

impl DoorTiming {
    /// The paths of the door's settings: `choose_paths` for the offer where the schedule has
    /// one, else present ids and present waits as `present_ids` says.
    pub(crate) fn new(params: &PacerParams) -> Self {
        let offer = params.timing.map(|t| t.offer);
        let paths = match offer {
            Some(o) => choose_paths(&o),
            None => DisplayPaths {
                feedback: match params.present_ids {
                    true => DisplayFeedback::PresentWait,
                    false => DisplayFeedback::None,
                },
                timing: None,
            },
        };
        Self {
            paths,
            offer,
            params: params.timing,
            books: BTreeMap::new(),
        }
    }
}

impl SimPacer {
    /// After a creation, as the Vulkan shell's: present ids by the core's rule
    /// (`DisplayPaths::id_structure`: display feedback or present timing), and on the
    /// present timing path the swapchain's book, its first reads, its results queue and
    /// refresh told to the machine.
    pub(crate) fn display_created(&mut self, g: Gen) -> Result<(), SimError> {
        let t = &mut self.timing;
        self.machine.set_present_ids(g, t.paths.id_structure());
        let (Some(targets), Some(p)) = (t.paths.timing, t.params) else {
            return Ok(());
        };
        let mut book = SimTiming::new(targets, p.clocks, p.seed ^ g);
        let refresh = self.world.display.config.refresh_ns;
        let display = book.created(g, refresh, self.world.now)?;
        self.machine.set_present_timing(g, p.slots, display)?;
        t.books.insert(g, book);
        self.truth.timing.swapchains_timed += 1;
        Ok(())
    }

    /// What the present to `swapchain` carries (after the machine's plan): the application's
    /// id or vkpace's, and the machine's timing request with its target as the engine gets it
    /// (`mode`: the application's mode switch); whether vkpace timed it. What vkpace adds is
    /// checked against the paths chosen.
    pub(crate) fn present_extras(
        &mut self,
        swapchain: Gen,
        own_id: Option<u64>,
        mode: Option<PresentMode>,
    ) -> Result<(PresentExtras, bool), SimError> {
        let planned = self.machine.plan_target(swapchain, mode, self.world.now);
        let (door_id, request) = (planned.id, planned.timing);
        let target = match (request, self.timing.books.get(&swapchain)) {
            (Some(r), Some(book)) => book.engine_target(r.target)?,
            (Some(r), None) => {
                return Err(SimError::Broken(format!(
                    "timing {r:?} asked for swapchain {swapchain}, which the shell set no timing up for"
                )))
            }
            (None, _) => PresentTarget::None,
        };
        let ours = PresentExtras {
            id: door_id,
            target,
            stages: request.is_some_and(|r| r.query_stages),
            mode: None,
        };
        check_extras(self.timing.paths, self.timing.offer, &ours)?;
        let truth = &mut self.truth.timing;
        truth.targets += u64::from(target != PresentTarget::None);
        match (ours.stages, own_id) {
            (true, Some(_)) => truth.asked_with_caller_ids += 1,
            (true, None) => {
                truth.asked.insert((swapchain, door_id));
            }
            (false, _) => {}
        }
        let id = own_id.unwrap_or(door_id);
        Ok((PresentExtras { id, ..ours }, request.is_some()))
    }

    /// The world's answer to a present: `PRESENT_TIMING_QUEUE_FULL` on a present vkpace timed
    /// is vkpace's doing (the application asked for no timing): the application gets success,
    /// as from the Vulkan shell (its waits executed; not shown); the machine hears of it from
    /// the driver's result.
    pub(crate) fn timing_answer(
        &mut self,
        swapchain: Gen,
        result: PresentResult,
        timed: bool,
    ) -> PresentResult {
        if result != PresentResult::QueueFull || !timed {
            return result;
        }
        *self.truth.timing.refused.entry(swapchain).or_default() += 1;
        PresentResult::Queued
    }

    /// Every timed swapchain's results read without blocking, through its book, and handed to
    /// the machine with a refresh that changed.
    pub(crate) fn read_timings(&mut self) -> Result<(), SimError> {
        let (now, refresh) = (self.world.now, self.world.display.config.refresh_ns);
        let timed: Vec<Gen> = self.machine.timed_swapchains().collect();
        for w in timed {
            let Some(book) = self.timing.books.get_mut(&w) else {
                continue;
            };
            let truths = self.world.display.read_timings(w, now);
            let (reports, changed) = book.read(w, &truths, refresh, now)?;
            let read = reports.iter().map(|r| (w, r.present_id, r.complete));
            self.truth.timing.results.extend(read);
            self.machine.present_timings(w, &reports);
            if let Some(timing) = changed {
                self.machine.display_timing_changed(w, timing);
            }
        }
        Ok(())
    }

    /// The world destroyed `g`: its book goes.
    pub(crate) fn timing_destroyed(&mut self, g: Gen) {
        self.timing.books.remove(&g);
    }
}
