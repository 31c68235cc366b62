//! Present timing in the sim's shell, as the Vulkan shell does it (`layer/vk/display/
//! swapchain_timing.rs`, `timing_shell.rs`): one `TimingBook` per swapchain, which decides
//! what to read again and converts each result; the shell reads the engine's refresh, domains,
//! calibrations and raw results ([`EngineClock`]) and hands the book's answers to the machine.
//! Unlike the Vulkan shell it also knows the truth, and checks what the book made of it: every
//! stage time converted is the world's, and a result loses its times only where it came in a
//! domain nobody can map (counted; never silently).

use vkpace_core::{
    calibration_from, calibration_plan, choose_domain, Calibrateable, DisplayRefresh,
    PresentTarget, RawTiming, Rereads, Stages, Targets, TimeDomain, TimingBook, TimingReport,
};

use crate::driver::SimError;
use crate::rng::Rng;
use crate::world::{ClockFaults, EngineClock, Gen, FOREIGN};

/// Every stage: the world's display reports ready and first-pixel times, and a surface
/// reporting all four is what the book is made for.
const STAGES: Stages = Stages(0xF);

/// What the shell saw of present timing's bookkeeping over a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimingCounts {
    /// Results read and handed to the machine.
    pub results: u64,
    /// Stage times converted and found equal to the world's.
    pub times_checked: u64,
    /// Results that came in a domain nobody can map (their times dropped).
    pub unmapped: u64,
    /// Results whose times came through `CLOCK_MONOTONIC`'s or a calibrated local domain.
    pub via_monotonic: u64,
    pub via_local: u64,
    /// Refresh reads answered `VK_NOT_READY`; domain re-reads and calibrations.
    pub refresh_not_ready: u64,
    pub calibrations: u64,
}

/// The live swapchain's present timing.
#[derive(Debug, Clone)]
pub struct SimTiming {
    /// How presents aim at a time (the core's `choose_paths`).
    pub targets: Targets,
    pub faults: ClockFaults,
    live: Option<(Gen, EngineClock, TimingBook)>,
    pub counts: TimingCounts,
    /// The engine's own random stream (the world's stays as it was without present timing).
    rng: Rng,
}

impl SimTiming {
    pub fn new(targets: Targets, faults: ClockFaults, seed: u64) -> Self {
        Self {
            targets,
            faults,
            live: None,
            counts: TimingCounts::default(),
            rng: Rng::new(seed ^ 0x7141_3e5b_0000_0001),
        }
    }

    /// A swapchain `g` was made at `now` on a display of `refresh_ns`: its book, its first
    /// reads; returns what the machine is told of its refresh.
    pub fn created(&mut self, g: Gen, refresh_ns: u64, now: u64) -> Result<DisplayRefresh, String> {
        let clock = EngineClock::new(self.faults, refresh_ns, &mut self.rng);
        let book = TimingBook::new(STAGES);
        self.live = Some((g, clock, book));
        let both = Rereads {
            refresh: true,
            domains: true,
        };
        self.reread(both, now)?;
        Ok(self.display_timing())
    }

    /// What the machine is told of the live swapchain's refresh.
    fn display_timing(&self) -> DisplayRefresh {
        let Some((_, _, book)) = self.live.as_ref() else {
            return DisplayRefresh::Unreported;
        };
        self.targets.display_refresh(book.refresh())
    }

    /// Reads again what the book asked for (as `SwapchainTiming::reread`).
    fn reread(&mut self, what: Rereads, now: u64) -> Result<(), String> {
        let Some((_, clock, book)) = self.live.as_mut() else {
            return Ok(());
        };
        if what.refresh {
            let (refresh, counter) = clock.refresh();
            self.counts.refresh_not_ready += u64::from(refresh.is_none());
            book.refresh_read(refresh, counter);
        }
        if what.domains {
            let (list, counter) = clock.domains();
            let calibrateable = Calibrateable {
                host: true,
                swapchain_local: true,
                stage_local: true,
            };
            let chosen = choose_domain(&list, calibrateable)
                .ok_or_else(|| format!("no domain chosen from {list:?}"))?;
            let (plan, n) = calibration_plan(chosen.0, STAGES);
            let reading = clock.calibrate(chosen, &plan[..n], now);
            book.calibrated(calibration_from(chosen, &plan[..n], &reading), counter);
            self.counts.calibrations += 1;
        }
        Ok(())
    }

    /// A swapchain was destroyed: its timing is forgotten if it was the live one.
    pub fn destroyed(&mut self, g: Gen) {
        if self.live.as_ref().is_some_and(|(h, ..)| *h == g) {
            self.live = None;
        }
    }

    /// Reads `g`'s results at `now` (nothing unless it is the live swapchain): `truths` are the
    /// world's results; each goes to the engine's domain and back through the book and is
    /// checked against the truth. Returns the reports for the machine and, if the refresh the
    /// machine is told of changed, the new one.
    #[allow(clippy::type_complexity)] // (reports, refresh change): said in the doc.
    pub fn read(
        &mut self,
        g: Gen,
        truths: &[TimingReport],
        display_refresh_ns: u64,
        now: u64,
    ) -> Result<(Vec<TimingReport>, Option<DisplayRefresh>), String> {
        if !self.is_live(g) {
            return Ok((Vec::new(), None));
        }
        let before = self.display_timing();
        let what = match self.live.as_mut() {
            Some((_, clock, book)) => {
                clock.before_read(display_refresh_ns, &mut self.rng);
                book.counters_seen(clock.counters.0, clock.counters.1)
            }
            None => Rereads::default(),
        };
        // The domains before the batch is converted (it may be in the new domain already).
        self.reread(what, now)?;
        let mut out = Vec::with_capacity(truths.len());
        for truth in truths {
            out.push(self.convert(truth)?);
        }
        let what = match self.live.as_ref() {
            Some((_, _, book)) => book.after_read(now),
            None => Rereads::default(),
        };
        self.reread(what, now)?;
        let after = self.display_timing();
        Ok((out, (after != before).then_some(after)))
    }

    /// One result through the engine's domain and the book, checked against the truth.
    fn convert(&mut self, truth: &TimingReport) -> Result<TimingReport, String> {
        let Some((_, clock, book)) = self.live.as_mut() else {
            return Err("a result without a live swapchain".into());
        };
        let domain = clock.report_domain(&mut self.rng);
        let stages = clock.raw(truth, domain);
        let raw = RawTiming {
            present_id: truth.present_id,
            domain,
            complete: truth.complete,
            stages: &stages,
        };
        let report = book.convert(&raw);
        self.counts.results += 1;
        let (got, want) = (report.stages, truth.stages);
        if (report.present_id, report.complete) != (truth.present_id, truth.complete) {
            return Err(format!("result {truth:?} converted to {report:?}"));
        }
        let pairs = [
            (got.queue_operations_end, want.queue_operations_end),
            (got.request_dequeued, want.request_dequeued),
            (got.first_pixel_out, want.first_pixel_out),
            (got.first_pixel_visible, want.first_pixel_visible),
        ];
        if domain == FOREIGN {
            // Nobody can map it: its times are dropped, and counted here.
            if pairs.iter().any(|(g, _)| g.is_some()) {
                return Err(format!(
                    "a result in a foreign domain converted to times: {report:?}"
                ));
            }
            self.counts.unmapped += 1;
            return Ok(report);
        }
        for (g, w) in pairs {
            if g != w.filter(|&t| t > 0) {
                return Err(format!(
                    "a result in {domain:?} (book on {:?}) converted to {report:?}, the world's is {truth:?}",
                    book.domain()
                ));
            }
            self.counts.times_checked += u64::from(g.is_some());
        }
        match domain.0 {
            TimeDomain::CLOCK_MONOTONIC => self.counts.via_monotonic += 1,
            _ => self.counts.via_local += 1,
        }
        Ok(report)
    }

    /// Whether `g` is the live swapchain (the one whose results are read).
    pub fn is_live(&self, g: Gen) -> bool {
        self.live.as_ref().is_some_and(|(h, ..)| *h == g)
    }

    /// An absolute target (the machine's clock, which is the world's) in the book's domain
    /// (`TimingBook::target_time`, as the Vulkan shell gives it) and back on the world's clock:
    /// what the engine makes of it. None: not calibrated, or the domain is gone.
    pub fn target_round_trip(&self, t: u64) -> Option<u64> {
        let (_, clock, book) = self.live.as_ref()?;
        let raw = book.target_time(t)?;
        let offset = clock.offset(book.domain())?;
        raw.checked_sub(offset)
    }

    /// What the engine makes of the machine's target: an absolute one goes to the book's
    /// domain (`TimingBook::target_time`, as the Vulkan shell gives it) and the engine maps it
    /// back; it must come back as the time the machine asked for.
    pub fn engine_target(&self, target: PresentTarget) -> Result<PresentTarget, SimError> {
        let PresentTarget::Absolute(t) = target else {
            return Ok(target);
        };
        match self.target_round_trip(t) {
            Some(back) if back == t => Ok(target),
            other => Err(SimError::Broken(format!(
                "absolute target {t} reached the engine as {other:?}"
            ))),
        }
    }
}
