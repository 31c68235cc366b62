//! What the core asks of the Vulkan handles it holds without knowing their types.

/// A handle the machines hold for the shell (a semaphore, a swapchain, a fence: `ash::vk`'s
/// handle types in the Vulkan shell, plain numbers in the simulator): copied freely, compared
/// to find the one an answer is about, and printed in the state dump and in errors. Every
/// type that is `Copy + PartialEq + Debug` is one.
pub trait Handle: Copy + PartialEq + std::fmt::Debug {}

impl<T: Copy + PartialEq + std::fmt::Debug> Handle for T {}
