#![doc = include_str!("../README.md")]
//!
//! # The two layers
//!
//! [`core`] is the sans-IO frame machine; [`vk`] the thin Vulkan shell that carries out its
//! requests.

pub mod core;
pub mod vk;

pub use ash;
