//! Instance, device and surface for the demo and the integration tests, with the Khronos
//! validation layer (synchronization validation on) as a canary that counts every message.

use std::ffi::CStr;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use anyhow::{anyhow, Context as _, Result};
use ash::vk;

mod instance;
mod messages;

pub use messages::MessageLog;

/// Where the demo presents.
pub enum SurfaceSource<'a> {
    /// `VK_EXT_headless_surface`.
    Headless,
    /// A window from the window system.
    Window {
        /// Display handle.
        display: raw_window_handle::RawDisplayHandle,
        /// Window handle.
        window: raw_window_handle::RawWindowHandle,
        /// Ties the handles' lifetime to the window.
        _marker: std::marker::PhantomData<&'a ()>,
    },
}

/// Everything the demo and tests need from Vulkan.
pub struct VulkanContext {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    pub messages: Arc<MessageLog>,
    pub surface_fn: ash::khr::surface::Instance,
    pub surface: vk::SurfaceKHR,
    pub physical: vk::PhysicalDevice,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub queue_family: u32,
    pub debug_utils: bool,
    /// Whether swapchain maintenance1 (and its instance extensions) were enabled.
    pub maintenance1: bool,
    /// Which names of it: KHR where offered, else EXT.
    pub maintenance1_names: Option<vkpace::Maintenance1Names>,
    /// Whether VK_EXT_calibrated_timestamps was enabled and the queue has timestamps (vkpace
    /// then measures GPU start and end per frame).
    pub gpu_timing: bool,
    /// Whether VK_KHR_present_id and VK_KHR_present_wait were enabled (vkpace then polls when
    /// frames are shown).
    pub present_wait: bool,
    /// Whether VK_KHR_present_id2 and VK_KHR_present_wait2 were enabled (vkpace then uses them
    /// where the surface supports them, present_wait elsewhere).
    pub present_wait2: bool,
    /// Whether VK_EXT_present_timing was enabled (with present_wait2, whose present_id2 it
    /// needs): vkpace then paces on the refresh grid where the surface supports it.
    pub present_timing: bool,
    /// The physical device's name, for the summary.
    pub device_name: String,
    /// What vkpace found it can use (and the context enabled).
    pub support: vkpace::Support,
}

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// The first header version with VK_KHR_present_id2 and VK_KHR_present_wait2 (1.4.317).
const PRESENT_WAIT2_LAYER_VERSION: u32 = vk::make_api_version(0, 1, 4, 317);

/// The instance-level objects made before the device (destroyed again if it cannot be made).
struct InstanceParts {
    entry: ash::Entry,
    instance: ash::Instance,
    messenger: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    surface_fn: ash::khr::surface::Instance,
    surface: vk::SurfaceKHR,
}

/// What `make_device` made and found: the device, its queue and what vkpace can use on it.
struct DeviceParts {
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    device_name: String,
    support: vkpace::Support,
}

impl VulkanContext {
    /// Creates instance, surface and device. `validation` enables the Khronos layer with
    /// synchronization validation; `maintenance1` enables VK_EXT_swapchain_maintenance1 where
    /// the driver offers it (see `VulkanContext::maintenance1` for the outcome).
    pub fn new(source: SurfaceSource<'_>, validation: bool, maintenance1: bool) -> Result<Self> {
        // SAFETY: loads the system Vulkan loader; no other precondition.
        let entry =
            unsafe { ash::Entry::load() }.context("loading the Vulkan loader (libvulkan.so.1)")?;
        let (mut extensions, instance_support, debug_utils) =
            instance::instance_extensions(&entry, &source, validation, maintenance1)?;
        let (layers, layer_version) =
            instance::validation_layers(&entry, validation, &mut extensions)?;
        let messages = Arc::new(MessageLog::default());
        let instance = instance::create_instance(
            &entry,
            &extensions,
            &layers,
            layer_version,
            validation,
            &messages,
        )?;
        let messenger = instance::create_messenger(&entry, &instance, validation, &messages)?;
        let surface_fn = ash::khr::surface::Instance::new(&entry, &instance);
        let surface = instance::create_surface(&entry, &instance, source)?;
        let mut ctx_partial = InstanceParts {
            entry,
            instance,
            messenger,
            surface_fn,
            surface,
        };
        match Self::make_device(
            &ctx_partial.entry,
            &ctx_partial.instance,
            &ctx_partial.surface_fn,
            ctx_partial.surface,
            &instance_support,
        ) {
            Ok(parts) => Ok(Self::assemble(ctx_partial, parts, messages, debug_utils)),
            Err(e) => {
                // SAFETY: nothing else was created from them.
                unsafe {
                    ctx_partial
                        .surface_fn
                        .destroy_surface(ctx_partial.surface, None);
                    if let Some((du, m)) = ctx_partial.messenger.take() {
                        du.destroy_debug_utils_messenger(m, None);
                    }
                    ctx_partial.instance.destroy_instance(None);
                }
                Err(e)
            }
        }
    }

    /// The context from its instance and device parts; tells `messages` whether present_wait2
    /// is on (the messenger filters by it).
    fn assemble(
        instance_parts: InstanceParts,
        device_parts: DeviceParts,
        messages: Arc<MessageLog>,
        debug_utils: bool,
    ) -> Self {
        let InstanceParts {
            entry,
            instance,
            messenger,
            surface_fn,
            surface,
        } = instance_parts;
        let DeviceParts {
            physical,
            device,
            queue,
            queue_family,
            device_name,
            support,
        } = device_parts;
        messages
            .present_wait2
            .store(support.present_wait2, Ordering::SeqCst);
        Self {
            entry,
            instance,
            messenger,
            messages,
            surface_fn,
            surface,
            physical,
            device,
            queue,
            queue_family,
            debug_utils,
            maintenance1: support.maintenance1.is_some(),
            maintenance1_names: support.maintenance1,
            gpu_timing: support.gpu_timestamps,
            present_wait: support.present_wait,
            present_wait2: support.present_wait2,
            present_timing: support.present_timing.is_some(),
            support,
            device_name,
        }
    }

    /// The first physical device with Vulkan 1.3 and a queue family that draws (graphics) and
    /// presents to `surface`: the device, the family and the device's name.
    fn choose_physical_device(
        instance: &ash::Instance,
        surface_fn: &ash::khr::surface::Instance,
        surface: vk::SurfaceKHR,
    ) -> Result<(vk::PhysicalDevice, u32, String)> {
        // SAFETY: valid instance.
        let physicals = unsafe { instance.enumerate_physical_devices() }?;
        let mut chosen = None;
        for pd in physicals {
            // SAFETY: `pd` comes from this instance.
            let props = unsafe { instance.get_physical_device_properties(pd) };
            if props.api_version < vk::API_VERSION_1_3 {
                continue;
            }
            // SAFETY: as above.
            let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
            for (i, f) in families.iter().enumerate() {
                let i = u32::try_from(i)?;
                // SAFETY: valid handles.
                let present =
                    unsafe { surface_fn.get_physical_device_surface_support(pd, i, surface) }?;
                if f.queue_flags.contains(vk::QueueFlags::GRAPHICS) && present {
                    let name = props
                        .device_name_as_c_str()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    chosen = Some((pd, i, name));
                    break;
                }
            }
            if chosen.is_some() {
                break;
            }
        }
        chosen.ok_or_else(|| {
            anyhow!("no Vulkan 1.3 device with a graphics queue that can present here")
        })
    }

    /// The device with vkpace's extensions and features, on the chosen physical device, and
    /// its queue.
    fn make_device(
        entry: &ash::Entry,
        instance: &ash::Instance,
        surface_fn: &ash::khr::surface::Instance,
        surface: vk::SurfaceKHR,
        instance_support: &vkpace::InstanceSupport,
    ) -> Result<DeviceParts> {
        let (physical, family, name) = Self::choose_physical_device(instance, surface_fn, surface)?;
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        // SAFETY: `physical` comes from this 1.3 instance, `family` is one of its families, and
        // the instance enabled `instance_support.extensions()`.
        let support =
            unsafe { vkpace::Support::query(entry, instance, physical, family, instance_support) }?;
        let mut extensions = vec![ash::khr::swapchain::NAME.as_ptr()];
        extensions.extend(support.device_extensions().iter().map(|e| e.as_ptr()));
        let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
            .dynamic_rendering(true)
            .synchronization2(true);
        // Host timelines (vkpace::HostTimeline) need timeline semaphores, core in 1.2.
        let mut v12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
        let mut features = support.features();
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&extensions)
            .push_next(&mut v13)
            .push_next(&mut v12);
        let info = features.chain(info);
        // SAFETY: `physical` supports Vulkan 1.3 (dynamic rendering, synchronization2 and
        // timeline semaphores are required features of 1.3) and VK_KHR_swapchain (it can
        // present).
        let device =
            unsafe { instance.create_device(physical, &info, None) }.context("vkCreateDevice")?;
        // SAFETY: queue 0 of the family was requested above.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Ok(DeviceParts {
            physical,
            device,
            queue,
            queue_family: family,
            device_name: name,
            support,
        })
    }

    /// The present modes the surface offers.
    pub fn present_modes(&self) -> Result<Vec<vk::PresentModeKHR>> {
        // SAFETY: the physical device and surface belong to this context's instance.
        Ok(unsafe {
            self.surface_fn
                .get_physical_device_surface_present_modes(self.physical, self.surface)
        }?)
    }

    /// A vkpace swapchain on this context's surface, with debug names and the optional
    /// extensions set from what the context enabled. Drop (or destroy) it before
    /// [`VulkanContext::destroy`].
    pub fn swapchain(&self, config: vkpace::SwapchainConfig) -> Result<vkpace::Swapchain> {
        self.swapchain_with(config, |_| {})
    }

    /// As [`Self::swapchain`], with `adjust` applied last; it may only turn options off (the
    /// context enabled what the options it sets need, and nothing more).
    pub fn swapchain_with(
        &self,
        config: vkpace::SwapchainConfig,
        adjust: impl FnOnce(&mut vkpace::SwapchainConfig),
    ) -> Result<vkpace::Swapchain> {
        let mut config = config;
        config.debug_utils = self.debug_utils;
        self.support.apply(&mut config);
        // Every context enables synchronization2 (a Vulkan 1.3 feature) and timeline semaphores.
        config.synchronization2 = true;
        if let Some(backend) = completion_override() {
            config.completion = backend;
        }
        let enabled = config.paths;
        adjust(&mut config);
        let paths = &mut config.paths;
        paths.present_timing &= enabled.present_timing;
        paths.present_wait2 &= enabled.present_wait2;
        paths.present_wait &= enabled.present_wait;
        // SAFETY: the options that need an extension are set exactly where the context
        // enabled it (just above).
        unsafe { self.swapchain_as_given(config) }
    }

    /// A vkpace swapchain with `config` exactly as given (tests use it to ask for an option the
    /// device lacks). Drop (or destroy) it before [`VulkanContext::destroy`].
    ///
    /// # Safety
    ///
    /// The options of `config` that need an extension are set only where this context enabled
    /// it, except those vkpace itself checks (documented on `vkpace::Swapchain::new`).
    pub unsafe fn swapchain_as_given(
        &self,
        config: vkpace::SwapchainConfig,
    ) -> Result<vkpace::Swapchain> {
        // SAFETY: the context's handles are valid, the queue is of `queue_family`, and callers
        // drop the swapchain before destroying the context (documented above); the options
        // are the caller's contract.
        let swapchain = unsafe {
            vkpace::Swapchain::new(vkpace::SwapchainCreateDesc {
                entry: &self.entry,
                instance: &self.instance,
                physical_device: self.physical,
                device: &self.device,
                queue: self.queue,
                queue_family: self.queue_family,
                surface: self.surface,
                config,
            })
        }
        .context("creating the vkpace swapchain")?;
        Ok(swapchain)
    }

    /// Destroys device, surface, messenger and instance (in that order). Everything made from
    /// the device must be gone; the validation layer reports what is not.
    /// The demo renderer on this context's device, drawing into `format`, with a slot for
    /// every frame vkpace may have in flight.
    pub fn renderer(&self, format: vk::Format) -> Result<super::renderer::Renderer> {
        super::renderer::Renderer::new(
            &self.instance,
            self.physical,
            &self.device,
            self.queue_family,
            format,
            vkpace::MAX_FRAMES_IN_FLIGHT,
        )
    }

    pub fn destroy(mut self) {
        // SAFETY: the caller destroyed every child object; destruction order is reverse creation.
        unsafe {
            self.device.destroy_device(None);
            self.surface_fn.destroy_surface(self.surface, None);
            if let Some((du, m)) = self.messenger.take() {
                du.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// `VKPACE_COMPLETION=fences|timeline` sets the completion backend of every swapchain a
/// context makes: `scripts/test` runs the Vulkan integration tests once per backend this way.
/// Any other value is ignored with a warning.
pub fn completion_override() -> Option<vkpace::CompletionBackend> {
    let value = std::env::var("VKPACE_COMPLETION").ok()?;
    match value.as_str() {
        "fences" => Some(vkpace::CompletionBackend::Fences),
        "timeline" => Some(vkpace::CompletionBackend::TimelineSemaphore),
        other => {
            eprintln!("VKPACE_COMPLETION={other:?} ignored: fences or timeline");
            None
        }
    }
}
