//! The commands the layer intercepts: an `extern "system"` entry point each, run under the
//! layer's panic guard, and the table the plumbing's `vkGet*ProcAddr` consult. Every command
//! not listed goes to the next layer untouched.

use std::ffi::CStr;

use ash::vk;
use vkpace_layer_plumbing::{entry_point, pfn, Level, VoidFn};

use crate::device::{self, Device};
use crate::instance;

type Alloc<'a> = *const vk::AllocationCallbacks<'a>;

entry_point!(crate::GUARD; create_instance(ci: *const vk::InstanceCreateInfo<'_>, a: Alloc<'_>, out: *mut vk::Instance) -> vk::Result => instance::create(ci, a, out));
entry_point!(crate::GUARD; destroy_instance(i: vk::Instance, a: Alloc<'_>) => instance::destroy(i, a));
entry_point!(crate::GUARD; create_device(pd: vk::PhysicalDevice, ci: *const vk::DeviceCreateInfo<'_>, a: Alloc<'_>, out: *mut vk::Device) -> vk::Result => device::create(pd, ci, a, out));
entry_point!(crate::GUARD; destroy_device(d: vk::Device, a: Alloc<'_>) => device::destroy(d, a));

/// The layer's commands by name.
pub(crate) fn lookup(name: &CStr) -> Option<(Level<Device>, VoidFn)> {
    Some(match name.to_bytes() {
        b"vkCreateInstance" => (
            Level::Global,
            pfn!(create_instance, vk::PFN_vkCreateInstance),
        ),
        b"vkDestroyInstance" => (
            Level::Instance,
            pfn!(destroy_instance, vk::PFN_vkDestroyInstance),
        ),
        b"vkCreateDevice" => (Level::Physical, pfn!(create_device, vk::PFN_vkCreateDevice)),
        b"vkDestroyDevice" => (Level::Device, pfn!(destroy_device, vk::PFN_vkDestroyDevice)),
        _ => return None,
    })
}
