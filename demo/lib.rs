//! The demo's reusable parts, shared with the integration tests and the benchmark: a Vulkan
//! context (instance, device, surface, validation canary), the scene renderer and the live
//! graph it draws.

pub mod frame_history;
pub mod graph_buffers;
pub mod renderer;
pub mod vulkan_context;
