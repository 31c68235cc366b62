//! Present timing in the shell: the choice at [`super::Swapchain::new`], one
//! [`SwapchainTiming`] per swapchain handle, and the translation between the core's requests
//! and `VK_EXT_present_timing`'s structures.
//!
//! The choice: present timing is used where [`super::SwapchainConfig::present_timing`] asks for
//! it, the surface reports `presentTimingSupported` and `presentId2Supported` (results name
//! presents by id), and the host clock is calibrateable. Otherwise vkpace falls back to the CPU
//! limiter and says so ([`super::Swapchain::present_timing`] is `None`). Targets are relative
//! where the surface takes them (a late frame then moves the schedule instead of making the
//! next one short), absolute where only those are supported, absent where neither is.

use ash::vk;

use super::clock::Clock;
use super::config::SwapchainCreateDesc;
use super::error::Result;
use super::present_timing::Calibrateable;
use super::present_timing::{PresentTimingFns, PresentTimingSupport, PresentTimingSurfaceSupport};
use super::present_wait2::PresentWait2Support;
use super::registry::PresentTimingInfoEXT;
use super::swapchain_timing::{PresentTarget, RefreshCycle, SwapchainTiming, TimingResult};
use crate::core::{
    DisplayTiming, PresentStages, PresentTarget as CoreTarget, PresentTimingRequest, TimingReport,
};

/// Results-queue slots per swapchain: two frames' worth at 4 in flight and the display's queue,
/// read once per frame.
pub(crate) const TIMING_SLOTS: u32 = 8;

/// What present timing a [`super::Swapchain`] uses, once chosen.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresentTimingInUse {
    /// Targets are relative to the previous frame's first pixel (else absolute).
    pub relative_targets: bool,
    /// The surface takes target times at all (relative or absolute).
    pub targets: bool,
    /// The refresh cycle the current swapchain reports.
    pub refresh: RefreshCycle,
    /// The time domain results and absolute targets are in; `None` while no swapchain is live.
    pub time_domain: Option<vk::TimeDomainKHR>,
}

/// The shell's present timing state.
pub(crate) struct TimingShell {
    fns: PresentTimingFns,
    surface: PresentTimingSurfaceSupport,
    /// The time domains the device can calibrate.
    calibrateable: Calibrateable,
    /// The live swapchain's timing, with its handle.
    live: Option<(vk::SwapchainKHR, SwapchainTiming)>,
    /// Reused for each read, so a steady frame does not allocate.
    reports: Vec<TimingReport>,
}

impl TimingShell {
    /// Present timing for `desc`'s surface, if asked for and usable there; `InvalidConfig` if
    /// asked for without the device extensions.
    ///
    /// # Safety
    /// As [`super::Swapchain::new`].
    pub(crate) unsafe fn choose(desc: &SwapchainCreateDesc<'_>) -> Result<Option<Self>> {
        if !desc.config.present_timing {
            return Ok(None);
        }
        // SAFETY: the device enabled the extensions (caller contract), else this fails typed.
        let fns = unsafe { PresentTimingFns::load(desc.instance, desc.device) }?;
        let (entry, instance, physical) = (desc.entry, desc.instance, desc.physical_device);
        // SAFETY: valid handles; the device enabled the extensions, so the physical device
        // offers them.
        let surface = unsafe {
            PresentTimingSupport::query_surface(entry, instance, physical, desc.surface)
        }?;
        // SAFETY: as above.
        let ids =
            unsafe { PresentWait2Support::query_surface(entry, instance, physical, desc.surface) }?;
        // SAFETY: as above (VK_KHR_calibrated_timestamps is one of the extensions).
        let calibrateable =
            unsafe { PresentTimingSupport::calibrateable_domains(entry, instance, physical) }?;
        let host = calibrateable.host;
        if !(surface.present_timing && ids.present_id2 && host) {
            log::info!(
                "vkpace: present timing not usable on this surface ({surface:?}, presentId2 {}, host clock calibrateable {host}): the CPU limiter paces",
                ids.present_id2
            );
            return Ok(None);
        }
        Ok(Some(Self {
            fns,
            surface,
            calibrateable,
            live: None,
            reports: Vec::with_capacity(TIMING_SLOTS as usize * 2),
        }))
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
    ) -> Result<Option<DisplayTiming>> {
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

    /// The refresh as the core sees it: a fixed refresh with a way to target it, else None.
    fn display_timing(&self) -> Option<DisplayTiming> {
        let (_, t) = self.live.as_ref()?;
        let RefreshCycle::Fixed { duration_ns } = t.refresh() else {
            return None;
        };
        let relative = self.surface.relative;
        (relative || self.surface.absolute).then_some(DisplayTiming {
            refresh_ns: duration_ns,
            relative_targets: relative,
        })
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
            CoreTarget::Relative(ns) if self.surface.relative => PresentTarget::Relative(ns),
            CoreTarget::Absolute(ns) if self.surface.absolute => PresentTarget::Absolute(ns),
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
    ) -> (&[TimingReport], Result<Option<Option<DisplayTiming>>>) {
        self.reports.clear();
        let Some((h, t)) = self.live.as_mut().filter(|(h, _)| *h == swapchain) else {
            return (&self.reports, Ok(None));
        };
        let reports = &mut self.reports;
        // SAFETY: caller contract; `t` was made for `h`.
        let changed = unsafe { t.read(&self.fns, device, *h, clock, |r| reports.push(report(&r))) };
        let refresh = changed.map(|c| c.then(|| self.display_timing()));
        (&self.reports, refresh)
    }

    /// What is in use now.
    pub(crate) fn in_use(&self) -> PresentTimingInUse {
        let live = self.live.as_ref().map(|(_, t)| t);
        PresentTimingInUse {
            relative_targets: self.surface.relative,
            targets: self.surface.relative || self.surface.absolute,
            refresh: live.map_or(RefreshCycle::Unknown, SwapchainTiming::refresh),
            time_domain: live.map(|t| t.time_domain().0),
        }
    }
}

/// The core's view of one result.
fn report(r: &TimingResult) -> TimingReport {
    let stages = PresentStages::new(
        r.queue_operations_end,
        r.request_dequeued,
        r.first_pixel_out,
        r.first_pixel_visible,
    );
    TimingReport::new(r.present_id, stages, r.complete)
}
