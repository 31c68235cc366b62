//! The Vulkan calls behind present timing's time domains: a swapchain's domains read
//! ([`read_domains`]) and a chosen one calibrated against the shell's [`Clock`]
//! ([`calibrate`]). Which domain, what to read and the mapping it gives are the core's
//! (`core::display`).

use ash::vk;

use super::present_timing::{PresentTimingFns, HOST_DOMAIN, MAX_DOMAINS};
use crate::vk::clock::Clock;
use crate::vk::error::{Error, Result};
use vkpace_core::{
    calibration_from, calibration_plan, choose_domain, Calibrateable, Calibration, Reading, Stages,
    TimeDomain,
};
use vkpace_registry::{
    PresentStageFlagsEXT, SwapchainCalibratedTimestampInfoEXT, SwapchainTimeDomainPropertiesEXT,
};

/// Reads up to [`MAX_DOMAINS`] time domains (`VK_INCOMPLETE` is fine: the choice is among
/// those read) and the domains counter, and picks one (`core::choose_domain`).
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
) -> Result<(Option<(TimeDomain, u64)>, u64)> {
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
    let mut pairs = [(TimeDomain(0), 0u64); MAX_DOMAINS];
    for (p, (d, id)) in pairs.iter_mut().zip(domains.iter().zip(ids.iter())) {
        *p = (TimeDomain(d.as_raw()), *id);
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
    chosen: (TimeDomain, u64),
    supported: PresentStageFlagsEXT,
    clock: &Clock,
) -> Result<Calibration> {
    let (plan, n) = calibration_plan(chosen.0, Stages(supported.as_raw()));
    let mut best: Option<Reading> = None;
    for _ in 0..3 {
        // SAFETY: caller contract.
        let reading = unsafe { read_clocks(fns, device, swapchain, chosen, &plan[..n], clock) }?;
        if best.is_none_or(|b| reading.bracket_ns < b.bracket_ns) {
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
    (domain, domain_id): (TimeDomain, u64),
    plan: &[Stages],
    clock: &Clock,
) -> Result<Reading> {
    let mut locals = [SwapchainCalibratedTimestampInfoEXT::default(); 4];
    let mut infos = [vk::CalibratedTimestampInfoKHR::default().time_domain(HOST_DOMAIN); 5];
    let mut count = 1;
    for ((local, info), stage) in locals.iter_mut().zip(infos[1..].iter_mut()).zip(plan) {
        local.swapchain = swapchain;
        local.present_stage = PresentStageFlagsEXT(stage.0);
        local.time_domain_id = domain_id;
        // VUID-VkCalibratedTimestampInfoKHR-timeDomain-12227: swapchain-local domains name
        // their swapchain (and stage) in the chain. Duplicate PRESENT_STAGE_LOCAL entries are
        // allowed (VUID-vkGetCalibratedTimestampsKHR-timeDomain-09246).
        let domain = vk::TimeDomainKHR::from_raw(domain.0);
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
