//! Present timing per swapchain, the Vulkan side: [`SwapchainTiming`] sizes the results
//! queue, reads the refresh cycle, the domains and the results, calibrates, and builds each
//! present's `VkPresentTimingInfoEXT` ([`PresentTarget`]). When to read again and what each
//! result means on the shell's clock are the core's ([`TimingBook`]). Everything here belongs
//! to one swapchain handle.

use ash::vk;

use super::present_timing::{PresentTimingFns, READ_BATCH};
use super::timing_domains::{calibrate, read_domains};
use crate::vk::clock::Clock;
use crate::vk::error::{Error, Result};
use vkpace_core::{
    Calibrateable, PresentTarget, RawTiming, RefreshCycle, Rereads, Stages, TimeDomain, TimingBook,
    TimingReport,
};
use vkpace_registry::{
    PastPresentationTimingEXT, PastPresentationTimingFlagsEXT, PastPresentationTimingInfoEXT,
    PastPresentationTimingPropertiesEXT, PresentStageFlagsEXT, PresentStageTimeEXT,
    PresentTimingInfoEXT, PresentTimingInfoFlagsEXT, SwapchainTimingPropertiesEXT,
};

/// The core's view of one result as the engine wrote it.
fn raw_timing<'a>(
    entry: &PastPresentationTimingEXT<'_>,
    stages: &'a [(Stages, u64)],
) -> RawTiming<'a> {
    RawTiming {
        present_id: entry.present_id,
        domain: (TimeDomain(entry.time_domain.as_raw()), entry.time_domain_id),
        complete: entry.report_complete == vk::TRUE,
        stages,
    }
}

/// Per-swapchain present timing state. Created once per swapchain handle (the results queue,
/// the domains and their ids belong to it).
pub(crate) struct SwapchainTiming {
    /// The domains the device can calibrate (only those are chosen).
    calibrateable: Calibrateable,
    /// The stages each present asks for (the surface's, among the four known).
    stages: PresentStageFlagsEXT,
    /// The core's account: refresh, calibration, what to read again.
    book: TimingBook,
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
    /// ([`calibrateable_domains`], VUID-02354).
    ///
    /// [`choose_domain`]: vkpace_core::choose_domain
    /// [`PresentTimingSurfaceSupport::stages`]: crate::vk::display::PresentTimingSurfaceSupport::stages
    /// [`calibrateable_domains`]: super::present_timing::calibrateable_domains
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
        let mut timing = Self {
            calibrateable,
            stages,
            book: TimingBook::new(Stages(stages.0)),
            max_rounds: queue_size as usize / READ_BATCH + 2,
        };
        let both = Rereads {
            refresh: true,
            domains: true,
        };
        // SAFETY: caller contract.
        unsafe { timing.reread(fns, device, swapchain, clock, both) }?;
        Ok(timing)
    }

    /// The refresh cycle last read.
    pub(crate) fn refresh(&self) -> RefreshCycle {
        self.book.refresh()
    }

    /// `refreshDuration` and `refreshInterval` as last read.
    pub(crate) fn refresh_reported(&self) -> Option<(u64, u64)> {
        self.book.refresh_reported()
    }

    /// The chosen time domain and its id.
    pub(crate) fn time_domain(&self) -> (vk::TimeDomainKHR, u64) {
        let (domain, id) = self.book.domain();
        (vk::TimeDomainKHR::from_raw(domain.0), id)
    }

    /// Reads again what the core asked for: the refresh cycle, and the domain list with a new
    /// choice and calibration.
    ///
    /// # Safety
    ///
    /// As [`Self::new`].
    unsafe fn reread(
        &mut self,
        fns: &PresentTimingFns,
        device: vk::Device,
        swapchain: vk::SwapchainKHR,
        clock: &Clock,
        what: Rereads,
    ) -> Result<()> {
        if what.refresh {
            // SAFETY: caller contract.
            let (refresh, counter) = unsafe { read_refresh(fns, device, swapchain) }?;
            self.book.reported_refresh_read(refresh, counter);
        }
        if !what.domains {
            return Ok(());
        }
        // SAFETY: caller contract.
        let (chosen, counter) =
            unsafe { read_domains(fns, device, swapchain, self.calibrateable) }?;
        let Some(chosen) = chosen else {
            return Err(Error::InvalidConfig(
                "present timing: the swapchain offers none of CLOCK_MONOTONIC, SWAPCHAIN_LOCAL and PRESENT_STAGE_LOCAL",
            ));
        };
        // SAFETY: caller contract; the domain and id were just reported for `swapchain`.
        let cal = unsafe { calibrate(fns, device, swapchain, chosen, self.stages, clock) }?;
        self.book.calibrated(cal, counter);
        Ok(())
    }

    /// Reads the results available, without blocking, and hands each to `sink`; results come
    /// possibly out of present order (`ALLOW_OUT_OF_ORDER_RESULTS`; each carries its present
    /// id) and possibly partial (`ALLOW_PARTIAL_RESULTS`: a present whose queue operations
    /// ended and that is not shown yet, so vkpace learns when a frame was ready before it gives
    /// the next one its target; such a result is read again once complete). Then reads again
    /// what the core asks for ([`TimingBook::after_read`]). Returns whether the refresh cycle
    /// changed.
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
        mut sink: impl FnMut(TimingReport),
    ) -> Result<bool> {
        let before = self.book.refresh();
        for _ in 0..self.max_rounds {
            // SAFETY: caller contract.
            let more = unsafe { self.read_round(fns, device, swapchain, clock, &mut sink) }?;
            if !more {
                break;
            }
        }
        let what = self.book.after_read(clock.now_ns());
        // SAFETY: caller contract.
        unsafe { self.reread(fns, device, swapchain, clock, what) }?;
        Ok(self.book.refresh() != before)
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
        sink: &mut impl FnMut(TimingReport),
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
        let what = self
            .book
            .counters_seen(props.timing_properties_counter, props.time_domains_counter);
        // SAFETY: caller contract.
        unsafe { self.reread(fns, device, swapchain, clock, what) }?;
        let n = (props.presentation_timing_count as usize).min(READ_BATCH);
        for (t, s) in timings.iter().zip(stage_times.iter()).take(n) {
            let mut stages = [(Stages::empty(), 0u64); 4];
            let count = (t.present_stage_count as usize).min(4);
            for (out, st) in stages.iter_mut().zip(&s[..count]) {
                *out = (Stages(st.stage.0), st.time);
            }
            // On the shell's clock; one in a domain vkpace cannot map says so, and the shell
            // logs the first (`TimingShell::read`).
            sink(self.book.convert(&raw_timing(t, &stages[..count])));
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
            // Uncalibrated: no target.
            PresentTarget::Absolute(ns) => (
                self.book.target_time(ns).unwrap_or(0),
                PresentTimingInfoFlagsEXT::empty(),
            ),
            PresentTarget::Relative(ns) => {
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
        let target_stage = self
            .book
            .target_stage_local()
            .filter(|_| target_time != 0)
            .unwrap_or(Stages::empty());
        PresentTimingInfoEXT {
            flags,
            target_time,
            time_domain_id: self.book.domain().1,
            present_stage_queries: if query {
                self.stages
            } else {
                PresentStageFlagsEXT::empty()
            },
            target_time_domain_present_stage: PresentStageFlagsEXT(target_stage.0),
            ..Default::default()
        }
    }
}

/// Reads `refreshDuration`, `refreshInterval` and the timing-properties counter; `None` for
/// `VK_NOT_READY` ("the implementation was not able to determine the current refresh cycle
/// duration").
///
/// # Safety
///
/// As [`SwapchainTiming::new`].
unsafe fn read_refresh(
    fns: &PresentTimingFns,
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
) -> Result<(Option<(u64, u64)>, u64)> {
    let mut props = SwapchainTimingPropertiesEXT::default();
    let mut counter = 0u64;
    // SAFETY: caller contract; both out-pointers are valid.
    let r = unsafe { (fns.timing_properties)(device, swapchain, &mut props, &mut counter) };
    match r {
        vk::Result::SUCCESS => Ok((
            Some((props.refresh_duration, props.refresh_interval)),
            counter,
        )),
        vk::Result::NOT_READY => Ok((None, counter)),
        e => Err(Error::vk("vkGetSwapchainTimingPropertiesEXT", e)),
    }
}
