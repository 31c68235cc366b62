//! `vkGetCalibratedTimestampsKHR` / `EXT`: the swapchain-local and stage-local domains of
//! VK_EXT_present_timing are CLOCK_MONOTONIC (see `timing.rs`), so calibrating them is reading
//! that clock; every other domain goes to the driver's EXT command in one call.

use ash::vk;
use vkpace::vk::registry as r;

use crate::clock::now_ns;
use crate::device::Device;

fn is_local(d: vk::TimeDomainKHR) -> bool {
    d == r::TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT || d == r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT
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
            mono
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
