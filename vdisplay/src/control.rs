//! Exported C functions that drive the virtual displays from outside Vulkan (tests, the demo):
//! resolve them with `dlsym` on the loaded layer library. Surfaces are named by their sequence
//! number (the log's `surface` field), not their handle, because a layer above (validation)
//! may hand the application wrapped handles; 0 means every virtual surface.

use ash::vk;

use crate::GUARD;
use crate::{surface, swapchain};

/// Sets the current extent of virtual surfaces (an external resize; 0x0 = minimized). Returns
/// how many surfaces changed.
#[no_mangle]
pub extern "C" fn vdisplay_set_extent(surface_seq: u64, width: u32, height: u32) -> u32 {
    GUARD.run("vdisplay_set_extent", 0, || {
        surface::set_extent(surface_seq, vk::Extent2D { width, height }) as u32
    })
}

/// Pauses (`paused` non-zero) or resumes the displays of virtual surfaces, as a compositor
/// that stops repainting a hidden window: while paused nothing queued is shown and no image is
/// handed back, so acquires time out. Returns how many surfaces.
#[no_mangle]
pub extern "C" fn vdisplay_pause(surface_seq: u64, paused: u32) -> u32 {
    GUARD.run("vdisplay_pause", 0, || {
        surface::set_paused(surface_seq, paused != 0) as u32
    })
}

/// Marks virtual surfaces lost. Returns how many.
#[no_mangle]
pub extern "C" fn vdisplay_lose_surface(surface_seq: u64) -> u32 {
    GUARD.run("vdisplay_lose_surface", 0, || {
        surface::set_lost(surface_seq) as u32
    })
}

/// The last `VkHdrMetadataEXT` set (`vkSetHdrMetadataEXT`) on the current, not retired,
/// swapchain of a virtual surface (0: the newest virtual surface). Returns 1 and writes the
/// metadata (with `pNext` NULL) to `out` and that swapchain's creation number (the log's
/// `swapchain`) to `swapchain_seq`; returns 0 and writes nothing without such a surface or
/// swapchain, or when no metadata was set on it.
///
/// # Safety
/// `swapchain_seq` and `out` must be valid for writes (or null, to leave that one out).
#[no_mangle]
pub unsafe extern "C" fn vdisplay_hdr_metadata(
    surface_seq: u64,
    swapchain_seq: *mut u64,
    out: *mut vk::HdrMetadataEXT<'static>,
) -> u32 {
    GUARD.run("vdisplay_hdr_metadata", 0, || {
        let Some((seq, md)) = swapchain::hdr_metadata_of_surface(surface_seq) else {
            return 0;
        };
        // SAFETY: the caller's contract: each pointer is null or valid for a write.
        unsafe {
            if let Some(s) = swapchain_seq.as_mut() {
                *s = seq;
            }
            if let Some(o) = out.as_mut() {
                *o = md;
            }
        }
        1
    })
}
