//! `VK_LAYER_VKPACE_pacing`: a drop-in Vulkan layer that paces unmodified applications through
//! vkpace's second door, `vkpace::PresentPacer`. It loads as an implicit layer (enabled by
//! `VKPACE_PACING=1`, disabled by `DISABLE_VKPACE_PACING`, see
//! `manifest/VkLayer_VKPACE_pacing.json`) or by name, keeps per-instance and per-device state
//! keyed by the loader's dispatch pointer, and routes the swapchain commands of a paced device
//! through a present pacer; every other command goes to the next layer untouched. It holds
//! policy only (which device to pace, what to enable below the application, what the
//! environment and the configuration file say): every pacing decision is the library's.
//! It writes its decisions to stderr (`vkpace-pacing: ...`), which is how a test (and a user)
//! sees that the layer is active, where, and why.
//!
//! The loader interface itself (negotiation, chain walking, dispatch maps, the exported
//! symbols, `-Bsymbolic`) is the workspace's `vkpace-layer-plumbing`, shared with vdisplay.
//!
//! Where things are:
//! * `exports.rs`: the layer as the plumbing sees it, and the loader's four symbols;
//! * `commands.rs`: the commands the layer intercepts (entry points under the panic guard,
//!   and the name table);
//! * `instance.rs`, `device.rs`: instance and device creation and destruction, and their
//!   per-instance and per-device state;
//! * `below.rs`: what the layer enables below the application where offered (present timing,
//!   present wait, swapchain maintenance1) and whether the application paces itself;
//! * `pacer.rs`: one device's present pacer, made at the first swapchain command;
//! * `swapchain.rs`: the swapchain commands through the pacer (create, destroy, acquire,
//!   present);
//! * `policy.rs`, `settings/`: what the layer does for this process, decided before any
//!   Vulkan call: the environment, the configuration file, the other limiters found;
//! * `frame_log.rs`, `exit.rs`: the per-frame CSV log and the summary at exit;
//! * `logger.rs`: the library's own warnings and errors (`log`) on stderr, behind the prefix;
//! * `fault.rs`: a test-only fault (a panic inside the pacer).

mod below;
mod commands;
mod device;
mod exit;
mod exports;
mod fault;
pub mod frame_log;
mod instance;
mod logger;
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
