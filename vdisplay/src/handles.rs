//! Global tables from handles to the layer's state, and the layer's own handle values.
//!
//! Dispatchable objects (instances, physical devices, devices, queues) are looked up by their
//! dispatch key (the loader's dispatch pointer in their first word, shared by an instance and
//! its physical devices, and by a device and its queues). Surfaces and swapchains the layer
//! makes get handles from [`new_handle`]: a tag in the top 16 bits and a counter below, so they
//! are unique for the life of the process and never equal to a driver's pointer-valued handle.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, RwLock};

use crate::device::Device;
use crate::instance::Instance;
use crate::surface::Surface;
use crate::swapchain::Swapchain;

/// A concurrent map from a key to shared state.
pub struct Table<K, V> {
    map: RwLock<HashMap<K, Arc<V>>>,
}

impl<K: Eq + Hash + Copy, V> Table<K, V> {
    fn new() -> Self {
        Self {
            map: RwLock::new(HashMap::new()),
        }
    }

    /// The entry for `key`.
    pub fn get(&self, key: K) -> Option<Arc<V>> {
        self.map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .cloned()
    }

    /// Inserts (or replaces) the entry for `key`.
    pub fn insert(&self, key: K, value: Arc<V>) {
        self.map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, value);
    }

    /// Removes and returns the entry for `key`.
    pub fn remove(&self, key: K) -> Option<Arc<V>> {
        self.map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key)
    }

    /// Every entry matching `pred`.
    pub fn filter(&self, mut pred: impl FnMut(&V) -> bool) -> Vec<Arc<V>> {
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        map.values().filter(|v| pred(v)).cloned().collect()
    }
}

/// Instances by dispatch key.
pub static INSTANCES: LazyLock<Table<usize, Instance>> = LazyLock::new(Table::new);
/// Devices by dispatch key.
pub static DEVICES: LazyLock<Table<usize, Device>> = LazyLock::new(Table::new);
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
