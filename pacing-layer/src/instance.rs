//! `vkCreateInstance` / `vkDestroyInstance` and the layer's per-instance state.

use std::sync::{Arc, LazyLock};

use ash::vk;
use vkpace_layer_plumbing::{call_next, DispatchKey, DispatchMap, InstanceLink, NextInstance};

/// The layer's state of one instance.
pub struct Instance {
    /// The next layer's entry points for it.
    pub next: NextInstance,
}

/// Instances by dispatch key (an instance and its physical devices share one).
pub static INSTANCES: LazyLock<DispatchMap<Instance>> = LazyLock::new(DispatchMap::new);

/// `vkCreateInstance`: the application's create info goes down unchanged.
///
/// # Safety
/// The arguments of a valid `vkCreateInstance` call made by the loader.
pub unsafe fn create(
    ci: *const vk::InstanceCreateInfo<'_>,
    alloc: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Instance,
) -> vk::Result {
    // SAFETY: the loader's create info, once per call; the application's arguments go down.
    let next = match unsafe { InstanceLink::create(&*ci, out, |create| create(ci, alloc, out)) } {
        Ok(next) => next,
        Err(error) => return error,
    };
    let handle = next.handle;
    // SAFETY: a valid instance handle.
    INSTANCES.insert(
        unsafe { DispatchKey::of(handle) },
        Arc::new(Instance { next }),
    );
    crate::log(format_args!(
        "vkCreateInstance: instance created through the layer"
    ));
    vk::Result::SUCCESS
}

/// `vkDestroyInstance`.
///
/// # Safety
/// The arguments of a valid `vkDestroyInstance` call.
pub unsafe fn destroy(instance: vk::Instance, alloc: *const vk::AllocationCallbacks<'_>) {
    if instance == vk::Instance::null() {
        return;
    }
    // SAFETY: a valid instance handle.
    let Some(inst) = INSTANCES.remove(unsafe { DispatchKey::of(instance) }) else {
        return;
    };
    crate::log(format_args!(
        "vkDestroyInstance: instance destroyed through the layer"
    ));
    call_next!(
        inst.next,
        c"vkDestroyInstance",
        vk::PFN_vkDestroyInstance,
        (instance, alloc),
        ()
    );
}
