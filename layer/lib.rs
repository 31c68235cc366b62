//! vkpace: correct, stall-free, well-paced Vulkan presentation.
//!
//! See the README for the scheme. [`core`] is the pure bookkeeping; [`vk`] the thin Vulkan shell
//! that carries out its decisions.

pub mod core;
pub mod vk;

pub use ash;

/// The README's examples, compiled as doctests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
