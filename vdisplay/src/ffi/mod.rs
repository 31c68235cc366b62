//! Plumbing shared by every entry point: the loader interface, panic guards and `pNext` walks.

pub mod chain;
pub mod guard;
pub mod loader;
