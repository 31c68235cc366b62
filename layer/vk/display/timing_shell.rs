//! Present timing in the shell: one [`SwapchainTiming`] per swapchain handle, and the
//! translation between the core's requests and `VK_EXT_present_timing`'s structures. Whether
//! present timing is used, and with which targets, is the core's choice (`core::display`); where
//! it is not, vkpace falls back to the CPU limiter and says so
//! ([`crate::vk::SwapchainInfo::present_timing`] is `None`).

use std::sync::atomic::{AtomicBool, Ordering};

use ash::vk;

use super::present_timing::{PresentTimingFns, PresentTimingSurfaceSupport};
use super::swapchain_timing::SwapchainTiming;
use crate::vk::clock::Clock;
use crate::vk::error::Result;
use vkpace_core::{Calibrateable, RefreshCycle, Targets};
use vkpace_core::{DisplayRefresh, PresentTarget, PresentTimingRequest, TimingReport};
use vkpace_registry::PresentTimingInfoEXT;

/// A result in a domain vkpace cannot map was logged: once per process, whatever the
/// swapchains, their recreations and the door (a user reads one line; the count goes on in
/// the stats' `timing_results_unmapped`).
static WARNED_UNMAPPED: AtomicBool = AtomicBool::new(false);

/// Results-queue slots per swapchain: two frames' worth at 4 in flight and the display's queue,
/// read once per frame.
pub(crate) const TIMING_SLOTS: u32 = 8;

/// What present timing a [`crate::vk::Swapchain`] uses, once chosen.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresentTimingInUse {
    /// Targets are relative to the previous frame's first pixel (else absolute).
    pub relative_targets: bool,
    /// The surface takes target times at all (relative or absolute).
    pub targets: bool,
    /// The refresh cycle the current swapchain reports, classified: only
    /// [`RefreshCycle::Fixed`] is a grid vkpace targets (a duration of 0, `UINT64_MAX` or
    /// under 100 us is no display's and reads [`RefreshCycle::Unknown`]).
    pub refresh: RefreshCycle,
    /// `refreshDuration` and `refreshInterval` as the current swapchain reported them
    /// (`None`: no swapchain, or the engine could not tell yet), for reports.
    pub refresh_reported: Option<(u64, u64)>,
    /// The time domain results and absolute targets are in; `None` while no swapchain is live.
    pub time_domain: Option<vk::TimeDomainKHR>,
}

/// The shell's present timing state.
pub(crate) struct TimingShell {
    fns: PresentTimingFns,
    surface: PresentTimingSurfaceSupport,
    /// The time domains the device can calibrate.
    calibrateable: Calibrateable,
    /// How presents aim at a time (the core's choice).
    targets: Targets,
    /// The live swapchain's timing, with its handle.
    live: Option<(vk::SwapchainKHR, SwapchainTiming)>,
    /// Reused for each read, so a steady frame does not allocate.
    reports: Vec<TimingReport>,
}

impl TimingShell {
    /// Present timing as [`super::choose`] found it usable, with the surface's support, the
    /// domains the device can calibrate, and the kind of targets the core chose.
    pub(crate) fn new(
        fns: PresentTimingFns,
        surface: PresentTimingSurfaceSupport,
        calibrateable: Calibrateable,
        targets: Targets,
    ) -> Self {
        Self {
            fns,
            surface,
            calibrateable,
            targets,
            live: None,
            reports: Vec::with_capacity(TIMING_SLOTS as usize * 2),
        }
    }

    /// Sets up the timing of a swapchain just made (with `PRESENT_TIMING_EXT`); returns what
    /// the core is told of its refresh.
    ///
    /// # Safety
    /// `swapchain` was just made by this shell's device, with the present timing create flag.
    pub(crate) unsafe fn swapchain_created(
        &mut self,
        device: vk::Device,
        swapchain: vk::SwapchainKHR,
        clock: &Clock,
    ) -> Result<DisplayRefresh> {
        let stages = self.surface.stages;
        // SAFETY: caller contract; the host clock is calibrateable (checked in `choose`).
        let timing = unsafe {
            SwapchainTiming::new(
                &self.fns,
                device,
                swapchain,
                TIMING_SLOTS,
                stages,
                self.calibrateable,
                clock,
            )
        }?;
        self.live = Some((swapchain, timing));
        Ok(self.display_timing())
    }

    /// The refresh as the core sees it (`core::Targets::display_refresh`).
    fn display_timing(&self) -> DisplayRefresh {
        let Some((_, t)) = self.live.as_ref() else {
            return DisplayRefresh::Unreported;
        };
        self.targets.display_refresh(t.refresh())
    }

    /// A swapchain was destroyed: forget its timing if it was the live one.
    pub(crate) fn swapchain_destroyed(&mut self, swapchain: vk::SwapchainKHR) {
        if self.live.as_ref().is_some_and(|(h, _)| *h == swapchain) {
            self.live = None;
        }
    }

    /// The `VkPresentTimingInfoEXT` of a present to `swapchain`, if it is the live one.
    pub(crate) fn present_info(
        &self,
        swapchain: vk::SwapchainKHR,
        request: &PresentTimingRequest,
    ) -> Option<PresentTimingInfoEXT<'static>> {
        let (h, t) = self.live.as_ref()?;
        if *h != swapchain {
            return None;
        }
        let target = match request.target {
            PresentTarget::Relative(_) if self.surface.relative => request.target,
            PresentTarget::Absolute(_) if self.surface.absolute => request.target,
            _ => PresentTarget::None,
        };
        Some(t.present_info(target, request.query_stages))
    }

    /// Reads the live swapchain's results without blocking. Returns those read (also when the
    /// read then failed: their queue slots are free now, and the core must hear of them), and
    /// the refresh if it changed, or the error.
    ///
    /// # Safety
    /// `device` is this shell's; `swapchain` the live swapchain, not destroyed.
    pub(crate) unsafe fn read(
        &mut self,
        device: vk::Device,
        swapchain: vk::SwapchainKHR,
        clock: &Clock,
    ) -> (&[TimingReport], Result<Option<DisplayRefresh>>) {
        self.reports.clear();
        let Some((h, t)) = self.live.as_mut().filter(|(h, _)| *h == swapchain) else {
            return (&self.reports, Ok(None));
        };
        let reports = &mut self.reports;
        // SAFETY: caller contract; `t` was made for `h`.
        let changed = unsafe { t.read(&self.fns, device, *h, clock, |r| reports.push(r)) };
        if reports.iter().any(|r| r.unmapped && r.complete)
            && !WARNED_UNMAPPED.swap(true, Ordering::Relaxed)
        {
            log::warn!(
                "vkpace: present timing: results in a time domain the swapchain did not offer or vkpace could not calibrate; their stage times are dropped (counted in the stats' timing_results_unmapped)"
            );
        }
        let refresh = changed.map(|c| c.then(|| self.display_timing()));
        (&self.reports, refresh)
    }

    /// What is in use now.
    pub(crate) fn in_use(&self) -> PresentTimingInUse {
        let live = self.live.as_ref().map(|(_, t)| t);
        PresentTimingInUse {
            relative_targets: self.targets == Targets::Relative,
            targets: self.targets != Targets::None,
            refresh: live.map_or(RefreshCycle::Unknown, SwapchainTiming::refresh),
            refresh_reported: live.and_then(SwapchainTiming::refresh_reported),
            time_domain: live.map(|t| t.time_domain().0),
        }
    }
}
