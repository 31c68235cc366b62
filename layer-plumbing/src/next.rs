//! The next layer's entry points, bound to the instance or device it created: what a layer
//! keeps per instance and per device to pass commands down.
//!
//! Every command a layer calls down by name ([`call_next!`](crate::call_next)) is looked up
//! once, when the instance or device is made, into a table ([`CALLED_DOWN`]), never at call
//! time. A lookup made late is not the same lookup: with the layer enabled through
//! `VK_INSTANCE_LAYERS` and last in the chain, the next `vkGetInstanceProcAddr` is the
//! loader's terminator, and 1.3.239's answers `vkDestroyInstance` after creation with the
//! *top* of the chain (Mesa's device-select layer, above): the instance's destroy went up
//! again instead of down to the driver, and device-select crashed at every exit.

use std::ffi::{c_void, CStr};

use ash::vk;

use crate::loader::PfnGetPhysicalDeviceProcAddr;

/// Whether a command of [`CALLED_DOWN`] is looked up on the instance or on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// An instance or physical-device command (the next `vkGetInstanceProcAddr`).
    Instance,
    /// A device, queue or command-buffer command (the next `vkGetDeviceProcAddr`).
    Device,
}

/// Every command the workspace's layers call down by name, looked up when the instance or
/// device is made. [`call_next!`](crate::call_next) refuses to compile with a name missing here.
pub const CALLED_DOWN: [(&CStr, Scope); 22] = [
    (c"vkDestroyInstance", Scope::Instance),
    (c"vkGetPhysicalDevicePresentRectanglesKHR", Scope::Instance),
    (c"vkCreateXcbSurfaceKHR", Scope::Instance),
    (c"vkCreateXlibSurfaceKHR", Scope::Instance),
    (c"vkCreateWaylandSurfaceKHR", Scope::Instance),
    (c"vkDestroyDevice", Scope::Device),
    (c"vkCreateSwapchainKHR", Scope::Device),
    (c"vkDestroySwapchainKHR", Scope::Device),
    (c"vkAcquireNextImageKHR", Scope::Device),
    (c"vkAcquireNextImage2KHR", Scope::Device),
    (c"vkQueuePresentKHR", Scope::Device),
    (c"vkGetSwapchainStatusKHR", Scope::Device),
    (c"vkGetDeviceGroupSurfacePresentModesKHR", Scope::Device),
    (c"vkWaitForPresentKHR", Scope::Device),
    (c"vkWaitForPresent2KHR", Scope::Device),
    (c"vkSetDebugUtilsObjectNameEXT", Scope::Device),
    (c"vkSetDebugUtilsObjectTagEXT", Scope::Device),
    (c"vkSetHdrMetadataEXT", Scope::Device),
    (c"vkReleaseSwapchainImagesEXT", Scope::Device),
    (c"vkQueueBeginDebugUtilsLabelEXT", Scope::Device),
    (c"vkQueueEndDebugUtilsLabelEXT", Scope::Device),
    (c"vkQueueInsertDebugUtilsLabelEXT", Scope::Device),
];

/// How many commands a table holds.
const COUNT: usize = CALLED_DOWN.len();

/// Whether two C strings are equal, in a constant.
const fn same(a: &CStr, b: &CStr) -> bool {
    let (a, b) = (a.to_bytes(), b.to_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The table index of `name`, if it is one of the commands called down.
pub const fn index(name: &CStr) -> Option<usize> {
    let mut i = 0;
    while i < COUNT {
        if same(CALLED_DOWN[i].0, name) {
            return Some(i);
        }
        i += 1;
    }
    None
}

/// The index of `name` for [`call_next!`](crate::call_next), evaluated at compile time: a
/// name missing from the table stops the build (a late lookup would be the bug this table
/// exists to prevent).
#[doc(hidden)]
#[allow(
    clippy::panic,
    reason = "evaluated in a `const` block by call_next!: a compile error, never a run-time panic"
)]
pub const fn index_or_stop(name: &CStr) -> usize {
    match index(name) {
        Some(i) => i,
        // A constant evaluation error (the build stops), never a panic at run time.
        None => panic!("call_next!: add this command to layer_plumbing::next::CALLED_DOWN"),
    }
}

/// The commands of one scope, looked up with `lookup`.
fn resolve(scope: Scope, lookup: impl Fn(&CStr) -> vk::PFN_vkVoidFunction) -> Commands {
    let mut table = [None; COUNT];
    for (slot, (name, of)) in table.iter_mut().zip(CALLED_DOWN) {
        if of == scope {
            *slot = lookup(name);
        }
    }
    Commands(table)
}

/// The commands of [`CALLED_DOWN`] as the next layer answered them at creation (null where it
/// has none, or for the other scope).
#[derive(Clone, Copy)]
pub struct Commands([vk::PFN_vkVoidFunction; COUNT]);

impl Commands {
    /// The command at `index` (see [`index`]).
    pub fn get(&self, index: usize) -> vk::PFN_vkVoidFunction {
        self.0.get(index).copied().flatten()
    }
}

/// The next layer's instance-level entry points for one instance.
#[derive(Clone, Copy)]
pub struct NextInstance {
    /// The instance.
    pub handle: vk::Instance,
    /// The next layer's `vkGetInstanceProcAddr`.
    pub gipa: vk::PFN_vkGetInstanceProcAddr,
    /// The next layer's `vk_layerGetPhysicalDeviceProcAddr`, if it has one.
    pub gpdpa: Option<PfnGetPhysicalDeviceProcAddr>,
    /// The instance commands of [`CALLED_DOWN`], looked up when the instance was made.
    pub commands: Commands,
}

impl NextInstance {
    /// Binds the next layer's lookups to the instance it just made, looking up the commands
    /// the layer calls down now.
    pub fn new(
        handle: vk::Instance,
        gipa: vk::PFN_vkGetInstanceProcAddr,
        gpdpa: Option<PfnGetPhysicalDeviceProcAddr>,
    ) -> Self {
        // SAFETY: the next layer's GetInstanceProcAddr with the instance it created.
        let commands = resolve(Scope::Instance, |name| unsafe {
            gipa(handle, name.as_ptr())
        });
        Self {
            handle,
            gipa,
            gpdpa,
            commands,
        }
    }

    /// The command at `index` of [`CALLED_DOWN`], for [`call_next!`](crate::call_next).
    pub fn command(&self, index: usize) -> vk::PFN_vkVoidFunction {
        self.commands.get(index)
    }

    /// The next layer's command `name` looked up now: for creation-time loading (ash's
    /// tables, the pacer's); a command called later goes through [`Self::command`].
    pub fn next_proc(&self, name: &CStr) -> vk::PFN_vkVoidFunction {
        // SAFETY: the next layer's GetInstanceProcAddr with the instance it created.
        unsafe { (self.gipa)(self.handle, name.as_ptr()) }
    }

    /// The next layer's core instance commands as an `ash::Instance`.
    pub fn load(&self) -> ash::Instance {
        let static_fn = ash::StaticFn {
            get_instance_proc_addr: self.gipa,
        };
        // SAFETY: the instance is valid and `gipa` is the lookup of the layer that made it.
        unsafe { ash::Instance::load(&static_fn, self.handle) }
    }

    /// A loader for ash's `*Fn::load` (instance-level extension commands of the next layer).
    pub fn loader(&self) -> impl Fn(&CStr) -> *const c_void + '_ {
        move |name| match self.next_proc(name) {
            Some(f) => f as *const c_void,
            None => std::ptr::null(),
        }
    }
}

/// The next layer's device-level entry points for one device.
#[derive(Clone, Copy)]
pub struct NextDevice {
    /// The device.
    pub handle: vk::Device,
    /// The next layer's `vkGetDeviceProcAddr`.
    pub gdpa: vk::PFN_vkGetDeviceProcAddr,
    /// The device commands of [`CALLED_DOWN`], looked up when the device was made.
    pub commands: Commands,
}

impl NextDevice {
    /// Binds the next layer's lookup to the device it just made, looking up the commands the
    /// layer calls down now.
    pub fn new(handle: vk::Device, gdpa: vk::PFN_vkGetDeviceProcAddr) -> Self {
        // SAFETY: the next layer's GetDeviceProcAddr with the device it created.
        let commands = resolve(Scope::Device, |name| unsafe { gdpa(handle, name.as_ptr()) });
        Self {
            handle,
            gdpa,
            commands,
        }
    }

    /// The command at `index` of [`CALLED_DOWN`], for [`call_next!`](crate::call_next).
    pub fn command(&self, index: usize) -> vk::PFN_vkVoidFunction {
        self.commands.get(index)
    }

    /// The next layer's device command `name` looked up now (null if the next layer does not
    /// offer it for this device): for creation-time loading and for answering the
    /// application's own lookups; a command called later goes through [`Self::command`].
    pub fn next_proc(&self, name: &CStr) -> vk::PFN_vkVoidFunction {
        // SAFETY: the next layer's GetDeviceProcAddr with the device it created.
        unsafe { (self.gdpa)(self.handle, name.as_ptr()) }
    }

    /// The next layer's core device commands as an `ash::Device` (what a layer uses to make
    /// its own objects and to pass commands down).
    pub fn load(&self) -> ash::Device {
        // SAFETY: the device is valid and every pointer comes from its next layer's lookup.
        unsafe { ash::Device::load_with(self.loader(), self.handle) }
    }

    /// A loader for ash's `*Fn::load` (device-level extension commands of the next layer).
    pub fn loader(&self) -> impl Fn(&CStr) -> *const c_void + '_ {
        move |name| match self.next_proc(name) {
            Some(f) => f as *const c_void,
            None => std::ptr::null(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::c_char;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::*;

    /// Whether the fake next layer has "finished creating": like loader 1.3.239's terminator,
    /// it answers `vkDestroyInstance` differently once creation is over.
    static LATE: AtomicBool = AtomicBool::new(false);

    /// Which fake destroy ran last (told apart by calling: identical functions may merge).
    static CALLED: AtomicUsize = AtomicUsize::new(0);

    unsafe extern "system" fn at_creation(_: vk::Instance, _: *const vk::AllocationCallbacks<'_>) {
        CALLED.store(1, Ordering::SeqCst);
    }
    unsafe extern "system" fn late(_: vk::Instance, _: *const vk::AllocationCallbacks<'_>) {
        CALLED.store(2, Ordering::SeqCst);
    }

    /// Which fake `f` is.
    fn which(f: vk::PFN_vkVoidFunction) -> usize {
        CALLED.store(0, Ordering::SeqCst);
        if let Some(f) = f {
            // SAFETY: the fakes are destroy functions and read nothing.
            unsafe {
                std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkDestroyInstance>(f)(
                    vk::Instance::null(),
                    std::ptr::null(),
                )
            };
        }
        CALLED.load(Ordering::SeqCst)
    }

    unsafe extern "system" fn fake_gipa(
        _: vk::Instance,
        name: *const c_char,
    ) -> vk::PFN_vkVoidFunction {
        // SAFETY: the callers pass C strings.
        if unsafe { CStr::from_ptr(name) } != c"vkDestroyInstance" {
            return None;
        }
        let f: vk::PFN_vkDestroyInstance = if LATE.load(Ordering::SeqCst) {
            late
        } else {
            at_creation
        };
        // SAFETY: erasing the type, as a GetInstanceProcAddr does.
        Some(unsafe {
            std::mem::transmute::<vk::PFN_vkDestroyInstance, unsafe extern "system" fn()>(f)
        })
    }

    #[test]
    fn commands_are_the_answers_at_creation() {
        let next = NextInstance::new(vk::Instance::null(), fake_gipa, None);
        LATE.store(true, Ordering::SeqCst);
        let index = const { index_or_stop(c"vkDestroyInstance") };
        assert_eq!(
            which(next.command(index)),
            1,
            "the creation-time answer is kept"
        );
        assert_eq!(
            which(next.next_proc(c"vkDestroyInstance")),
            2,
            "a late lookup answers otherwise (the loader's case)"
        );
    }

    #[test]
    fn every_command_has_one_index_and_its_scope_alone_is_looked_up() {
        for (i, (name, _)) in CALLED_DOWN.iter().enumerate() {
            assert_eq!(index(name), Some(i), "{name:?}");
        }
        assert_eq!(index(c"vkNotCalledDown"), None);
        // A device lookup that answers everything: instance commands stay empty.
        let dev = resolve(Scope::Device, |_| Some(noop as unsafe extern "system" fn()));
        let destroy_instance = const { index_or_stop(c"vkDestroyInstance") };
        let destroy_device = const { index_or_stop(c"vkDestroyDevice") };
        assert!(dev.get(destroy_instance).is_none());
        assert!(dev.get(destroy_device).is_some());
        assert!(dev.get(CALLED_DOWN.len()).is_none());
    }

    unsafe extern "system" fn noop() {}
}
