//! The next layer's entry points, bound to the instance or device it created: what a layer
//! keeps per instance and per device to pass commands down.

use std::ffi::{c_void, CStr};

use ash::vk;

use crate::loader::PfnGetPhysicalDeviceProcAddr;

/// The next layer's instance-level entry points for one instance.
#[derive(Clone, Copy)]
pub struct NextInstance {
    /// The instance.
    pub handle: vk::Instance,
    /// The next layer's `vkGetInstanceProcAddr`.
    pub gipa: vk::PFN_vkGetInstanceProcAddr,
    /// The next layer's `vk_layerGetPhysicalDeviceProcAddr`, if it has one.
    pub gpdpa: Option<PfnGetPhysicalDeviceProcAddr>,
}

impl NextInstance {
    /// The next layer's command `name` (an instance-level or physical-device command), for
    /// [`call_next!`](crate::call_next).
    pub fn next_proc(&self, name: &CStr) -> vk::PFN_vkVoidFunction {
        // SAFETY: the next layer's GetInstanceProcAddr with the instance it created.
        unsafe { (self.gipa)(self.handle, name.as_ptr()) }
    }

    /// The next layer's core instance commands as an `ash::Instance`.
    pub fn load(&self) -> ash::Instance {
        let static_fn = ash::StaticFn {
            get_instance_proc_addr: self.gipa,
        };
        // SAFETY: the instance is valid and `gipa` is the lookup of the layer that made it.
        unsafe { ash::Instance::load(&static_fn, self.handle) }
    }

    /// A loader for ash's `*Fn::load` (instance-level extension commands of the next layer).
    pub fn loader(&self) -> impl Fn(&CStr) -> *const c_void + '_ {
        move |name| match self.next_proc(name) {
            Some(f) => f as *const c_void,
            None => std::ptr::null(),
        }
    }
}

/// The next layer's device-level entry points for one device.
#[derive(Clone, Copy)]
pub struct NextDevice {
    /// The device.
    pub handle: vk::Device,
    /// The next layer's `vkGetDeviceProcAddr`.
    pub gdpa: vk::PFN_vkGetDeviceProcAddr,
}

impl NextDevice {
    /// The next layer's device command `name` (null if the next layer does not offer it for
    /// this device), for [`call_next!`](crate::call_next).
    pub fn next_proc(&self, name: &CStr) -> vk::PFN_vkVoidFunction {
        // SAFETY: the next layer's GetDeviceProcAddr with the device it created.
        unsafe { (self.gdpa)(self.handle, name.as_ptr()) }
    }

    /// The next layer's core device commands as an `ash::Device` (what a layer uses to make
    /// its own objects and to pass commands down).
    pub fn load(&self) -> ash::Device {
        // SAFETY: the device is valid and every pointer comes from its next layer's lookup.
        unsafe { ash::Device::load_with(self.loader(), self.handle) }
    }

    /// A loader for ash's `*Fn::load` (device-level extension commands of the next layer).
    pub fn loader(&self) -> impl Fn(&CStr) -> *const c_void + '_ {
        move |name| match self.next_proc(name) {
            Some(f) => f as *const c_void,
            None => std::ptr::null(),
        }
    }
}
