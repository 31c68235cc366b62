//! `vkCreateDevice` / `vkDestroyDevice` and the layer's per-device state.

use std::sync::{Arc, LazyLock};

use ash::vk;
use vkpace_layer_plumbing::{DeviceLink, DispatchKey, DispatchMap, NextDevice};

use crate::instance::INSTANCES;
use crate::pacer::{Handles, PacerState};
use vkpace::PresentPacer;

/// The layer's state of one device.
pub struct Device {
    /// The next layer's entry points for it.
    pub next: NextDevice,
    /// The next layer's core device commands (what the present pacer is made with).
    pub fp: ash::Device,
    /// The next layer's instance commands and entry, and the physical device.
    pub(crate) instance: ash::Instance,
    pub(crate) entry: ash::Entry,
    pub(crate) physical: vk::PhysicalDevice,
    /// What the pacer uses (present timing, swapchain maintenance1: the layer's additions below
    /// the application, or the application's own); `None` where the layer does not pace.
    pub(crate) support: Option<vkpace::Support>,
    /// The present pacer, made at the first swapchain command once a queue is known.
    pub(crate) pacing: PacerState,
}

impl Device {
    /// Runs `f` with the device's present pacer under the device's lock; `None` where the
    /// layer does not pace it. In the creation of a swapchain, `surface` is its surface: a pacer
    /// made now paces the presents of a queue that can present to it.
    pub(crate) fn with_pacer_for<R>(
        &self,
        surface: Option<vk::SurfaceKHR>,
        f: impl FnOnce(&mut PresentPacer) -> R,
    ) -> Option<R> {
        let handles = Handles {
            entry: &self.entry,
            instance: &self.instance,
            physical: self.physical,
            device: &self.fp,
            support: self.support,
            surface,
        };
        self.pacing.with_pacer(&handles, f)
    }
}

/// Devices by dispatch key (a device and its queues and command buffers share one).
pub static DEVICES: LazyLock<DispatchMap<Device>> = LazyLock::new(DispatchMap::new);

/// `vkCreateDevice`: the application's create info goes down, with present timing added to a
/// copy where the layer paces and the device offers it (`below`).
///
/// # Safety
/// The arguments of a valid `vkCreateDevice` call made by the loader.
pub unsafe fn create(
    pd: vk::PhysicalDevice,
    ci: *const vk::DeviceCreateInfo<'_>,
    alloc: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Device,
) -> vk::Result {
    // SAFETY: a valid physical device: it shares its instance's dispatch key.
    let Some(inst) = (unsafe { INSTANCES.of(pd) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let instance = instance_table(&inst);
    // SAFETY: the next layer's instance commands; `pd` is the instance's; `ci` is valid.
    let (pace, adds) = unsafe { what_to_enable(&inst, &instance, pd, &*ci) };
    let mut support = None;
    // SAFETY: the loader's create info, once per call; the application's arguments go down,
    // with the pacer's extensions added where offered.
    let create = |create: vk::PFN_vkCreateDevice| unsafe {
        let Some(adds) = adds else {
            return create(pd, ci, alloc, out);
        };
        let (result, uses) =
            crate::below::create_device(&*ci, adds, |info| create(pd, info, alloc, out));
        support = Some(uses);
        result
    };
    // SAFETY: as above; the physical device's instance.
    let next = match unsafe { DeviceLink::create(&*ci, inst.next.handle, out, create) } {
        Ok(next) => next,
        Err(error) => return error,
    };
    let handle = next.handle;
    let device = Device {
        next,
        fp: next.load(),
        instance: instance_for(&inst, &next),
        entry: inst.entry.clone(),
        physical: pd,
        support,
        pacing: PacerState::new(pace),
    };
    if pace {
        crate::exit::register(summaries_at_exit);
    }
    // SAFETY: a valid device handle.
    DEVICES.insert(unsafe { DispatchKey::of(handle) }, Arc::new(device));
    crate::log(format_args!(
        "vkCreateDevice: device created through the layer"
    ));
    vk::Result::SUCCESS
}

/// At the process's exit: the summary of every device still paced (no unwinding leaves it).
extern "C" fn summaries_at_exit() {
    if !crate::exit::in_registering_process() {
        return;
    }
    crate::GUARD.catch("the summary at exit", || {
        for device in DEVICES.filter(|_| true) {
            device.pacing.summarize_at_exit();
        }
    });
}

/// `vkDestroyDevice`'s part in the layer: forgets the device, ends its pacing and returns the
/// next layer's destroy (loaded when the device was made), which the caller calls outside the
/// guard; `None` for a null or unknown device.
///
/// # Safety
/// `device` is null or a valid device handle.
pub unsafe fn plan_destroy(device: vk::Device) -> Option<vk::PFN_vkDestroyDevice> {
    if device == vk::Device::null() {
        return None;
    }
    // SAFETY: a valid device handle.
    let dev = DEVICES.remove(unsafe { DispatchKey::of(device) })?;
    dev.pacing.end_pacing();
    crate::log(format_args!(
        "vkDestroyDevice: device destroyed through the layer"
    ));
    Some(dev.fp.fp_v1_0().destroy_device)
}

/// `vkGetDeviceQueue`: the application's queue, recorded (the first one becomes the pacer's).
///
/// # Safety
/// The arguments of a valid `vkGetDeviceQueue` call.
pub unsafe fn get_queue(device: vk::Device, family: u32, index: u32, out: *mut vk::Queue) {
    // SAFETY: a valid device handle.
    let Some(dev) = DEVICES.get(unsafe { DispatchKey::of(device) }) else {
        return;
    };
    // SAFETY: the next layer's command with the application's arguments.
    unsafe { (dev.fp.fp_v1_0().get_device_queue)(device, family, index, out) };
    // SAFETY: the driver wrote the queue.
    dev.pacing.queue_seen(unsafe { *out }, family);
}

/// `vkGetDeviceQueue2`, as [`get_queue`].
///
/// # Safety
/// The arguments of a valid `vkGetDeviceQueue2` call.
pub unsafe fn get_queue2(
    device: vk::Device,
    info: *const vk::DeviceQueueInfo2<'_>,
    out: *mut vk::Queue,
) {
    // SAFETY: a valid device handle.
    let Some(dev) = DEVICES.get(unsafe { DispatchKey::of(device) }) else {
        return;
    };
    // SAFETY: the next layer's command with the application's arguments.
    unsafe { (dev.fp.fp_v1_1().get_device_queue2)(device, info, out) };
    // SAFETY: the driver wrote the queue; `info` is valid.
    dev.pacing
        .queue_seen(unsafe { *out }, unsafe { (*info).queue_family_index });
}

/// The instance commands the present pacer is made with, for this device: the next layer's,
/// except that `vkGetDeviceProcAddr` is this device's next layer's, so the pacer's swapchain
/// commands are looked up below this layer (the instance's lookup may give the loader's
/// dispatching entry points, which would call this layer again).
fn instance_for(inst: &crate::instance::Instance, dev: &NextDevice) -> ash::Instance {
    let gdpa = dev.gdpa;
    let load = loader_for(inst);
    // SAFETY: every pointer is the next layer's for its name, for this instance and device.
    unsafe {
        ash::Instance::load_with(
            |name| match name.to_bytes() {
                b"vkGetDeviceProcAddr" => gdpa as *const std::ffi::c_void,
                _ => load(name),
            },
            inst.next.handle,
        )
    }
}

/// The next layer's instance commands, as the pacer's queries of the physical device use them.
fn instance_table(inst: &crate::instance::Instance) -> ash::Instance {
    let load = loader_for(inst);
    // SAFETY: every pointer is the next layer's for its name, for this instance.
    unsafe { ash::Instance::load_with(load, inst.next.handle) }
}

/// The next layer's lookup for the instance, which on a Vulkan 1.0 instance gives the
/// `VK_KHR_get_physical_device_properties2` commands for their core 1.1 names (ash's table
/// calls the core names): the same commands, and the ones such an instance may call
/// (validation reports the core names there, UNASSIGNED-API-Version-Violation).
fn loader_for(
    inst: &crate::instance::Instance,
) -> impl Fn(&std::ffi::CStr) -> *const std::ffi::c_void + '_ {
    let load = inst.next.loader();
    move |name| {
        let khr = match name.to_bytes() {
            _ if inst.api_1_1 => None,
            b"vkGetPhysicalDeviceFeatures2" => Some(c"vkGetPhysicalDeviceFeatures2KHR"),
            b"vkGetPhysicalDeviceProperties2" => Some(c"vkGetPhysicalDeviceProperties2KHR"),
            b"vkGetPhysicalDeviceFormatProperties2" => {
                Some(c"vkGetPhysicalDeviceFormatProperties2KHR")
            }
            b"vkGetPhysicalDeviceQueueFamilyProperties2" => {
                Some(c"vkGetPhysicalDeviceQueueFamilyProperties2KHR")
            }
            b"vkGetPhysicalDeviceMemoryProperties2" => {
                Some(c"vkGetPhysicalDeviceMemoryProperties2KHR")
            }
            _ => None,
        };
        load(khr.unwrap_or(name))
    }
}

/// Whether the layer paces a device made from `ci`, and what it adds below the application
/// where offered. It steps aside (logged) for an application that paces itself (a latency API,
/// present timing), and paces beside one that only tracks its presents (logged).
///
/// # Safety
/// `instance` holds the next layer's instance commands; `pd` is one of its devices; `ci` is
/// valid.
unsafe fn what_to_enable(
    inst: &crate::instance::Instance,
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    ci: &vk::DeviceCreateInfo<'_>,
) -> (bool, Option<crate::below::DeviceAdds>) {
    let policy = crate::policy::policy(None);
    // SAFETY: a valid create info.
    let drives = unsafe { crate::below::self_pacing(ci) }.filter(|_| !policy.settings.force);
    if let Some(ext) = drives {
        crate::log(format_args!(
            "vkCreateDevice: the application enabled {ext:?} and paces itself: the layer steps aside for this device (VKPACE_FORCE=1 paces anyway)"
        ));
    }
    let pace = policy.decision == crate::settings::Decision::Pace && drives.is_none();
    // SAFETY: the caller's contract.
    let adds = pace
        .then(|| unsafe { crate::below::device_adds(&inst.entry, instance, pd, ci, inst.adds) });
    // SAFETY: a valid create info.
    let feedback = unsafe { crate::below::app_feedback(ci) };
    if let Some(adds) = adds.filter(|_| !feedback.is_empty()) {
        crate::log(format_args!(
            "vkCreateDevice: the application enabled {feedback:?} to track its own presents (no frame limit): the layer paces beside it, its present ids pass as they are; {}",
            adds.feedback_path()
        ));
    }
    (pace, adds)
}
