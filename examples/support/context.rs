//! The Vulkan context of the examples: a 1.3 instance and device, a surface, and the Khronos
//! validation layer (synchronization validation on) whose messages are counted: any message
//! makes the example fail.

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{anyhow, Context as _, Result};
use ash::vk;
use vkpace::{InstanceSupport, Support, Swapchain};

use super::Args;

/// Validation warnings and errors seen (the whole process has one instance at a time).
pub static MESSAGES: AtomicU64 = AtomicU64::new(0);

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    _user: *mut c_void,
) -> vk::Bool32 {
    let string = |p: *const c_char| match p.is_null() {
        true => String::new(),
        // SAFETY: a NUL-terminated string of the callback data, alive for the call.
        false => unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned(),
    };
    // SAFETY: the layer passes valid callback data (or null).
    let Some(data) = (unsafe { data.as_ref() }) else {
        return vk::FALSE;
    };
    let (id, text) = (string(data.p_message_id_name), string(data.p_message));
    if id == "Loader Message" && text.contains("VK_INSTANCE_LAYERS") {
        // The loader saying the environment adds layers (the tests run the examples over the
        // virtual display that way): about the environment, not the example's use of Vulkan.
        return vk::FALSE;
    }
    MESSAGES.fetch_add(1, Ordering::SeqCst);
    eprintln!("[validation {severity:?}] {text}");
    vk::FALSE
}

/// The instance, the surface and the device the examples render with.
pub struct Context {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub device: ash::Device,
    pub physical: vk::PhysicalDevice,
    pub queue: vk::Queue,
    pub queue_family: u32,
    /// The surface (headless or the window's).
    pub surface: vk::SurfaceKHR,
    surface_fn: ash::khr::surface::Instance,
    messenger: Option<Messenger>,
    /// The optional paths the device enabled.
    pub support: Support,
    /// The device's memory types (for [`super::vulkan`]'s objects).
    pub memory: vk::PhysicalDeviceMemoryProperties,
}

/// A window's handles, for its surface; `None` means VK_EXT_headless_surface.
pub type WindowHandles = Option<(
    raw_window_handle::RawDisplayHandle,
    raw_window_handle::RawWindowHandle,
)>;

/// What a [`Context`] is made with.
#[derive(Clone, Copy, Debug, Default)]
pub struct ContextOptions {
    /// Leave maintenance1 off (instance and device).
    pub no_maintenance1: bool,
    /// The validation layer (synchronization validation on) and a messenger.
    pub validation: bool,
    /// Keep present_wait, present_wait2 and present timing where offered (vkpace's display
    /// feedback and targets); the frame-path examples leave them off.
    pub display_paths: bool,
    /// Of those, keep present_wait2 alone: a program that gives its own present ids and waits
    /// with present wait2 and targets nothing (vkd3d-proton's way), what the pacing layer is
    /// tested under.
    pub only_present_wait2: bool,
}

impl Context {
    /// Instance (with the validation layer if asked), surface and device, for `args`.
    ///
    /// # Safety
    ///
    /// As [`Self::with_options`].
    pub(super) unsafe fn new(window: WindowHandles, args: &Args) -> Result<Self> {
        let options = ContextOptions {
            no_maintenance1: args.no_maintenance1,
            validation: args.validation,
            display_paths: false,
            only_present_wait2: false,
        };
        // SAFETY: caller contract.
        unsafe { Self::with_options(window, options) }
    }

    /// Instance (with the validation layer if asked), surface and device.
    ///
    /// # Safety
    ///
    /// The window handles (if any) stay valid until [`Self::destroy`].
    pub unsafe fn with_options(window: WindowHandles, options: ContextOptions) -> Result<Self> {
        // SAFETY: loads the system's Vulkan loader.
        let entry = unsafe { ash::Entry::load() }?;
        // maintenance1's instance extensions, KHR or EXT names, unless --no-maintenance1.
        let mut instance_support = InstanceSupport::query(&entry)?;
        if options.no_maintenance1 {
            instance_support.maintenance1 = None;
        }
        let extensions = instance_support.extensions();
        let validation = options.validation;
        let (instance, messenger) = make_instance(&entry, window, &extensions, validation)?;
        let surface = match window {
            // SAFETY: the handles are valid (caller contract).
            Some((d, w)) => unsafe { ash_window::create_surface(&entry, &instance, d, w, None) }?,
            // SAFETY: the instance enabled VK_EXT_headless_surface.
            None => unsafe {
                ash::ext::headless_surface::Instance::new(&entry, &instance)
                    .create_headless_surface(&vk::HeadlessSurfaceCreateInfoEXT::default(), None)
            }?,
        };
        let surface_fn = ash::khr::surface::Instance::new(&entry, &instance);
        // SAFETY: the surface belongs to this instance.
        let (physical, queue_family) = unsafe { pick_device(&instance, &surface_fn, surface) }?;
        // SAFETY: `physical` comes from this Vulkan 1.3 instance, which enabled `extensions`.
        let mut support = unsafe {
            Support::query(&entry, &instance, physical, queue_family, &instance_support)
        }?;
        // The frame-path examples: of the optional paths, maintenance1 only.
        support.gpu_timestamps = false;
        if !options.display_paths {
            support.present_wait = false;
            support.present_wait2 = false;
        }
        // A validation layer older than present_id2 / wait2 and present timing (1.4.317)
        // reports their structures as unknown: validated runs go without them there.
        if !options.display_paths || (validation && !layer_knows_present_timing(&entry)?) {
            support.present_wait2 = false;
            support.present_timing = None;
        }
        if options.only_present_wait2 {
            (support.present_wait, support.present_timing) = (false, None);
        }
        // SAFETY: as above; the family can present.
        let device = unsafe { make_device(&instance, physical, queue_family, &support) }?;
        Ok(Self {
            // SAFETY: queue 0 of the family was asked for.
            queue: unsafe { device.get_device_queue(queue_family, 0) },
            // SAFETY: as above.
            memory: unsafe { instance.get_physical_device_memory_properties(physical) },
            device,
            physical,
            queue_family,
            surface,
            surface_fn,
            messenger,
            support,
            entry,
            instance,
        })
    }

    /// A vkpace swapchain on this context's surface: maintenance1 where the device enabled it.
    pub(super) fn swapchain(&self, mut config: vkpace::SwapchainConfig) -> Result<Swapchain> {
        self.support.apply(&mut config);
        config.debug_utils = self.messenger.is_some();
        // SAFETY: the handles are valid and outlive the swapchain (destroyed before the
        // context); debug names and maintenance1 are set only where enabled, and the device
        // enabled timelineSemaphore and synchronization2 (the examples' other options).
        Ok(unsafe {
            Swapchain::new(vkpace::SwapchainCreateDesc {
                entry: &self.entry,
                instance: &self.instance,
                physical_device: self.physical,
                device: &self.device,
                queue: self.queue,
                queue_family: self.queue_family,
                surface: self.surface,
                config,
            })
        }?)
    }

    /// Destroys device, surface, messenger and instance: everything made from them is gone.
    pub fn destroy(self) {
        // SAFETY: the swapchain and the renderer's objects were destroyed before; reverse order
        // of creation.
        unsafe {
            self.device.destroy_device(None);
            self.surface_fn.destroy_surface(self.surface, None);
            if let Some((du, m)) = self.messenger {
                du.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// Whether the Khronos validation layer is 1.4.317 or newer (it knows VK_KHR_present_id2,
/// VK_KHR_present_wait2 and VK_EXT_present_timing); false where it is missing.
fn layer_knows_present_timing(entry: &ash::Entry) -> Result<bool> {
    // SAFETY: a plain query of the loader.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }?;
    Ok(layers.iter().any(|l| {
        l.layer_name_as_c_str() == Ok(c"VK_LAYER_KHRONOS_validation")
            && l.spec_version >= vk::make_api_version(0, 1, 4, 317)
    }))
}

/// The messenger's settings: warnings and errors of every kind, to [`on_message`].
fn messenger_info() -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(on_message))
}

type Messenger = (ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT);

/// A Vulkan 1.3 instance with the surface extensions, vkpace's (`vkpace_extensions`), and with
/// `validation` the Khronos layer, synchronization validation and a messenger.
fn make_instance(
    entry: &ash::Entry,
    window: WindowHandles,
    vkpace_extensions: &[&CStr],
    validation: bool,
) -> Result<(ash::Instance, Option<Messenger>)> {
    let mut extensions = match window {
        Some((display, _)) => ash_window::enumerate_required_extensions(display)?.to_vec(),
        None => vec![
            ash::khr::surface::NAME.as_ptr(),
            ash::ext::headless_surface::NAME.as_ptr(),
        ],
    };
    extensions.extend(vkpace_extensions.iter().map(|e| e.as_ptr()));
    let layers = [c"VK_LAYER_KHRONOS_validation".as_ptr()];
    let sync = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&sync);
    let mut chained = messenger_info();
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    let mut info = vk::InstanceCreateInfo::default().application_info(&app);
    if validation {
        extensions.push(ash::ext::debug_utils::NAME.as_ptr());
        extensions.push(ash::ext::validation_features::NAME.as_ptr());
        // The messenger chained too, so instance creation and destruction are covered.
        info = info
            .enabled_layer_names(&layers)
            .push_next(&mut features)
            .push_next(&mut chained);
    }
    let info = info.enabled_extension_names(&extensions);
    // SAFETY: every pointer in `info` refers to locals alive for the call.
    let instance = unsafe { entry.create_instance(&info, None) }.context("vkCreateInstance")?;
    if !validation {
        return Ok((instance, None));
    }
    let du = ash::ext::debug_utils::Instance::new(entry, &instance);
    // SAFETY: the instance enabled VK_EXT_debug_utils; a fresh create info (no pNext).
    let messenger = unsafe { du.create_debug_utils_messenger(&messenger_info(), None) }?;
    Ok((instance, Some((du, messenger))))
}

/// The first Vulkan 1.3 device with a graphics queue family that can present to `surface`.
///
/// # Safety
///
/// `surface` belongs to `instance`.
unsafe fn pick_device(
    instance: &ash::Instance,
    surface_fn: &ash::khr::surface::Instance,
    surface: vk::SurfaceKHR,
) -> Result<(vk::PhysicalDevice, u32)> {
    // SAFETY: plain queries on valid handles (caller contract).
    unsafe {
        for pd in instance.enumerate_physical_devices()? {
            if instance.get_physical_device_properties(pd).api_version < vk::API_VERSION_1_3 {
                continue;
            }
            let families = instance.get_physical_device_queue_family_properties(pd);
            for (i, f) in (0u32..).zip(&families) {
                if f.queue_flags.contains(vk::QueueFlags::GRAPHICS)
                    && surface_fn.get_physical_device_surface_support(pd, i, surface)?
                {
                    return Ok((pd, i));
                }
            }
        }
    }
    Err(anyhow!(
        "no Vulkan 1.3 device with a graphics queue that can present here"
    ))
}

/// The device: VK_KHR_swapchain, what `support` names, and the two features vkpace's
/// batched and timeline paths need (`synchronization2`, `timelineSemaphore`, core in 1.3).
///
/// # Safety
///
/// `physical` is a Vulkan 1.3 device of `instance`; `family` one of its queue families.
unsafe fn make_device(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
    family: u32,
    support: &Support,
) -> Result<ash::Device> {
    let mut extensions = vec![ash::khr::swapchain::NAME.as_ptr()];
    extensions.extend(support.device_extensions().iter().map(|e| e.as_ptr()));
    let priorities = [1.0];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&priorities)];
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default().synchronization2(true);
    let mut features = support.features();
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&extensions)
        .push_next(&mut v12)
        .push_next(&mut v13);
    let info = features.chain(info);
    // SAFETY: caller contract; both features are required in Vulkan 1.3.
    unsafe { instance.create_device(physical, &info, None) }.context("vkCreateDevice")
}
