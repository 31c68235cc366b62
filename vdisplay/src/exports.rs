//! The symbols the library exports to the loader (the plumbing's
//! [`export_loader_interface!`](vkpace_layer_plumbing::export_loader_interface), which explains
//! why nothing else of Vulkan's is exported and why the library is linked with
//! `-Bsymbolic`), and what the plumbing needs to know of vdisplay to answer the loader: its
//! commands ([`crate::entry`]) and where its instance and device state is
//! ([`crate::handles`]). The control functions of `control.rs` are the only other exports.

use std::ffi::CStr;
use std::sync::Arc;

use vkpace_layer_plumbing::{DispatchKey, Guard, Layer, Level, NextDevice, NextInstance, VoidFn};

use crate::device::Device;
use crate::handles::{DEVICES, INSTANCES};

/// vdisplay as the plumbing sees it.
pub struct Vdisplay;

impl Layer for Vdisplay {
    const GUARD: Guard = crate::GUARD;
    type Device = Device;

    fn lookup(name: &CStr) -> Option<(Level<Device>, VoidFn)> {
        crate::entry::lookup(name)
    }

    fn next_instance(key: DispatchKey) -> Option<NextInstance> {
        INSTANCES.get(key).map(|inst| inst.next())
    }

    fn device(key: DispatchKey) -> Option<Arc<Device>> {
        DEVICES.get(key)
    }

    fn next_device(device: &Device) -> NextDevice {
        device.next()
    }
}

vkpace_layer_plumbing::export_loader_interface!(Vdisplay);
