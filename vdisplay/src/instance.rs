//! `vkCreateInstance` / `vkDestroyInstance`: the instance call chain, the instance-level
//! extensions the layer adds (`VK_KHR_surface_maintenance1`) and the per-instance settings.

use std::ffi::{c_char, CStr};
use std::sync::Arc;

use ash::vk;
use vkpace_registry as registry;

use vkpace_layer_plumbing::{DispatchKey, InstanceLink, NextInstance};

use crate::extensions::{self, INSTANCE_EXTS};
use crate::handles::INSTANCES;
use crate::settings::Settings;
use crate::LAYER_NAME;

/// The layer's state of one instance: the next layer's entry points and the settings.
pub struct Instance {
    /// The instance.
    pub handle: vk::Instance,
    /// The next layer's entry points, bound when the instance was made.
    pub next: NextInstance,
    /// Core instance commands of the next layer.
    pub fp: ash::Instance,
    /// `VK_KHR_surface` commands of the next layer (for surfaces that are not virtual).
    pub surface: ash::khr::surface::InstanceFn,
    /// `VK_KHR_get_surface_capabilities2` commands of the next layer.
    pub surface2: ash::khr::get_surface_capabilities2::InstanceFn,
    /// `VK_EXT_calibrated_timestamps` physical-device command of the next layer.
    pub calibrated: ash::ext::calibrated_timestamps::InstanceFn,
    /// `VK_EXT_swapchain_colorspace` was enabled (so HDR color spaces may be reported).
    pub colorspace_ext: bool,
    /// Settings in force for objects of this instance.
    pub settings: Settings,
}

impl Instance {
    /// The instance of a physical device (they share the dispatch key).
    ///
    /// # Safety
    /// `pd` must be a valid physical device handle.
    pub unsafe fn of_physical(pd: vk::PhysicalDevice) -> Option<Arc<Instance>> {
        // SAFETY: caller's contract.
        unsafe { INSTANCES.of(pd) }
    }

    /// The next layer's entry points for this instance.
    pub fn next(&self) -> NextInstance {
        self.next
    }

    /// The next layer's command at `index` of the plumbing's table (for `call_next!`).
    pub fn command(&self, index: usize) -> vk::PFN_vkVoidFunction {
        self.next.command(index)
    }
}

/// `vkCreateInstance`.
///
/// # Safety
/// The arguments of a valid `vkCreateInstance` call made by the loader.
pub unsafe fn create(
    ci: *const vk::InstanceCreateInfo<'_>,
    alloc: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Instance,
) -> vk::Result {
    // SAFETY: the loader's create info, once per call; `ci` is valid.
    let next = unsafe {
        InstanceLink::create(&*ci, out, |next_create| {
            call_down_create(next_create, &*ci, alloc, out)
        })
    };
    let next = match next {
        Ok(next) => next,
        Err(error) => return error,
    };
    // SAFETY: `next` is bound to the instance just created from `ci`.
    let instance = unsafe { build(next, &*ci) };
    // SAFETY: a valid instance handle.
    let key = unsafe { DispatchKey::of(instance.handle) };
    if instance.settings.trace_instances {
        eprintln!("vdisplay: vkCreateInstance: instance made by the driver");
    }
    INSTANCES.insert(key, Arc::new(instance));
    vk::Result::SUCCESS
}

/// Calls the next `vkCreateInstance` without the instance extensions only this layer provides.
/// `VK_KHR_surface_maintenance1` is always removed (lavapipe has only the EXT name); if the
/// driver also lacks `VK_EXT_surface_maintenance1`, a retry without it follows.
///
/// # Safety
/// `ci` must be valid.
unsafe fn call_down_create(
    next_create: vk::PFN_vkCreateInstance,
    ci: &vk::InstanceCreateInfo<'_>,
    alloc: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Instance,
) -> vk::Result {
    // SAFETY: the create info's names are valid C strings.
    let names =
        unsafe { extensions::names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    let mut strip: Vec<&CStr> = vec![registry::KHR_SURFACE_MAINTENANCE_1_NAME];
    loop {
        let kept: Vec<*const c_char> = names
            .iter()
            .filter(|n| !strip.contains(n))
            .map(|n| n.as_ptr())
            .collect();
        let down = vk::InstanceCreateInfo {
            enabled_extension_count: kept.len() as u32,
            pp_enabled_extension_names: kept.as_ptr(),
            ..*ci
        };
        // SAFETY: same create info with fewer extension names.
        let r = unsafe { next_create(&down, alloc, out) };
        let ext = INSTANCE_EXTS[0].name;
        if r == vk::Result::ERROR_EXTENSION_NOT_PRESENT
            && !strip.contains(&ext)
            && names.contains(&ext)
        {
            strip.push(ext);
            continue;
        }
        return r;
    }
}

/// Builds the layer's instance state.
///
/// # Safety
/// `next` must be bound to the instance just created from `ci`.
unsafe fn build(next: NextInstance, ci: &vk::InstanceCreateInfo<'_>) -> Instance {
    let load = next.loader();
    // SAFETY: the create info's names are valid C strings.
    let names =
        unsafe { extensions::names(ci.pp_enabled_extension_names, ci.enabled_extension_count) };
    let mut settings = Settings::from_environment();
    // SAFETY: `ci`'s chain is valid.
    unsafe { settings.apply_layer_settings(ci.p_next) };
    Instance {
        handle: next.handle,
        next,
        fp: next.load(),
        surface: ash::khr::surface::InstanceFn::load(&load),
        surface2: ash::khr::get_surface_capabilities2::InstanceFn::load(&load),
        calibrated: ash::ext::calibrated_timestamps::InstanceFn::load(&load),
        colorspace_ext: names.contains(&vk::EXT_SWAPCHAIN_COLORSPACE_NAME),
        settings,
    }
}

/// `vkDestroyInstance`.
///
/// # Safety
/// The arguments of a valid `vkDestroyInstance` call.
pub unsafe fn destroy(instance: vk::Instance, alloc: *const vk::AllocationCallbacks<'_>) {
    if instance == vk::Instance::null() {
        return;
    }
    // SAFETY: a valid instance handle.
    let key = unsafe { DispatchKey::of(instance) };
    if let Some(inst) = INSTANCES.remove(key) {
        crate::surface::forget_instance(key);
        // SAFETY: the next layer's destroy with the application's arguments.
        unsafe { (inst.fp.fp_v1_0().destroy_instance)(instance, alloc) };
        if inst.settings.trace_instances {
            eprintln!("vdisplay: vkDestroyInstance: instance destroyed by the driver");
        }
    }
}

/// `vkEnumerateInstanceExtensionProperties` for this layer's name.
///
/// # Safety
/// Valid two-call idiom arguments.
pub unsafe fn enumerate_extensions(
    layer: *const c_char,
    count: *mut u32,
    props: *mut vk::ExtensionProperties,
) -> vk::Result {
    // SAFETY: a non-null layer name is a C string.
    if layer.is_null() || unsafe { CStr::from_ptr(layer) } != LAYER_NAME {
        return vk::Result::ERROR_LAYER_NOT_PRESENT;
    }
    let list: Vec<_> = INSTANCE_EXTS.iter().map(extensions::properties).collect();
    // SAFETY: caller's contract.
    unsafe { extensions::write_array(&list, count, props) }
}

/// This layer's `VkLayerProperties`.
pub fn layer_properties() -> vk::LayerProperties {
    let mut p = vk::LayerProperties {
        spec_version: vk::make_api_version(0, 1, 4, 335),
        implementation_version: 1,
        ..Default::default()
    };
    for (dst, src) in p.layer_name.iter_mut().zip(LAYER_NAME.to_bytes()) {
        *dst = *src as c_char;
    }
    let desc = b"vkpace virtual presentation engine";
    for (dst, src) in p.description.iter_mut().zip(desc) {
        *dst = *src as c_char;
    }
    p
}

/// `vkEnumerateInstanceLayerProperties` / `vkEnumerateDeviceLayerProperties`: this layer only.
///
/// # Safety
/// Valid two-call idiom arguments.
pub unsafe fn enumerate_layers(count: *mut u32, props: *mut vk::LayerProperties) -> vk::Result {
    // SAFETY: caller's contract.
    unsafe { extensions::write_array(&[layer_properties()], count, props) }
}
