//! How the simulated presentation engine reports present timing's times: in a time domain of
//! its own (`VK_EXT_present_timing`), not the world's clock. A swapchain offers
//! `CLOCK_MONOTONIC` (an offset from the world's time) or not, a swapchain-local domain with an
//! id and an offset of its own, and a stage-local one; it reports results in the domain it
//! reports in now, sometimes in `CLOCK_MONOTONIC` instead (the spec lets an engine fall back),
//! and occasionally in a domain nobody can calibrate. Its counters move: the refresh is read
//! again (sometimes changed), the swapchain-local domain is replaced (a new id and offset, the
//! old id gone: a calibration of it reads 0). The first refresh reads of a swapchain may answer
//! `VK_NOT_READY`. Everything reported is the world's truth shifted by the domain's offset, so
//! a shell that converts right gets the world's times back exactly.

use vkpace_core::{Reading, RefreshCycle, Stages, TimeDomain, TimingReport};

use crate::rng::Rng;

/// A domain nobody calibrates (`VK_TIME_DOMAIN_DEVICE_KHR`, which no swapchain lists).
pub const FOREIGN: (TimeDomain, u64) = (TimeDomain(0), 0);

/// What the engine's clocks do, in percent per event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClockFaults {
    /// The swapchain offers `CLOCK_MONOTONIC` (else only its local domains, which need a
    /// calibration).
    pub offers_monotonic: bool,
    /// `CLOCK_MONOTONIC` is the world's clock plus this (ns; 0 in the pacing model).
    pub monotonic_offset: u64,
    /// Refresh reads of a new swapchain that answer `VK_NOT_READY` first (0 to this many).
    pub max_not_ready: u32,
    /// Per read of results: the timing-properties counter moves (the refresh is the same or
    /// changed).
    pub p_refresh_change: u32,
    /// Per read of results: the swapchain-local domain is replaced.
    pub p_domain_change: u32,
    /// Per result: reported in `CLOCK_MONOTONIC` though another domain is in use.
    pub p_monotonic_result: u32,
    /// Per result: reported in a domain nobody can calibrate.
    pub p_foreign_result: u32,
}

/// One swapchain's clocks as its engine keeps them.
#[derive(Debug, Clone)]
pub struct EngineClock {
    pub faults: ClockFaults,
    /// The swapchain-local domain's id and its offset from the world's clock.
    local: (u64, u64),
    /// The stage-local domain's id (its offset is the swapchain-local one's).
    stage_local_id: u64,
    /// `timingPropertiesCounter`, `timeDomainsCounter`.
    pub counters: (u64, u64),
    /// Refresh reads still to answer `VK_NOT_READY`.
    not_ready: u32,
    /// The refresh reported, ns (the world's display refresh, or twice it after a change).
    pub refresh_ns: u64,
}

impl EngineClock {
    /// A new swapchain's clocks on a display of `refresh_ns`.
    pub fn new(faults: ClockFaults, refresh_ns: u64, rng: &mut Rng) -> Self {
        let offset = u64::from(rng.below(1_000_000)) * 1_000_003 + 1;
        Self {
            faults,
            local: (u64::from(rng.below(1000)) + 10, offset),
            stage_local_id: 5,
            counters: (1, 1),
            not_ready: rng.below(faults.max_not_ready + 1),
            refresh_ns,
        }
    }

    /// The offset of `domain` from the world's clock, if it is one this swapchain has now.
    pub fn offset(&self, (domain, id): (TimeDomain, u64)) -> Option<u64> {
        match domain {
            TimeDomain::CLOCK_MONOTONIC if self.faults.offers_monotonic => {
                Some(self.faults.monotonic_offset)
            }
            TimeDomain::SWAPCHAIN_LOCAL if id == self.local.0 => Some(self.local.1),
            TimeDomain::PRESENT_STAGE_LOCAL if id == self.stage_local_id => Some(self.local.1),
            _ => None,
        }
    }

    /// `vkGetSwapchainTimingPropertiesEXT`: the refresh cycle (None: `VK_NOT_READY`) and the
    /// counter.
    pub fn refresh(&mut self) -> (Option<RefreshCycle>, u64) {
        if self.not_ready > 0 {
            self.not_ready -= 1;
            return (None, self.counters.0);
        }
        let cycle = match self.refresh_ns {
            0 => RefreshCycle::Unknown,
            d => RefreshCycle::Fixed { duration_ns: d },
        };
        (Some(cycle), self.counters.0)
    }

    /// `vkGetSwapchainTimeDomainPropertiesEXT`: the domains and their ids, and the counter.
    pub fn domains(&self) -> (Vec<(TimeDomain, u64)>, u64) {
        let mut list = vec![
            (TimeDomain::PRESENT_STAGE_LOCAL, self.stage_local_id),
            (TimeDomain::SWAPCHAIN_LOCAL, self.local.0),
        ];
        if self.faults.offers_monotonic {
            list.push((TimeDomain::CLOCK_MONOTONIC, 0));
        }
        (list, self.counters.1)
    }

    /// `vkGetCalibratedTimestampsKHR` at world time `now`, read exactly (a bracket of 0): the
    /// host clock, `CLOCK_MONOTONIC`, and `domain` once per entry of `plan` (0 where the
    /// swapchain no longer has it: "implementations may report zero").
    pub fn calibrate(&self, domain: (TimeDomain, u64), plan: &[Stages], now: u64) -> Reading {
        let local = self.offset(domain).map_or(0, |o| now + o);
        let mut locals = [0; 4];
        let n = plan
            .len()
            .max(usize::from(domain.0 == TimeDomain::SWAPCHAIN_LOCAL));
        for l in locals.iter_mut().take(n) {
            *l = local;
        }
        Reading {
            mid_ns: now,
            bracket_ns: 0,
            monotonic: now + self.faults.monotonic_offset,
            locals,
        }
    }

    /// Before a read of results: the counters may move.
    pub fn before_read(&mut self, display_refresh_ns: u64, rng: &mut Rng) {
        if rng.chance(self.faults.p_refresh_change) {
            self.counters.0 += 1;
            self.refresh_ns = match rng.below(2) {
                0 => display_refresh_ns,
                _ => display_refresh_ns * 2,
            };
        }
        if rng.chance(self.faults.p_domain_change) {
            self.counters.1 += 1;
            self.local = (self.local.0 + 1, self.local.1 + 7_777_777);
        }
    }

    /// The domain the result of a present is reported in: the swapchain-local one (the engine's
    /// own), `CLOCK_MONOTONIC` where the swapchain offers it, sometimes another of these or a
    /// foreign one.
    pub fn report_domain(&self, rng: &mut Rng) -> (TimeDomain, u64) {
        if rng.chance(self.faults.p_foreign_result) {
            return FOREIGN;
        }
        let monotonic = (TimeDomain::CLOCK_MONOTONIC, 0);
        if self.faults.offers_monotonic || rng.chance(self.faults.p_monotonic_result) {
            return monotonic;
        }
        (TimeDomain::SWAPCHAIN_LOCAL, self.local.0)
    }

    /// `truth`'s stage times in `domain` (a foreign domain: any values, non-zero): what
    /// `vkGetPastPresentationTimingEXT` writes.
    pub fn raw(&self, truth: &TimingReport, domain: (TimeDomain, u64)) -> Vec<(Stages, u64)> {
        let offset = match domain.0 {
            TimeDomain::CLOCK_MONOTONIC => Some(self.faults.monotonic_offset),
            _ => self.offset(domain),
        };
        let s = truth.stages;
        let times = [
            s.queue_operations_end,
            s.request_dequeued,
            s.first_pixel_out,
            s.first_pixel_visible,
        ];
        Stages::ALL
            .iter()
            .zip(times)
            .filter_map(|(stage, t)| t.map(|t| (*stage, t + offset.unwrap_or(123_456_789))))
            .collect()
    }
}
