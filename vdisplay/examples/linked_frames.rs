//! A plain Vulkan application that links libvulkan directly (as vkcube and most C programs
//! do, and ash's `linked` feature), for running over vdisplay from anywhere once it is
//! installed (`vdisplay-install`). It presents `--frames N` (default 600) cleared frames to a
//! headless surface with FIFO, and exits 0 only if every call succeeded and the validation
//! layer (when enabled from the environment) said nothing.
//!
//! Linking matters: the loader's exports (`vkGetInstanceProcAddr`, ...) are then in the global
//! symbol scope, where a layer that looks up its own entry points by name finds the loader's
//! instead and hangs (vdisplay did, before `src/exports.rs`). Programs that `dlopen` the loader
//! (ash's default, the vkpace demo and tests) never see that.
//!
//! `--mistakes` makes two errors on purpose, for a test to show that validation runs above the
//! layer and with synchronization validation: the swapchain gets an extent the surface did not
//! offer (only visible to a validation layer that sees vdisplay's surface), and each frame
//! clears twice with no barrier between (a write-after-write hazard only synchronization
//! validation reports).

// An example: a failed call ends it with a message.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};

use ash::vk;

#[link(name = "libvulkan.so.1", kind = "dylib", modifiers = "+verbatim")]
extern "system" {
    fn vkGetInstanceProcAddr(instance: vk::Instance, name: *const c_char)
        -> vk::PFN_vkVoidFunction;
}

/// Validation messages seen (warnings and errors), and those naming a synchronization hazard.
static MESSAGES: AtomicU64 = AtomicU64::new(0);
static HAZARDS: AtomicU64 = AtomicU64::new(0);
static OFFERED_EXTENT_ERRORS: AtomicU64 = AtomicU64::new(0);

const FRAMES_IN_FLIGHT: usize = 2;
/// No wait of this program may last longer (a hang is an error, not a stall).
const TIMEOUT_NS: u64 = 5_000_000_000;

struct Args {
    frames: u64,
    mistakes: bool,
}

fn parse_args() -> Args {
    let mut args = Args {
        frames: 600,
        mistakes: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--frames" => args.frames = it.next().and_then(|v| v.parse().ok()).expect("--frames N"),
            "--mistakes" => args.mistakes = true,
            other => panic!("unknown argument {other:?} (--frames N, --mistakes)"),
        }
    }
    args
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the validation layer passes valid callback data for the call's duration.
    let data = unsafe { &*data };
    let text = |p: *const c_char| {
        // SAFETY: null or a C string of the callback data.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    };
    let id = text(data.p_message_id_name).unwrap_or_default();
    let message = text(data.p_message).unwrap_or_default();
    // The loader's notice that VK_INSTANCE_LAYERS is set is how this program is meant to run.
    if id == "Loader Message" && message.contains("VK_INSTANCE_LAYERS") {
        return vk::FALSE;
    }
    MESSAGES.fetch_add(1, Ordering::Relaxed);
    if id.starts_with("SYNC-HAZARD") {
        HAZARDS.fetch_add(1, Ordering::Relaxed);
    }
    // The VUID of an extent outside the surface's bounds: validation 1.3.239's, then 1.4's.
    if id == "VUID-VkSwapchainCreateInfoKHR-imageExtent-01274"
        || id == "VUID-VkSwapchainCreateInfoKHR-pNext-07781"
    {
        OFFERED_EXTENT_ERRORS.fetch_add(1, Ordering::Relaxed);
    }
    eprintln!("validation ({severity:?}) {id}: {message}");
    vk::FALSE
}

struct Gpu {
    instance: ash::Instance,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    surface_fn: ash::khr::surface::Instance,
    surface: vk::SurfaceKHR,
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
}

fn create_instance(entry: &ash::Entry) -> (ash::Instance, bool) {
    // SAFETY: a valid entry.
    let offered = unsafe { entry.enumerate_instance_extension_properties(None) }.unwrap();
    let debug = offered
        .iter()
        .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::debug_utils::NAME));
    let mut exts = vec![
        ash::khr::surface::NAME.as_ptr(),
        ash::ext::headless_surface::NAME.as_ptr(),
    ];
    if debug {
        exts.push(ash::ext::debug_utils::NAME.as_ptr());
    }
    let app = vk::ApplicationInfo::default()
        .application_name(c"linked_frames")
        .api_version(vk::API_VERSION_1_1);
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_extension_names(&exts);
    // SAFETY: a valid create info; destroyed in `Gpu::destroy`.
    (
        unsafe { entry.create_instance(&info, None) }.unwrap(),
        debug,
    )
}

fn messenger(
    entry: &ash::Entry,
    instance: &ash::Instance,
) -> (ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT) {
    use vk::DebugUtilsMessageSeverityFlagsEXT as S;
    use vk::DebugUtilsMessageTypeFlagsEXT as T;
    let loader = ash::ext::debug_utils::Instance::new(entry, instance);
    let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(S::WARNING | S::ERROR)
        .message_type(T::GENERAL | T::VALIDATION | T::PERFORMANCE)
        .pfn_user_callback(Some(on_message));
    // SAFETY: a valid instance with VK_EXT_debug_utils enabled.
    let handle = unsafe { loader.create_debug_utils_messenger(&info, None) }.unwrap();
    (loader, handle)
}

impl Gpu {
    fn new() -> Self {
        // SAFETY: the loader's own vkGetInstanceProcAddr, linked into this program.
        let entry = unsafe {
            ash::Entry::from_static_fn(ash::StaticFn {
                get_instance_proc_addr: vkGetInstanceProcAddr,
            })
        };
        let (instance, debug) = create_instance(&entry);
        let messenger = debug.then(|| messenger(&entry, &instance));
        let surface_fn = ash::khr::surface::Instance::new(&entry, &instance);
        let headless = ash::ext::headless_surface::Instance::new(&entry, &instance);
        let info = vk::HeadlessSurfaceCreateInfoEXT::default();
        // SAFETY: a valid instance with VK_EXT_headless_surface enabled.
        let surface = unsafe { headless.create_headless_surface(&info, None) }.unwrap();
        // SAFETY: a valid instance.
        let physical = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
        // SAFETY: a valid physical device.
        let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
        let family = (0..families.len() as u32)
            .find(|&f| {
                let graphics = families[f as usize]
                    .queue_flags
                    .contains(vk::QueueFlags::GRAPHICS);
                // SAFETY: a valid physical device, family and surface.
                graphics
                    && unsafe {
                        surface_fn.get_physical_device_surface_support(physical, f, surface)
                    }
                    .unwrap()
            })
            .expect("a graphics queue that can present");
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let exts = [ash::khr::swapchain::NAME.as_ptr()];
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&exts);
        // SAFETY: valid physical device and create info; destroyed in `destroy`.
        let device = unsafe { instance.create_device(physical, &info, None) }.unwrap();
        // SAFETY: the queue the device was created with.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Self {
            instance,
            messenger,
            surface_fn,
            surface,
            physical,
            device,
            queue,
            family,
        }
    }

    fn destroy(self) {
        // SAFETY: the device is idle (the caller waited) and every child object is destroyed.
        unsafe {
            self.device.destroy_device(None);
            self.surface_fn.destroy_surface(self.surface, None);
            if let Some((loader, handle)) = self.messenger {
                loader.destroy_debug_utils_messenger(handle, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

struct Swapchain {
    loader: ash::khr::swapchain::Device,
    handle: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    /// One per image: a present's semaphore is signalled again only after its image came back
    /// through an acquire, taken as the end of that present's wait (a semaphore signalled
    /// again must have no pending operation: VUID-vkQueueSubmit-pSignalSemaphores-00067). This
    /// is the scheme the validation layer's message for that VUID recommends, not vkpace's
    /// proof (which keeps an N + 1 history per image); it is enough for this example.
    present_semaphores: Vec<vk::Semaphore>,
}

fn create_swapchain(gpu: &Gpu, wrong_extent: bool) -> Swapchain {
    // SAFETY: valid physical device and surface.
    let caps = unsafe {
        gpu.surface_fn
            .get_physical_device_surface_capabilities(gpu.physical, gpu.surface)
    }
    .unwrap();
    // SAFETY: valid physical device and surface.
    let formats = unsafe {
        gpu.surface_fn
            .get_physical_device_surface_formats(gpu.physical, gpu.surface)
    }
    .unwrap();
    let mut extent = caps.current_extent;
    if wrong_extent {
        extent.width = extent.width.saturating_sub(16).max(1);
    }
    let info = vk::SwapchainCreateInfoKHR::default()
        .surface(gpu.surface)
        .min_image_count(caps.min_image_count.max(3).min(caps.max_image_count.max(3)))
        .image_format(formats[0].format)
        .image_color_space(formats[0].color_space)
        .image_extent(extent)
        .image_array_layers(1)
        .image_usage(vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::COLOR_ATTACHMENT)
        .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
        .pre_transform(caps.current_transform)
        .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
        .present_mode(vk::PresentModeKHR::FIFO)
        .clipped(true);
    let loader = ash::khr::swapchain::Device::new(&gpu.instance, &gpu.device);
    // SAFETY: a valid create info for this device's surface; destroyed in `destroy_swapchain`.
    let handle = unsafe { loader.create_swapchain(&info, None) }.unwrap();
    // SAFETY: the swapchain just made.
    let images = unsafe { loader.get_swapchain_images(handle) }.unwrap();
    let present_semaphores = images.iter().map(|_| semaphore(&gpu.device)).collect();
    Swapchain {
        loader,
        handle,
        images,
        present_semaphores,
    }
}

fn semaphore(device: &ash::Device) -> vk::Semaphore {
    // SAFETY: a valid device; the caller destroys the semaphore.
    unsafe { device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }.unwrap()
}

/// The per-frame-in-flight objects.
struct Slot {
    cmd: vk::CommandBuffer,
    done: vk::Fence,
    acquired: vk::Semaphore,
}

fn slots(gpu: &Gpu, pool: vk::CommandPool) -> Vec<Slot> {
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .command_buffer_count(FRAMES_IN_FLIGHT as u32);
    // SAFETY: a valid pool of this device.
    let cmds = unsafe { gpu.device.allocate_command_buffers(&alloc) }.unwrap();
    let signalled = vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED);
    cmds.into_iter()
        .map(|cmd| Slot {
            cmd,
            // SAFETY: a valid device; destroyed at the end of `main`.
            done: unsafe { gpu.device.create_fence(&signalled, None) }.unwrap(),
            acquired: semaphore(&gpu.device),
        })
        .collect()
}

fn barrier(
    device: &ash::Device,
    cmd: vk::CommandBuffer,
    image: vk::Image,
    from: (vk::ImageLayout, vk::AccessFlags),
    to: (vk::ImageLayout, vk::AccessFlags),
) {
    let range = vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(1)
        .layer_count(1);
    let b = vk::ImageMemoryBarrier::default()
        .old_layout(from.0)
        .src_access_mask(from.1)
        .new_layout(to.0)
        .dst_access_mask(to.1)
        .image(image)
        .subresource_range(range);
    // The acquire semaphore is waited on at TRANSFER, and a barrier whose first scope includes
    // the wait's stage chains after it (spec, "Semaphore Waiting": the wait's second scope is
    // limited to its pWaitDstStageMask stages), so the transition to TRANSFER_DST follows the
    // acquire; the transition to PRESENT_SRC reaches the present through the signal of the
    // frame's present semaphore (ALL_COMMANDS).
    let (src, dst) = if to.0 == vk::ImageLayout::TRANSFER_DST_OPTIMAL {
        (
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::TRANSFER,
        )
    } else {
        (
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
        )
    };
    // SAFETY: a command buffer in the recording state, an image of this device.
    unsafe {
        device.cmd_pipeline_barrier(cmd, src, dst, vk::DependencyFlags::empty(), &[], &[], &[b])
    };
}

fn record(gpu: &Gpu, slot: &Slot, image: vk::Image, frame: u64, mistakes: bool) {
    let d = &gpu.device;
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: the slot's previous submission completed (its fence was waited on).
    unsafe { d.begin_command_buffer(slot.cmd, &begin) }.unwrap();
    let write = vk::AccessFlags::TRANSFER_WRITE;
    barrier(
        d,
        slot.cmd,
        image,
        (vk::ImageLayout::UNDEFINED, vk::AccessFlags::empty()),
        (vk::ImageLayout::TRANSFER_DST_OPTIMAL, write),
    );
    let shade = (frame % 120) as f32 / 120.0;
    let color = vk::ClearColorValue {
        float32: [shade, 0.3, 1.0 - shade, 1.0],
    };
    let range = vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(1)
        .layer_count(1);
    let dst = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
    let clears = if mistakes { 2 } else { 1 };
    for _ in 0..clears {
        // SAFETY: the image is in TRANSFER_DST_OPTIMAL.
        unsafe { d.cmd_clear_color_image(slot.cmd, image, dst, &color, &[range]) };
    }
    barrier(
        d,
        slot.cmd,
        image,
        (dst, write),
        (vk::ImageLayout::PRESENT_SRC_KHR, vk::AccessFlags::empty()),
    );
    // SAFETY: recording.
    unsafe { d.end_command_buffer(slot.cmd) }.unwrap();
}

/// One frame on `slot`: acquire, clear, submit, present.
fn frame(gpu: &Gpu, sc: &Swapchain, slot: &Slot, n: u64, mistakes: bool) {
    let d = &gpu.device;
    // SAFETY: the slot's fence, bounded wait.
    unsafe { d.wait_for_fences(&[slot.done], true, TIMEOUT_NS) }.unwrap();
    // SAFETY: a valid swapchain; the slot's acquire semaphore is unsignalled with no pending
    // operation (VUID-vkAcquireNextImageKHR-semaphore-01286, -01779): its last wait was the
    // slot's previous submission, whose fence was just waited on.
    let (index, _suboptimal) = unsafe {
        sc.loader
            .acquire_next_image(sc.handle, TIMEOUT_NS, slot.acquired, vk::Fence::null())
    }
    .unwrap();
    // SAFETY: the fence's submission completed.
    unsafe { d.reset_fences(&[slot.done]) }.unwrap();
    record(gpu, slot, sc.images[index as usize], n, mistakes);
    let present_semaphore = sc.present_semaphores[index as usize];
    let waits = [slot.acquired];
    let stages = [vk::PipelineStageFlags::TRANSFER];
    let cmds = [slot.cmd];
    let signals = [present_semaphore];
    let submit = vk::SubmitInfo::default()
        .wait_semaphores(&waits)
        .wait_dst_stage_mask(&stages)
        .command_buffers(&cmds)
        .signal_semaphores(&signals);
    // SAFETY: the command buffer is executable; semaphores and fence as described above.
    unsafe { d.queue_submit(gpu.queue, &[submit], slot.done) }.unwrap();
    let swapchains = [sc.handle];
    let indices = [index];
    let present = vk::PresentInfoKHR::default()
        .wait_semaphores(&signals)
        .swapchains(&swapchains)
        .image_indices(&indices);
    // SAFETY: the image was acquired and its rendering submitted with `present_semaphore`.
    unsafe { sc.loader.queue_present(gpu.queue, &present) }.unwrap();
}

fn destroy_swapchain(gpu: &Gpu, sc: &Swapchain) {
    // SAFETY: no submission or present of the swapchain's is pending (the caller waited idle).
    unsafe {
        sc.loader.destroy_swapchain(sc.handle, None);
        for s in &sc.present_semaphores {
            gpu.device.destroy_semaphore(*s, None);
        }
    }
}

fn main() {
    let args = parse_args();
    let gpu = Gpu::new();
    if args.mistakes {
        // An extent the surface did not offer (the surface then calls it out of date).
        destroy_swapchain(&gpu, &create_swapchain(&gpu, true));
    }
    let sc = create_swapchain(&gpu, false);
    let info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(gpu.family)
        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    // SAFETY: a valid device; destroyed below.
    let pool = unsafe { gpu.device.create_command_pool(&info, None) }.unwrap();
    let slots = slots(&gpu, pool);
    for n in 0..args.frames {
        frame(
            &gpu,
            &sc,
            &slots[n as usize % FRAMES_IN_FLIGHT],
            n,
            args.mistakes,
        );
    }
    // SAFETY: everything below was made above; the device is idle after the wait.
    unsafe {
        gpu.device.device_wait_idle().unwrap();
        for slot in &slots {
            gpu.device.destroy_fence(slot.done, None);
            gpu.device.destroy_semaphore(slot.acquired, None);
        }
        gpu.device.destroy_command_pool(pool, None);
    }
    destroy_swapchain(&gpu, &sc);
    gpu.destroy();
    let messages = MESSAGES.load(Ordering::Relaxed);
    println!(
        "linked_frames: {} frames presented, {} swapchain images, {messages} validation messages \
         ({} synchronization hazards, {} extents not offered)",
        args.frames,
        sc.images.len(),
        HAZARDS.load(Ordering::Relaxed),
        OFFERED_EXTENT_ERRORS.load(Ordering::Relaxed),
    );
    std::process::exit(if messages == 0 { 0 } else { 1 });
}
