//! `vkCreateInstance` / `vkDestroyInstance` and the layer's per-instance state.

use std::sync::{Arc, LazyLock};

use ash::vk;
use vkpace_layer_plumbing::{DispatchKey, DispatchMap, InstanceLink, NextInstance};

/// The layer's state of one instance.
pub struct Instance {
    /// The next layer's entry points for it.
    pub next: NextInstance,
    /// The global entry the present pacer is made with ([`entry_for`]).
    pub entry: ash::Entry,
    /// What is enabled for the pacer (the application's or the layer's) on an instance that
    /// can use it (Vulkan 1.1 or get_physical_device_properties2): surface capabilities2,
    /// surface maintenance1.
    pub(crate) adds: vkpace::InstanceSupport,
    /// The application asked for Vulkan 1.1 or newer (else the physical device queries use
    /// `VK_KHR_get_physical_device_properties2`'s names).
    pub(crate) api_1_1: bool,
}

/// Instances by dispatch key (an instance and its physical devices share one).
pub static INSTANCES: LazyLock<DispatchMap<Instance>> = LazyLock::new(DispatchMap::new);

/// `vkCreateInstance`: the application's create info goes down, with
/// `VK_KHR_get_surface_capabilities2` and `VK_EXT_surface_maintenance1` added to a copy where the
/// layer paces (`below`).
///
/// # Safety
/// The arguments of a valid `vkCreateInstance` call made by the loader.
pub unsafe fn create(
    ci: *const vk::InstanceCreateInfo<'_>,
    alloc: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Instance,
) -> vk::Result {
    // SAFETY: a valid create info's application info, if any.
    let app = unsafe { (*ci).p_application_info.as_ref() };
    // SAFETY: as above: its strings are null or valid null-terminated strings.
    let (name, engine) = unsafe { application(app) };
    let policy = crate::policy::policy(Some((name.as_deref(), engine)));
    let pace = policy.decision == crate::settings::Decision::Pace;
    let mut adds = vkpace::InstanceSupport::default();
    let version = app.map_or(0, |a| a.api_version);
    let api_1_1 = vk::api_version_major(version) > 1 || vk::api_version_minor(version) >= 1;
    // SAFETY: the loader's create info, once per call; the application's arguments go down,
    // with the pacer's surface extensions added where the layer paces.
    let call_down = |create: vk::PFN_vkCreateInstance| unsafe {
        if !pace {
            return create(ci, alloc, out);
        }
        let (result, enabled) =
            crate::below::create_instance(&*ci, |info| create(info, alloc, out));
        adds = enabled;
        result
    };
    // SAFETY: the loader's create info, before this layer takes its link.
    let below = unsafe { vkpace_layer_plumbing::stack::libraries_below(&*ci) };
    // SAFETY: as above.
    let next = match unsafe { InstanceLink::create(&*ci, out, call_down) } {
        Ok(next) => next,
        Err(error) => return error,
    };
    let handle = next.handle;
    // SAFETY: a valid instance handle.
    INSTANCES.insert(
        unsafe { DispatchKey::of(handle) },
        Arc::new(Instance {
            next,
            entry: entry_for(),
            adds,
            api_1_1,
        }),
    );
    crate::log(format_args!(
        "vkCreateInstance: instance created through the layer; below it: {} (the last is the loader's)",
        below.join(", ")
    ));
    vk::Result::SUCCESS
}

/// What an application info names: the program (`pApplicationName`) and its engine with its
/// version.
///
/// # Safety
/// `app` is null or a valid application info: its names null or null-terminated strings.
unsafe fn application(
    app: Option<&vk::ApplicationInfo<'_>>,
) -> (Option<String>, Option<crate::settings::Engine>) {
    let Some(app) = app else {
        return (None, None);
    };
    let text = |p: *const std::ffi::c_char| {
        // SAFETY: null or a valid null-terminated string (the caller's contract).
        (!p.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy())
    };
    let name = text(app.p_application_name).map(|n| n.into_owned());
    let engine =
        text(app.p_engine_name).map(|n| crate::settings::Engine::new(&n, app.engine_version));
    (name, engine)
}

/// `vkDestroyInstance`'s part in the layer: forgets the instance and returns the next layer's
/// destroy (looked up when the instance was made), which the caller calls outside the guard;
/// `None` for a null or unknown instance, or a next layer without it.
///
/// # Safety
/// `instance` is null or a valid instance handle.
pub unsafe fn plan_destroy(instance: vk::Instance) -> Option<vk::PFN_vkDestroyInstance> {
    if instance == vk::Instance::null() {
        return None;
    }
    // SAFETY: a valid instance handle.
    let inst = INSTANCES.remove(unsafe { DispatchKey::of(instance) })?;
    crate::log(format_args!(
        "vkDestroyInstance: instance destroyed through the layer"
    ));
    let index = const { vkpace_layer_plumbing::next::index_or_stop(c"vkDestroyInstance") };
    let f = inst.next.command(index)?;
    // SAFETY: the next layer returned this pointer for vkDestroyInstance.
    Some(unsafe {
        std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkDestroyInstance>(f)
    })
}

/// An `ash::Entry` for the present pacer whose lookups go to the next layer of the instance
/// asked about and find nothing without one. The next layer may not answer global lookups at
/// all (Mesa's device-select layer crashes on them), and the pacer needs none: it looks up only
/// instance commands, with the instance.
fn entry_for() -> ash::Entry {
    let static_fn = ash::StaticFn {
        get_instance_proc_addr: instance_lookup,
    };
    // SAFETY: `instance_lookup` has vkGetInstanceProcAddr's signature and contract.
    unsafe { ash::Entry::from_static_fn(static_fn) }
}

/// The lookup of [`entry_for`]'s entry: the next layer's, of the instance's own chain.
///
/// # Safety
/// `vkGetInstanceProcAddr`'s contract: `instance` is null or a valid instance, `name` a
/// null-terminated string.
unsafe extern "system" fn instance_lookup(
    instance: vk::Instance,
    name: *const std::ffi::c_char,
) -> vk::PFN_vkVoidFunction {
    if instance == vk::Instance::null() {
        return None;
    }
    // SAFETY: a valid instance handle (the caller's contract).
    let next = INSTANCES.get(unsafe { DispatchKey::of(instance) })?.next;
    // SAFETY: the next layer's lookup with a valid instance and name.
    unsafe { (next.gipa)(instance, name) }
}
