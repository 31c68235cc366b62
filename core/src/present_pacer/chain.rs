//! A lineage of swapchains: one made without an `oldSwapchain` of the pacer's, and each made
//! from it since. The frames-in-flight gate, the pacing, present ids and telemetry continue
//! across a recreation, as door 1's do across its own.

use super::config::PacerConfig;
use crate::display::TimingQueue;
use crate::error::CoreError;
use crate::pacer::FramePacer;
use crate::pacing::Pacing;
use crate::present_ids::PresentIds;
use crate::serial::Serial;
use crate::telemetry::Telemetry;

/// One lineage's pacing state.
#[derive(Debug)]
pub(super) struct Chain<W> {
    pub(super) id: u64,
    /// Swapchains made in it so far (the newest one's generation).
    pub(super) generations: u64,
    /// The frames-in-flight gate: the repair serials of its recent presents.
    pub(super) pacer: FramePacer,
    pub(super) pacing: Pacing,
    pub(super) telemetry: Telemetry,
    pub(super) ids: PresentIds<W>,
    /// The frame begun (gate passed, pacing sleep over) and not yet presented.
    pub(super) started: Option<u64>,
    /// The frame the gate held back, counted once.
    pub(super) gated: bool,
    /// The newest present proven processed: its swapchain's generation, the serial proving
    /// it, and its number. Every present to an older swapchain of the lineage queued before it
    /// is then processed once that serial completes (the presentation engine processes
    /// presents in order); one queued after it is not.
    pub(super) proven: Option<Proven>,
    /// Present timing, where the shell set it up for the newest swapchain.
    pub(super) timing: Option<LineageTiming<W>>,
    /// The newest frame submitted whose ready time is not known yet, and its serial
    /// (`ready_watch.rs`).
    pub(super) ready_unknown: Option<(u64, Serial)>,
    /// The newest present asked the engine for stage times (its ready time will come with
    /// its results).
    pub(super) stage_times: bool,
}

impl<W: Copy + PartialEq> Chain<W> {
    pub(super) fn new(id: u64, config: &PacerConfig) -> Result<Self, CoreError> {
        Ok(Self {
            id,
            generations: 0,
            pacer: FramePacer::new(config.pacing.frames_in_flight)?,
            pacing: config.pacing.start(),
            telemetry: Telemetry::new(),
            ids: PresentIds::new(),
            started: None,
            gated: false,
            proven: None,
            timing: None,
            ready_unknown: None,
            stage_times: false,
        })
    }

    pub(super) fn set_frames_in_flight(&mut self, n: usize) -> Result<(), CoreError> {
        self.pacer.set_frames_in_flight(n)?;
        self.pacing.set_frames_in_flight(n);
        Ok(())
    }

    /// A new swapchain joined the lineage: the display's queue starts over, the retired one's
    /// presents are not asked about any more (`VUID-vkWaitForPresentKHR-swapchain-04997`), and
    /// its present timing (results queue, refresh) is the new swapchain's to set up.
    pub(super) fn swapchain_changed(&mut self, display_queues: bool) {
        self.pacing.swapchain_changed();
        if self.timing.take().is_some() {
            // Until the shell sets it up for the new swapchain (if it does): the frame limit
            // is the CPU limiter's again, not the targets'.
            self.pacing
                .set_display_refresh(crate::pacing::DisplayRefresh::Unreported);
        }
        self.pacing.set_display_queues(display_queues);
        self.pacing.display_restarted();
        self.ids.retired();
    }

    /// A frame begins now (the gate and the pacing let it).
    pub(super) fn start(&mut self, now: u64) {
        self.started = Some(self.pacing.begin_frame(&mut self.telemetry, now));
        self.gated = false;
    }

    /// The frame begun, or one begun now (a frame the gate was not asked about).
    pub(super) fn frame(&mut self, now: u64) -> u64 {
        let telemetry = &mut self.telemetry;
        *self.started.get_or_insert_with(|| telemetry.begin(now))
    }

    /// Whether this lineage learns its frames' ready times from its repair submissions: its
    /// pacing learns a lead from ready times, and its presents ask the engine for no stage
    /// times (`ready_watch.rs`).
    pub(super) fn wants_ready_times(&self) -> bool {
        self.pacing.wants_ready_times() && !self.stage_times
    }

    /// Every submission up to `serial` completed, seen at `now`.
    pub(super) fn completed(&mut self, serial: Serial, now: u64) {
        let pacing = &mut self.pacing;
        self.telemetry
            .completed(serial, now, |c| pacing.frames_complete(c.frame, now));
    }

    /// Present number `present`, to generation `generation`, is proven processed by
    /// `serial`. Proofs come in queue order, so a later one covers more: it replaces one of the
    /// same or an older generation.
    pub(super) fn proven_by(&mut self, generation: u64, serial: Serial, present: u64) {
        if self.proven.is_none_or(|p| p.generation <= generation) {
            self.proven = Some(Proven {
                generation,
                serial,
                present,
            });
        }
    }

    /// The serial proving a swapchain of generation `generation`, whose latest present was
    /// number `last_present`, idle, if any yet.
    pub(super) fn proof_for(&self, generation: u64, last_present: u64) -> Option<Serial> {
        self.proven
            .filter(|p| p.generation > generation && p.present > last_present)
            .map(|p| p.serial)
    }
}

/// A lineage's present timing: its newest swapchain's.
#[derive(Debug, Clone, Copy)]
pub(super) struct LineageTiming<W> {
    /// The swapchain whose presents carry timing.
    pub(super) swapchain: W,
    /// Its results queue.
    pub(super) queue: TimingQueue,
}

/// A present proven processed (see [`Chain::proven`]).
#[derive(Debug, Clone, Copy)]
pub(super) struct Proven {
    pub(super) generation: u64,
    pub(super) serial: Serial,
    pub(super) present: u64,
}
