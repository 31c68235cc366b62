//! vdisplay: a virtual presentation engine as a Vulkan layer (`VK_LAYER_VKPACE_vdisplay`).
//!
//! Mesa's software WSI waits for rendering inside `vkQueuePresentKHR`, so on lavapipe frames
//! never overlap and nothing newer than the basic swapchain is offered. This layer implements
//! the swapchain itself over real driver images and the real queue: headless surfaces become
//! virtual displays with a refresh grid, presents return at once and are shown by an engine
//! thread by the present mode's rules, and the layer implements swapchain maintenance1 (EXT
//! and KHR), present id/wait, present id2/wait2 and present timing. See README.md for loading,
//! settings, faults and the log format.

use std::ffi::CStr;

use vkpace_layer_plumbing::Guard;

mod calibrate;
pub mod clock;
pub mod control;
mod debug_names;
mod device;
mod elide;
mod engine;
mod entry;
mod exports;
mod extensions;
pub mod faults;
pub mod gpu_model;
mod handles;
mod instance;
pub mod log;
mod physical;
mod present;
mod queue;
mod readback;
pub mod settings;
mod surface;
mod surface_query;
mod swapchain;
mod timing;
mod wait;

/// The layer's name.
pub const LAYER_NAME: &CStr = c"VK_LAYER_VKPACE_vdisplay";

/// The panic guard of every entry point (messages start with `vdisplay:`).
const GUARD: Guard = Guard::new("vdisplay");

pub use exports::{
    vkGetDeviceProcAddr, vkGetInstanceProcAddr, vkNegotiateLoaderLayerInterfaceVersion,
};
pub use readback::to_rgba8;
