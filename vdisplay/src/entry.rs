//! The layer's exported entry points and its `vkGet*ProcAddr` tables.
//!
//! Every intercepted command is an `extern "system"` function whose body runs under the
//! layer's panic guard (no panic crosses into the loader) and calls the module that implements
//! it. [`lookup`] is the table the plumbing's `vkGet*ProcAddr` consult
//! ([`crate::exports::Vdisplay`]).

use std::ffi::{c_char, CStr};

use ash::vk;
use vkpace_layer_plumbing::{call_next, pfn, Level, VoidFn};
use vkpace_registry as r;

use crate::device::Device;
use crate::handles::INSTANCES;
use crate::{
    calibrate, debug_names, device, instance, physical, present, queue, surface, surface_query,
    swapchain, timing, wait,
};

/// Defines an `extern "system"` entry point returning `VkResult` (or nothing) that runs
/// `$body` under the layer's panic guard.
macro_rules! entry {
    ($($t:tt)*) => { vkpace_layer_plumbing::entry_point!(crate::GUARD; $($t)*); };
}

type Alloc<'a> = *const vk::AllocationCallbacks<'a>;

entry!(create_instance(ci: *const vk::InstanceCreateInfo<'_>, a: Alloc<'_>, out: *mut vk::Instance) -> vk::Result => instance::create(ci, a, out));
entry!(destroy_instance(i: vk::Instance, a: Alloc<'_>) => instance::destroy(i, a));
entry!(enumerate_instance_extensions(l: *const c_char, c: *mut u32, p: *mut vk::ExtensionProperties) -> vk::Result => instance::enumerate_extensions(l, c, p));
entry!(enumerate_instance_layers(c: *mut u32, p: *mut vk::LayerProperties) -> vk::Result => instance::enumerate_layers(c, p));
entry!(enumerate_device_layers(_pd: vk::PhysicalDevice, c: *mut u32, p: *mut vk::LayerProperties) -> vk::Result => instance::enumerate_layers(c, p));
entry!(enumerate_device_extensions(pd: vk::PhysicalDevice, l: *const c_char, c: *mut u32, p: *mut vk::ExtensionProperties) -> vk::Result => physical::enumerate_device_extensions(pd, l, c, p));
entry!(get_features2(pd: vk::PhysicalDevice, f: *mut vk::PhysicalDeviceFeatures2<'_>) => physical::get_features2(pd, f));
entry!(calibrateable_domains(pd: vk::PhysicalDevice, c: *mut u32, d: *mut vk::TimeDomainKHR) -> vk::Result => physical::calibrateable_time_domains(pd, c, d));
entry!(create_device(pd: vk::PhysicalDevice, ci: *const vk::DeviceCreateInfo<'_>, a: Alloc<'_>, out: *mut vk::Device) -> vk::Result => device::create(pd, ci, a, out));
entry!(destroy_device(d: vk::Device, a: Alloc<'_>) => device::destroy(d, a));

entry!(create_headless_surface(i: vk::Instance, _ci: *const vk::HeadlessSurfaceCreateInfoEXT<'_>, _a: Alloc<'_>, out: *mut vk::SurfaceKHR) -> vk::Result => surface::create_headless(i, out));

/// Defines the entry point of a window-surface creation command `$cmd` (create info
/// `$info`): a virtual surface with `window_surfaces = virtual`, else the next layer's command.
macro_rules! window_surface_entry {
    ($name:ident, $cmd:literal, $info:ty, $pfn:ty) => {
        entry!($name(i: vk::Instance, ci: *const $info, a: Alloc<'_>, out: *mut vk::SurfaceKHR) -> vk::Result =>
            surface::create_window(i, $cmd, out, |f| {
                // Inside the entry's unsafe block: `f` is the next layer's `$cmd`, looked up by
                // that name, so it has that command's signature; the arguments are the
                // application's.
                std::mem::transmute::<unsafe extern "system" fn(), $pfn>(f)(i, ci, a, out)
            }));
    };
}

window_surface_entry!(
    create_xcb_surface,
    c"vkCreateXcbSurfaceKHR",
    vk::XcbSurfaceCreateInfoKHR<'_>,
    vk::PFN_vkCreateXcbSurfaceKHR
);
window_surface_entry!(
    create_xlib_surface,
    c"vkCreateXlibSurfaceKHR",
    vk::XlibSurfaceCreateInfoKHR<'_>,
    vk::PFN_vkCreateXlibSurfaceKHR
);
window_surface_entry!(
    create_wayland_surface,
    c"vkCreateWaylandSurfaceKHR",
    vk::WaylandSurfaceCreateInfoKHR<'_>,
    vk::PFN_vkCreateWaylandSurfaceKHR
);
entry!(destroy_surface(i: vk::Instance, s: vk::SurfaceKHR, a: Alloc<'_>) => destroy_surface_impl(i, s, a));
entry!(surface_support(pd: vk::PhysicalDevice, f: u32, s: vk::SurfaceKHR, o: *mut vk::Bool32) -> vk::Result => surface_query::support(pd, f, s, o));
entry!(surface_caps(pd: vk::PhysicalDevice, s: vk::SurfaceKHR, o: *mut vk::SurfaceCapabilitiesKHR) -> vk::Result => surface_query::capabilities(pd, s, o));
entry!(surface_caps2(pd: vk::PhysicalDevice, i: *const vk::PhysicalDeviceSurfaceInfo2KHR<'_>, o: *mut vk::SurfaceCapabilities2KHR<'_>) -> vk::Result => surface_query::capabilities2(pd, i, o));
entry!(surface_formats(pd: vk::PhysicalDevice, s: vk::SurfaceKHR, c: *mut u32, o: *mut vk::SurfaceFormatKHR) -> vk::Result => surface_query::formats(pd, s, c, o));
entry!(surface_formats2(pd: vk::PhysicalDevice, i: *const vk::PhysicalDeviceSurfaceInfo2KHR<'_>, c: *mut u32, o: *mut vk::SurfaceFormat2KHR<'_>) -> vk::Result => surface_query::formats2(pd, i, c, o));
entry!(surface_modes(pd: vk::PhysicalDevice, s: vk::SurfaceKHR, c: *mut u32, o: *mut vk::PresentModeKHR) -> vk::Result => surface_query::present_modes(pd, s, c, o));
entry!(present_rects(pd: vk::PhysicalDevice, s: vk::SurfaceKHR, c: *mut u32, o: *mut vk::Rect2D) -> vk::Result => surface_query::present_rectangles(pd, s, c, o));

entry!(queue_submit(q: vk::Queue, c: u32, s: *const vk::SubmitInfo<'_>, f: vk::Fence) -> vk::Result => queue::submit(q, c, s, f));
entry!(queue_submit2(q: vk::Queue, c: u32, s: *const vk::SubmitInfo2<'_>, f: vk::Fence) -> vk::Result => queue::submit2(q, c, s, f));
entry!(queue_submit2_khr(q: vk::Queue, c: u32, s: *const vk::SubmitInfo2<'_>, f: vk::Fence) -> vk::Result => queue::submit2_khr(q, c, s, f));
entry!(queue_wait_idle(q: vk::Queue) -> vk::Result => queue::wait_idle(q));
entry!(queue_bind_sparse(q: vk::Queue, c: u32, i: *const vk::BindSparseInfo<'_>, f: vk::Fence) -> vk::Result => queue::bind_sparse(q, c, i, f));
entry!(device_wait_idle(d: vk::Device) -> vk::Result => queue::device_wait_idle(d));
entry!(destroy_semaphore(d: vk::Device, s: vk::Semaphore, a: Alloc<'_>) => queue::destroy_semaphore(d, s, a));
entry!(set_object_name(d: vk::Device, i: *const vk::DebugUtilsObjectNameInfoEXT<'_>) -> vk::Result => debug_names::set_name(d, i));
entry!(set_object_tag(d: vk::Device, i: *const vk::DebugUtilsObjectTagInfoEXT<'_>) -> vk::Result => debug_names::set_tag(d, i));
entry!(queue_begin_label(q: vk::Queue, i: *const vk::DebugUtilsLabelEXT<'_>) => queue::labels::begin(q, i));
entry!(queue_end_label(q: vk::Queue) => queue::labels::end(q));
entry!(queue_insert_label(q: vk::Queue, i: *const vk::DebugUtilsLabelEXT<'_>) => queue::labels::insert(q, i));

entry!(create_swapchain(d: vk::Device, ci: *const vk::SwapchainCreateInfoKHR<'_>, a: Alloc<'_>, out: *mut vk::SwapchainKHR) -> vk::Result => swapchain::create(d, ci, a, out));
entry!(destroy_swapchain(d: vk::Device, s: vk::SwapchainKHR, a: Alloc<'_>) => swapchain::destroy(d, s, a));
entry!(get_swapchain_images(d: vk::Device, s: vk::SwapchainKHR, c: *mut u32, o: *mut vk::Image) -> vk::Result => swapchain::get_images(d, s, c, o));
entry!(acquire_next_image(d: vk::Device, s: vk::SwapchainKHR, t: u64, sem: vk::Semaphore, f: vk::Fence, o: *mut u32) -> vk::Result => swapchain::acquire(d, s, t, sem, f, o));
entry!(acquire_next_image2(d: vk::Device, i: *const vk::AcquireNextImageInfoKHR<'_>, o: *mut u32) -> vk::Result => swapchain::acquire2(d, i, o));
entry!(queue_present(q: vk::Queue, i: *const vk::PresentInfoKHR<'_>) -> vk::Result => present::queue_present(q, i));
entry!(swapchain_status(d: vk::Device, s: vk::SwapchainKHR) -> vk::Result => swapchain_status_impl(d, s));
entry!(group_present_modes(d: vk::Device, s: vk::SurfaceKHR, o: *mut vk::DeviceGroupPresentModeFlagsKHR) -> vk::Result => group_present_modes_impl(d, s, o));
entry!(release_images(d: vk::Device, i: *const vk::ReleaseSwapchainImagesInfoEXT<'_>) -> vk::Result => swapchain::release(d, i));
entry!(wait_for_present(d: vk::Device, s: vk::SwapchainKHR, id: u64, t: u64) -> vk::Result => wait::wait_for_present(d, s, id, t));
entry!(wait_for_present2(d: vk::Device, s: vk::SwapchainKHR, i: *const r::PresentWait2InfoKHR<'_>) -> vk::Result => wait::wait_for_present2(d, s, i));
entry!(set_timing_queue_size(_d: vk::Device, s: vk::SwapchainKHR, n: u32) -> vk::Result => set_queue_size_impl(s, n));
entry!(swapchain_timing_props(_d: vk::Device, s: vk::SwapchainKHR, p: *mut r::SwapchainTimingPropertiesEXT<'_>, c: *mut u64) -> vk::Result => with_sc(s, |sc| timing::timing_properties(sc, &mut *p, c.as_mut())));
entry!(swapchain_domain_props(_d: vk::Device, s: vk::SwapchainKHR, p: *mut r::SwapchainTimeDomainPropertiesEXT<'_>, c: *mut u64) -> vk::Result => with_sc(s, |sc| timing::time_domain_properties(sc, &mut *p, c.as_mut())));
entry!(past_timing(_d: vk::Device, i: *const r::PastPresentationTimingInfoEXT<'_>, p: *mut r::PastPresentationTimingPropertiesEXT<'_>) -> vk::Result => with_sc((*i).swapchain, |sc| timing::past_presentation_timing(sc, (*i).flags, &mut *p)));
entry!(set_hdr_metadata(d: vk::Device, c: u32, s: *const vk::SwapchainKHR, m: *const vk::HdrMetadataEXT<'_>) => swapchain::set_hdr_metadata(d, c, s, m));
entry!(calibrated_timestamps(d: vk::Device, c: u32, i: *const vk::CalibratedTimestampInfoKHR<'_>, t: *mut u64, m: *mut u64) -> vk::Result => calibrate::get_calibrated_timestamps(d, c, i, t, m));

/// Runs `f` on a virtual swapchain; other handles get VK_ERROR_UNKNOWN (these present-timing
/// commands exist only for the layer's swapchains).
fn with_sc(s: vk::SwapchainKHR, f: impl FnOnce(&swapchain::Swapchain) -> vk::Result) -> vk::Result {
    match swapchain::lookup(s) {
        Some(sc) if sc.surface.is_lost() => vk::Result::ERROR_SURFACE_LOST_KHR,
        Some(sc) => f(&sc),
        None => vk::Result::ERROR_UNKNOWN,
    }
}

/// # Safety
/// Valid arguments of vkDestroySurfaceKHR.
unsafe fn destroy_surface_impl(i: vk::Instance, s: vk::SurfaceKHR, a: Alloc<'_>) {
    if surface::destroy(s) || s == vk::SurfaceKHR::null() {
        return;
    }
    // SAFETY: valid instance.
    if let Some(inst) = unsafe { INSTANCES.of(i) } {
        // SAFETY: not a virtual surface: down the chain.
        unsafe { (inst.surface.destroy_surface_khr)(i, s, a) };
    }
}

/// `vkGetSwapchainStatusKHR` (shared presentable images): the swapchain's standing.
///
/// # Safety
/// Valid arguments of the command.
unsafe fn swapchain_status_impl(d: vk::Device, s: vk::SwapchainKHR) -> vk::Result {
    let Some(sc) = swapchain::lookup(s) else {
        // SAFETY: valid device.
        let Some(dev) = (unsafe { Device::of(d) }) else {
            return vk::Result::ERROR_DEVICE_LOST;
        };
        // The driver's swapchain: down the chain.
        return call_next!(
            dev,
            c"vkGetSwapchainStatusKHR",
            vk::PFN_vkGetSwapchainStatusKHR,
            (d, s),
            vk::Result::ERROR_EXTENSION_NOT_PRESENT
        );
    };
    let st = sc.state();
    match sc.status(&st) {
        swapchain::Status::Ok => vk::Result::SUCCESS,
        swapchain::Status::Suboptimal => vk::Result::SUBOPTIMAL_KHR,
        swapchain::Status::OutOfDate => vk::Result::ERROR_OUT_OF_DATE_KHR,
        swapchain::Status::Lost => vk::Result::ERROR_SURFACE_LOST_KHR,
    }
}

/// `vkGetDeviceGroupSurfacePresentModesKHR`: a virtual surface is presented locally.
///
/// # Safety
/// Valid arguments of the command.
unsafe fn group_present_modes_impl(
    d: vk::Device,
    s: vk::SurfaceKHR,
    o: *mut vk::DeviceGroupPresentModeFlagsKHR,
) -> vk::Result {
    if surface::lookup(s).is_some() {
        // SAFETY: valid out-pointer.
        unsafe { *o = vk::DeviceGroupPresentModeFlagsKHR::LOCAL };
        return vk::Result::SUCCESS;
    }
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(d) }) else {
        return vk::Result::ERROR_DEVICE_LOST;
    };
    // Not a virtual surface: down the chain.
    call_next!(
        dev,
        c"vkGetDeviceGroupSurfacePresentModesKHR",
        vk::PFN_vkGetDeviceGroupSurfacePresentModesKHR,
        (d, s, o),
        vk::Result::ERROR_EXTENSION_NOT_PRESENT
    )
}

/// The layer's commands by name.
pub(crate) fn lookup(name: &CStr) -> Option<(Level<Device>, VoidFn)> {
    use Level::*;
    let b = name.to_bytes();
    let found = match b {
        b"vkCreateInstance" => (Global, pfn!(create_instance, vk::PFN_vkCreateInstance)),
        b"vkEnumerateInstanceExtensionProperties" => (
            Global,
            pfn!(
                enumerate_instance_extensions,
                vk::PFN_vkEnumerateInstanceExtensionProperties
            ),
        ),
        b"vkEnumerateInstanceLayerProperties" => (
            Global,
            pfn!(
                enumerate_instance_layers,
                vk::PFN_vkEnumerateInstanceLayerProperties
            ),
        ),
        b"vkDestroyInstance" => (Instance, pfn!(destroy_instance, vk::PFN_vkDestroyInstance)),
        b"vkCreateHeadlessSurfaceEXT" => (
            Instance,
            pfn!(create_headless_surface, vk::PFN_vkCreateHeadlessSurfaceEXT),
        ),
        b"vkDestroySurfaceKHR" => (Instance, pfn!(destroy_surface, vk::PFN_vkDestroySurfaceKHR)),
        b"vkCreateXcbSurfaceKHR" => (
            Instance,
            pfn!(create_xcb_surface, vk::PFN_vkCreateXcbSurfaceKHR),
        ),
        b"vkCreateXlibSurfaceKHR" => (
            Instance,
            pfn!(create_xlib_surface, vk::PFN_vkCreateXlibSurfaceKHR),
        ),
        b"vkCreateWaylandSurfaceKHR" => (
            Instance,
            pfn!(create_wayland_surface, vk::PFN_vkCreateWaylandSurfaceKHR),
        ),
        _ => return lookup_physical(b).or_else(|| lookup_device(b)),
    };
    Some(found)
}

fn lookup_physical(b: &[u8]) -> Option<(Level<Device>, VoidFn)> {
    use Level::Physical;
    Some(match b {
        b"vkEnumerateDeviceLayerProperties" => (
            Physical,
            pfn!(
                enumerate_device_layers,
                vk::PFN_vkEnumerateDeviceLayerProperties
            ),
        ),
        b"vkEnumerateDeviceExtensionProperties" => (
            Physical,
            pfn!(
                enumerate_device_extensions,
                vk::PFN_vkEnumerateDeviceExtensionProperties
            ),
        ),
        b"vkGetPhysicalDeviceFeatures2" | b"vkGetPhysicalDeviceFeatures2KHR" => (
            Physical,
            pfn!(get_features2, vk::PFN_vkGetPhysicalDeviceFeatures2),
        ),
        b"vkGetPhysicalDeviceCalibrateableTimeDomainsKHR"
        | b"vkGetPhysicalDeviceCalibrateableTimeDomainsEXT" => (
            Physical,
            pfn!(
                calibrateable_domains,
                vk::PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsKHR
            ),
        ),
        b"vkCreateDevice" => (Physical, pfn!(create_device, vk::PFN_vkCreateDevice)),
        _ => return lookup_surface(b),
    })
}

fn lookup_surface(b: &[u8]) -> Option<(Level<Device>, VoidFn)> {
    use Level::Physical;
    Some(match b {
        b"vkGetPhysicalDeviceSurfaceSupportKHR" => (
            Physical,
            pfn!(
                surface_support,
                vk::PFN_vkGetPhysicalDeviceSurfaceSupportKHR
            ),
        ),
        b"vkGetPhysicalDeviceSurfaceCapabilitiesKHR" => (
            Physical,
            pfn!(
                surface_caps,
                vk::PFN_vkGetPhysicalDeviceSurfaceCapabilitiesKHR
            ),
        ),
        b"vkGetPhysicalDeviceSurfaceCapabilities2KHR" => (
            Physical,
            pfn!(
                surface_caps2,
                vk::PFN_vkGetPhysicalDeviceSurfaceCapabilities2KHR
            ),
        ),
        b"vkGetPhysicalDeviceSurfaceFormatsKHR" => (
            Physical,
            pfn!(
                surface_formats,
                vk::PFN_vkGetPhysicalDeviceSurfaceFormatsKHR
            ),
        ),
        b"vkGetPhysicalDeviceSurfaceFormats2KHR" => (
            Physical,
            pfn!(
                surface_formats2,
                vk::PFN_vkGetPhysicalDeviceSurfaceFormats2KHR
            ),
        ),
        b"vkGetPhysicalDeviceSurfacePresentModesKHR" => (
            Physical,
            pfn!(
                surface_modes,
                vk::PFN_vkGetPhysicalDeviceSurfacePresentModesKHR
            ),
        ),
        b"vkGetPhysicalDevicePresentRectanglesKHR" => (
            Physical,
            pfn!(
                present_rects,
                vk::PFN_vkGetPhysicalDevicePresentRectanglesKHR
            ),
        ),
        _ => return None,
    })
}

/// The device-level commands the layer intercepts: the device's and queues' own, then the
/// swapchain, extension and debug-utils commands.
fn lookup_device(b: &[u8]) -> Option<(Level<Device>, VoidFn)> {
    use Level::*;
    Some(match b {
        b"vkDestroyDevice" => (Device, pfn!(destroy_device, vk::PFN_vkDestroyDevice)),
        b"vkQueueSubmit" => (Device, pfn!(queue_submit, vk::PFN_vkQueueSubmit)),
        b"vkQueueSubmit2" => (DeviceIfNext, pfn!(queue_submit2, vk::PFN_vkQueueSubmit2)),
        b"vkQueueSubmit2KHR" => (
            DeviceIfNext,
            pfn!(queue_submit2_khr, vk::PFN_vkQueueSubmit2),
        ),
        b"vkQueueWaitIdle" => (Device, pfn!(queue_wait_idle, vk::PFN_vkQueueWaitIdle)),
        b"vkQueueBindSparse" => (Device, pfn!(queue_bind_sparse, vk::PFN_vkQueueBindSparse)),
        b"vkDeviceWaitIdle" => (Device, pfn!(device_wait_idle, vk::PFN_vkDeviceWaitIdle)),
        b"vkDestroySemaphore" => (Device, pfn!(destroy_semaphore, vk::PFN_vkDestroySemaphore)),
        b"vkQueueBeginDebugUtilsLabelEXT" => (
            DeviceIfNext,
            pfn!(queue_begin_label, vk::PFN_vkQueueBeginDebugUtilsLabelEXT),
        ),
        b"vkQueueEndDebugUtilsLabelEXT" => (
            DeviceIfNext,
            pfn!(queue_end_label, vk::PFN_vkQueueEndDebugUtilsLabelEXT),
        ),
        b"vkQueueInsertDebugUtilsLabelEXT" => (
            DeviceIfNext,
            pfn!(queue_insert_label, vk::PFN_vkQueueInsertDebugUtilsLabelEXT),
        ),
        _ => {
            return lookup_swapchain(b)
                .or_else(|| lookup_device_ext(b))
                .or_else(|| lookup_debug_utils(b))
        }
    })
}

/// The swapchain commands of `VK_KHR_swapchain` (and its device-group query), which the
/// layer implements for its virtual displays.
fn lookup_swapchain(b: &[u8]) -> Option<(Level<Device>, VoidFn)> {
    use Level::DeviceIfNext;
    Some(match b {
        b"vkCreateSwapchainKHR" => (
            DeviceIfNext,
            pfn!(create_swapchain, vk::PFN_vkCreateSwapchainKHR),
        ),
        b"vkDestroySwapchainKHR" => (
            DeviceIfNext,
            pfn!(destroy_swapchain, vk::PFN_vkDestroySwapchainKHR),
        ),
        b"vkGetSwapchainImagesKHR" => (
            DeviceIfNext,
            pfn!(get_swapchain_images, vk::PFN_vkGetSwapchainImagesKHR),
        ),
        b"vkAcquireNextImageKHR" => (
            DeviceIfNext,
            pfn!(acquire_next_image, vk::PFN_vkAcquireNextImageKHR),
        ),
        b"vkAcquireNextImage2KHR" => (
            DeviceIfNext,
            pfn!(acquire_next_image2, vk::PFN_vkAcquireNextImage2KHR),
        ),
        b"vkQueuePresentKHR" => (DeviceIfNext, pfn!(queue_present, vk::PFN_vkQueuePresentKHR)),
        b"vkGetSwapchainStatusKHR" => (
            DeviceIfNext,
            pfn!(swapchain_status, vk::PFN_vkGetSwapchainStatusKHR),
        ),
        b"vkGetDeviceGroupSurfacePresentModesKHR" => (
            DeviceIfNext,
            pfn!(
                group_present_modes,
                vk::PFN_vkGetDeviceGroupSurfacePresentModesKHR
            ),
        ),
        _ => return None,
    })
}

/// The debug-utils object commands (the layer's own handles stop here, `debug_names.rs`).
fn lookup_debug_utils(b: &[u8]) -> Option<(Level<Device>, VoidFn)> {
    use Level::DeviceIfNext;
    Some(match b {
        b"vkSetDebugUtilsObjectNameEXT" => (
            DeviceIfNext,
            pfn!(set_object_name, vk::PFN_vkSetDebugUtilsObjectNameEXT),
        ),
        b"vkSetDebugUtilsObjectTagEXT" => (
            DeviceIfNext,
            pfn!(set_object_tag, vk::PFN_vkSetDebugUtilsObjectTagEXT),
        ),
        _ => return None,
    })
}

fn lookup_device_ext(b: &[u8]) -> Option<(Level<Device>, VoidFn)> {
    use Level::DeviceIf;
    Some(match b {
        b"vkReleaseSwapchainImagesEXT" | b"vkReleaseSwapchainImagesKHR" => (
            DeviceIf(|d: &Device| d.enabled.maintenance1),
            pfn!(release_images, vk::PFN_vkReleaseSwapchainImagesEXT),
        ),
        b"vkWaitForPresentKHR" => (
            DeviceIf(|d: &Device| d.enabled.present_wait),
            pfn!(wait_for_present, vk::PFN_vkWaitForPresentKHR),
        ),
        b"vkWaitForPresent2KHR" => (
            DeviceIf(|d: &Device| d.enabled.present_wait2),
            pfn!(wait_for_present2, r::PFN_vkWaitForPresent2KHR),
        ),
        b"vkSetSwapchainPresentTimingQueueSizeEXT" => (
            DeviceIf(|d: &Device| d.enabled.present_timing),
            pfn!(
                set_timing_queue_size,
                r::PFN_vkSetSwapchainPresentTimingQueueSizeEXT
            ),
        ),
        b"vkGetSwapchainTimingPropertiesEXT" => (
            DeviceIf(|d: &Device| d.enabled.present_timing),
            pfn!(
                swapchain_timing_props,
                r::PFN_vkGetSwapchainTimingPropertiesEXT
            ),
        ),
        b"vkGetSwapchainTimeDomainPropertiesEXT" => (
            DeviceIf(|d: &Device| d.enabled.present_timing),
            pfn!(
                swapchain_domain_props,
                r::PFN_vkGetSwapchainTimeDomainPropertiesEXT
            ),
        ),
        b"vkGetPastPresentationTimingEXT" => (
            DeviceIf(|d: &Device| d.enabled.present_timing),
            pfn!(past_timing, r::PFN_vkGetPastPresentationTimingEXT),
        ),
        b"vkSetHdrMetadataEXT" => (
            DeviceIf(|d: &Device| d.enabled.hdr_metadata),
            pfn!(set_hdr_metadata, vk::PFN_vkSetHdrMetadataEXT),
        ),
        b"vkGetCalibratedTimestampsKHR" => (
            DeviceIf(|d: &Device| d.enabled.calibrated_khr),
            pfn!(calibrated_timestamps, vk::PFN_vkGetCalibratedTimestampsKHR),
        ),
        b"vkGetCalibratedTimestampsEXT" => (
            Level::DeviceIfNext,
            pfn!(calibrated_timestamps, vk::PFN_vkGetCalibratedTimestampsKHR),
        ),
        _ => return None,
    })
}

/// `vkSetSwapchainPresentTimingQueueSizeEXT`.
///
/// # Safety
/// Valid arguments of the command.
unsafe fn set_queue_size_impl(s: vk::SwapchainKHR, n: u32) -> vk::Result {
    with_sc(s, |sc| timing::set_queue_size(sc, n))
}
