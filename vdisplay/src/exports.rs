//! The symbols the library exports to the loader, and nothing else of Vulkan's (the control
//! functions of `control.rs` are the only other exports).
//!
//! An application that links libvulkan directly (ash's `linked` feature, vkcube, most C
//! programs) has the loader's own `vkGetInstanceProcAddr` and `vkGetDeviceProcAddr` in the
//! process's global symbol scope. A layer library loaded into that process which refers to its
//! *own* exported `vkGetInstanceProcAddr` by name gets the loader's instead (the dynamic linker
//! searches the global scope first), hands it back to the loader at negotiation, and the loader
//! ends up calling itself: a deadlock on its instance lock (loader 1.3.239) or unbounded
//! recursion (1.4.x). So these exports only forward, the layer never takes their address (the
//! negotiation and the proc-address tables use the private functions in [`crate::entry`]), and
//! `build.rs` links the library with `-Bsymbolic` so that any reference to an exported symbol
//! from inside binds to the library's own definition. Rust's cdylib version script keeps
//! everything else local.

use std::ffi::c_char;

use ash::vk;

use crate::entry::{get_device_proc_addr, get_instance_proc_addr, get_physical_device_proc_addr};
use crate::ffi::guard::guard_result;
use crate::ffi::loader::{self, NegotiateLayerInterface};

/// Loader/layer interface negotiation (interface version 2): the only symbol a loader of
/// interface 2 or later needs.
///
/// # Safety
/// `v` must point at the loader's negotiation structure.
#[no_mangle]
pub unsafe extern "system" fn vkNegotiateLoaderLayerInterfaceVersion(
    v: *mut NegotiateLayerInterface,
) -> vk::Result {
    guard_result("vkNegotiateLoaderLayerInterfaceVersion", || {
        // SAFETY: caller's contract.
        let v = unsafe { &mut *v };
        if v.s_type != loader::LAYER_NEGOTIATE_INTERFACE_STRUCT
            || v.loader_layer_interface_version < 2
        {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        }
        v.loader_layer_interface_version = 2;
        v.pfn_get_instance_proc_addr = Some(get_instance_proc_addr);
        v.pfn_get_device_proc_addr = Some(get_device_proc_addr);
        v.pfn_get_physical_device_proc_addr = Some(get_physical_device_proc_addr);
        vk::Result::SUCCESS
    })
}

/// The layer's `vkGetInstanceProcAddr`, for loaders that look it up by name.
///
/// # Safety
/// Called by the loader with a valid (or null) instance and a C string.
#[no_mangle]
pub unsafe extern "system" fn vkGetInstanceProcAddr(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    // SAFETY: the caller's contract is the private function's.
    unsafe { get_instance_proc_addr(instance, name) }
}

/// The layer's `vkGetDeviceProcAddr`, for loaders that look it up by name.
///
/// # Safety
/// Called with a valid device and a C string.
#[no_mangle]
pub unsafe extern "system" fn vkGetDeviceProcAddr(
    device: vk::Device,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    // SAFETY: the caller's contract is the private function's.
    unsafe { get_device_proc_addr(device, name) }
}

/// The layer's `vk_layerGetPhysicalDeviceProcAddr`, for loaders that look it up by name.
///
/// # Safety
/// Called by the loader with a valid instance and a C string.
#[no_mangle]
pub unsafe extern "system" fn vk_layerGetPhysicalDeviceProcAddr(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    // SAFETY: the caller's contract is the private function's.
    unsafe { get_physical_device_proc_addr(instance, name) }
}
