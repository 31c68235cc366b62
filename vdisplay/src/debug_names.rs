//! `vkSetDebugUtilsObjectNameEXT` / `vkSetDebugUtilsObjectTagEXT` on the layer's own handles.
//!
//! The layer's swapchains and surfaces exist only in the layer: passed down, the driver would
//! read the handle as one of its own objects (lavapipe dereferences it and crashes; vkpace
//! names every swapchain it makes). A name or tag of one of them is accepted here and kept
//! nowhere (the layers above, such as validation, keep their own copy for their messages);
//! every other object goes down the chain unchanged.

use ash::vk;
use vkpace_layer_plumbing::call_next;

use crate::device::Device;
use crate::{surface, swapchain};

/// Whether `(object_type, handle)` names a swapchain or surface of this layer.
fn is_virtual(object_type: vk::ObjectType, handle: u64) -> bool {
    use ash::vk::Handle;
    match object_type {
        vk::ObjectType::SWAPCHAIN_KHR => {
            swapchain::lookup(vk::SwapchainKHR::from_raw(handle)).is_some()
        }
        vk::ObjectType::SURFACE_KHR => surface::lookup(vk::SurfaceKHR::from_raw(handle)).is_some(),
        _ => false,
    }
}

/// `vkSetDebugUtilsObjectNameEXT`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn set_name(
    d: vk::Device,
    info: *const vk::DebugUtilsObjectNameInfoEXT<'_>,
) -> vk::Result {
    // SAFETY: a valid info pointer (caller's contract).
    let i = unsafe { &*info };
    if is_virtual(i.object_type, i.object_handle) {
        return vk::Result::SUCCESS;
    }
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(d) }) else {
        return vk::Result::ERROR_DEVICE_LOST;
    };
    call_next!(
        dev,
        c"vkSetDebugUtilsObjectNameEXT",
        vk::PFN_vkSetDebugUtilsObjectNameEXT,
        (d, info),
        vk::Result::SUCCESS
    )
}

/// `vkSetDebugUtilsObjectTagEXT`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn set_tag(
    d: vk::Device,
    info: *const vk::DebugUtilsObjectTagInfoEXT<'_>,
) -> vk::Result {
    // SAFETY: a valid info pointer (caller's contract).
    let i = unsafe { &*info };
    if is_virtual(i.object_type, i.object_handle) {
        return vk::Result::SUCCESS;
    }
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(d) }) else {
        return vk::Result::ERROR_DEVICE_LOST;
    };
    call_next!(
        dev,
        c"vkSetDebugUtilsObjectTagEXT",
        vk::PFN_vkSetDebugUtilsObjectTagEXT,
        (d, info),
        vk::Result::SUCCESS
    )
}
