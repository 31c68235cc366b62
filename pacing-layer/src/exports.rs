//! The layer as the plumbing sees it ([`PacingLayer`]) and the symbols the library exports to
//! the loader (the plumbing's `export_loader_interface!`, which explains why nothing else is
//! exported and why `build.rs` links with `-Bsymbolic`).

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

#[cfg(test)]
mod tests {
    /// The build script prints the plumbing's `-Bsymbolic` line (it cannot name the constant:
    /// the plumbing is not a build dependency).
    #[test]
    fn build_script_links_with_bsymbolic() {
        let script = include_str!("../build.rs");
        let line = format!("println!(\"{}\")", vkpace_layer_plumbing::SYMBOLIC_LINK_ARG);
        assert!(script.contains(&line));
    }
}
