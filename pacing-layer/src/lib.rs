//! `VK_LAYER_VKPACE_pacing`: vkpace's pacing for Vulkan applications that cannot be changed, as a
//! layer over the second door (`vkpace::PresentPacer`). In progress (issue 42): what is here is
//! what the layer will do for an application, decided before any Vulkan call: its settings from
//! the environment and the configuration file, whether another frame limiter is already at
//! work, and the per-frame CSV log with its summary at exit.

pub mod frame_log;
pub mod settings;

pub use settings::{decide, Decision, Mode, Peer, SettingError, Settings};
