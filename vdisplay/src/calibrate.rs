//! `vkGetCalibratedTimestampsKHR` / `EXT`: the swapchain-local and stage-local domains of
//! VK_EXT_present_timing are CLOCK_MONOTONIC plus the swapchain's local offset (0 with
//! `timing_domains = monotonic`; see `timing.rs`), so calibrating them is reading that clock;
//! every other domain goes to the driver's EXT command in one call.

use ash::vk;
use vkpace_registry as r;

use crate::clock::now_ns;
use crate::device::Device;
use crate::swapchain;
use crate::timing::{is_local, Domains};
use vkpace_layer_plumbing::chain;

/// The offset of a local domain's entry: that of the swapchain its
/// `VkSwapchainCalibratedTimestampInfoEXT` names (the spec requires one for these domains),
/// or, without one or for a swapchain not the layer's, of the device's settings.
///
/// # Safety
/// `info.p_next` must be a valid chain.
unsafe fn local_offset(dev: &Device, info: &vk::CalibratedTimestampInfoKHR<'_>) -> u64 {
    // SAFETY: caller's contract.
    let named = unsafe { chain::find::<r::SwapchainCalibratedTimestampInfoEXT>(info.p_next) };
    let sc = named.and_then(|s| swapchain::lookup(s.swapchain));
    let domains = sc.map_or_else(
        || Domains::of(&dev.settings),
        |sc| Domains::of(&sc.surface.settings),
    );
    domains.offset_of_domain(info.time_domain)
}

/// A local domain's reading: CLOCK_MONOTONIC plus its offset.
fn local_stamp(mono: u64, offset: u64) -> u64 {
    mono.saturating_add(offset)
}

/// The command (both names).
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn get_calibrated_timestamps(
    device: vk::Device,
    count: u32,
    infos: *const vk::CalibratedTimestampInfoKHR<'_>,
    stamps: *mut u64,
    max_deviation: *mut u64,
) -> vk::Result {
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(device) }) else {
        return vk::Result::ERROR_DEVICE_LOST;
    };
    // SAFETY: `infos` holds `count` structures.
    let infos = unsafe { std::slice::from_raw_parts(infos, count as usize) };
    let down: Vec<vk::CalibratedTimestampInfoKHR> = infos
        .iter()
        .filter(|i| !is_local(i.time_domain))
        .map(|i| vk::CalibratedTimestampInfoKHR {
            p_next: std::ptr::null(),
            ..*i
        })
        .collect();
    let mut down_stamps = vec![0u64; down.len()];
    let mut deviation = 1u64;
    if !down.is_empty() {
        // SAFETY: arrays of `down.len()` elements; domains the driver reported.
        let res = unsafe {
            (dev.calibrated_fp.get_calibrated_timestamps_ext)(
                device,
                down.len() as u32,
                down.as_ptr(),
                down_stamps.as_mut_ptr(),
                &mut deviation,
            )
        };
        if res != vk::Result::SUCCESS {
            return res;
        }
    }
    let mono = down
        .iter()
        .position(|i| i.time_domain == vk::TimeDomainKHR::CLOCK_MONOTONIC)
        .map(|p| down_stamps[p])
        .unwrap_or_else(now_ns);
    let mut next = down_stamps.into_iter();
    for (i, info) in infos.iter().enumerate() {
        let v = if is_local(info.time_domain) {
            // SAFETY: the application's chain, valid for this call.
            local_stamp(mono, unsafe { local_offset(&dev, info) })
        } else {
            next.next().unwrap_or(0)
        };
        // SAFETY: `stamps` holds `count` values.
        unsafe { *stamps.add(i) = v };
    }
    // SAFETY: valid out-pointer.
    unsafe { *max_deviation = deviation };
    vk::Result::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_stamps_are_monotonic_plus_the_offset() {
        let local = Domains::local(1_000);
        let off = |d| local.offset_of_domain(d);
        assert_eq!(
            local_stamp(5, off(r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT)),
            1_005
        );
        assert_eq!(
            local_stamp(5, off(r::TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT)),
            1_005
        );
        assert_eq!(
            Domains::MONOTONIC.offset_of_domain(r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT),
            0
        );
        assert_eq!(local_stamp(u64::MAX - 1, 10), u64::MAX);
    }
}
