//! Present timing per swapchain: [`SwapchainTiming`] sizes the results queue, keeps the
//! refresh cycle ([`RefreshCycle`]) and the time domain's calibration up to date, builds each
//! present's `VkPresentTimingInfoEXT` ([`PresentTarget`]) and reads results
//! ([`TimingResult`]). Everything here belongs to one swapchain handle.

use std::sync::atomic::{AtomicBool, Ordering};

use ash::vk;

use super::present_timing::{PresentTimingFns, READ_BATCH};
use super::timing_domains::{calibrate, read_domains};
use crate::core::{
    recalibration_due, shift, stage_index, target_stage, Calibrateable, Calibration, RefreshCycle,
    Stages, TimeDomain,
};
use crate::vk::clock::Clock;
use crate::vk::error::{Error, Result};
use crate::vk::registry::{
    PastPresentationTimingEXT, PastPresentationTimingFlagsEXT, PastPresentationTimingInfoEXT,
    PastPresentationTimingPropertiesEXT, PresentStageFlagsEXT, PresentStageTimeEXT,
    PresentTimingInfoEXT, PresentTimingInfoFlagsEXT, SwapchainTimingPropertiesEXT,
};

/// One result of `vkGetPastPresentationTimingEXT`, times in nanoseconds since
/// [`crate::SwapchainInfo::telemetry_epoch`] (`None` where the stage has no time: not asked for,
/// never reached, e.g. an image
/// replaced in the queue, or reported in a time domain this object has no calibration for).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TimingResult {
    /// The present's id (`VkPresentId2KHR`), or 0.
    pub present_id: u64,
    /// The present's absolute target on the shell clock; `None` without a target, or once
    /// this swapchain was given a relative target (the result does not say whether its
    /// `targetTime` is a time or a duration).
    pub target_ns: Option<u64>,
    /// `QUEUE_OPERATIONS_END`: the present's semaphore waits finished.
    pub queue_operations_end: Option<u64>,
    /// `REQUEST_DEQUEUED`: the request left the swapchain's present queue.
    pub request_dequeued: Option<u64>,
    /// `IMAGE_FIRST_PIXEL_OUT`: the first pixel left the presentation engine.
    pub first_pixel_out: Option<u64>,
    /// `IMAGE_FIRST_PIXEL_VISIBLE`: the display showed the first pixel.
    pub first_pixel_visible: Option<u64>,
    /// `reportComplete`: every stage asked for was reported.
    pub complete: bool,
}

/// The target of one present (`VkPresentTimingInfoEXT::targetTime`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum PresentTarget {
    /// No target: shown as the present mode dictates.
    None,
    /// Not visible before this shell-clock time (ns since the [`Clock`] epoch).
    Absolute(u64),
    /// Shown at least this many ns after the previous present became visible.
    Relative(u64),
}

/// Converts one result. Stage times are in the result's own `timeDomain`/`timeDomainId`, which
/// the engine may switch to when the one asked for could not be used: times in the chosen
/// domain use its calibration, times in `CLOCK_MONOTONIC` the host mapping; any other domain
/// has no calibration here, so its times are dropped (`None`) and the second value is true
/// (re-read the domains). `target_offset`: the offset of absolute targets (they were given in
/// the chosen domain, for a stage-local one in the target stage's), `None` if `targetTime`
/// cannot be read as a time.
fn convert(
    entry: &PastPresentationTimingEXT<'_>,
    stages: &[PresentStageTimeEXT],
    cal: &Calibration,
    target_offset: Option<i128>,
) -> (TimingResult, bool) {
    let domain = TimeDomain(entry.time_domain.as_raw());
    let same = domain == cal.domain && entry.time_domain_id == cal.domain_id;
    let host = domain == TimeDomain::CLOCK_MONOTONIC;
    let mut out = TimingResult {
        present_id: entry.present_id,
        target_ns: target_offset.and_then(|o| shift(entry.target_time, o)),
        complete: entry.report_complete == vk::TRUE,
        ..TimingResult::default()
    };
    for st in stages {
        let Some(i) = stage_index(Stages(st.stage.0)) else {
            continue;
        };
        let offset = if same {
            cal.stage_offsets[i]
        } else if host {
            Some(cal.monotonic_offset)
        } else {
            None
        };
        let time = offset.and_then(|o| shift(st.time, o));
        match i {
            0 => out.queue_operations_end = time,
            1 => out.request_dequeued = time,
            2 => out.first_pixel_out = time,
            _ => out.first_pixel_visible = time,
        }
    }
    (out, !same && !host)
}

/// Per-swapchain present timing state. Created once per swapchain handle (the results queue,
/// the domains and their ids belong to it).
pub(crate) struct SwapchainTiming {
    /// The stages each present asks for (the surface's, among the four known).
    /// The domains the device can calibrate (only those are chosen).
    calibrateable: Calibrateable,
    stages: PresentStageFlagsEXT,
    /// The stage an absolute target is given in, for a stage-local domain.
    target_stage: Stages,
    /// The chosen domain and its mapping to the shell clock.
    cal: Calibration,
    /// The refresh cycle last read.
    refresh: RefreshCycle,
    /// The last refresh read returned `VK_NOT_READY`: ask again after presents.
    refresh_pending: bool,
    /// `timingPropertiesCounter` the refresh was read at.
    timing_counter: u64,
    /// `timeDomainsCounter` the domain was chosen at.
    domains_counter: u64,
    /// A result came in a domain with no calibration, or a calibration read 0: re-read.
    domains_stale: bool,
    /// A relative target was handed out: `targetTime` of results is no longer a time.
    relative_used: AtomicBool,
    /// Rounds of [`READ_BATCH`] a read may take to drain the queue.
    max_rounds: usize,
}

impl SwapchainTiming {
    /// Sets up timing of a swapchain just created with `PRESENT_TIMING_EXT`: sizes its results
    /// queue to `queue_size` (a present asking for stages with no free slot fails with
    /// `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`), reads the refresh cycle, picks a time domain
    /// ([`choose_domain`]) and calibrates it. `stages`: the surface's
    /// [`PresentTimingSurfaceSupport::stages`]; only those are asked for.
    ///
    /// # Safety
    ///
    /// `fns` were loaded from `device`; `swapchain` is a valid, non-retired swapchain of it
    /// created with `VK_SWAPCHAIN_CREATE_PRESENT_TIMING_BIT_EXT`
    /// (VUID-vkSetSwapchainPresentTimingQueueSizeEXT-swapchain-12229) and the `presentTiming`
    /// feature enabled; the physical device lists `CLOCK_MONOTONIC` as calibrateable
    /// ([`PresentTimingSupport::host_clock_calibrateable`], VUID-02354).
    ///
    /// [`choose_domain`]: crate::core::choose_domain
    /// [`PresentTimingSurfaceSupport::stages`]: crate::vk::PresentTimingSurfaceSupport::stages
    /// [`PresentTimingSupport::host_clock_calibrateable`]:
    ///     crate::vk::PresentTimingSupport::host_clock_calibrateable
    pub(crate) unsafe fn new(
        fns: &PresentTimingFns,
        device: vk::Device,
        swapchain: vk::SwapchainKHR,
        queue_size: u32,
        stages: PresentStageFlagsEXT,
        calibrateable: Calibrateable,
        clock: &Clock,
    ) -> Result<Self> {
        // SAFETY: caller contract.
        let r = unsafe { (fns.set_queue_size)(device, swapchain, queue_size) };
        if r != vk::Result::SUCCESS {
            return Err(Error::vk("vkSetSwapchainPresentTimingQueueSizeEXT", r));
        }
        let stages = stages & PresentStageFlagsEXT(0xF);
        // SAFETY: caller contract.
        let (refresh, timing_counter) = unsafe { read_refresh(fns, device, swapchain) }?;
        let mut timing = Self {
            calibrateable,
            stages,
            target_stage: target_stage(Stages(stages.0)),
            cal: Calibration {
                domain: TimeDomain::CLOCK_MONOTONIC,
                domain_id: 0,
                stage_offsets: [None; 4],
                monotonic_offset: 0,
                at_ns: 0,
            },
            refresh: refresh.unwrap_or(RefreshCycle::Unknown),
            refresh_pending: refresh.is_none(),
            timing_counter,
            domains_counter: 0,
            domains_stale: false,
            relative_used: AtomicBool::new(false),
            max_rounds: queue_size as usize / READ_BATCH + 2,
        };
        // SAFETY: caller contract.
        unsafe { timing.choose_and_calibrate(fns, device, swapchain, clock) }?;
        Ok(timing)
    }

    /// The refresh cycle last read.
    pub(crate) fn refresh(&self) -> RefreshCycle {
        self.refresh
    }

    /// The chosen time domain and its id.
    pub(crate) fn time_domain(&self) -> (vk::TimeDomainKHR, u64) {
        (
            vk::TimeDomainKHR::from_raw(self.cal.domain.0),
            self.cal.domain_id,
        )
    }

    /// A shell-clock time (ns since the [`Clock`] epoch) in the chosen domain (for a stage-local
    /// domain, the target stage's), saturating at 0 and `u64::MAX`; `None` if the domain is not
    /// calibrated.
    fn domain_time(&self, shell_ns: u64) -> Option<u64> {
        let offset = self.target_offset()?;
        let t = (i128::from(shell_ns) - offset).clamp(0, i128::from(u64::MAX));
        u64::try_from(t).ok()
    }

    /// The offset of the domain targets are given in.
    fn target_offset(&self) -> Option<i128> {
        stage_index(self.target_stage).and_then(|i| self.cal.stage_offsets[i])
    }

    /// Re-reads the domain list, picks one and calibrates it.
    ///
    /// # Safety
    ///
    /// As [`Self::new`].
    unsafe fn choose_and_calibrate(
        &mut self,
        fns: &PresentTimingFns,
        device: vk::Device,
        swapchain: vk::SwapchainKHR,
        clock: &Clock,
    ) -> Result<()> {
        // SAFETY: caller contract.
        let (chosen, counter) =
            unsafe { read_domains(fns, device, swapchain, self.calibrateable) }?;
        let Some(chosen) = chosen else {
            return Err(Error::InvalidConfig(
                "present timing: the swapchain offers none of CLOCK_MONOTONIC, SWAPCHAIN_LOCAL and PRESENT_STAGE_LOCAL",
            ));
        };
        self.domains_counter = counter;
        // SAFETY: caller contract; the domain and id were just reported for `swapchain`.
        self.cal = unsafe { calibrate(fns, device, swapchain, chosen, self.stages, clock) }?;
        self.domains_stale = self.cal.stage_offsets.iter().all(Option::is_none);
        Ok(())
    }

    /// Reads the results available, without blocking, and hands each to `sink`; results come
    /// possibly out of present order (`ALLOW_OUT_OF_ORDER_RESULTS`; each carries its present
    /// id) and possibly partial (`ALLOW_PARTIAL_RESULTS`: a present whose queue operations
    /// ended and that is not shown yet, so vkpace learns when a frame was ready before it gives
    /// the next one its target; such a result is read again once complete). Re-reads the refresh cycle
    /// and the domains when the engine's counters moved, and recalibrates a swapchain-local
    /// domain once a second. Returns whether the refresh cycle changed.
    ///
    /// # Safety
    ///
    /// As [`Self::new`], with the swapchain this object was made for, not destroyed. (Retired
    /// is not excluded by the commands' valid usage; whether an engine still reports for a
    /// retired swapchain is not promised.)
    pub(crate) unsafe fn read(
        &mut self,
        fns: &PresentTimingFns,
        device: vk::Device,
        swapchain: vk::SwapchainKHR,
        clock: &Clock,
        mut sink: impl FnMut(TimingResult),
    ) -> Result<bool> {
        let before = self.refresh;
        for _ in 0..self.max_rounds {
            // SAFETY: caller contract.
            let more = unsafe { self.read_round(fns, device, swapchain, clock, &mut sink) }?;
            if !more {
                break;
            }
        }
        if self.refresh_pending {
            // SAFETY: caller contract.
            unsafe { self.reread_refresh(fns, device, swapchain) }?;
        }
        // A stale domain is retried at the same pace, not every frame: a counter change (the
        // spec's signal that the domains changed) re-reads at once in `read_round`.
        // Swapchain-local domains drift against `CLOCK_MONOTONIC`; the spec expects
        // applications "to re-calibrate the timestamps on a regular basis": the core's rule,
        // the GPU clock's too.
        let due = recalibration_due(Some(self.cal.at_ns), clock.now_ns());
        if due && (self.domains_stale || self.cal.domain != TimeDomain::CLOCK_MONOTONIC) {
            // SAFETY: caller contract.
            unsafe { self.choose_and_calibrate(fns, device, swapchain, clock) }?;
        }
        Ok(self.refresh != before)
    }

    /// Re-reads the refresh cycle.
    ///
    /// # Safety
    ///
    /// As [`Self::new`].
    unsafe fn reread_refresh(
        &mut self,
        fns: &PresentTimingFns,
        device: vk::Device,
        swapchain: vk::SwapchainKHR,
    ) -> Result<()> {
        // SAFETY: caller contract.
        let (refresh, counter) = unsafe { read_refresh(fns, device, swapchain) }?;
        self.refresh_pending = refresh.is_none();
        self.refresh = refresh.unwrap_or(RefreshCycle::Unknown);
        self.timing_counter = counter;
        Ok(())
    }

    /// One `vkGetPastPresentationTimingEXT` call into stack buffers; true if more results
    /// wait (`VK_INCOMPLETE`).
    ///
    /// # Safety
    ///
    /// As [`Self::read`].
    unsafe fn read_round(
        &mut self,
        fns: &PresentTimingFns,
        device: vk::Device,
        swapchain: vk::SwapchainKHR,
        clock: &Clock,
        sink: &mut impl FnMut(TimingResult),
    ) -> Result<bool> {
        let mut stage_times = [[PresentStageTimeEXT::default(); 4]; READ_BATCH];
        let mut timings = [PastPresentationTimingEXT::default(); READ_BATCH];
        for (t, s) in timings.iter_mut().zip(stage_times.iter_mut()) {
            // Four slots: at least the stages of any present (VUID-...-flags-12230).
            t.present_stage_count = 4;
            t.p_present_stages = s.as_mut_ptr();
        }
        let info = PastPresentationTimingInfoEXT {
            flags: PastPresentationTimingFlagsEXT::ALLOW_OUT_OF_ORDER_RESULTS
                | PastPresentationTimingFlagsEXT::ALLOW_PARTIAL_RESULTS,
            swapchain,
            ..Default::default()
        };
        let mut props = PastPresentationTimingPropertiesEXT {
            presentation_timing_count: READ_BATCH as u32,
            p_presentation_timings: timings.as_mut_ptr(),
            ..Default::default()
        };
        // SAFETY: caller contract; `timings` holds READ_BATCH entries, each pointing at its
        // own four stage slots, all living past the call.
        let r = unsafe { (fns.past_presentation_timing)(device, &info, &mut props) };
        if r == vk::Result::ERROR_OUT_OF_DATE_KHR || r == vk::Result::ERROR_SURFACE_LOST_KHR {
            // The swapchain reports no more results (vk.xml lists both codes for the
            // command). Not an error of the frame: the acquire or present that follows meets
            // the same state and recreates, as with present_wait's OUT_OF_DATE.
            return Ok(false);
        }
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            return Err(Error::vk("vkGetPastPresentationTimingEXT", r));
        }
        if props.timing_properties_counter != self.timing_counter {
            // SAFETY: caller contract.
            unsafe { self.reread_refresh(fns, device, swapchain) }?;
        }
        if props.time_domains_counter != self.domains_counter {
            // Before converting: the batch may already be in the new domain.
            // SAFETY: caller contract.
            unsafe { self.choose_and_calibrate(fns, device, swapchain, clock) }?;
        }
        let target_offset = self
            .target_offset()
            .filter(|_| !self.relative_used.load(Ordering::Relaxed));
        let n = (props.presentation_timing_count as usize).min(READ_BATCH);
        for (t, s) in timings.iter().zip(stage_times.iter()).take(n) {
            let count = (t.present_stage_count as usize).min(4);
            let (result, foreign) = convert(t, &s[..count], &self.cal, target_offset);
            self.domains_stale |= foreign;
            sink(result);
        }
        Ok(r == vk::Result::INCOMPLETE)
    }

    /// The `VkPresentTimingInfoEXT` of one present to this swapchain (chain it through
    /// `VkPresentTimingsInfoEXT`). A target sets `PRESENT_AT_NEAREST_REFRESH_CYCLE`: "It is
    /// recommended that when targeting the time of a vertical blanking period, applications
    /// set VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT". `query`: ask for
    /// [`Self::stages`] (takes a results-queue slot until read); without it no slot is used.
    ///
    /// The caller keeps the present's rules: an absolute target needs the
    /// `presentAtAbsoluteTime` feature and surface support
    /// (VUID-VkPresentTimingInfoEXT-targetTime-12236), a relative one `presentAtRelativeTime`
    /// (VUID-VkPresentTimingInfoEXT-targetTime-12237), any target a FIFO present mode
    /// (VUID-VkPresentTimingsInfoEXT-pSwapchains-12235), and a query needs a free results-queue
    /// slot or the present fails with `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`.
    pub(crate) fn present_info(
        &self,
        target: PresentTarget,
        query: bool,
    ) -> PresentTimingInfoEXT<'static> {
        let (target_time, mut flags) = match target {
            PresentTarget::None => (0, PresentTimingInfoFlagsEXT::empty()),
            // A time before the domain's zero is in the past: 1, as soon as possible (0 would
            // mean no target). Uncalibrated: no target.
            PresentTarget::Absolute(ns) => (
                self.domain_time(ns).map_or(0, |t| t.max(1)),
                PresentTimingInfoFlagsEXT::empty(),
            ),
            PresentTarget::Relative(ns) => {
                if ns != 0 {
                    self.relative_used.store(true, Ordering::Relaxed);
                }
                (ns, PresentTimingInfoFlagsEXT::PRESENT_AT_RELATIVE_TIME)
            }
        };
        if target_time != 0 {
            flags = flags | PresentTimingInfoFlagsEXT::PRESENT_AT_NEAREST_REFRESH_CYCLE;
        } else {
            flags = PresentTimingInfoFlagsEXT::empty();
        }
        // VUID-VkPresentTimingInfoEXT-timeDomainId-12238: a single stage for a stage-local
        // domain with a target; ignored otherwise.
        let stage_local = self.cal.domain == TimeDomain::PRESENT_STAGE_LOCAL;
        PresentTimingInfoEXT {
            flags,
            target_time,
            time_domain_id: self.cal.domain_id,
            present_stage_queries: if query {
                self.stages
            } else {
                PresentStageFlagsEXT::empty()
            },
            target_time_domain_present_stage: if stage_local && target_time != 0 {
                PresentStageFlagsEXT(self.target_stage.0)
            } else {
                PresentStageFlagsEXT::empty()
            },
            ..Default::default()
        }
    }
}

/// Reads the refresh cycle and the timing-properties counter; `None` for `VK_NOT_READY` ("the
/// implementation was not able to determine the current refresh cycle duration").
///
/// # Safety
///
/// As [`SwapchainTiming::new`].
unsafe fn read_refresh(
    fns: &PresentTimingFns,
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
) -> Result<(Option<RefreshCycle>, u64)> {
    let mut props = SwapchainTimingPropertiesEXT::default();
    let mut counter = 0u64;
    // SAFETY: caller contract; both out-pointers are valid.
    let r = unsafe { (fns.timing_properties)(device, swapchain, &mut props, &mut counter) };
    match r {
        vk::Result::SUCCESS => Ok((
            Some(RefreshCycle::classify(
                props.refresh_duration,
                props.refresh_interval,
            )),
            counter,
        )),
        vk::Result::NOT_READY => Ok((None, counter)),
        e => Err(Error::vk("vkGetSwapchainTimingPropertiesEXT", e)),
    }
}

#[cfg(test)]
mod tests;
