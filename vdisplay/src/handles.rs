//! Global tables from handles to the layer's state, and the layer's own handle values.
//!
//! Dispatchable objects (instances, physical devices, devices, queues) are looked up by their
//! dispatch key (the plumbing's `DispatchKey`: the loader's dispatch pointer in their first
//! word, shared by an instance and its physical devices, and by a device and its queues). Surfaces and swapchains the layer
//! makes get handles from [`new_handle`]: a tag in the top 16 bits and a counter below, so they
//! are unique for the life of the process and never equal to a driver's pointer-valued handle.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;

use vkpace_layer_plumbing::{DispatchMap, Table};

use crate::device::Device;
use crate::instance::Instance;
use crate::surface::Surface;
use crate::swapchain::Swapchain;

/// Instances by dispatch key.
pub static INSTANCES: LazyLock<DispatchMap<Instance>> = LazyLock::new(Table::new);
/// Devices by dispatch key.
pub static DEVICES: LazyLock<DispatchMap<Device>> = LazyLock::new(Table::new);
/// Virtual surfaces by handle.
pub static SURFACES: LazyLock<Table<u64, Surface>> = LazyLock::new(Table::new);
/// Virtual swapchains by handle.
pub static SWAPCHAINS: LazyLock<Table<u64, Swapchain>> = LazyLock::new(Table::new);

const HANDLE_TAG: u64 = 0x7644 << 48;
static NEXT_HANDLE: AtomicU64 = AtomicU64::new(1);
static NEXT_SEQ: AtomicU64 = AtomicU64::new(1);

/// A fresh non-dispatchable handle value, unique in this process.
pub fn new_handle() -> u64 {
    HANDLE_TAG | NEXT_HANDLE.fetch_add(1, Ordering::Relaxed)
}

/// A fresh sequence number for naming objects in the log (surfaces and swapchains share it).
pub fn new_seq() -> u64 {
    NEXT_SEQ.fetch_add(1, Ordering::Relaxed)
}

/// Whether `raw` could be a handle the layer made (a cheap pre-check before a lookup).
pub fn is_ours(raw: u64) -> bool {
    raw & (0xFFFF << 48) == HANDLE_TAG
}
