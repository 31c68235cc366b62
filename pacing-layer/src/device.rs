//! `vkCreateDevice` / `vkDestroyDevice` and the layer's per-device state.

use std::sync::{Arc, LazyLock};

use ash::vk;
use vkpace_layer_plumbing::{DeviceLink, DispatchKey, DispatchMap, NextDevice};

use crate::instance::INSTANCES;

/// The layer's state of one device.
pub struct Device {
    /// The next layer's entry points for it.
    pub next: NextDevice,
    /// The next layer's core device commands (what the present pacer will be made with).
    pub fp: ash::Device,
}

/// Devices by dispatch key (a device and its queues and command buffers share one).
pub static DEVICES: LazyLock<DispatchMap<Device>> = LazyLock::new(DispatchMap::new);

/// `vkCreateDevice`: the application's create info goes down unchanged.
///
/// # Safety
/// The arguments of a valid `vkCreateDevice` call made by the loader.
pub unsafe fn create(
    pd: vk::PhysicalDevice,
    ci: *const vk::DeviceCreateInfo<'_>,
    alloc: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Device,
) -> vk::Result {
    // SAFETY: a valid physical device: it shares its instance's dispatch key.
    let Some(inst) = (unsafe { INSTANCES.of(pd) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: the loader's create info, once per call; the application's arguments go down.
    let create = |create: vk::PFN_vkCreateDevice| unsafe { create(pd, ci, alloc, out) };
    // SAFETY: as above; the physical device's instance.
    let next = match unsafe { DeviceLink::create(&*ci, inst.next.handle, out, create) } {
        Ok(next) => next,
        Err(error) => return error,
    };
    let handle = next.handle;
    let device = Device {
        next,
        fp: next.load(),
    };
    // SAFETY: a valid device handle.
    DEVICES.insert(unsafe { DispatchKey::of(handle) }, Arc::new(device));
    crate::log(format_args!(
        "vkCreateDevice: device created through the layer"
    ));
    vk::Result::SUCCESS
}

/// `vkDestroyDevice`.
///
/// # Safety
/// The arguments of a valid `vkDestroyDevice` call.
pub unsafe fn destroy(device: vk::Device, alloc: *const vk::AllocationCallbacks<'_>) {
    if device == vk::Device::null() {
        return;
    }
    // SAFETY: a valid device handle.
    let Some(dev) = DEVICES.remove(unsafe { DispatchKey::of(device) }) else {
        return;
    };
    crate::log(format_args!(
        "vkDestroyDevice: device destroyed through the layer"
    ));
    // SAFETY: the next layer's destroy with the application's arguments.
    unsafe { (dev.fp.fp_v1_0().destroy_device)(device, alloc) };
}
