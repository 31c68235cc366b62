//! Time domains of present timing: which of a swapchain's domains to use
//! ([`choose_domain`]), its calibration against the shell's [`Clock`] ([`calibrate`]) and the
//! conversion of reported times to the shell clock ([`shift`]). Kept apart from the
//! per-swapchain state so the mapping and its pure helpers can be read and tested alone.

use ash::vk;

use super::clock::Clock;
use super::error::{Error, Result};
use super::present_timing::{
    Calibrateable, PresentTimingFns, ALL_STAGES, HOST_DOMAIN, MAX_DOMAINS,
};
use super::registry::{
    PresentStageFlagsEXT, SwapchainCalibratedTimestampInfoEXT, SwapchainTimeDomainPropertiesEXT,
    TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT,
};

/// Index of a single stage bit in [`ALL_STAGES`].
pub(super) fn stage_index(stage: PresentStageFlagsEXT) -> Option<usize> {
    ALL_STAGES.iter().position(|s| *s == stage)
}

/// Prefers `CLOCK_MONOTONIC` (the shell's clock itself: no drift to correct), then a
/// swapchain-local domain (one calibration for all stages), then a stage-local one (which the
/// spec requires every implementation to offer), each only where the device can calibrate
/// it. Other domains are not used.
pub(super) fn choose_domain(
    domains: &[(vk::TimeDomainKHR, u64)],
    calibrateable: Calibrateable,
) -> Option<(vk::TimeDomainKHR, u64)> {
    [
        HOST_DOMAIN,
        TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT,
        TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT,
    ]
    .iter()
    .filter(|want| calibrateable.allows(**want))
    .find_map(|want| domains.iter().copied().find(|(d, _)| d == want))
}

/// The stage an absolute target is given in for a stage-local domain: the target aligns
/// `IMAGE_FIRST_PIXEL_VISIBLE`, and the spec advises where that has no timing to "use the
/// supported present stage nearest to it"; so the latest supported stage.
pub(super) fn target_stage(supported: PresentStageFlagsEXT) -> PresentStageFlagsEXT {
    ALL_STAGES
        .iter()
        .rev()
        .copied()
        .find(|s| supported.contains(*s))
        .unwrap_or(PresentStageFlagsEXT::empty())
}

/// The mapping of reported times to the shell clock: `shell = time + offset`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct Calibration {
    /// The chosen domain.
    pub(super) domain: vk::TimeDomainKHR,
    /// Its id.
    pub(super) domain_id: u64,
    /// Offset per stage (index as [`ALL_STAGES`]); the same for all stages unless the domain
    /// is stage-local; `None` where not calibrated.
    pub(super) stage_offsets: [Option<i128>; 4],
    /// Offset of `CLOCK_MONOTONIC`, for results the engine reports there as a fallback.
    pub(super) monotonic_offset: i128,
    /// The shell time of the calibration.
    pub(super) at_ns: u64,
}

/// One `vkGetCalibratedTimestampsKHR` reading.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Reading {
    /// Middle of the shell-clock bracket around the call.
    pub(super) mid_ns: u64,
    /// Width of that bracket.
    pub(super) bracket_ns: u64,
    /// `CLOCK_MONOTONIC`.
    pub(super) monotonic: u64,
    /// The chosen domain, per entry of the calibration plan ([`calibration_plan`]).
    pub(super) locals: [u64; 4],
}

/// What to read besides `CLOCK_MONOTONIC`: the `presentStage` of each
/// `VkSwapchainCalibratedTimestampInfoEXT`: nothing for `CLOCK_MONOTONIC`, one zero stage for a
/// swapchain-local domain, each supported stage for a stage-local one (VUID-12228: "one and
/// only one present stage").
pub(super) fn calibration_plan(
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
pub(super) fn calibration_from(
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
pub(super) fn shift(time: u64, offset: i128) -> Option<u64> {
    if time == 0 {
        return None;
    }
    let shell = (i128::from(time) + offset).clamp(0, i128::from(u64::MAX));
    u64::try_from(shell).ok()
}

/// Reads up to [`MAX_DOMAINS`] time domains (`VK_INCOMPLETE` is fine: the choice is among
/// those read) and the domains counter, and picks one ([`choose_domain`]).
///
/// # Safety
///
/// As [`SwapchainTiming::new`].
///
/// [`SwapchainTiming::new`]: super::swapchain_timing::SwapchainTiming::new
pub(super) unsafe fn read_domains(
    fns: &PresentTimingFns,
    device: vk::Device,
    swapchain: vk::SwapchainKHR,
    calibrateable: Calibrateable,
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
    Ok((choose_domain(&pairs[..n], calibrateable), counter))
}

/// Calibrates `chosen` against `CLOCK_MONOTONIC` and that against the shell clock: each try
/// brackets one `vkGetCalibratedTimestampsKHR` call with two clock readings, and the narrowest
/// of three is kept, so a preemption during one does not skew the mapping.
///
/// # Safety
///
/// As [`SwapchainTiming::new`]; `chosen` was reported for `swapchain`.
///
/// [`SwapchainTiming::new`]: super::swapchain_timing::SwapchainTiming::new
pub(super) unsafe fn calibrate(
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
    const ALL: Calibrateable = Calibrateable {
        host: true,
        swapchain_local: true,
        stage_local: true,
    };
    const MONO: vk::TimeDomainKHR = vk::TimeDomainKHR::CLOCK_MONOTONIC;

    #[test]
    fn domain_choice_prefers_the_host_clock() {
        let stage = (TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 1);
        let swap = (TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 2);
        let mono = (MONO, 3);
        // vdisplay's list.
        assert_eq!(choose_domain(&[stage, swap, mono], ALL), Some(mono));
        assert_eq!(choose_domain(&[stage, swap], ALL), Some(swap));
        assert_eq!(choose_domain(&[stage], ALL), Some(stage));
        assert_eq!(
            choose_domain(&[(vk::TimeDomainKHR::DEVICE, 9), stage], ALL),
            Some(stage)
        );
        assert_eq!(choose_domain(&[(vk::TimeDomainKHR::DEVICE, 9)], ALL), None);
        assert_eq!(choose_domain(&[], ALL), None);
        let host_only = Calibrateable {
            host: true,
            ..Calibrateable::default()
        };
        assert_eq!(choose_domain(&[stage, swap], host_only), None);
        assert_eq!(choose_domain(&[stage, swap, mono], host_only), Some(mono));
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
}
