//! A layer's `vkGet*ProcAddr` and the version negotiation, written once over the [`Layer`]
//! trait: a layer says which commands it implements and at which [`Level`], where its
//! per-instance and per-device state is, and these functions answer the loader and the layers
//! above, passing every other command to the next layer untouched.

use std::ffi::{c_char, CStr};
use std::sync::Arc;

use ash::vk;

use crate::dispatch::DispatchKey;
use crate::guard::Guard;
use crate::loader::{NegotiateLayerInterface, PfnGetPhysicalDeviceProcAddr};
use crate::next::{NextDevice, NextInstance};

/// A command pointer with its type erased (`PFN_vkVoidFunction`'s function).
pub type VoidFn = unsafe extern "system" fn();

/// Where a command a layer implements lives, which decides when its `vkGet*ProcAddr` hands
/// out the layer's function instead of the next layer's.
pub enum Level<D> {
    /// Callable without an instance (`vkCreateInstance`, the enumerations).
    Global,
    /// Instance-level: handed out for a non-null instance.
    Instance,
    /// Takes a physical device: handed out by `vkGetInstanceProcAddr` and by
    /// `vk_layerGetPhysicalDeviceProcAddr` (the loader routes physical-device commands it does
    /// not know through the latter).
    Physical,
    /// Device-level, always handed out.
    Device,
    /// Device-level, handed out only when the next layer offers the command for this device
    /// (a driver extension the layer wraps: the application must still see NULL without it).
    DeviceIfNext,
    /// Device-level, handed out when the predicate holds for the layer's device state (a
    /// command of an extension the layer implements: NULL unless it was enabled, as the spec
    /// requires of `vkGetDeviceProcAddr`).
    DeviceIf(fn(&D) -> bool),
}

/// What a layer tells the plumbing so that [`get_instance_proc_addr`],
/// [`get_device_proc_addr`], [`get_physical_device_proc_addr`] and [`negotiate`] work for it.
/// [`export_loader_interface!`](crate::export_loader_interface) exports them.
pub trait Layer: 'static {
    /// The layer's panic guard (its name prefixes panic messages).
    const GUARD: Guard;
    /// The layer's per-device state ([`Level::DeviceIf`] predicates read it).
    type Device;
    /// The layer's own commands by name, with their level. The three `vkGet*ProcAddr` need not
    /// be listed: the plumbing answers them.
    fn lookup(name: &CStr) -> Option<(Level<Self::Device>, VoidFn)>;
    /// The next layer's entry points of an instance this layer saw created (by the dispatch key
    /// of the instance or one of its physical devices).
    fn next_instance(key: DispatchKey) -> Option<NextInstance>;
    /// The layer's state of a device it saw created (by the dispatch key of the device or one
    /// of its queues or command buffers).
    fn device(key: DispatchKey) -> Option<Arc<Self::Device>>;
    /// The next layer's entry points of that device.
    fn next_device(device: &Self::Device) -> NextDevice;
}

/// Erases a function pointer's type, for a [`Layer::lookup`] table: `pfn!(create_device,
/// vk::PFN_vkCreateDevice)` checks that the function has that type.
#[macro_export]
macro_rules! pfn {
    ($f:expr, $t:ty) => {{
        let f: $t = $f;
        // SAFETY: function pointers of any signature have the same size and representation;
        // the receiver transmutes it back to the command's type before calling it.
        unsafe { ::std::mem::transmute::<$t, $crate::VoidFn>(f) }
    }};
}

/// The plumbing's own commands, then the layer's.
fn own<L: Layer>(name: &CStr) -> Option<(Level<L::Device>, VoidFn)> {
    match name.to_bytes() {
        b"vkGetInstanceProcAddr" => Some((
            Level::Global,
            pfn!(get_instance_proc_addr::<L>, vk::PFN_vkGetInstanceProcAddr),
        )),
        b"vkGetDeviceProcAddr" => Some((
            Level::Device,
            pfn!(get_device_proc_addr::<L>, vk::PFN_vkGetDeviceProcAddr),
        )),
        b"vk_layerGetPhysicalDeviceProcAddr" => Some((
            Level::Global,
            pfn!(
                get_physical_device_proc_addr::<L>,
                PfnGetPhysicalDeviceProcAddr
            ),
        )),
        _ => L::lookup(name),
    }
}

/// The layer's `vkGetInstanceProcAddr`: its own global commands with any instance, its other
/// commands with a non-null instance, the next layer's otherwise.
///
/// # Safety
/// Called by the loader (or a layer above) with a valid or null instance and a C string.
pub unsafe extern "system" fn get_instance_proc_addr<L: Layer>(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    L::GUARD.run("vkGetInstanceProcAddr", None, || {
        // SAFETY: the caller passes a C string.
        let cname = unsafe { CStr::from_ptr(name) };
        if let Some((level, f)) = own::<L>(cname) {
            if matches!(level, Level::Global) || instance != vk::Instance::null() {
                return Some(f);
            }
        }
        if instance == vk::Instance::null() {
            return None;
        }
        // SAFETY: a valid instance handle.
        let next = L::next_instance(unsafe { DispatchKey::of(instance) })?;
        // SAFETY: the next layer's lookup with the caller's arguments.
        unsafe { (next.gipa)(instance, name) }
    })
}

/// The layer's `vk_layerGetPhysicalDeviceProcAddr`: its own physical-device commands, NULL for
/// its other commands, the next layer's answer for the rest.
///
/// # Safety
/// Called by the loader with a valid instance and a C string.
pub unsafe extern "system" fn get_physical_device_proc_addr<L: Layer>(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    L::GUARD.run("vk_layerGetPhysicalDeviceProcAddr", None, || {
        // SAFETY: the loader passes a C string.
        let cname = unsafe { CStr::from_ptr(name) };
        match own::<L>(cname) {
            Some((Level::Physical, f)) => Some(f),
            Some(_) => None,
            None => {
                // SAFETY: a valid instance handle.
                let next = L::next_instance(unsafe { DispatchKey::of(instance) })?;
                // SAFETY: the next layer's lookup with the caller's arguments.
                next.gpdpa
                    .and_then(|gpdpa| unsafe { gpdpa(instance, name) })
            }
        }
    })
}

/// The layer's `vkGetDeviceProcAddr`: its own device commands where their [`Level`] allows,
/// the next layer's otherwise.
///
/// # Safety
/// Called with a valid device and a C string.
pub unsafe extern "system" fn get_device_proc_addr<L: Layer>(
    device: vk::Device,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    L::GUARD.run("vkGetDeviceProcAddr", None, || {
        // SAFETY: the caller passes a C string.
        let cname = unsafe { CStr::from_ptr(name) };
        // SAFETY: a valid device handle.
        let dev = L::device(unsafe { DispatchKey::of(device) })?;
        let next = || L::next_device(&dev).next_proc(cname);
        match own::<L>(cname) {
            Some((Level::Device, f)) => Some(f),
            Some((Level::DeviceIfNext, f)) => next().map(|_| f),
            Some((Level::DeviceIf(enabled), f)) => enabled(&dev).then_some(f),
            _ => next(),
        }
    })
}

/// `LAYER_NEGOTIATE_INTERFACE_STRUCT`'s interface version this plumbing implements (2: the
/// loader finds everything through `vkNegotiateLoaderLayerInterfaceVersion`).
pub const INTERFACE_VERSION: u32 = 2;

/// The layer's `vkNegotiateLoaderLayerInterfaceVersion`: agrees on interface version 2 and
/// hands the loader the layer's (private, generic) `vkGet*ProcAddr`, never the exported
/// symbols (see [`export_loader_interface!`](crate::export_loader_interface)).
///
/// # Safety
/// `v` must point at the loader's negotiation structure.
pub unsafe extern "system" fn negotiate<L: Layer>(v: *mut NegotiateLayerInterface) -> vk::Result {
    L::GUARD.result("vkNegotiateLoaderLayerInterfaceVersion", || {
        // SAFETY: the caller's contract.
        let Some(v) = (unsafe { v.as_mut() }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        if v.s_type != crate::loader::LAYER_NEGOTIATE_INTERFACE_STRUCT
            || v.loader_layer_interface_version < INTERFACE_VERSION
        {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        }
        v.loader_layer_interface_version = INTERFACE_VERSION;
        v.pfn_get_instance_proc_addr = Some(get_instance_proc_addr::<L>);
        v.pfn_get_device_proc_addr = Some(get_device_proc_addr::<L>);
        v.pfn_get_physical_device_proc_addr = Some(get_physical_device_proc_addr::<L>);
        vk::Result::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use std::sync::LazyLock;

    use super::*;
    use crate::dispatch::DispatchMap;

    /// A layer with one command at each level, over a fake next layer.
    struct Fake;

    /// Per-device state: whether "its extension" was enabled.
    struct Dev {
        next: NextDevice,
        ext_enabled: bool,
    }

    /// A dispatchable object: the dispatch word first.
    #[repr(C)]
    struct Object(usize);

    static INSTANCE: Object = Object(0x10);
    static DEVICE: Object = Object(0x20);
    static DEVICE_NO_EXT: Object = Object(0x30);
    static DEVICES: LazyLock<DispatchMap<Dev>> = LazyLock::new(DispatchMap::new);

    // The commands are told apart by calling them (each records its name), not by their
    // addresses: the compiler may merge functions with the same code.
    thread_local! {
        static CALLED: std::cell::Cell<&'static str> = const { std::cell::Cell::new("") };
    }

    unsafe extern "system" fn mine() {
        CALLED.with(|c| c.set("mine"));
    }
    unsafe extern "system" fn theirs() {
        CALLED.with(|c| c.set("theirs"));
    }

    /// Which command `f` is (`mine`, `theirs`), by calling it.
    fn which(f: VoidFn) -> &'static str {
        // SAFETY: `mine` and `theirs` take no arguments.
        unsafe { f() };
        CALLED.with(|c| c.replace(""))
    }

    /// What a `vkGetInstanceProcAddr` answers for `vkCreateInstance` (the layer's own answers
    /// `mine`).
    fn gipa_answer(f: vk::PFN_vkGetInstanceProcAddr) -> Option<&'static str> {
        // SAFETY: a lookup with a null instance and a C string.
        unsafe { f(vk::Instance::null(), c"vkCreateInstance".as_ptr()) }.map(which)
    }

    /// The next layer: offers "vkDriverCmd" and "vkNextOnly", nothing else.
    unsafe extern "system" fn next_gipa(
        _: vk::Instance,
        name: *const c_char,
    ) -> vk::PFN_vkVoidFunction {
        // SAFETY: the callers pass C strings.
        let name = unsafe { CStr::from_ptr(name) }.to_bytes();
        matches!(name, b"vkDriverCmd" | b"vkNextOnly").then_some(theirs as VoidFn)
    }
    unsafe extern "system" fn next_gdpa(
        _: vk::Device,
        name: *const c_char,
    ) -> vk::PFN_vkVoidFunction {
        // SAFETY: as above.
        unsafe { next_gipa(vk::Instance::null(), name) }
    }

    impl Layer for Fake {
        const GUARD: Guard = Guard::new("fake");
        type Device = Dev;
        fn lookup(name: &CStr) -> Option<(Level<Dev>, VoidFn)> {
            let level = match name.to_bytes() {
                b"vkCreateInstance" => Level::Global,
                b"vkDestroyInstance" => Level::Instance,
                b"vkPhysicalCmd" => Level::Physical,
                b"vkDestroyDevice" => Level::Device,
                b"vkDriverCmd" | b"vkMissingDriverCmd" => Level::DeviceIfNext,
                b"vkExtCmd" => Level::DeviceIf(|d: &Dev| d.ext_enabled),
                _ => return None,
            };
            Some((level, mine as VoidFn))
        }
        fn next_instance(key: DispatchKey) -> Option<NextInstance> {
            (key.as_raw() == 0x10)
                .then(|| NextInstance::new(vk::Instance::null(), next_gipa, Some(next_gipa)))
        }
        fn device(key: DispatchKey) -> Option<Arc<Dev>> {
            DEVICES.get(key)
        }
        fn next_device(device: &Dev) -> NextDevice {
            device.next
        }
    }

    fn handle<H: vk::Handle>(o: &'static Object) -> H {
        H::from_raw(o as *const Object as u64)
    }

    fn gipa(instance: vk::Instance, name: &CStr) -> Option<&'static str> {
        // SAFETY: a fake dispatchable instance (or null) and a C string.
        let f = unsafe { get_instance_proc_addr::<Fake>(instance, name.as_ptr()) }?;
        if name == c"vkGetInstanceProcAddr" {
            // SAFETY: the lookup returned a function of this type for this name.
            let f = unsafe { std::mem::transmute::<VoidFn, vk::PFN_vkGetInstanceProcAddr>(f) };
            return gipa_answer(f).map(|_| "own vkGetInstanceProcAddr");
        }
        Some(which(f))
    }

    fn gdpa(device: vk::Device, name: &CStr) -> Option<&'static str> {
        // SAFETY: a fake dispatchable device and a C string.
        unsafe { get_device_proc_addr::<Fake>(device, name.as_ptr()) }.map(which)
    }

    fn gpdpa(name: &CStr) -> Option<&'static str> {
        // SAFETY: as above.
        unsafe { get_physical_device_proc_addr::<Fake>(handle(&INSTANCE), name.as_ptr()) }
            .map(which)
    }

    fn register_devices() {
        for (obj, ext_enabled) in [(&DEVICE, true), (&DEVICE_NO_EXT, false)] {
            let next = NextDevice::new(handle(obj), next_gdpa);
            DEVICES.insert(
                DispatchKey::from_raw(obj.0),
                Arc::new(Dev { next, ext_enabled }),
            );
        }
    }

    #[test]
    fn instance_lookup_hands_out_own_commands_by_level_and_passes_the_rest() {
        let (me, them) = (Some("mine"), Some("theirs"));
        let null = vk::Instance::null();
        let inst: vk::Instance = handle(&INSTANCE);
        assert_eq!(gipa(null, c"vkCreateInstance"), me);
        assert_eq!(gipa(null, c"vkDestroyInstance"), None, "not global");
        assert_eq!(gipa(inst, c"vkDestroyInstance"), me);
        assert_eq!(gipa(inst, c"vkNextOnly"), them);
        assert_eq!(gipa(inst, c"vkUnknown"), None);
        let own_gipa = Some("own vkGetInstanceProcAddr");
        assert_eq!(gipa(null, c"vkGetInstanceProcAddr"), own_gipa);
        assert_eq!(gpdpa(c"vkPhysicalCmd"), me);
        assert_eq!(gpdpa(c"vkDestroyDevice"), None, "own, not physical");
        assert_eq!(gpdpa(c"vkNextOnly"), them);
    }

    #[test]
    fn device_lookup_follows_levels_and_the_device_state() {
        register_devices();
        let (me, them) = (Some("mine"), Some("theirs"));
        let (dev, plain): (vk::Device, vk::Device) = (handle(&DEVICE), handle(&DEVICE_NO_EXT));
        assert_eq!(gdpa(dev, c"vkDestroyDevice"), me);
        assert_eq!(
            gdpa(dev, c"vkDriverCmd"),
            me,
            "wrapped: the next layer has it"
        );
        assert_eq!(
            gdpa(dev, c"vkMissingDriverCmd"),
            None,
            "the next layer lacks it"
        );
        assert_eq!(gdpa(dev, c"vkExtCmd"), me);
        assert_eq!(gdpa(plain, c"vkExtCmd"), None, "extension not enabled");
        assert_eq!(gdpa(dev, c"vkNextOnly"), them);
        assert_eq!(gdpa(dev, c"vkCreateInstance"), None);
    }

    #[test]
    fn negotiation_agrees_on_version_2_and_refuses_older_loaders() {
        let mut v = NegotiateLayerInterface {
            s_type: crate::loader::LAYER_NEGOTIATE_INTERFACE_STRUCT,
            p_next: std::ptr::null_mut(),
            loader_layer_interface_version: 5,
            pfn_get_instance_proc_addr: None,
            pfn_get_device_proc_addr: None,
            pfn_get_physical_device_proc_addr: None,
        };
        // SAFETY: a valid negotiation structure.
        assert_eq!(unsafe { negotiate::<Fake>(&mut v) }, vk::Result::SUCCESS);
        assert_eq!(v.loader_layer_interface_version, 2);
        // The layer's own lookup (the next layer has no vkCreateInstance).
        let answer = v.pfn_get_instance_proc_addr.and_then(gipa_answer);
        assert_eq!(answer, Some("mine"));
        assert!(
            v.pfn_get_device_proc_addr.is_some() && v.pfn_get_physical_device_proc_addr.is_some()
        );
        v.loader_layer_interface_version = 1;
        // SAFETY: as above.
        let old = unsafe { negotiate::<Fake>(&mut v) };
        assert_eq!(old, vk::Result::ERROR_INITIALIZATION_FAILED);
    }
}
