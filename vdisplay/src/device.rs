//! `vkCreateDevice` / `vkDestroyDevice` and the device-level state: the next layer's commands,
//! which of the layer's extensions are enabled, a pool of fences, the presentation engine, and
//! the queue lock.
//!
//! Queue lock: `vkAcquireNextImageKHR` has no queue parameter, yet the layer signals the
//! application's semaphore and fence with a submission; a queue is externally synchronized
//! (VUID-vkQueueSubmit-queue-parameter), so every command that uses a queue of this device goes
//! through the layer and takes one lock per device (`queue.rs`).

use std::ffi::{c_char, CStr};
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use vkpace_registry::{self as registry, structure_type as st};

use vkpace_layer_plumbing::chain::Splice;
use vkpace_layer_plumbing::loader::PfnSetDeviceLoaderData;
use vkpace_layer_plumbing::{DeviceLink, DispatchKey, NextDevice};

use crate::engine::Engine;
use crate::extensions::{self, DEVICE_EXTS};
use crate::handles::DEVICES;
use crate::instance::Instance;
use crate::log::PresentLog;
use crate::readback::Readback;
use crate::settings::Settings;

/// Which of the layer's device extensions the application enabled.
#[derive(Clone, Copy, Debug, Default)]
pub struct Enabled {
    /// VK_EXT_ or VK_KHR_swapchain_maintenance1.
    pub maintenance1: bool,
    /// VK_KHR_present_wait.
    pub present_wait: bool,
    /// VK_KHR_present_wait2.
    pub present_wait2: bool,
    /// VK_EXT_present_timing.
    pub present_timing: bool,
    /// VK_KHR_calibrated_timestamps.
    pub calibrated_khr: bool,
    /// VK_EXT_hdr_metadata.
    pub hdr_metadata: bool,
}

impl Enabled {
    fn from_names(names: &[&CStr]) -> Self {
        use vkpace_registry as r;
        let has = |n: &CStr| names.contains(&n);
        Self {
            maintenance1: has(vk::EXT_SWAPCHAIN_MAINTENANCE1_NAME)
                || has(r::KHR_SWAPCHAIN_MAINTENANCE_1_NAME),
            present_wait: has(vk::KHR_PRESENT_WAIT_NAME),
            present_wait2: has(r::KHR_PRESENT_WAIT_2_NAME),
            present_timing: has(r::EXT_PRESENT_TIMING_NAME),
            calibrated_khr: has(vk::KHR_CALIBRATED_TIMESTAMPS_NAME),
            hdr_metadata: has(vk::EXT_HDR_METADATA_NAME),
        }
    }
}

/// The layer's state of one device.
pub struct Device {
    /// The device.
    pub handle: vk::Device,
    /// Core commands of the next layer.
    pub fp: ash::Device,
    /// The next layer's entry points, bound when the device was made.
    pub next: NextDevice,
    /// The driver's swapchain commands (for surfaces that are not virtual).
    pub swapchain_fp: ash::khr::swapchain::DeviceFn,
    /// The driver's calibrated-timestamps command (EXT).
    pub calibrated_fp: ash::ext::calibrated_timestamps::DeviceFn,
    /// `vkQueueSubmit2KHR` of the next layer.
    pub sync2_fp: ash::khr::synchronization2::DeviceFn,
    /// The loader's callback for dispatchable objects the layer makes.
    pub set_loader_data: Option<PfnSetDeviceLoaderData>,
    /// The layer's extensions the application enabled.
    pub enabled: Enabled,
    /// Memory types, for swapchain images and read-back buffers.
    pub mem_props: vk::PhysicalDeviceMemoryProperties,
    /// The queue acquire signals on (family of the first queue create info, index 0).
    pub default_queue: vk::Queue,
    /// Family of `default_queue`.
    pub default_family: u32,
    /// The family of every queue the device was created with (raw handle -> family).
    pub queue_families: Vec<(u64, u32)>,
    /// Settings of the instance.
    pub settings: Settings,
    /// The presentation engine.
    pub engine: Arc<Engine>,
    /// The present log, if configured.
    pub log: Option<PresentLog>,
    /// Read-back of shown frames, if configured.
    pub readback: Option<Readback>,
    /// Acquire semaphores owed their signal (`elide.rs`).
    pub owed: crate::elide::Owed,
    /// The present structures of the layer's extensions the driver's device was made without
    /// (`plan_down`): unlinked from a present that goes to the driver's own swapchains, which
    /// would read them as the driver's (bookworm's lavapipe, without present id, crashed on a
    /// `VkPresentIdKHR` it found in the chain).
    pub driver_lacks: Vec<vk::StructureType>,
    queue_lock: Mutex<()>,
    fences: Mutex<Vec<vk::Fence>>,
}

impl Device {
    /// The device of a device, queue or command buffer handle (they share the dispatch key).
    ///
    /// # Safety
    /// `handle` must be a valid dispatchable handle of a device-level object.
    pub unsafe fn of<H: vk::Handle>(handle: H) -> Option<Arc<Device>> {
        // SAFETY: caller's contract.
        unsafe { DEVICES.of(handle) }
    }

    /// The next layer's entry points for this device.
    pub fn next(&self) -> NextDevice {
        self.next
    }

    /// Takes the device's queue lock (see the module documentation).
    pub fn lock_queues(&self) -> MutexGuard<'_, ()> {
        self.queue_lock.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// An unsignaled fence of the layer's.
    pub fn take_fence(&self) -> Result<vk::Fence, vk::Result> {
        if let Some(f) = self.fences.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Ok(f);
        }
        // SAFETY: a valid device; default create info.
        unsafe { self.fp.create_fence(&vk::FenceCreateInfo::default(), None) }
    }

    /// Returns a signaled fence (whose submission completed) to the pool.
    pub fn recycle_fence(&self, fence: vk::Fence) {
        // SAFETY: the fence is ours and no submission that signals it is pending.
        if unsafe { self.fp.reset_fences(&[fence]) }.is_ok() {
            self.fences
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(fence);
        }
    }

    /// A memory type among `bits` with `flags`.
    pub fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> Option<u32> {
        let p = &self.mem_props;
        (0..p.memory_type_count).find(|&i| {
            bits & (1 << i) != 0 && p.memory_types[i as usize].property_flags.contains(flags)
        })
    }

    /// The family of one of the device's queues.
    pub fn family_of(&self, queue: vk::Queue) -> Option<u32> {
        let raw = vk::Handle::as_raw(queue);
        self.queue_families.iter().find(|q| q.0 == raw).map(|q| q.1)
    }

    /// The next layer's command at `index` of the plumbing's table (for `call_next!`).
    pub fn command(&self, index: usize) -> vk::PFN_vkVoidFunction {
        self.next.command(index)
    }
}

/// `vkCreateDevice`.
///
/// # Safety
/// The arguments of a valid `vkCreateDevice` call made by the loader.
pub unsafe fn create(
    pd: vk::PhysicalDevice,
    ci: *const vk::DeviceCreateInfo<'_>,
    alloc: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Device,
) -> vk::Result {
    // SAFETY: valid physical device.
    let Some(inst) = (unsafe { Instance::of_physical(pd) }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: `ci` is valid for the call.
    let names = unsafe {
        extensions::names(
            (*ci).pp_enabled_extension_names,
            (*ci).enabled_extension_count,
        )
    };
    // SAFETY: `pd` belongs to `inst`.
    let driver = unsafe { crate::physical::driver_extensions(&inst, pd) };
    let (kept, drop_types) = plan_down(&names, &driver);
    let driver_lacks = present_structures_of_stripped(&names, &kept);
    let kept_ptrs: Vec<*const c_char> = kept.iter().map(|n| n.as_ptr()).collect();
    let call_down = |next_create: vk::PFN_vkCreateDevice| {
        // SAFETY: `ci` is valid.
        let mut down = vk::DeviceCreateInfo {
            enabled_extension_count: kept_ptrs.len() as u32,
            pp_enabled_extension_names: kept_ptrs.as_ptr(),
            ..unsafe { *ci }
        };
        // SAFETY: `down` heads the application's valid chain; only the call below reads it,
        // and the splice relinks the application's structures when dropped after it.
        let _splice =
            unsafe { Splice::unlink((&mut down as *mut vk::DeviceCreateInfo).cast(), &drop_types) };
        // SAFETY: a valid create info without the structures and names the driver must not see.
        unsafe { next_create(pd, &down, alloc, out) }
    };
    // SAFETY: the loader's create info, once per call; the physical device's instance.
    match unsafe { DeviceLink::create(&*ci, inst.handle, out, call_down) } {
        // SAFETY: the device was just created from `ci`.
        Ok(next) => unsafe { finish_create(inst, pd, &*ci, (&names, driver_lacks), next) },
        Err(error) => error,
    }
}

/// The extension names to pass down and the feature structures to unlink: the layer's
/// extensions the driver lacks are removed; `VK_KHR_calibrated_timestamps` becomes the EXT name.
fn plan_down<'a>(
    names: &[&'a CStr],
    driver: &[vk::ExtensionProperties],
) -> (Vec<&'a CStr>, Vec<vk::StructureType>) {
    let driver_has = |n: &CStr| driver.iter().any(|p| extensions::name_of(p) == n);
    let ours = |n: &CStr| DEVICE_EXTS.iter().any(|e| e.name == n);
    let mut kept: Vec<&CStr> = names
        .iter()
        .copied()
        .filter(|n| !ours(n) || driver_has(n))
        .collect();
    let ext_cal = vk::EXT_CALIBRATED_TIMESTAMPS_NAME;
    if names.contains(&vk::KHR_CALIBRATED_TIMESTAMPS_NAME)
        && !kept.contains(&vk::KHR_CALIBRATED_TIMESTAMPS_NAME)
        && driver_has(ext_cal)
        && !kept.contains(&ext_cal)
    {
        kept.push(ext_cal);
    }
    let mut drop_types = Vec::new();
    for e in DEVICE_EXTS {
        let Some(ty) = e.feature else { continue };
        let kept_by_driver = DEVICE_EXTS
            .iter()
            .any(|o| o.feature == Some(ty) && driver_has(o.name));
        if !kept_by_driver && !drop_types.contains(&ty) {
            drop_types.push(ty);
        }
    }
    (kept, drop_types)
}

/// The present-chain structures of the extensions the application enabled and the driver's
/// device was made without (`kept`: the names passed down).
fn present_structures_of_stripped(names: &[&CStr], kept: &[&CStr]) -> Vec<vk::StructureType> {
    let by_extension = [
        (vk::KHR_PRESENT_ID_NAME, vk::StructureType::PRESENT_ID_KHR),
        (registry::KHR_PRESENT_ID_2_NAME, st::PRESENT_ID_2_KHR),
        (
            registry::EXT_PRESENT_TIMING_NAME,
            st::PRESENT_TIMINGS_INFO_EXT,
        ),
    ];
    let mut lacks: Vec<vk::StructureType> = by_extension
        .into_iter()
        .filter(|(n, _)| names.contains(n) && !kept.contains(n))
        .map(|(_, ty)| ty)
        .collect();
    // Swapchain maintenance1's present structures (one pair for the KHR and EXT names).
    let m1 = [
        vk::EXT_SWAPCHAIN_MAINTENANCE1_NAME,
        registry::KHR_SWAPCHAIN_MAINTENANCE_1_NAME,
    ];
    if m1.iter().any(|n| names.contains(n)) && !m1.iter().any(|n| kept.contains(n)) {
        lacks.push(vk::StructureType::SWAPCHAIN_PRESENT_FENCE_INFO_EXT);
        lacks.push(vk::StructureType::SWAPCHAIN_PRESENT_MODE_INFO_EXT);
    }
    lacks
}

/// Builds the layer's device state and starts its engine.
///
/// # Safety
/// `next` must be bound to the device just created from `ci` on `pd`.
unsafe fn finish_create(
    inst: Arc<Instance>,
    pd: vk::PhysicalDevice,
    ci: &vk::DeviceCreateInfo<'_>,
    (names, driver_lacks): (&[&CStr], Vec<vk::StructureType>),
    next: NextDevice,
) -> vk::Result {
    let (handle, load) = (next.handle, next.loader());
    let fp = next.load();
    // SAFETY: `ci` is valid; a device has at least one queue create info.
    let family = unsafe { (*ci.p_queue_create_infos).queue_family_index };
    // SAFETY: queue 0 of a family the device was created with.
    let queue = unsafe { fp.get_device_queue(family, 0) };
    // SAFETY: the chain is valid.
    let set_loader_data = unsafe { vkpace_layer_plumbing::set_device_loader_data(ci) };
    // SAFETY: `ci` is valid.
    let queue_families = unsafe { queues_of(&fp, ci) };
    if let Some(set) = set_loader_data {
        for (q, _) in &queue_families {
            // SAFETY: the queues are dispatchable objects of this device (setting the loader's
            // pointer is what the loader's own vkGetDeviceQueue does).
            let _ = unsafe { set(handle, *q as *mut _) };
        }
    }
    // SAFETY: a valid physical device.
    let mem_props = unsafe { inst.fp.get_physical_device_memory_properties(pd) };
    let settings = inst.settings.clone();
    let dev = Arc::new(Device {
        handle,
        fp,
        next,
        swapchain_fp: ash::khr::swapchain::DeviceFn::load(&load),
        calibrated_fp: ash::ext::calibrated_timestamps::DeviceFn::load(&load),
        sync2_fp: ash::khr::synchronization2::DeviceFn::load(&load),
        set_loader_data,
        enabled: Enabled::from_names(names),
        mem_props,
        default_queue: queue,
        default_family: family,
        queue_families,
        engine: Arc::new(Engine::new()),
        log: settings.log_path.as_deref().and_then(PresentLog::open),
        readback: settings.readback_dir.clone().map(Readback::new),
        settings,
        owed: crate::elide::Owed::default(),
        driver_lacks,
        queue_lock: Mutex::new(()),
        fences: Mutex::new(Vec::new()),
    });
    Engine::start(&dev);
    // SAFETY: a valid device handle.
    DEVICES.insert(unsafe { DispatchKey::of(handle) }, dev);
    vk::Result::SUCCESS
}

/// Every queue of the device with its family.
///
/// # Safety
/// `ci` must be the create info `fp`'s device was created with.
unsafe fn queues_of(fp: &ash::Device, ci: &vk::DeviceCreateInfo<'_>) -> Vec<(u64, u32)> {
    let mut out = Vec::new();
    for i in 0..ci.queue_create_info_count as usize {
        // SAFETY: `p_queue_create_infos` holds `queue_create_info_count` infos.
        let q = unsafe { &*ci.p_queue_create_infos.add(i) };
        if !q.flags.is_empty() {
            continue; // protected queues are reached only through vkGetDeviceQueue2
        }
        for index in 0..q.queue_count {
            // SAFETY: a queue the device was created with.
            let queue = unsafe { fp.get_device_queue(q.queue_family_index, index) };
            out.push((vk::Handle::as_raw(queue), q.queue_family_index));
        }
    }
    out
}

/// `vkDestroyDevice`: waits for the device, stops the engine, frees the layer's objects.
///
/// # Safety
/// The arguments of a valid `vkDestroyDevice` call.
pub unsafe fn destroy(device: vk::Device, alloc: *const vk::AllocationCallbacks<'_>) {
    if device == vk::Device::null() {
        return;
    }
    // SAFETY: a valid device handle.
    let Some(dev) = DEVICES.remove(unsafe { DispatchKey::of(device) }) else {
        return;
    };
    dev.engine.drain();
    {
        let _q = dev.lock_queues();
        // SAFETY: all the device's queues are idle after this; the application may not use
        // the device concurrently with its destruction.
        let _ = unsafe { dev.fp.device_wait_idle() };
    }
    dev.engine.shutdown();
    crate::swapchain::destroy_all_of(&dev);
    if let Some(rb) = &dev.readback {
        rb.finish(&dev);
    }
    for f in dev
        .fences
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .drain(..)
    {
        // SAFETY: our fence, no pending submission (device idle).
        unsafe { dev.fp.destroy_fence(f, None) };
    }
    // SAFETY: the next layer's destroy with the application's arguments.
    unsafe { (dev.fp.fp_v1_0().destroy_device)(device, alloc) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_lacking_extensions_are_stripped_with_their_features() {
        let driver: Vec<_> = [&DEVICE_EXTS[0], &DEVICE_EXTS[0]]
            .into_iter()
            .map(extensions::properties)
            .chain(std::iter::once(extensions::properties(&extensions::Ext {
                name: vk::EXT_CALIBRATED_TIMESTAMPS_NAME,
                spec_version: 2,
                feature: None,
            })))
            .collect();
        let names = [
            vk::KHR_SWAPCHAIN_NAME,
            vk::EXT_SWAPCHAIN_MAINTENANCE1_NAME,
            vk::KHR_PRESENT_ID_NAME,
            vk::KHR_CALIBRATED_TIMESTAMPS_NAME,
        ];
        let (kept, drop) = plan_down(&names, &driver);
        assert_eq!(
            kept,
            vec![
                vk::KHR_SWAPCHAIN_NAME,
                vk::EXT_SWAPCHAIN_MAINTENANCE1_NAME,
                vk::EXT_CALIBRATED_TIMESTAMPS_NAME
            ]
        );
        assert!(drop.contains(&vk::StructureType::PHYSICAL_DEVICE_PRESENT_ID_FEATURES_KHR));
        assert!(!drop
            .contains(&vk::StructureType::PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_EXT));
    }
}
