//! `vkSetHdrMetadataEXT` (VK_EXT_hdr_metadata). A virtual display has no HDR output to set up,
//! so the layer records the last metadata of each of its swapchains, for tests to read back
//! through the exported `vdisplay_hdr_metadata` (`control.rs`). Swapchains of other surfaces
//! go down the chain.

use ash::vk;
use vkpace_layer_plumbing::call_next;

use super::lookup;
use crate::device::Device;
use crate::handles::{SURFACES, SWAPCHAINS};

/// `vkSetHdrMetadataEXT`.
///
/// # Safety
/// Valid arguments of the command: `swapchains` and `metadata` hold `count` elements each
/// (VUID-vkSetHdrMetadataEXT-pSwapchains-parameter, -pMetadata-parameter).
pub unsafe fn set_hdr_metadata(
    device: vk::Device,
    count: u32,
    swapchains: *const vk::SwapchainKHR,
    metadata: *const vk::HdrMetadataEXT<'_>,
) {
    if count == 0 || swapchains.is_null() || metadata.is_null() {
        return;
    }
    // SAFETY: caller's contract: both arrays hold `count` elements.
    let (scs, mds) = unsafe {
        (
            std::slice::from_raw_parts(swapchains, count as usize),
            std::slice::from_raw_parts(metadata, count as usize),
        )
    };
    let mut down: (Vec<vk::SwapchainKHR>, Vec<vk::HdrMetadataEXT<'_>>) = (Vec::new(), Vec::new());
    for (sc, md) in scs.iter().zip(mds) {
        match lookup(*sc) {
            Some(ours) => {
                *ours.hdr_metadata.lock().unwrap_or_else(|e| e.into_inner()) = Some(detach(md));
            }
            None => {
                down.0.push(*sc);
                down.1.push(*md);
            }
        }
    }
    if down.0.is_empty() {
        return;
    }
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(device) }) else {
        return;
    };
    let n = down.0.len() as u32;
    call_next!(
        dev,
        c"vkSetHdrMetadataEXT",
        vk::PFN_vkSetHdrMetadataEXT,
        (device, n, down.0.as_ptr(), down.1.as_ptr()),
        ()
    )
}

/// The values of `md` without its `pNext` chain (which lives only for the call).
fn detach(md: &vk::HdrMetadataEXT<'_>) -> vk::HdrMetadataEXT<'static> {
    vk::HdrMetadataEXT::default()
        .display_primary_red(md.display_primary_red)
        .display_primary_green(md.display_primary_green)
        .display_primary_blue(md.display_primary_blue)
        .white_point(md.white_point)
        .max_luminance(md.max_luminance)
        .min_luminance(md.min_luminance)
        .max_content_light_level(md.max_content_light_level)
        .max_frame_average_light_level(md.max_frame_average_light_level)
}

/// The last HDR metadata of the current (not retired) swapchain of the virtual surface with
/// sequence number `surface_seq` (0: the newest virtual surface), with that swapchain's
/// sequence number; `None` without such a surface or swapchain, or before any metadata was set.
pub fn hdr_metadata_of_surface(surface_seq: u64) -> Option<(u64, vk::HdrMetadataEXT<'static>)> {
    let surface = SURFACES
        .filter(|s| surface_seq == 0 || s.seq == surface_seq)
        .into_iter()
        .max_by_key(|s| s.seq)?;
    let current = surface.state().current_swapchain;
    let sc = SWAPCHAINS.get(current)?;
    let md = (*sc.hdr_metadata.lock().unwrap_or_else(|e| e.into_inner()))?;
    Some((sc.seq, md))
}
