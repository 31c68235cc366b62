//! A Vulkan instance + device + virtual surface over the layer, with a debug-utils messenger
//! that records every validation message.

use std::ffi::{c_void, CStr, CString};
use std::sync::{Arc, Mutex};

use ash::vk;

/// One message of the validation layer.
#[derive(Clone, Debug)]
pub struct Msg {
    /// Severity.
    pub severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    /// The message id name (a VUID or a sync hazard name).
    pub id: String,
    /// The text.
    pub text: String,
}

/// Messages that are not about the application's use of Vulkan: the loader's notice that
/// VK_INSTANCE_LAYERS is set, and validation 1.3.239 not knowing VkLayerSettingsCreateInfoEXT
/// (sType 1000496000, added in 1.3.272), which the tests use to configure vdisplay per instance.
pub fn benign(m: &Msg) -> bool {
    (m.id == "Loader Message" && m.text.contains("VK_INSTANCE_LAYERS"))
        || (m.id == "VUID-VkInstanceCreateInfo-pNext-pNext" && m.text.contains("(1000496000)"))
}

/// Validation 1.3.239's messages about extensions and structures newer than itself: "Extension
/// <name> is not supported by this layer" (VUID_Undefined) for each name in `exts`, and "unknown
/// VkStructureType (<value>)" (`...-pNext-pNext`) for each sType value in `stypes`. Exactly
/// these; every other message stays fatal.
pub fn too_new_for_validation(m: &Msg, exts: &[&str], stypes: &[i32]) -> bool {
    let ext = m.id == "VUID_Undefined"
        && exts.iter().any(|e| {
            m.text
                .contains(&format!("Extension {e} is not supported by this layer"))
        });
    let st = m.id.ends_with("-pNext-pNext")
        && stypes
            .iter()
            .any(|v| m.text.contains(&format!("unknown VkStructureType ({v})")));
    ext || st
}

/// Message ids whose call the validation layer is asked to skip (the callback returns VK_TRUE).
pub static SKIP: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// What to enable.
#[derive(Clone)]
pub struct Options {
    /// vdisplay settings (VkLayerSettingsCreateInfoEXT, string values).
    pub settings: Vec<(&'static str, String)>,
    /// Extra device extensions besides VK_KHR_swapchain.
    pub device_exts: Vec<&'static CStr>,
    /// Synchronization validation on.
    pub sync_validation: bool,
    /// Also enable VK_EXT_swapchain_colorspace.
    pub colorspace: bool,
    /// Extra instance extensions.
    pub instance_exts: Vec<&'static CStr>,
    /// Validation's handle wrapping (off for commands validation 1.3.239 does not know: it
    /// would pass them its wrapped handles).
    pub unique_handles: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            settings: Vec::new(),
            device_exts: vec![
                vk::KHR_PRESENT_ID_NAME,
                vk::KHR_PRESENT_WAIT_NAME,
                vk::EXT_SWAPCHAIN_MAINTENANCE1_NAME,
            ],
            sync_validation: true,
            colorspace: false,
            instance_exts: Vec::new(),
            unique_handles: true,
        }
    }
}

/// The context.
pub struct Vk {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub messages: Arc<Mutex<Vec<Msg>>>,
    messenger: vk::DebugUtilsMessengerEXT,
    debug_utils: ash::ext::debug_utils::Instance,
    pub surface_fn: ash::khr::surface::Instance,
    pub surface2_fn: ash::khr::get_surface_capabilities2::Instance,
    pub surface: vk::SurfaceKHR,
    pub pd: vk::PhysicalDevice,
    pub device: ash::Device,
    pub family: u32,
    pub queue: vk::Queue,
    pub swapchain_fn: ash::khr::swapchain::Device,
    pub present_wait_fn: ash::khr::present_wait::Device,
    pub maint1_fn: ash::ext::swapchain_maintenance1::Device,
    pub mem_props: vk::PhysicalDeviceMemoryProperties,
}

unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _ty: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let data = unsafe { &*data };
    let id = if data.p_message_id_name.is_null() {
        String::new()
    } else {
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { CStr::from_ptr(data.p_message_id_name) }
            .to_string_lossy()
            .into_owned()
    };
    let text = if data.p_message.is_null() {
        String::new()
    } else {
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { CStr::from_ptr(data.p_message) }
            .to_string_lossy()
            .into_owned()
    };
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let sink = unsafe { &*(user as *const Mutex<Vec<Msg>>) };
    // Returning VK_TRUE makes the validation layer skip the call: used for the deliberately
    // wrong destruction, which would otherwise free memory lavapipe is still reading.
    let skip = SKIP.lock().unwrap().iter().any(|s| id.contains(s.as_str()));
    sink.lock().unwrap().push(Msg { severity, id, text });
    if skip {
        vk::TRUE
    } else {
        vk::FALSE
    }
}

fn messenger_info(user: *mut c_void) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
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
        .user_data(user)
}

impl Vk {
    /// Creates everything; panics with a message if something fails.
    pub fn new(opts: &Options) -> Self {
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let entry = unsafe { ash::Entry::load() }.expect("libvulkan");
        let messages: Arc<Mutex<Vec<Msg>>> = Arc::default();
        let user = Arc::as_ptr(&messages) as *mut c_void; // lives as long as `messages` (in Vk)
        let instance = create_instance(&entry, opts, user);
        let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
        let messenger =
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            unsafe { debug_utils.create_debug_utils_messenger(&messenger_info(user), None) }
                .unwrap();
        let headless = ash::ext::headless_surface::Instance::new(&entry, &instance);
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let surface = unsafe {
            headless.create_headless_surface(&vk::HeadlessSurfaceCreateInfoEXT::default(), None)
        }
        .unwrap();
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
        let (device, family) = create_device(&instance, pd, opts);
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let queue = unsafe { device.get_device_queue(family, 0) };
        Self {
            surface_fn: ash::khr::surface::Instance::new(&entry, &instance),
            surface2_fn: ash::khr::get_surface_capabilities2::Instance::new(&entry, &instance),
            swapchain_fn: ash::khr::swapchain::Device::new(&instance, &device),
            present_wait_fn: ash::khr::present_wait::Device::new(&instance, &device),
            maint1_fn: ash::ext::swapchain_maintenance1::Device::new(&instance, &device),
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            mem_props: unsafe { instance.get_physical_device_memory_properties(pd) },
            entry,
            instance,
            messages,
            messenger,
            debug_utils,
            surface,
            pd,
            device,
            family,
            queue,
        }
    }

    /// The messages so far, without those whose id is in `allowed`.
    pub fn messages_except(&self, allowed: &[&str]) -> Vec<Msg> {
        self.messages
            .lock()
            .unwrap()
            .iter()
            .filter(|m| !allowed.iter().any(|a| m.id.contains(a)))
            .cloned()
            .collect()
    }

    /// Every message so far, except the [`benign`] ones.
    pub fn all_messages(&self) -> Vec<Msg> {
        self.messages
            .lock()
            .unwrap()
            .iter()
            .filter(|m| !benign(m))
            .cloned()
            .collect()
    }

    /// A memory type index.
    pub fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> u32 {
        (0..self.mem_props.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.mem_props.memory_types[i as usize]
                        .property_flags
                        .contains(flags)
            })
            .expect("memory type")
    }

    /// The surface's capabilities.
    pub fn caps(&self) -> vk::SurfaceCapabilitiesKHR {
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            self.surface_fn
                .get_physical_device_surface_capabilities(self.pd, self.surface)
        }
        .unwrap()
    }
}

impl Drop for Vk {
    fn drop(&mut self) {
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.surface_fn.destroy_surface(self.surface, None);
            self.debug_utils
                .destroy_debug_utils_messenger(self.messenger, None);
            self.instance.destroy_instance(None);
        }
    }
}

fn create_instance(entry: &ash::Entry, opts: &Options, user: *mut c_void) -> ash::Instance {
    let mut exts = vec![
        vk::KHR_SURFACE_NAME.as_ptr(),
        vk::EXT_HEADLESS_SURFACE_NAME.as_ptr(),
        vk::EXT_DEBUG_UTILS_NAME.as_ptr(),
        vk::KHR_GET_SURFACE_CAPABILITIES2_NAME.as_ptr(),
        vk::EXT_SURFACE_MAINTENANCE1_NAME.as_ptr(),
    ];
    if opts.colorspace {
        exts.push(vk::EXT_SWAPCHAIN_COLORSPACE_NAME.as_ptr());
    }
    exts.extend(opts.instance_exts.iter().map(|e| e.as_ptr()));
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
    let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let disables = [vk::ValidationFeatureDisableEXT::UNIQUE_HANDLES];
    let mut features = vk::ValidationFeaturesEXT::default()
        .enabled_validation_features(if opts.sync_validation { &enables } else { &[] })
        .disabled_validation_features(if opts.unique_handles { &[] } else { &disables });
    let mut dbg = messenger_info(user);
    let layer_name = CString::new(super::env::LAYER).unwrap();
    let names: Vec<CString> = opts
        .settings
        .iter()
        .map(|(k, _)| CString::new(*k).unwrap())
        .collect();
    let values: Vec<CString> = opts
        .settings
        .iter()
        .map(|(_, v)| CString::new(v.as_str()).unwrap())
        .collect();
    let value_ptrs: Vec<*const i8> = values.iter().map(|v| v.as_ptr()).collect();
    let settings: Vec<vk::LayerSettingEXT> = (0..names.len())
        .map(|i| vk::LayerSettingEXT {
            p_layer_name: layer_name.as_ptr(),
            p_setting_name: names[i].as_ptr(),
            ty: vk::LayerSettingTypeEXT::STRING,
            value_count: 1,
            p_values: (&value_ptrs[i] as *const *const i8).cast(),
            ..Default::default()
        })
        .collect();
    let mut layer_settings = vk::LayerSettingsCreateInfoEXT::default().settings(&settings);
    let mut ci = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_extension_names(&exts)
        .push_next(&mut features)
        .push_next(&mut dbg);
    if !settings.is_empty() {
        ci = ci.push_next(&mut layer_settings);
    }
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe { entry.create_instance(&ci, None) }.expect("vkCreateInstance")
}

fn create_device(
    instance: &ash::Instance,
    pd: vk::PhysicalDevice,
    opts: &Options,
) -> (ash::Device, u32) {
    let family = 0;
    let prio = [1.0];
    let qci = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&prio)];
    let mut exts = vec![vk::KHR_SWAPCHAIN_NAME.as_ptr()];
    exts.extend(opts.device_exts.iter().map(|e| e.as_ptr()));
    let has = |n: &CStr| opts.device_exts.contains(&n);
    let mut id = vk::PhysicalDevicePresentIdFeaturesKHR::default().present_id(true);
    let mut wait = vk::PhysicalDevicePresentWaitFeaturesKHR::default().present_wait(true);
    let mut m1 =
        vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT::default().swapchain_maintenance1(true);
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default()
        .synchronization2(true)
        .dynamic_rendering(true);
    let mut v12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
    let mut extra = super::ext_features::Extra::new(opts);
    let mut ci = vk::DeviceCreateInfo::default()
        .queue_create_infos(&qci)
        .enabled_extension_names(&exts)
        .push_next(&mut v13)
        .push_next(&mut v12);
    if has(vk::KHR_PRESENT_ID_NAME) {
        ci = ci.push_next(&mut id);
    }
    if has(vk::KHR_PRESENT_WAIT_NAME) {
        ci = ci.push_next(&mut wait);
    }
    if has(vk::EXT_SWAPCHAIN_MAINTENANCE1_NAME) {
        ci = ci.push_next(&mut m1);
    }
    ci = extra.chain(ci);
    (
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { instance.create_device(pd, &ci, None) }.expect("vkCreateDevice"),
        family,
    )
}
