//! The demo's reusable parts, shared with the integration tests and the benchmark: a Vulkan
//! context (instance, device, surface, validation canary), the scene renderer, the live graph it
//! draws, and the virtual display (the vdisplay layer) they can present to.

pub mod frame_history;
pub mod graph_buffers;
pub mod hud;
pub mod owned_loop;
pub mod pacing_layer;
pub mod render_targets;
pub mod renderer;
pub mod virtual_display;
pub mod vulkan_context;
