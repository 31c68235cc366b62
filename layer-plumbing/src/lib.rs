//! The plumbing every Vulkan layer of vkpace needs from the loader's layer interface
//! (LoaderLayerInterface.md), written once for `VK_LAYER_VKPACE_vdisplay` and
//! `VK_LAYER_VKPACE_pacing`:
//!
//! * [`loader`]: the loader's `#[repr(C)]` structures (negotiation, the layer create infos);
//! * [`InstanceLink`] / [`DeviceLink`]: chain walking in `vkCreateInstance` / `vkCreateDevice`
//!   (find this layer's link, advance `pLayerInfo` for the next layer, the next layer's create
//!   command), bound after creation into [`NextInstance`] / [`NextDevice`] (the next layer's
//!   `vkGet*ProcAddr`, [`call_next!`], `ash::Instance` / `ash::Device` loading);
//! * [`DispatchKey`] and [`DispatchMap`]: per-instance and per-device state keyed by the
//!   loader's dispatch pointer, found from any handle of the instance or device;
//! * [`Layer`] and [`export_loader_interface!`]: a layer lists its commands with their
//!   [`Level`] and says where its state is; the plumbing implements negotiation and the three
//!   `vkGet*ProcAddr` (everything the layer does not list goes to the next layer untouched)
//!   and exports exactly the symbols the loader looks for ([`exports`] explains `-Bsymbolic`);
//! * [`Guard`] and [`entry_point!`]: no panic unwinds into the loader, and a thread Wine ends
//!   inside a command ends as it leaves the layer ([`ThreadEndHeld`]);
//! * [`chain`]: finding and temporarily unlinking structures of an application's `pNext`
//!   chain without writing through its pointers for longer than a call;
//! * [`stack`]: the libraries of the layers below a layer (where it sits, for its log);
//! * [`install`]: the one installer of the layers' manifests (`vdisplay-install`,
//!   `vkpace-pacing-install`).
//!
//! A layer is then its [`Layer`] implementation, its hooks, and the line
//! `build = "../layer-plumbing/build/link_symbolic.rs"` in its `Cargo.toml` (the shared build
//! script that links it with `-Bsymbolic`). The smallest one, which intercepts `vkDestroyDevice` and passes
//! everything else down (its `vkCreateDevice` hook, not shown, takes the [`DeviceLink`], calls
//! down and inserts a `Dev` into `DEVICES`):
//!
//! ```
//! use std::ffi::CStr;
//! use std::sync::{Arc, LazyLock};
//!
//! use ash::vk;
//! use vkpace_layer_plumbing::{pfn, DispatchKey, DispatchMap, Guard, Layer, Level};
//! use vkpace_layer_plumbing::{NextDevice, NextInstance, VoidFn};
//!
//! struct Dev {
//!     next: NextDevice,
//! }
//! static INSTANCES: LazyLock<DispatchMap<NextInstance>> = LazyLock::new(DispatchMap::new);
//! static DEVICES: LazyLock<DispatchMap<Dev>> = LazyLock::new(DispatchMap::new);
//! const GUARD: Guard = Guard::new("example");
//!
//! vkpace_layer_plumbing::entry_point!(GUARD; destroy_device(d: vk::Device, a: *const vk::AllocationCallbacks<'_>) => {
//!     if let Some(dev) = DEVICES.remove(DispatchKey::of(d)) {
//!         (dev.next.load().fp_v1_0().destroy_device)(d, a);
//!     }
//! });
//!
//! struct Example;
//!
//! impl Layer for Example {
//!     const GUARD: Guard = GUARD;
//!     type Device = Dev;
//!     fn lookup(name: &CStr) -> Option<(Level<Dev>, VoidFn)> {
//!         match name.to_bytes() {
//!             b"vkDestroyDevice" => Some((Level::Device, pfn!(destroy_device, vk::PFN_vkDestroyDevice))),
//!             _ => None,
//!         }
//!     }
//!     fn next_instance(key: DispatchKey) -> Option<NextInstance> {
//!         INSTANCES.get(key).map(|next| *next)
//!     }
//!     fn device(key: DispatchKey) -> Option<Arc<Dev>> {
//!         DEVICES.get(key)
//!     }
//!     fn next_device(device: &Dev) -> NextDevice {
//!         device.next
//!     }
//! }
//!
//! vkpace_layer_plumbing::export_loader_interface!(Example);
//! # fn main() {}
//! ```

#[cfg(test)]
mod c_thread;
pub mod chain;
pub mod dispatch;
pub mod exports;
mod guard;
pub mod install;
mod link;
mod link_mark;
pub mod loader;
pub mod next;
pub mod proc_addr;
pub mod stack;
mod thread_end;

/// The ash the plumbing's types come from (for the exported macros).
pub use ash;

pub use dispatch::{DispatchKey, DispatchMap, Table};
pub use guard::Guard;
pub use link::{
    find_device_info, find_instance_info, set_device_loader_data, DeviceLink, InstanceLink,
};
pub use link_mark::LinkMark;
pub use next::{NextDevice, NextInstance};
pub use proc_addr::{Layer, Level, VoidFn};
pub use thread_end::ThreadEndHeld;
