//! `VK_EXT_present_timing` (registry 1.4.335): when each stage of a present happened, the
//! display's refresh cycle, and presents aimed at a time.
//!
//! Support is asked in three places: the device (extensions and the `presentTiming` /
//! `presentId2` features, [`PresentTimingSupport::query`]), each surface
//! (`VkPresentTimingSurfaceCapabilitiesEXT`, [`PresentTimingSupport::query_surface`]) and the
//! physical device's calibrateable time domains, which must include `CLOCK_MONOTONIC`
//! ([`PresentTimingSupport::host_clock_calibrateable`]): every time the presentation engine
//! reports is mapped to the shell's [`Clock`] through a `vkGetCalibratedTimestampsKHR`
//! reading of that clock.
//!
//! Per swapchain, [`SwapchainTiming`] sizes the results queue, reads the refresh cycle, picks a
//! time domain and calibrates it, builds each present's `VkPresentTimingInfoEXT`, and reads
//! results without blocking, with no heap allocation per frame (the read buffers live on the
//! stack).

use std::ffi::CStr;
use std::sync::atomic::{AtomicBool, Ordering};

use ash::vk;

use super::clock::Clock;
use super::error::{Error, Result, VkContext};
use super::extensions::device_offers;
use super::registry::{
    self, PFN_vkGetPastPresentationTimingEXT, PFN_vkGetSwapchainTimeDomainPropertiesEXT,
    PFN_vkGetSwapchainTimingPropertiesEXT, PFN_vkSetSwapchainPresentTimingQueueSizeEXT,
    PastPresentationTimingEXT, PastPresentationTimingFlagsEXT, PastPresentationTimingInfoEXT,
    PastPresentationTimingPropertiesEXT, PhysicalDevicePresentId2FeaturesKHR,
    PhysicalDevicePresentTimingFeaturesEXT, PresentStageFlagsEXT, PresentStageTimeEXT,
    PresentTimingInfoEXT, PresentTimingInfoFlagsEXT, PresentTimingSurfaceCapabilitiesEXT,
    SwapchainCalibratedTimestampInfoEXT, SwapchainTimeDomainPropertiesEXT,
    SwapchainTimingPropertiesEXT, TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT,
    TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT,
};

/// The device extensions present timing needs: `VK_EXT_present_timing` and two of its
/// dependencies, `VK_KHR_present_id2` (results name presents by their id2) and
/// `VK_KHR_calibrated_timestamps` (to map the engine's times to the CPU clock). Enable them
/// with the `presentTiming` and `presentId2` features, and [`PRESENT_TIMING_INSTANCE_EXTENSION`]
/// on the instance.
pub const PRESENT_TIMING_DEVICE_EXTENSIONS: [&CStr; 3] = [
    registry::EXT_PRESENT_TIMING_NAME,
    registry::KHR_PRESENT_ID_2_NAME,
    ash::khr::calibrated_timestamps::NAME,
];

/// The instance extension present timing needs: `VK_EXT_present_timing` depends on it, and the
/// per-surface query is `vkGetPhysicalDeviceSurfaceCapabilities2KHR`.
pub const PRESENT_TIMING_INSTANCE_EXTENSION: &CStr = ash::khr::get_surface_capabilities2::NAME;

/// The four present stages, in the order a present goes through them.
const ALL_STAGES: [PresentStageFlagsEXT; 4] = [
    PresentStageFlagsEXT::QUEUE_OPERATIONS_END,
    PresentStageFlagsEXT::REQUEST_DEQUEUED,
    PresentStageFlagsEXT::IMAGE_FIRST_PIXEL_OUT,
    PresentStageFlagsEXT::IMAGE_FIRST_PIXEL_VISIBLE,
];

/// The shell's reference clock domain: `Instant` is `CLOCK_MONOTONIC` on Linux; elsewhere the
/// midpoint calibration still maps it, as long as both clocks tick at the same rate.
const HOST_DOMAIN: vk::TimeDomainKHR = vk::TimeDomainKHR::CLOCK_MONOTONIC;

/// Results read per `vkGetPastPresentationTimingEXT` call (stack buffers).
const READ_BATCH: usize = 16;

/// Time domains read per `vkGetSwapchainTimeDomainPropertiesEXT` call (stack buffers).
const MAX_DOMAINS: usize = 16;

/// Swapchain-local domains drift against `CLOCK_MONOTONIC`; the spec expects applications "to
/// re-calibrate the timestamps on a regular basis". Once a second costs three calls a second.
const RECALIBRATE_NS: u64 = 1_000_000_000;

/// What a device offers for present timing (each surface is asked separately:
/// [`PresentTimingSupport::query_surface`]).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresentTimingSupport {
    /// All [`PRESENT_TIMING_DEVICE_EXTENSIONS`] are available on the physical device.
    pub extensions: bool,
    /// The `presentTiming` feature (queried only when the extensions are).
    pub present_timing: bool,
    /// The `presentAtAbsoluteTime` feature: absolute target times are honoured.
    pub present_at_absolute_time: bool,
    /// The `presentAtRelativeTime` feature: minimum display durations are honoured.
    pub present_at_relative_time: bool,
    /// The `presentId2` feature: results can be matched to presents.
    pub present_id2: bool,
}

/// What one surface supports of present timing (`VkPresentTimingSurfaceCapabilitiesEXT`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresentTimingSurfaceSupport {
    /// `presentTimingSupported`: results can be queried for swapchains of the surface.
    pub present_timing: bool,
    /// `presentAtAbsoluteTimeSupported`.
    pub absolute: bool,
    /// `presentAtRelativeTimeSupported`.
    pub relative: bool,
    /// `presentStageQueries`: the stages results can be reported for (the spec requires at
    /// least `QUEUE_OPERATIONS_END` when `present_timing` is set).
    pub stages: PresentStageFlagsEXT,
}

impl PresentTimingSupport {
    /// Whether the device can report present timing (each surface must also say yes, and
    /// [`Self::host_clock_calibrateable`] must hold).
    #[must_use]
    pub fn usable(&self) -> bool {
        self.extensions && self.present_timing && self.present_id2
    }

    /// Checks `physical`.
    ///
    /// # Safety
    ///
    /// `physical` must come from `instance`, a Vulkan 1.1+ instance (for
    /// `vkGetPhysicalDeviceFeatures2`).
    pub unsafe fn query(instance: &ash::Instance, physical: vk::PhysicalDevice) -> Result<Self> {
        // SAFETY: `physical` comes from `instance` (caller contract).
        let extensions =
            unsafe { device_offers(instance, physical, &PRESENT_TIMING_DEVICE_EXTENSIONS) }?;
        let mut support = Self {
            extensions,
            ..Self::default()
        };
        if extensions {
            let mut timing = PhysicalDevicePresentTimingFeaturesEXT::default();
            let mut id2 = PhysicalDevicePresentId2FeaturesKHR::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut timing)
                .push_next(&mut id2);
            // SAFETY: 1.1+ instance (caller contract); the chain holds structures of
            // extensions the device offers (VUID-VkPhysicalDeviceFeatures2-pNext-pNext).
            unsafe { instance.get_physical_device_features2(physical, &mut f2) };
            support.present_timing = timing.present_timing == vk::TRUE;
            support.present_at_absolute_time = timing.present_at_absolute_time == vk::TRUE;
            support.present_at_relative_time = timing.present_at_relative_time == vk::TRUE;
            support.present_id2 = id2.present_id2 == vk::TRUE;
        }
        Ok(support)
    }

    /// Asks `surface` what its swapchains support of present timing. Without
    /// `VK_KHR_get_surface_capabilities2` enabled on the instance there is no way to ask:
    /// [`Error::InvalidConfig`].
    ///
    /// # Safety
    ///
    /// `physical` and `surface` must come from `instance`, loaded from `entry`, and `physical`
    /// must offer `VK_EXT_present_timing` ([`PresentTimingSupport::extensions`]): the
    /// capability structure may be chained only then.
    pub unsafe fn query_surface(
        entry: &ash::Entry,
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        surface: vk::SurfaceKHR,
    ) -> Result<PresentTimingSurfaceSupport> {
        // SAFETY: valid instance of `entry` (caller contract).
        let loaded = unsafe {
            entry.get_instance_proc_addr(
                instance.handle(),
                c"vkGetPhysicalDeviceSurfaceCapabilities2KHR".as_ptr(),
            )
        };
        if loaded.is_none() {
            return Err(Error::InvalidConfig(
                "present timing needs VK_KHR_get_surface_capabilities2 enabled on the instance",
            ));
        }
        let caps2 = ash::khr::get_surface_capabilities2::Instance::new(entry, instance);
        let info = vk::PhysicalDeviceSurfaceInfo2KHR::default().surface(surface);
        let mut timing = PresentTimingSurfaceCapabilitiesEXT::default();
        let mut caps = vk::SurfaceCapabilities2KHR::default().push_next(&mut timing);
        // SAFETY: valid handles, device extension offered (caller contract); the instance
        // enabled the extension (its command was found). The structure extends
        // VkSurfaceCapabilities2KHR (vk.xml).
        unsafe { caps2.get_physical_device_surface_capabilities2(physical, &info, &mut caps) }
            .during("vkGetPhysicalDeviceSurfaceCapabilities2KHR")?;
        Ok(PresentTimingSurfaceSupport {
            present_timing: timing.present_timing_supported == vk::TRUE,
            absolute: timing.present_at_absolute_time_supported == vk::TRUE,
            relative: timing.present_at_relative_time_supported == vk::TRUE,
            stages: timing.present_stage_queries,
        })
    }

    /// Whether `physical` lists `CLOCK_MONOTONIC` among its calibrateable time domains. Each
    /// swapchain's domain is calibrated against it, and "timeDomain must be one of the
    /// VkTimeDomainKHR values returned by vkGetPhysicalDeviceCalibrateableTimeDomainsKHR"
    /// (VUID-VkCalibratedTimestampInfoKHR-timeDomain-02354), so present timing is usable only
    /// where this is true.
    ///
    /// # Safety
    ///
    /// `physical` must come from `instance`, loaded from `entry`, and offer
    /// `VK_KHR_calibrated_timestamps` (or its EXT predecessor).
    pub unsafe fn host_clock_calibrateable(
        entry: &ash::Entry,
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
    ) -> Result<bool> {
        let names = [
            c"vkGetPhysicalDeviceCalibrateableTimeDomainsKHR",
            c"vkGetPhysicalDeviceCalibrateableTimeDomainsEXT",
        ];
        let Some(f) = names.iter().find_map(|n| {
            // SAFETY: valid instance of `entry` (caller contract); `n` is NUL-terminated.
            unsafe { entry.get_instance_proc_addr(instance.handle(), n.as_ptr()) }
        }) else {
            return Ok(false);
        };
        // SAFETY: the loader returned the entry point of one of these names; the EXT command
        // has the KHR signature (the KHR extension promoted it unchanged).
        let query = unsafe {
            std::mem::transmute::<
                unsafe extern "system" fn(),
                vk::PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsKHR,
            >(f)
        };
        // There are few time domains (seven in the registry); VK_INCOMPLETE past MAX_DOMAINS
        // still lists the first ones.
        let mut domains = [vk::TimeDomainKHR::DEVICE; MAX_DOMAINS];
        let mut count = MAX_DOMAINS as u32;
        // SAFETY: `physical` comes from `instance` (caller contract); `domains` holds `count`
        // elements.
        let r = unsafe { query(physical, &mut count, domains.as_mut_ptr()) };
        if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
            return Err(Error::vk(
                "vkGetPhysicalDeviceCalibrateableTimeDomainsKHR",
                r,
            ));
        }
        let n = (count as usize).min(MAX_DOMAINS);
        Ok(domains[..n].contains(&HOST_DOMAIN))
    }
}

/// The device commands of present timing, loaded with `vkGetDeviceProcAddr` (a device returns
/// no entry point for an extension it did not enable).
pub(crate) struct PresentTimingFns {
    set_queue_size: PFN_vkSetSwapchainPresentTimingQueueSizeEXT,
    timing_properties: PFN_vkGetSwapchainTimingPropertiesEXT,
    time_domain_properties: PFN_vkGetSwapchainTimeDomainPropertiesEXT,
    past_presentation_timing: PFN_vkGetPastPresentationTimingEXT,
    calibrated_timestamps: vk::PFN_vkGetCalibratedTimestampsKHR,
}

/// Looks up a device command by any of `names`, first found wins.
///
/// # Safety
///
/// `device` must be a valid device of `instance`.
unsafe fn device_proc(
    instance: &ash::Instance,
    device: &ash::Device,
    names: &[&CStr],
) -> Option<unsafe extern "system" fn()> {
    names.iter().find_map(|n| {
        // SAFETY: valid device of `instance` (caller contract); `n` is NUL-terminated.
        unsafe { instance.get_device_proc_addr(device.handle(), n.as_ptr()) }
    })
}

/// Turns a looked-up entry point into its typed pointer.
macro_rules! typed_proc {
    ($f:expr, $pfn:ty) => {
        // SAFETY: the loader returned the entry point of the name looked up, whose signature
        // the registry gives as `$pfn` (the EXT calibrated-timestamps command has the KHR
        // signature: the KHR extension promoted it unchanged).
        unsafe { std::mem::transmute::<unsafe extern "system" fn(), $pfn>($f) }
    };
}

impl PresentTimingFns {
    /// Loads the five commands; [`Error::InvalidConfig`] if any is missing (the device did
    /// not enable [`PRESENT_TIMING_DEVICE_EXTENSIONS`]). `vkGetCalibratedTimestampsKHR` falls
    /// back to the EXT name for loaders that predate the KHR extension.
    ///
    /// # Safety
    ///
    /// `device` must be a valid device of `instance`.
    pub(crate) unsafe fn load(instance: &ash::Instance, device: &ash::Device) -> Result<Self> {
        let missing = Error::InvalidConfig(
            "present timing needs VK_EXT_present_timing and VK_KHR_calibrated_timestamps enabled on the device",
        );
        // SAFETY: valid device of `instance` (caller contract), for all five lookups.
        let (Some(set), Some(props), Some(domains), Some(past), Some(cal)) = (unsafe {
            (
                device_proc(
                    instance,
                    device,
                    &[c"vkSetSwapchainPresentTimingQueueSizeEXT"],
                ),
                device_proc(instance, device, &[c"vkGetSwapchainTimingPropertiesEXT"]),
                device_proc(
                    instance,
                    device,
                    &[c"vkGetSwapchainTimeDomainPropertiesEXT"],
                ),
                device_proc(instance, device, &[c"vkGetPastPresentationTimingEXT"]),
                device_proc(
                    instance,
                    device,
                    &[
                        c"vkGetCalibratedTimestampsKHR",
                        c"vkGetCalibratedTimestampsEXT",
                    ],
                ),
            )
        }) else {
            return Err(missing);
        };
        Ok(Self {
            set_queue_size: typed_proc!(set, PFN_vkSetSwapchainPresentTimingQueueSizeEXT),
            timing_properties: typed_proc!(props, PFN_vkGetSwapchainTimingPropertiesEXT),
            time_domain_properties: typed_proc!(domains, PFN_vkGetSwapchainTimeDomainPropertiesEXT),
            past_presentation_timing: typed_proc!(past, PFN_vkGetPastPresentationTimingEXT),
            calibrated_timestamps: typed_proc!(cal, vk::PFN_vkGetCalibratedTimestampsKHR),
        })
    }
}

/// The refresh cycle a swapchain reports (`VkSwapchainTimingPropertiesEXT`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RefreshCycle {
    /// Fixed refresh rate: each image stays visible a multiple of `duration_ns`
    /// (`refreshDuration`). Also used when `refreshInterval` is a smaller factor of it (the
    /// spec's note: a fixed visible duration on a faster vblank grid, so multiples of
    /// `duration_ns` are valid image present durations) and when `refreshInterval` is zero
    /// (the engine cannot tell whether it runs VRR; a multiple of the duration is valid on
    /// both kinds).
    Fixed {
        /// Nanoseconds from the start of one refresh cycle to the start of the next.
        duration_ns: u64,
    },
    /// Variable refresh rate (`refreshInterval` is `UINT64_MAX`): "refreshDuration is the
    /// minimum number of nanoseconds from the start of one refresh cycle to the start of the
    /// next".
    Variable {
        /// The shortest refresh cycle.
        min_duration_ns: u64,
    },
    /// `refreshDuration` is zero ("not able to determine the duration"), the query returned
    /// `VK_NOT_READY` (some platforms answer only after a present), or the values break the
    /// spec's rule that `refreshInterval` is a factor of `refreshDuration`.
    Unknown,
}

/// Classifies `VkSwapchainTimingPropertiesEXT` values (see [`RefreshCycle`]'s variants).
fn classify_refresh(duration: u64, interval: u64) -> RefreshCycle {
    match (duration, interval) {
        (0, _) => RefreshCycle::Unknown,
        (d, u64::MAX) => RefreshCycle::Variable { min_duration_ns: d },
        (d, i) if i <= d => RefreshCycle::Fixed { duration_ns: d },
        _ => RefreshCycle::Unknown,
    }
}

/// One result of `vkGetPastPresentationTimingEXT`, times in nanoseconds on the shell's
/// clock (nanoseconds since [`super::Swapchain::telemetry_epoch`]) (`None` where the stage has no time: not asked for, never reached, e.g. an image
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

/// Index of a single stage bit in [`ALL_STAGES`].
fn stage_index(stage: PresentStageFlagsEXT) -> Option<usize> {
    ALL_STAGES.iter().position(|s| *s == stage)
}

/// Prefers `CLOCK_MONOTONIC` (the shell's clock itself: no drift to correct), then a
/// swapchain-local domain (one calibration for all stages), then a stage-local one (which the
/// spec requires every implementation to offer). Other domains are not used.
fn choose_domain(domains: &[(vk::TimeDomainKHR, u64)]) -> Option<(vk::TimeDomainKHR, u64)> {
    [
        HOST_DOMAIN,
        TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT,
        TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT,
    ]
    .iter()
    .find_map(|want| domains.iter().copied().find(|(d, _)| d == want))
}

/// The stage an absolute target is given in for a stage-local domain: the target aligns
/// `IMAGE_FIRST_PIXEL_VISIBLE`, and the spec advises where that has no timing to "use the
/// supported present stage nearest to it"; so the latest supported stage.
fn target_stage(supported: PresentStageFlagsEXT) -> PresentStageFlagsEXT {
    ALL_STAGES
        .iter()
        .rev()
        .copied()
        .find(|s| supported.contains(*s))
        .unwrap_or(PresentStageFlagsEXT::empty())
}

/// The mapping of reported times to the shell clock: `shell = time + offset`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Calibration {
    /// The chosen domain.
    domain: vk::TimeDomainKHR,
    /// Its id.
    domain_id: u64,
    /// Offset per stage (index as [`ALL_STAGES`]); the same for all stages unless the domain
    /// is stage-local; `None` where not calibrated.
    stage_offsets: [Option<i128>; 4],
    /// Offset of `CLOCK_MONOTONIC`, for results the engine reports there as a fallback.
    monotonic_offset: i128,
    /// The shell time of the calibration.
    at_ns: u64,
}

/// One `vkGetCalibratedTimestampsKHR` reading.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
struct Reading {
    /// Middle of the shell-clock bracket around the call.
    mid_ns: u64,
    /// Width of that bracket.
    bracket_ns: u64,
    /// `CLOCK_MONOTONIC`.
    monotonic: u64,
    /// The chosen domain, per entry of the calibration plan ([`calibration_plan`]).
    locals: [u64; 4],
}

/// What to read besides `CLOCK_MONOTONIC`: the `presentStage` of each
/// `VkSwapchainCalibratedTimestampInfoEXT`: nothing for `CLOCK_MONOTONIC`, one zero stage for a
/// swapchain-local domain, each supported stage for a stage-local one (VUID-12228: "one and
/// only one present stage").
fn calibration_plan(
    domain: vk::TimeDomainKHR,
    supported: PresentStageFlagsEXT,
) -> ([PresentStageFlagsEXT; 4], usize) {
    let mut plan = [PresentStageFlagsEXT::empty(); 4];
    if domain == TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT {
        return (plan, 1);
    }
    let mut n = 0;
    if domain == TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT {
        for s in ALL_STAGES.iter().filter(|s| supported.contains(**s)) {
            plan[n] = *s;
            n += 1;
        }
    }
    (plan, n)
}

/// The calibration a reading gives. A local reading of 0 means the domain is gone ("If the
/// timeDomainId is no longer supported by the swapchain, implementations may report zero"):
/// that stage stays uncalibrated.
fn calibration_from(
    (domain, domain_id): (vk::TimeDomainKHR, u64),
    plan: &[PresentStageFlagsEXT],
    reading: &Reading,
) -> Calibration {
    let mid = i128::from(reading.mid_ns);
    let monotonic_offset = mid - i128::from(reading.monotonic);
    let local = |v: u64| (v != 0).then(|| mid - i128::from(v));
    let mut stage_offsets = [None; 4];
    if domain == HOST_DOMAIN {
        stage_offsets = [Some(monotonic_offset); 4];
    } else if domain == TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT {
        stage_offsets = [local(reading.locals[0]); 4];
    } else {
        for (stage, v) in plan.iter().zip(reading.locals) {
            if let Some(i) = stage_index(*stage) {
                stage_offsets[i] = local(v);
            }
        }
    }
    Calibration {
        domain,
        domain_id,
        stage_offsets,
        monotonic_offset,
        at_ns: reading.mid_ns,
    }
}

/// `time + offset`, clamped to the `u64` range; `None` for a time of 0 ("results for that
/// present stage are not available").
fn shift(time: u64, offset: i128) -> Option<u64> {
    if time == 0 {
        return None;
    }
    let shell = (i128::from(time) + offset).clamp(0, i128::from(u64::MAX));
    u64::try_from(shell).ok()
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
    let same = entry.time_domain == cal.domain && entry.time_domain_id == cal.domain_id;
    let host = entry.time_domain == HOST_DOMAIN;
    let mut out = TimingResult {
        present_id: entry.present_id,
        target_ns: target_offset.and_then(|o| shift(entry.target_time, o)),
        complete: entry.report_complete == vk::TRUE,
        ..TimingResult::default()
    };
    for st in stages {
        let Some(i) = stage_index(st.stage) else {
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
    stages: PresentStageFlagsEXT,
    /// The stage an absolute target is given in, for a stage-local domain.
    target_stage: PresentStageFlagsEXT,
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
    pub(crate) unsafe fn new(
        fns: &PresentTimingFns,
        device: vk::Device,
        swapchain: vk::SwapchainKHR,
        queue_size: u32,
        stages: PresentStageFlagsEXT,
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
            stages,
            target_stage: target_stage(stages),
            cal: Calibration {
                domain: HOST_DOMAIN,
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
        (self.cal.domain, self.cal.domain_id)
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
        let (chosen, counter) = unsafe { read_domains(fns, device, swapchain) }?;
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
    /// complete (no `ALLOW_PARTIAL_RESULTS`), possibly out of present order
    /// (`ALLOW_OUT_OF_ORDER_RESULTS`; each carries its present id). Re-reads the refresh cycle
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
        let due = clock.now_ns().saturating_sub(self.cal.at_ns) >= RECALIBRATE_NS;
        if due && (self.domains_stale || self.cal.domain != HOST_DOMAIN) {
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
            flags: PastPresentationTimingFlagsEXT::ALLOW_OUT_OF_ORDER_RESULTS,
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
        let stage_local = self.cal.domain == TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT;
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
                self.target_stage
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
            Some(classify_refresh(
                props.refresh_duration,
                props.refresh_interval,
            )),
            counter,
        )),
        vk::Result::NOT_READY => Ok((None, counter)),
        e => Err(Error::vk("vkGetSwapchainTimingPropertiesEXT", e)),
    }
}

/// Reads up to [`MAX_DOMAINS`] time domains (`VK_INCOMPLETE` is fine: the choice is among
/// those read) and the domains counter, and picks one ([`choose_domain`]).
///
/// # Safety
///
/// As [`SwapchainTiming::new`].
unsafe fn read_domains(
    fns: &PresentTimingFns,
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
) -> Result<(Option<(vk::TimeDomainKHR, u64)>, u64)> {
    let mut domains = [vk::TimeDomainKHR::DEVICE; MAX_DOMAINS];
    let mut ids = [0u64; MAX_DOMAINS];
    // Both arrays set and a non-zero count (VUID-VkSwapchainTimeDomainPropertiesEXT-
    // pTimeDomains-12370, -12371).
    let mut props = SwapchainTimeDomainPropertiesEXT {
        time_domain_count: MAX_DOMAINS as u32,
        p_time_domains: domains.as_mut_ptr(),
        p_time_domain_ids: ids.as_mut_ptr(),
        ..Default::default()
    };
    let mut counter = 0u64;
    // SAFETY: caller contract; the arrays hold `time_domain_count` elements.
    let r = unsafe { (fns.time_domain_properties)(device, swapchain, &mut props, &mut counter) };
    if r != vk::Result::SUCCESS && r != vk::Result::INCOMPLETE {
        return Err(Error::vk("vkGetSwapchainTimeDomainPropertiesEXT", r));
    }
    let n = (props.time_domain_count as usize).min(MAX_DOMAINS);
    let mut pairs = [(vk::TimeDomainKHR::DEVICE, 0u64); MAX_DOMAINS];
    for (p, (d, id)) in pairs.iter_mut().zip(domains.iter().zip(ids.iter())) {
        *p = (*d, *id);
    }
    Ok((choose_domain(&pairs[..n]), counter))
}

/// Calibrates `chosen` against `CLOCK_MONOTONIC` and that against the shell clock: each try
/// brackets one `vkGetCalibratedTimestampsKHR` call with two clock readings, and the narrowest
/// of three is kept, so a preemption during one does not skew the mapping.
///
/// # Safety
///
/// As [`SwapchainTiming::new`]; `chosen` was reported for `swapchain`.
unsafe fn calibrate(
    fns: &PresentTimingFns,
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    chosen: (vk::TimeDomainKHR, u64),
    supported: PresentStageFlagsEXT,
    clock: &Clock,
) -> Result<Calibration> {
    let (plan, n) = calibration_plan(chosen.0, supported);
    let mut best: Option<Reading> = None;
    for _ in 0..3 {
        // SAFETY: caller contract.
        let reading = unsafe { read_clocks(fns, device, swapchain, chosen, &plan[..n], clock) }?;
        if best.map_or(true, |b| reading.bracket_ns < b.bracket_ns) {
            best = Some(reading);
        }
    }
    let best = best.unwrap_or_default();
    Ok(calibration_from(chosen, &plan[..n], &best))
}

/// One calibrated reading: `CLOCK_MONOTONIC` and the chosen domain per `plan` entry.
///
/// # Safety
///
/// As [`calibrate`].
unsafe fn read_clocks(
    fns: &PresentTimingFns,
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    (domain, domain_id): (vk::TimeDomainKHR, u64),
    plan: &[PresentStageFlagsEXT],
    clock: &Clock,
) -> Result<Reading> {
    let mut locals = [SwapchainCalibratedTimestampInfoEXT::default(); 4];
    let mut infos = [vk::CalibratedTimestampInfoKHR::default().time_domain(HOST_DOMAIN); 5];
    let mut count = 1;
    for ((local, info), stage) in locals.iter_mut().zip(infos[1..].iter_mut()).zip(plan) {
        local.swapchain = swapchain;
        local.present_stage = *stage;
        local.time_domain_id = domain_id;
        // VUID-VkCalibratedTimestampInfoKHR-timeDomain-12227: swapchain-local domains name
        // their swapchain (and stage) in the chain. Duplicate PRESENT_STAGE_LOCAL entries are
        // allowed (VUID-vkGetCalibratedTimestampsKHR-timeDomain-09246).
        *info = local.chain_onto(vk::CalibratedTimestampInfoKHR::default().time_domain(domain));
        count += 1;
    }
    let mut stamps = [0u64; 5];
    let mut deviation = 0u64;
    let before = clock.now_ns();
    // SAFETY: caller contract; `infos` and `stamps` hold at least `count` elements; the
    // chained structures live in `locals` past the call.
    let r = unsafe {
        (fns.calibrated_timestamps)(
            device,
            count as u32,
            infos.as_ptr(),
            stamps.as_mut_ptr(),
            &mut deviation,
        )
    };
    let after = clock.now_ns();
    if r != vk::Result::SUCCESS {
        return Err(Error::vk("vkGetCalibratedTimestampsKHR", r));
    }
    let bracket_ns = after.saturating_sub(before);
    let [monotonic, a, b, c, d] = stamps;
    Ok(Reading {
        mid_ns: before + bracket_ns / 2,
        bracket_ns,
        monotonic,
        locals: [a, b, c, d],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const QOE: PresentStageFlagsEXT = PresentStageFlagsEXT::QUEUE_OPERATIONS_END;
    const DEQ: PresentStageFlagsEXT = PresentStageFlagsEXT::REQUEST_DEQUEUED;
    const OUT: PresentStageFlagsEXT = PresentStageFlagsEXT::IMAGE_FIRST_PIXEL_OUT;
    const VIS: PresentStageFlagsEXT = PresentStageFlagsEXT::IMAGE_FIRST_PIXEL_VISIBLE;
    const MONO: vk::TimeDomainKHR = vk::TimeDomainKHR::CLOCK_MONOTONIC;

    #[test]
    fn refresh_cycles_follow_the_spec() {
        assert_eq!(classify_refresh(0, 0), RefreshCycle::Unknown);
        assert_eq!(classify_refresh(0, u64::MAX), RefreshCycle::Unknown);
        assert_eq!(
            classify_refresh(16_666_667, 16_666_667),
            RefreshCycle::Fixed {
                duration_ns: 16_666_667
            }
        );
        assert_eq!(
            classify_refresh(6_944_444, u64::MAX),
            RefreshCycle::Variable {
                min_duration_ns: 6_944_444
            }
        );
        // A fixed visible duration on a faster vblank grid.
        assert_eq!(
            classify_refresh(16_666_666, 8_333_333),
            RefreshCycle::Fixed {
                duration_ns: 16_666_666
            }
        );
        // VRR state unknown: the duration still holds.
        assert_eq!(
            classify_refresh(16_666_667, 0),
            RefreshCycle::Fixed {
                duration_ns: 16_666_667
            }
        );
        // The interval must be a factor of the duration.
        assert_eq!(
            classify_refresh(8_000_000, 16_000_000),
            RefreshCycle::Unknown
        );
    }

    #[test]
    fn domain_choice_prefers_the_host_clock() {
        let stage = (TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 1);
        let swap = (TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 2);
        let mono = (MONO, 3);
        // vdisplay's list.
        assert_eq!(choose_domain(&[stage, swap, mono]), Some(mono));
        assert_eq!(choose_domain(&[stage, swap]), Some(swap));
        assert_eq!(choose_domain(&[stage]), Some(stage));
        assert_eq!(
            choose_domain(&[(vk::TimeDomainKHR::DEVICE, 9), stage]),
            Some(stage)
        );
        assert_eq!(choose_domain(&[(vk::TimeDomainKHR::DEVICE, 9)]), None);
        assert_eq!(choose_domain(&[]), None);
    }

    #[test]
    fn the_target_stage_is_the_latest_supported() {
        assert_eq!(target_stage(QOE | DEQ | OUT | VIS), VIS);
        assert_eq!(target_stage(QOE | DEQ), DEQ);
        assert_eq!(target_stage(QOE), QOE);
        assert_eq!(
            target_stage(PresentStageFlagsEXT::empty()),
            PresentStageFlagsEXT::empty()
        );
    }

    #[test]
    fn calibration_plans_and_offsets() {
        assert_eq!(calibration_plan(MONO, QOE | VIS).1, 0);
        let (plan, n) = calibration_plan(TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, QOE | VIS);
        assert_eq!((plan[0], n), (PresentStageFlagsEXT::empty(), 1));
        let (plan, n) = calibration_plan(TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, QOE | VIS);
        assert_eq!(&plan[..n], &[QOE, VIS]);

        let reading = Reading {
            mid_ns: 1_000,
            bracket_ns: 10,
            monotonic: 50_000,
            locals: [7_000, 0, 0, 0],
        };
        let cal = calibration_from((MONO, 3), &[], &reading);
        assert_eq!(cal.stage_offsets, [Some(-49_000); 4]);
        let cal = calibration_from((TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 2), &plan[..1], &reading);
        assert_eq!(cal.stage_offsets, [Some(-6_000); 4]);
        assert_eq!(cal.monotonic_offset, -49_000);
        let cal = calibration_from(
            (TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 1),
            &[QOE, VIS],
            &reading,
        );
        // VIS read 0: "no longer supported", left uncalibrated.
        assert_eq!(cal.stage_offsets, [Some(-6_000), None, None, None]);
    }

    fn entry(domain: vk::TimeDomainKHR, id: u64) -> PastPresentationTimingEXT<'static> {
        PastPresentationTimingEXT {
            present_id: 42,
            target_time: 60_000,
            time_domain: domain,
            time_domain_id: id,
            report_complete: vk::TRUE,
            ..Default::default()
        }
    }

    fn stages() -> [PresentStageTimeEXT; 4] {
        [
            PresentStageTimeEXT {
                stage: QOE,
                time: 51_000,
            },
            PresentStageTimeEXT {
                stage: DEQ,
                time: 0,
            },
            PresentStageTimeEXT {
                stage: OUT,
                time: 60_000,
            },
            PresentStageTimeEXT {
                stage: VIS,
                time: 60_500,
            },
        ]
    }

    #[test]
    fn results_are_shifted_to_the_shell_clock() {
        let reading = Reading {
            mid_ns: 1_000,
            bracket_ns: 10,
            monotonic: 50_000,
            locals: [20_000, 0, 0, 0],
        };
        let cal = calibration_from((TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 2), &[], &reading);
        let (r, foreign) = convert(
            &entry(TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 2),
            &stages(),
            &cal,
            cal.stage_offsets[3],
        );
        assert!(!foreign);
        assert_eq!(r.present_id, 42);
        assert_eq!(r.target_ns, Some(41_000));
        assert_eq!(r.queue_operations_end, Some(32_000));
        assert_eq!(r.request_dequeued, None, "a time of 0 has no result");
        assert_eq!(r.first_pixel_out, Some(41_000));
        assert_eq!(r.first_pixel_visible, Some(41_500));
        assert!(r.complete);

        // Fallback to CLOCK_MONOTONIC: the host mapping applies.
        let (r, foreign) = convert(&entry(MONO, 3), &stages()[..1], &cal, None);
        assert!(!foreign);
        assert_eq!(r.queue_operations_end, Some(2_000));
        assert_eq!(r.target_ns, None, "relative targets were used");
        assert_eq!(r.first_pixel_visible, None, "not reported");

        // Another swapchain-local id: no calibration, times dropped, re-read asked for.
        let (r, foreign) = convert(
            &entry(TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 7),
            &stages(),
            &cal,
            None,
        );
        assert!(foreign);
        assert_eq!(r.queue_operations_end, None);
        assert_eq!(r.first_pixel_visible, None);
        assert_eq!(r.present_id, 42);
    }

    #[test]
    fn stage_local_results_use_their_own_offsets_and_clamp() {
        let reading = Reading {
            mid_ns: 100,
            bracket_ns: 1,
            monotonic: 1,
            locals: [1_000, 5_000, 0, 0],
        };
        let cal = calibration_from(
            (TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 1),
            &[QOE, VIS],
            &reading,
        );
        let e = entry(TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 1);
        let target = stage_index(target_stage(QOE | VIS)).and_then(|i| cal.stage_offsets[i]);
        let (r, _) = convert(&e, &stages(), &cal, target);
        assert_eq!(r.queue_operations_end, Some(50_100));
        assert_eq!(r.first_pixel_out, None, "stage not calibrated");
        assert_eq!(r.first_pixel_visible, Some(55_600));
        // The target is in the target stage's (VIS) domain.
        assert_eq!(r.target_ns, Some(55_100));
        // Before the shell epoch: clamped to 0, still a time.
        assert_eq!(shift(10, -100), Some(0));
        assert_eq!(shift(u64::MAX, 100), Some(u64::MAX));
        assert_eq!(shift(0, 100), None);
    }
}
