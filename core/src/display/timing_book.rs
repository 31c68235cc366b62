//! What vkpace knows of one swapchain's present timing, and what the shell must read again:
//! the refresh cycle and the time domain's calibration, which `VK_EXT_present_timing` says
//! can change ("timingPropertiesCounter" and "timeDomainsCounter" move when they do), and the
//! conversion of each result's stage times to the shell's clock. The shell reads and calibrates
//! (`vk/display/swapchain_timing`); [`TimingBook`] decides when, and converts.

use super::domains::{recalibration_due, shift, stage_index, target_stage, Calibration};
use super::{RefreshCycle, Stages, TimeDomain};
use crate::{PresentStages, TimingReport};

/// One result of `vkGetPastPresentationTimingEXT` as the engine gave it: stage times in the
/// result's own time domain.
#[derive(Copy, Clone, Debug)]
pub struct RawTiming<'a> {
    /// `presentId` (`VkPresentId2KHR`), or 0.
    pub present_id: u64,
    /// `timeDomain` and `timeDomainId` of the stage times.
    pub domain: (TimeDomain, u64),
    /// `reportComplete`.
    pub complete: bool,
    /// `(stage, time)` per reported stage; a time of 0 is not available.
    pub stages: &'a [(Stages, u64)],
}

/// What the shell reads again before going on.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct Rereads {
    /// The refresh cycle (`vkGetSwapchainTimingPropertiesEXT`).
    pub refresh: bool,
    /// The domain list, then a new calibration (`vkGetSwapchainTimeDomainPropertiesEXT`,
    /// `vkGetCalibratedTimestampsKHR`).
    pub domains: bool,
}

/// Present timing's state for one swapchain handle.
#[derive(Clone, Debug)]
pub struct TimingBook {
    /// The stage an absolute target is given in, for a stage-local domain.
    target_stage: Stages,
    /// The chosen domain and its mapping to the shell clock.
    cal: Calibration,
    /// The refresh cycle last read.
    refresh: RefreshCycle,
    /// `refreshDuration` and `refreshInterval` as last read (`None`: not read, or not ready).
    reported: Option<(u64, u64)>,
    /// Results with a stage time in a domain that has no calibration here (dropped).
    unmapped: u64,
    /// The last refresh read returned `VK_NOT_READY`: read it again after presents.
    refresh_pending: bool,
    /// `timingPropertiesCounter` the refresh was read at.
    timing_counter: u64,
    /// `timeDomainsCounter` the domain was chosen at.
    domains_counter: u64,
    /// A result came in a domain with no calibration, or a calibration read 0: re-read.
    domains_stale: bool,
}

impl TimingBook {
    /// A swapchain whose presents ask for `stages`, with no calibration yet (every time
    /// converts to `None` until [`TimingBook::calibrated`]).
    #[must_use]
    pub fn new(stages: Stages) -> Self {
        Self {
            target_stage: target_stage(stages),
            cal: Calibration {
                domain: TimeDomain::CLOCK_MONOTONIC,
                domain_id: 0,
                stage_offsets: [None; 4],
                monotonic_offset: 0,
                at_ns: 0,
            },
            refresh: RefreshCycle::Unknown,
            reported: None,
            unmapped: 0,
            refresh_pending: true,
            timing_counter: 0,
            domains_counter: 0,
            domains_stale: true,
        }
    }

    /// The refresh cycle last read.
    #[must_use]
    pub fn refresh(&self) -> RefreshCycle {
        self.refresh
    }

    /// `refreshDuration` and `refreshInterval` as last read, before classification (`None`
    /// until read, and while the engine cannot tell).
    #[must_use]
    pub fn refresh_reported(&self) -> Option<(u64, u64)> {
        self.reported
    }

    /// Results so far whose stage times were in a domain with no calibration here, so that
    /// they were dropped (each such result also says so: [`TimingReport::unmapped`]).
    #[must_use]
    pub fn unmapped(&self) -> u64 {
        self.unmapped
    }

    /// The domain in use and its id.
    #[must_use]
    pub fn domain(&self) -> (TimeDomain, u64) {
        (self.cal.domain, self.cal.domain_id)
    }

    /// The stage absolute targets are given in where the domain is stage-local
    /// (VUID-VkPresentTimingInfoEXT-timeDomainId-12238: one stage); `None` elsewhere.
    #[must_use]
    pub fn target_stage_local(&self) -> Option<Stages> {
        (self.cal.domain == TimeDomain::PRESENT_STAGE_LOCAL).then_some(self.target_stage)
    }

    /// The refresh was read at `counter`: `refreshDuration` and `refreshInterval` as the engine
    /// reported them, or `None` for `VK_NOT_READY` ("not able to determine the current refresh
    /// cycle duration"), read again after the next results. Classified by
    /// `RefreshCycle::classify`; the values are kept for reports
    /// ([`Self::refresh_reported`]).
    pub fn reported_refresh_read(&mut self, reported: Option<(u64, u64)>, counter: u64) {
        let cycle = reported.map(|(d, i)| RefreshCycle::classify(d, i));
        self.refresh_read(cycle, counter);
        self.reported = reported;
    }

    /// The refresh was read at `counter`, already classified: `None` for `VK_NOT_READY`, read
    /// again after the next results. (No reported values are kept: see
    /// [`Self::reported_refresh_read`].)
    pub fn refresh_read(&mut self, refresh: Option<RefreshCycle>, counter: u64) {
        self.refresh_pending = refresh.is_none();
        self.refresh = refresh.unwrap_or(RefreshCycle::Unknown);
        self.reported = None;
        self.timing_counter = counter;
    }

    /// A domain was chosen at `counter` and calibrated. A calibration with no stage mapped (the
    /// domain was gone when read) is stale: tried again when recalibration is due.
    pub fn calibrated(&mut self, cal: Calibration, counter: u64) {
        self.domains_stale = cal.stage_offsets.iter().all(Option::is_none);
        self.cal = cal;
        self.domains_counter = counter;
    }

    /// A results read reported the engine's counters: what changed is read again, the domains
    /// before the batch is converted (it may already be in the new domain).
    pub fn counters_seen(&self, timing_counter: u64, domains_counter: u64) -> Rereads {
        Rereads {
            refresh: timing_counter != self.timing_counter,
            domains: domains_counter != self.domains_counter,
        }
    }

    /// After the results are read, at `now`: a refresh that was not ready is read again; a
    /// stale domain or one that drifts against `CLOCK_MONOTONIC` is calibrated again when the
    /// core's rule says a clock is due (every second, `recalibration_due`; the spec expects applications
    /// "to re-calibrate the timestamps on a regular basis"). A stale domain is retried at that
    /// pace, not every frame: a counter change re-reads at once ([`Self::counters_seen`]).
    pub fn after_read(&self, now: u64) -> Rereads {
        let due = recalibration_due(Some(self.cal.at_ns), now);
        let drifts = self.cal.domain != TimeDomain::CLOCK_MONOTONIC;
        Rereads {
            refresh: self.refresh_pending,
            domains: due && (self.domains_stale || drifts),
        }
    }

    /// One result on the shell's clock. Stage times are in the result's own domain, which the
    /// engine may switch to when the one asked for could not be used: times in the chosen
    /// domain use its calibration, times in `CLOCK_MONOTONIC` the host mapping; any other
    /// domain has no calibration here, so its times are dropped, the result is counted as
    /// unmapped ([`Self::unmapped`]), and the domains are marked stale (read again when due).
    /// So is a time in the chosen domain whose calibration read nothing for its stage.
    pub fn convert(&mut self, raw: &RawTiming<'_>) -> TimingReport {
        let same = raw.domain == (self.cal.domain, self.cal.domain_id);
        let host = raw.domain.0 == TimeDomain::CLOCK_MONOTONIC;
        let mut times = [None; 4];
        let mut lost = false;
        for &(stage, time) in raw.stages {
            let Some(i) = stage_index(stage) else {
                continue;
            };
            let offset = match (same, host) {
                (true, _) => self.cal.stage_offsets[i],
                (false, true) => Some(self.cal.monotonic_offset),
                (false, false) => None,
            };
            lost |= time != 0 && offset.is_none();
            times[i] = offset.and_then(|o| shift(time, o));
        }
        self.domains_stale |= !same && !host;
        self.unmapped += u64::from(lost);
        let [queue_end, dequeued, out, visible] = times;
        let stages = PresentStages::new(queue_end, dequeued, out, visible);
        let mut report = TimingReport::new(raw.present_id, stages, raw.complete);
        report.unmapped = lost;
        report
    }

    /// A shell-clock time in the domain absolute targets are given in (for a stage-local
    /// domain, the target stage's), at least 1 (0 would mean no target; a time before the
    /// domain's zero is in the past: as soon as possible); `None` if it is not calibrated.
    #[must_use]
    pub fn target_time(&self, shell_ns: u64) -> Option<u64> {
        let offset = stage_index(self.target_stage).and_then(|i| self.cal.stage_offsets[i])?;
        let t = (i128::from(shell_ns) - offset).clamp(1, i128::from(u64::MAX));
        u64::try_from(t).ok()
    }
}

#[cfg(test)]
mod tests;
