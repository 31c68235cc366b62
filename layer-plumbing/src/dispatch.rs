//! Per-object state keyed by the loader's dispatch pointer.
//!
//! Every dispatchable Vulkan object (instance, physical device, device, queue, command buffer)
//! starts with the loader's dispatch-table pointer (LoaderDriverInterface.md: "the first
//! field of a dispatchable object is a pointer to the loader's dispatch table"). An instance and
//! its physical devices share one pointer, a device and its queues and command buffers another,
//! so a layer keys its per-instance and per-device state by that pointer ([`DispatchKey`]) and
//! finds it from any of those handles. The handle values themselves would not do: a layer above
//! may wrap them, and a queue's handle is not its device's.
//!
//! [`Table`] is the concurrent map the layers keep: lookups clone an [`Arc`] and release the
//! lock at once, so no lock is held while a hook sleeps or calls down the chain.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, RwLock};

use ash::vk;

/// The loader's dispatch pointer of a dispatchable object (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DispatchKey(usize);

impl DispatchKey {
    /// The dispatch key of a dispatchable handle: the pointer stored in its first word.
    ///
    /// # Safety
    /// `handle` must be a valid dispatchable Vulkan handle (instance, physical device, device,
    /// queue or command buffer) created through the loader.
    pub unsafe fn of<H: vk::Handle>(handle: H) -> Self {
        let ptr = handle.as_raw() as *const usize;
        // SAFETY: dispatchable handles point at an object whose first word is the loader's
        // dispatch pointer (the loader's driver interface contract), per the caller's contract.
        Self(unsafe { *ptr })
    }

    /// A key from its raw value (for tests, and for state recorded as a number).
    pub const fn from_raw(raw: usize) -> Self {
        Self(raw)
    }

    /// The raw pointer value.
    pub const fn as_raw(self) -> usize {
        self.0
    }
}

/// A concurrent map from a key to shared state. Poisoning is ignored: a panic in a hook is
/// caught by the layer's guard, and the map itself is never left half-updated.
pub struct Table<K, V> {
    map: RwLock<HashMap<K, Arc<V>>>,
}

/// Per-instance or per-device state by dispatch key.
pub type DispatchMap<V> = Table<DispatchKey, V>;

impl<K: Eq + Hash + Copy, V> Default for Table<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Eq + Hash + Copy, V> Table<K, V> {
    /// An empty table (for a `static`, wrap it in a `LazyLock`).
    pub fn new() -> Self {
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

    /// Inserts (or replaces) the entry for `key`; returns the one it replaced.
    pub fn insert(&self, key: K, value: Arc<V>) -> Option<Arc<V>> {
        self.map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, value)
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

    /// How many entries there are.
    pub fn len(&self) -> usize {
        self.map.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<V> Table<DispatchKey, V> {
    /// The state of the object a dispatchable handle belongs to.
    ///
    /// # Safety
    /// As [`DispatchKey::of`].
    pub unsafe fn of<H: vk::Handle>(&self, handle: H) -> Option<Arc<V>> {
        // SAFETY: the caller's contract.
        self.get(unsafe { DispatchKey::of(handle) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for a driver's dispatchable object: the first word is the dispatch pointer.
    #[repr(C)]
    struct Object {
        dispatch: usize,
        _payload: u64,
    }

    /// A device and its queue (one dispatch table), and a device of another table.
    static DEVICE: Object = Object {
        dispatch: 0x1000,
        _payload: 1,
    };
    static QUEUE: Object = Object {
        dispatch: 0x1000,
        _payload: 2,
    };
    static OTHER: Object = Object {
        dispatch: 0x2000,
        _payload: 3,
    };

    fn handle<H: vk::Handle>(obj: &Object) -> H {
        H::from_raw(obj as *const Object as u64)
    }

    #[test]
    fn key_is_the_first_word_shared_by_objects_of_one_table() {
        // SAFETY: the objects are statics starting with their dispatch word.
        let (d, q, o) = unsafe {
            (
                DispatchKey::of(handle::<vk::Device>(&DEVICE)),
                DispatchKey::of(handle::<vk::Queue>(&QUEUE)),
                DispatchKey::of(handle::<vk::Device>(&OTHER)),
            )
        };
        assert_eq!(d.as_raw(), 0x1000);
        assert_eq!(d, q);
        assert_ne!(d, o);
    }

    #[test]
    fn map_finds_state_from_any_handle_sharing_the_key() {
        let map: DispatchMap<&str> = Table::new();
        assert!(map
            .insert(DispatchKey::from_raw(0x1000), Arc::new("dev"))
            .is_none());
        // SAFETY: the objects are statics starting with their dispatch word.
        unsafe {
            assert_eq!(map.of(handle::<vk::Queue>(&QUEUE)).as_deref(), Some(&"dev"));
            assert!(map.of(handle::<vk::Device>(&OTHER)).is_none());
        }
        let replaced = map.insert(DispatchKey::from_raw(0x1000), Arc::new("dev2"));
        assert_eq!(replaced.as_deref(), Some(&"dev"));
        assert_eq!(map.len(), 1);
        // SAFETY: as above.
        let key = unsafe { DispatchKey::of(handle::<vk::Device>(&DEVICE)) };
        assert_eq!(map.remove(key).as_deref(), Some(&"dev2"));
        assert!(map.is_empty());
        assert!(map.remove(key).is_none());
    }

    #[test]
    fn filter_returns_only_matching_entries() {
        let map: Table<u64, u32> = Table::new();
        for k in 0..6 {
            map.insert(k, Arc::new(k as u32 * 10));
        }
        let mut big: Vec<u32> = map.filter(|v| *v >= 30).iter().map(|v| **v).collect();
        big.sort();
        assert_eq!(big, vec![30, 40, 50]);
    }
}
