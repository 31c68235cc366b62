//! The commands the layer intercepts: an `extern "system"` entry point each, run under the
//! layer's panic guard, and the table the plumbing's `vkGet*ProcAddr` consult. Every command
//! not listed goes to the next layer untouched.
//!
//! The swapchain commands are the exception: they block (the pacing sleep, the gate's GPU
//! wait, the driver's acquire and present), and a forced unwind from below must not meet a
//! `catch_unwind`. Their entry points are unguarded; every step of theirs that runs vkpace's
//! logic runs in `PacerState::with_pacer`, under the guard, and a panic there turns the
//! device into a pass-through as before. Nothing blocks inside it (the pacer's pauses and
//! calls down all run with the device's lock released, and so outside it: the layer's summary
//! counts them). A thread Wine ends at `ExitProcess` ends as it leaves a command: every entry
//! point holds the signal back (`ThreadEndHeld`).

use std::ffi::CStr;

use ash::vk;
use vkpace_layer_plumbing::{entry_point, pfn, Level, VoidFn};

use crate::device::{self, Device};
use crate::{instance, swapchain};

type Alloc<'a> = *const vk::AllocationCallbacks<'a>;

entry_point!(crate::GUARD; create_instance(ci: *const vk::InstanceCreateInfo<'_>, a: Alloc<'_>, out: *mut vk::Instance) -> vk::Result => instance::create(ci, a, out));
entry_point!(crate::GUARD; create_device(pd: vk::PhysicalDevice, ci: *const vk::DeviceCreateInfo<'_>, a: Alloc<'_>, out: *mut vk::Device) -> vk::Result => device::create(pd, ci, a, out));

entry_point!(unguarded; destroy_instance(i: vk::Instance, a: Alloc<'_>) => destroy_instance_steps(i, a));
entry_point!(unguarded; destroy_device(d: vk::Device, a: Alloc<'_>) => destroy_device_steps(d, a));

/// `vkDestroyInstance`: the layer's part under the guard, the driver's destroy outside it (a
/// forced or foreign unwind from below passes; the plumbing's `Guard::around`).
///
/// # Safety
/// The arguments of a valid `vkDestroyInstance` call.
unsafe fn destroy_instance_steps(i: vk::Instance, a: Alloc<'_>) {
    crate::GUARD.around(
        "destroy_instance",
        (),
        // SAFETY: the application's instance handle.
        || unsafe { instance::plan_destroy(i) }.ok_or(()),
        // SAFETY: the next layer's destroy, looked up at creation, with the application's
        // arguments.
        |destroy| unsafe { destroy(i, a) },
        |()| (),
    )
}

/// `vkDestroyDevice`, as [`destroy_instance_steps`]: the pacer ends under the guard, the
/// driver's destroy runs outside it.
///
/// # Safety
/// The arguments of a valid `vkDestroyDevice` call.
unsafe fn destroy_device_steps(d: vk::Device, a: Alloc<'_>) {
    crate::GUARD.around(
        "destroy_device",
        (),
        // SAFETY: the application's device handle.
        || unsafe { device::plan_destroy(d) }.ok_or(()),
        // SAFETY: the next layer's destroy, looked up at creation, with the application's
        // arguments.
        |destroy| unsafe { destroy(d, a) },
        |()| (),
    )
}
entry_point!(crate::GUARD; get_device_queue(d: vk::Device, f: u32, i: u32, out: *mut vk::Queue) => device::get_queue(d, f, i, out));
entry_point!(crate::GUARD; get_device_queue2(d: vk::Device, info: *const vk::DeviceQueueInfo2<'_>, out: *mut vk::Queue) => device::get_queue2(d, info, out));
entry_point!(unguarded; create_swapchain(d: vk::Device, ci: *const vk::SwapchainCreateInfoKHR<'_>, a: Alloc<'_>, out: *mut vk::SwapchainKHR) -> vk::Result => swapchain::create(d, ci, a, out));
entry_point!(unguarded; destroy_swapchain(d: vk::Device, s: vk::SwapchainKHR, a: Alloc<'_>) => swapchain::destroy(d, s, a));
entry_point!(unguarded; acquire_next_image(d: vk::Device, s: vk::SwapchainKHR, t: u64, sem: vk::Semaphore, f: vk::Fence, i: *mut u32) -> vk::Result => swapchain::acquire(d, s, t, sem, f, i));
entry_point!(unguarded; acquire_next_image2(d: vk::Device, info: *const vk::AcquireNextImageInfoKHR<'_>, i: *mut u32) -> vk::Result => swapchain::acquire2(d, info, i));
entry_point!(unguarded; queue_present(q: vk::Queue, info: *const vk::PresentInfoKHR<'_>) -> vk::Result => swapchain::present(q, info));

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
        b"vkGetDeviceQueue" => (
            Level::Device,
            pfn!(get_device_queue, vk::PFN_vkGetDeviceQueue),
        ),
        b"vkGetDeviceQueue2" => (
            Level::DeviceIfNext,
            pfn!(get_device_queue2, vk::PFN_vkGetDeviceQueue2),
        ),
        // The swapchain commands only where the device enabled VK_KHR_swapchain (the next
        // layer has them).
        b"vkCreateSwapchainKHR" => (
            Level::DeviceIfNext,
            pfn!(create_swapchain, vk::PFN_vkCreateSwapchainKHR),
        ),
        b"vkDestroySwapchainKHR" => (
            Level::DeviceIfNext,
            pfn!(destroy_swapchain, vk::PFN_vkDestroySwapchainKHR),
        ),
        b"vkAcquireNextImageKHR" => (
            Level::DeviceIfNext,
            pfn!(acquire_next_image, vk::PFN_vkAcquireNextImageKHR),
        ),
        b"vkAcquireNextImage2KHR" => (
            Level::DeviceIfNext,
            pfn!(acquire_next_image2, vk::PFN_vkAcquireNextImage2KHR),
        ),
        b"vkQueuePresentKHR" => (
            Level::DeviceIfNext,
            pfn!(queue_present, vk::PFN_vkQueuePresentKHR),
        ),
        _ => return None,
    })
}
