//! `VK_LAYER_VKPACE_pacing`: a drop-in Vulkan layer that will pace unmodified applications
//! through vkpace's second door (issue 42). This is its skeleton: the layer loads as an
//! implicit layer (enabled by `VKPACE_PACING=1`, disabled by `DISABLE_VKPACE_PACING`, see
//! `manifest/VkLayer_VKPACE_pacing.json`), intercepts instance and device creation and
//! destruction, keeps per-instance and per-device state keyed by the loader's dispatch
//! pointer, and passes every other command to the next layer untouched. Each interception
//! writes one line to stderr (`vkpace-pacing: ...`), which is how a test (and a user) sees
//! that the layer is active and where.
//!
//! The loader interface itself (negotiation, chain walking, dispatch maps, the exported
//! symbols, `-Bsymbolic`) is the workspace's `vkpace-layer-plumbing`, shared with vdisplay.
//!
//! Where things are, and where the pacing will go:
//! * `exports.rs`: the layer as the plumbing sees it, and the loader's four symbols;
//! * `commands.rs`: the commands the layer intercepts (entry points and the name table);
//! * `instance.rs`: `vkCreateInstance` / `vkDestroyInstance`, the per-instance state;
//! * `device.rs`: `vkCreateDevice` / `vkDestroyDevice`, the per-device state (the next
//!   layer's `ash::Device`, from which the present pacer will be made);
//! * `settings/`: what the layer will do for an application, decided before any Vulkan call:
//!   its settings from the environment and the configuration file, and whether another frame
//!   limiter is already at work;
//! * `frame_log.rs`: the per-frame CSV log and its summary at exit;
//! * to come with the pacing: the swapchain hooks (create and destroy through the present
//!   pacer), acquire (both entry points) and present, and the configuration (`VKPACE_FPS`,
//!   `VKPACE_MODE`, the configuration file), each in its own module, listed in
//!   `commands.rs`'s table.

mod below;
mod commands;
mod device;
mod exit;
mod exports;
mod fault;
pub mod frame_log;
mod instance;
mod pacer;
mod policy;
pub mod settings;
mod swapchain;

use std::ffi::CStr;

use vkpace_layer_plumbing::Guard;

/// The layer's name.
pub const LAYER_NAME: &CStr = c"VK_LAYER_VKPACE_pacing";

/// The panic guard of every entry point; its name prefixes every line the layer writes.
const GUARD: Guard = Guard::new("vkpace-pacing");

/// Writes one line of the layer's log to stderr: `vkpace-pacing: <what>`.
fn log(what: std::fmt::Arguments<'_>) {
    eprintln!("{}: {what}", GUARD.layer());
}

pub use settings::{decide, Decision, Mode, Peer, SettingError, Settings};

pub use exports::{
    vkGetDeviceProcAddr, vkGetInstanceProcAddr, vkNegotiateLoaderLayerInterfaceVersion,
    vk_layerGetPhysicalDeviceProcAddr,
};
