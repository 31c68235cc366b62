//! The layer as the plumbing sees it ([`PacingLayer`]) and the symbols the library exports to
//! the loader (the plumbing's `export_loader_interface!`, which explains why nothing else is
//! exported and why the library is linked with `-Bsymbolic`).

use std::ffi::CStr;
use std::sync::Arc;

use vkpace_layer_plumbing::{DispatchKey, Guard, Layer, Level, NextDevice, NextInstance, VoidFn};

use crate::device::{Device, DEVICES};
use crate::instance::INSTANCES;

/// The pacing layer as the plumbing sees it.
pub struct PacingLayer;

impl Layer for PacingLayer {
    const GUARD: Guard = crate::GUARD;
    type Device = Device;

    fn lookup(name: &CStr) -> Option<(Level<Device>, VoidFn)> {
        crate::commands::lookup(name)
    }

    fn next_instance(key: DispatchKey) -> Option<NextInstance> {
        INSTANCES.get(key).map(|inst| inst.next)
    }

    fn device(key: DispatchKey) -> Option<Arc<Device>> {
        DEVICES.get(key)
    }

    fn next_device(device: &Device) -> NextDevice {
        device.next
    }
}

vkpace_layer_plumbing::export_loader_interface!(PacingLayer);
