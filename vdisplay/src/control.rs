//! Exported C functions that drive the virtual displays from outside Vulkan (tests, the demo):
//! resolve them with `dlsym` on the loaded layer library. Surfaces are named by their sequence
//! number (the log's `surface` field), not their handle, because a layer above (validation)
//! may hand the application wrapped handles; 0 means every virtual surface.

use ash::vk;

use crate::ffi::guard::guard;
use crate::surface;

/// Sets the current extent of virtual surfaces (an external resize; 0x0 = minimized). Returns
/// how many surfaces changed.
#[no_mangle]
pub extern "C" fn vdisplay_set_extent(surface_seq: u64, width: u32, height: u32) -> u32 {
    guard("vdisplay_set_extent", 0, || {
        surface::set_extent(surface_seq, vk::Extent2D { width, height }) as u32
    })
}

/// Marks virtual surfaces lost. Returns how many.
#[no_mangle]
pub extern "C" fn vdisplay_lose_surface(surface_seq: u64) -> u32 {
    guard("vdisplay_lose_surface", 0, || {
        surface::set_lost(surface_seq) as u32
    })
}
