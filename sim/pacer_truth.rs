//! What the second door's sim shell did, as the world saw it: the ground truth the door's
//! properties judge (never the machine's own bookkeeping).

use std::collections::{BTreeSet, VecDeque};

use crate::pacer_timing::TimingTruth;
use crate::world::{Gen, Sem, World};

/// How many recent repair submissions are kept (more than any frames-in-flight limit).
const REPAIRS_KEPT: usize = 16;

/// The door's objects and submissions in the world.
#[derive(Debug, Default, Clone)]
pub struct PacerTruth {
    /// The world's numbers of the latest repair submissions, oldest first, with the swapchain
    /// of each one's present.
    pub repairs: VecDeque<(u64, Gen)>,
    /// Repair submissions made.
    pub repair_count: u64,
    /// The semaphores the door made and has not destroyed.
    pub semaphores: BTreeSet<Sem>,
    /// The most of them alive at once.
    pub max_semaphores: usize,
    /// Swapchains the door destroyed in the world, in order.
    pub destroyed: Vec<Gen>,
    /// Bounded waits the shell ran for the machine (a swapchain with no successor, or over the
    /// cap), and those that timed out.
    pub bounded_waits: u64,
    pub bounded_timeouts: u64,
    /// Presents the machine held back until a repair semaphore's proof completed (a history
    /// full after frames in flight was lowered).
    pub history_waits: u64,
    /// Present ids the presents carried.
    pub ids_sent: u64,
    /// Present fences the door added, and those seen signalled.
    pub present_fences: u64,
    pub present_fences_signalled: u64,
    /// Present timing: what the presents asked for and the results read.
    pub timing: TimingTruth,
    /// The pacing sleeps' watches of a frame's ready time, by what they saw.
    pub ready_times: ReadyTimes,
    /// The pacing sleeps' watches of the display, by what they saw.
    pub display_watches: DisplayWatches,
}

/// What the watches of the display saw (`SimPacer::watch_display`).
#[derive(Debug, Default, Clone, Copy)]
pub struct DisplayWatches {
    /// Shown at the first look.
    pub polled: u64,
    /// Shown while waited for: when, exactly.
    pub exact: u64,
    /// Not shown by the sleep's end.
    pub not_by_end: u64,
}

impl DisplayWatches {
    pub(crate) fn count(&mut self, polled: bool, exact: bool) {
        match (polled, exact) {
            (true, _) => self.polled += 1,
            (false, true) => self.exact += 1,
            (false, false) => self.not_by_end += 1,
        }
    }
}

/// What the watches of ready times saw (`SimPacer::watch_ready`).
#[derive(Debug, Default, Clone, Copy)]
pub struct ReadyTimes {
    /// The fence signalled while waited on: the frame's ready time, exactly.
    pub exact: u64,
    /// Seen signalled at the first look: ready by then.
    pub bounded: u64,
    /// Not signalled by the sleep's end.
    pub not_by_end: u64,
}

impl PacerTruth {
    /// A repair submission for a present to `swapchain` was made: the world's number `number`.
    pub fn repaired(&mut self, number: u64, swapchain: Gen) {
        self.repair_count += 1;
        self.repairs.push_back((number, swapchain));
        while self.repairs.len() > REPAIRS_KEPT {
            self.repairs.pop_front();
        }
    }

    /// Repair submissions for presents to swapchains `of` accepts not completed in `world`
    /// (its queue completes in order).
    pub fn repairs_pending(&self, world: &World, of: impl Fn(Gen) -> bool) -> usize {
        self.repairs
            .iter()
            .filter(|&&(n, g)| n > world.gpu_completed && of(g))
            .count()
    }

    /// The door made semaphore `s`.
    pub fn semaphore_made(&mut self, s: Sem) {
        self.semaphores.insert(s);
        self.max_semaphores = self.max_semaphores.max(self.semaphores.len());
    }
}
