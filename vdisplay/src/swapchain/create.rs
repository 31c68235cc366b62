//! `vkCreateSwapchainKHR`, `vkDestroySwapchainKHR`, `vkGetSwapchainImagesKHR`.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};

use ash::vk;
use ash::vk::Handle;

use super::{lookup, ImageState, Info, State, Swapchain};
use crate::device::Device;
use crate::faults::Faults;
use crate::gpu_model::GpuClock;
use crate::handles::{self, SWAPCHAINS};
use crate::readback::ReadbackImages;
use crate::surface::{self, Surface};
use crate::timing::TimingQueue;
use vkpace_layer_plumbing::chain;
use vkpace_layer_plumbing::DispatchKey;

/// How long destruction waits for the layer's own batches that still reference the swapchain.
const DESTROY_WAIT_NS: u64 = 2_000_000_000;

/// `vkCreateSwapchainKHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn create(
    device: vk::Device,
    ci: *const vk::SwapchainCreateInfoKHR<'_>,
    alloc: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SwapchainKHR,
) -> vk::Result {
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(device) }) else {
        return vk::Result::ERROR_DEVICE_LOST;
    };
    // SAFETY: valid create info.
    let ci = unsafe { &*ci };
    let Some(surface) = surface::lookup(ci.surface) else {
        // SAFETY: not a virtual surface: the driver's swapchain.
        return unsafe { (dev.swapchain_fp.create_swapchain_khr)(device, ci, alloc, out) };
    };
    // Spec: oldSwapchain is retired even if creating the new one fails.
    if let Some(old) = lookup(ci.old_swapchain) {
        old.state().retired = true;
        old.notify();
    }
    if let Err(r) = check_surface(&surface, ci) {
        return r;
    }
    // SAFETY: `ci` and its chain are valid.
    let sc = match unsafe { build(&dev, surface.clone(), ci) } {
        Ok(sc) => sc,
        Err(r) => return r,
    };
    surface.state().current_swapchain = sc.handle;
    // SAFETY: valid out-pointer.
    unsafe { *out = vk::SwapchainKHR::from_raw(sc.handle) };
    SWAPCHAINS.insert(sc.handle, Arc::new(sc));
    vk::Result::SUCCESS
}

/// VUID-VkSwapchainCreateInfoKHR-surface-01270 and the native-window-in-use rule: one
/// non-retired swapchain per surface, and a lost surface makes none.
fn check_surface(surface: &Surface, ci: &vk::SwapchainCreateInfoKHR<'_>) -> Result<(), vk::Result> {
    let st = surface.state();
    if st.lost {
        return Err(vk::Result::ERROR_SURFACE_LOST_KHR);
    }
    let cur = st.current_swapchain;
    drop(st);
    if cur != 0 && cur != ci.old_swapchain.as_raw() {
        if let Some(other) = SWAPCHAINS.get(cur) {
            if !other.state().retired {
                return Err(vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR);
            }
        }
    }
    Ok(())
}

/// Creates the images and the swapchain object.
///
/// # Safety
/// `ci` and its chain must be valid.
unsafe fn build(
    dev: &Device,
    surface: Arc<Surface>,
    ci: &vk::SwapchainCreateInfoKHR<'_>,
) -> Result<Swapchain, vk::Result> {
    // SAFETY: the chain is valid.
    let modes_ci = unsafe { chain::find::<vk::SwapchainPresentModesCreateInfoEXT>(ci.p_next) };
    let mut modes = vec![ci.present_mode];
    if let Some(m) = modes_ci {
        // SAFETY: `p_present_modes` holds `present_mode_count` modes.
        let extra =
            unsafe { std::slice::from_raw_parts(m.p_present_modes, m.present_mode_count as usize) };
        modes.extend(extra.iter().filter(|x| **x != ci.present_mode));
    }
    // SAFETY: the chain is valid.
    let scaling = unsafe { chain::find::<vk::SwapchainPresentScalingCreateInfoEXT>(ci.p_next) }
        .is_some_and(|s| !s.scaling_behavior.is_empty());
    let info = Info {
        format: ci.image_format,
        extent: ci.image_extent,
        modes,
        scaling,
    };
    let count = ci.min_image_count.max(1);
    // SAFETY: `ci` is valid.
    let (images, memory) = unsafe { create_images(dev, ci, count)? };
    let readback = dev
        .readback
        .as_ref()
        .and_then(|_| ReadbackImages::new(dev, &images, &info));
    let seq = handles::new_seq();
    let ordinal = {
        let mut st = surface.state();
        st.swapchains_made += 1;
        st.swapchains_made
    };
    Ok(Swapchain {
        handle: handles::new_handle(),
        seq,
        // SAFETY: valid device handle.
        device_key: unsafe { DispatchKey::of(dev.handle) },
        surface,
        info,
        images,
        memory: Mutex::new(memory),
        readback,
        faults: Faults::new(&dev.settings, ordinal),
        gpu: GpuClock::new(&dev.settings, ordinal),
        hdr_metadata: Mutex::new(None),
        state: Mutex::new(initial_state(count, ci.present_mode)),
        cond: Condvar::new(),
    })
}

/// A new swapchain's state: `count` images, all free, in present mode `mode`, nothing
/// presented or queued yet.
fn initial_state(count: u32, mode: vk::PresentModeKHR) -> State {
    State {
        images: vec![ImageState::Free; count as usize],
        acquired_ns: vec![0; count as usize],
        free: (0..count).collect::<VecDeque<u32>>(),
        retired: false,
        out_of_date: false,
        reached_id: 0,
        queued_id: 0,
        presents: 0,
        mode,
        timing: TimingQueue::default(),
    }
}

/// The VkImageCreateInfo a swapchain implies (VkSwapchainCreateInfoKHR's "implied image
/// creation parameters"), plus TRANSFER_SRC for the layer's read-back.
fn image_info<'a>(ci: &'a vk::SwapchainCreateInfoKHR<'a>) -> vk::ImageCreateInfo<'a> {
    let mut flags = vk::ImageCreateFlags::empty();
    if ci
        .flags
        .contains(vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT)
    {
        flags |= vk::ImageCreateFlags::MUTABLE_FORMAT | vk::ImageCreateFlags::EXTENDED_USAGE;
    }
    vk::ImageCreateInfo {
        flags,
        image_type: vk::ImageType::TYPE_2D,
        format: ci.image_format,
        extent: vk::Extent3D {
            width: ci.image_extent.width,
            height: ci.image_extent.height,
            depth: 1,
        },
        mip_levels: 1,
        array_layers: ci.image_array_layers.max(1),
        samples: vk::SampleCountFlags::TYPE_1,
        tiling: vk::ImageTiling::OPTIMAL,
        usage: ci.image_usage | vk::ImageUsageFlags::TRANSFER_SRC,
        sharing_mode: ci.image_sharing_mode,
        queue_family_index_count: ci.queue_family_index_count,
        p_queue_family_indices: ci.p_queue_family_indices,
        initial_layout: vk::ImageLayout::UNDEFINED,
        ..Default::default()
    }
}

/// Creates `count` images; binds memory unless allocation is deferred (maintenance1).
///
/// # Safety
/// `ci` must be valid.
unsafe fn create_images(
    dev: &Device,
    ci: &vk::SwapchainCreateInfoKHR<'_>,
    count: u32,
) -> Result<(Vec<vk::Image>, Vec<vk::DeviceMemory>), vk::Result> {
    // SAFETY: the chain is valid; a format list for mutable-format swapchains goes along.
    let list = unsafe { chain::find::<vk::ImageFormatListCreateInfo>(ci.p_next) }.copied();
    let mut info = image_info(ci);
    let mut list_copy = list.map(|l| vk::ImageFormatListCreateInfo {
        p_next: std::ptr::null(),
        ..l
    });
    if let Some(l) = list_copy.as_mut() {
        info = info.push_next(l);
    }
    let deferred = ci
        .flags
        .contains(vk::SwapchainCreateFlagsKHR::DEFERRED_MEMORY_ALLOCATION_EXT);
    let mut images = Vec::new();
    let mut memory = Vec::new();
    for _ in 0..count {
        // SAFETY: a valid image create info on a valid device.
        let made = unsafe { dev.fp.create_image(&info, None) }.and_then(|img| {
            images.push(img);
            if deferred {
                Ok(vk::DeviceMemory::null())
            } else {
                // SAFETY: a new image of this device, without memory.
                unsafe { bind_memory(dev, img) }
            }
        });
        match made {
            Ok(m) => memory.push(m),
            Err(e) => {
                // SAFETY: objects this function created and nothing uses.
                unsafe { free_images(dev, &images, &memory) };
                return Err(e);
            }
        }
    }
    Ok((images, memory))
}

/// Allocates dedicated device memory for `image` and binds it.
///
/// # Safety
/// `image` must be a valid image of `dev` with no memory bound.
pub unsafe fn bind_memory(dev: &Device, image: vk::Image) -> Result<vk::DeviceMemory, vk::Result> {
    // SAFETY: valid image.
    let req = unsafe { dev.fp.get_image_memory_requirements(image) };
    let ty = dev
        .memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL)
        .or_else(|| dev.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty()))
        .ok_or(vk::Result::ERROR_OUT_OF_DEVICE_MEMORY)?;
    let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().image(image);
    let info = vk::MemoryAllocateInfo::default()
        .allocation_size(req.size)
        .memory_type_index(ty)
        .push_next(&mut dedicated);
    // SAFETY: valid allocation info.
    let mem = unsafe { dev.fp.allocate_memory(&info, None)? };
    // SAFETY: fresh memory of a compatible type and size.
    if let Err(e) = unsafe { dev.fp.bind_image_memory(image, mem, 0) } {
        // SAFETY: unused memory.
        unsafe { dev.fp.free_memory(mem, None) };
        return Err(e);
    }
    Ok(mem)
}

/// Destroys images and frees their memory.
///
/// # Safety
/// No pending device work may use them.
unsafe fn free_images(dev: &Device, images: &[vk::Image], memory: &[vk::DeviceMemory]) {
    for img in images {
        // SAFETY: caller's contract.
        unsafe { dev.fp.destroy_image(*img, None) };
    }
    for mem in memory.iter().filter(|m| **m != vk::DeviceMemory::null()) {
        // SAFETY: caller's contract.
        unsafe { dev.fp.free_memory(*mem, None) };
    }
}

/// `vkDestroySwapchainKHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn destroy(
    device: vk::Device,
    handle: vk::SwapchainKHR,
    alloc: *const vk::AllocationCallbacks<'_>,
) {
    // SAFETY: valid device.
    let Some(dev) = (unsafe { Device::of(device) }) else {
        return;
    };
    if handle == vk::SwapchainKHR::null() {
        return;
    }
    match SWAPCHAINS.remove(handle.as_raw()) {
        // SAFETY: ours, removed from the table, so nothing new can reach it.
        Some(sc) => unsafe { teardown(&dev, &sc) },
        // SAFETY: the driver's swapchain.
        None => unsafe { (dev.swapchain_fp.destroy_swapchain_khr)(device, handle, alloc) },
    }
}

/// Removes a swapchain from the engine, waits for the layer's batches that may still read its
/// images (read-back copies), and destroys its images.
///
/// # Safety
/// `sc` must be a swapchain of `dev` removed from the table.
unsafe fn teardown(dev: &Device, sc: &Swapchain) {
    dev.engine.drain();
    let pending = dev.engine.forget_swapchain(dev, sc.handle);
    if !pending.is_empty() {
        // SAFETY: the layer's fences; a bounded wait.
        let _ = unsafe { dev.fp.wait_for_fences(&pending, true, DESTROY_WAIT_NS) };
    }
    {
        let mut st = sc.surface.state();
        if st.current_swapchain == sc.handle {
            st.current_swapchain = 0;
        }
    }
    sc.state().retired = true;
    sc.notify();
    if let Some(rb) = &sc.readback {
        rb.destroy(dev);
    }
    let memory = sc.memory.lock().unwrap_or_else(|e| e.into_inner()).clone();
    // SAFETY: the application's uses of the images completed (VUID-vkDestroySwapchainKHR-
    // swapchain-01282); the layer's own batches were waited for above.
    unsafe { free_images(dev, &sc.images, &memory) };
}

/// Destroys the virtual swapchains a device still has at its destruction.
pub fn destroy_all_of(dev: &Device) {
    // SAFETY: valid device handle.
    let key = unsafe { DispatchKey::of(dev.handle) };
    for sc in SWAPCHAINS.filter(|s| s.device_key == key) {
        SWAPCHAINS.remove(sc.handle);
        // SAFETY: removed from the table; the device is idle.
        unsafe { teardown(dev, &sc) };
    }
}

/// `vkGetSwapchainImagesKHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn get_images(
    device: vk::Device,
    handle: vk::SwapchainKHR,
    count: *mut u32,
    out: *mut vk::Image,
) -> vk::Result {
    match lookup(handle) {
        // SAFETY: caller's contract.
        Some(sc) => unsafe { crate::extensions::write_array(&sc.images, count, out) },
        None => {
            // SAFETY: valid device.
            let Some(dev) = (unsafe { Device::of(device) }) else {
                return vk::Result::ERROR_DEVICE_LOST;
            };
            // SAFETY: the driver's swapchain.
            unsafe { (dev.swapchain_fp.get_swapchain_images_khr)(device, handle, count, out) }
        }
    }
}
