//! The instance side of the context: the extensions and layers asked for, the instance with
//! its validation features and messenger, and the surface.

use std::ffi::{c_char, c_void, CStr};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use anyhow::{bail, Context as _, Result};
use ash::vk;

use super::messages::on_message;
use super::{MessageLog, SurfaceSource, PRESENT_WAIT2_LAYER_VERSION, VALIDATION_LAYER};

/// The instance extensions to enable: the surface's for `source`, vkpace's (maintenance1's
/// only when asked for) and debug utils where offered or validating. Returns them with what
/// vkpace can use and whether debug utils is among them.
pub(super) fn instance_extensions(
    entry: &ash::Entry,
    source: &SurfaceSource<'_>,
    validation: bool,
    maintenance1: bool,
) -> Result<(Vec<*const c_char>, vkpace::InstanceSupport, bool)> {
    // SAFETY: plain enumeration.
    let available = unsafe { entry.enumerate_instance_extension_properties(None) }?;
    let has_ext = |name: &CStr| {
        available
            .iter()
            .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
    };
    let mut extensions: Vec<*const std::ffi::c_char> = vec![ash::khr::surface::NAME.as_ptr()];
    match source {
        SurfaceSource::Headless => {
            if !has_ext(ash::ext::headless_surface::NAME) {
                bail!("the Vulkan driver lacks VK_EXT_headless_surface (needs Mesa >= 23; run scripts/install-deps)");
            }
            extensions.push(ash::ext::headless_surface::NAME.as_ptr());
        }
        SurfaceSource::Window { display, .. } => {
            extensions.extend_from_slice(ash_window::enumerate_required_extensions(*display)?);
        }
    }
    // What vkpace can use, asked before the instance exists (maintenance1's instance
    // extensions only when asked for).
    let mut instance_support = vkpace::InstanceSupport::query(entry)?;
    if !maintenance1 {
        instance_support.maintenance1 = None;
    }
    extensions.extend(instance_support.extensions().iter().map(|e| e.as_ptr()));
    let debug_utils = has_ext(ash::ext::debug_utils::NAME) || validation;
    if debug_utils {
        extensions.push(ash::ext::debug_utils::NAME.as_ptr());
    }
    Ok((extensions, instance_support, debug_utils))
}

/// With `validation`, the Khronos validation layer and its version (its validation features
/// extension added to `extensions`); without, no layer and version 0.
pub(super) fn validation_layers(
    entry: &ash::Entry,
    validation: bool,
    extensions: &mut Vec<*const c_char>,
) -> Result<(Vec<*const c_char>, u32)> {
    let mut layers = vec![];
    let mut layer_version = 0;
    if validation {
        // SAFETY: plain enumeration.
        let found = unsafe { entry.enumerate_instance_layer_properties() }?
            .into_iter()
            .find(|l| l.layer_name_as_c_str().is_ok_and(|n| n == VALIDATION_LAYER));
        layer_version = found.map_or(0, |l| l.spec_version);
        if found.is_none() {
            bail!("--validation needs the Khronos validation layer (vulkan-validationlayers; run scripts/install-deps)");
        }
        layers.push(VALIDATION_LAYER.as_ptr());
        extensions.push(ash::ext::validation_features::NAME.as_ptr());
    }
    Ok((layers, layer_version))
}

/// The messenger's create info: warnings and errors of every type, to `on_message` with
/// `messages` as its user data.
fn messenger_create_info(
    messages: &Arc<MessageLog>,
) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
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
        .user_data(Arc::as_ptr(messages) as *mut c_void)
}

/// Creates the instance; with `validation`, synchronization validation on (handles unwrapped
/// for a layer older than present_wait2) and a messenger chained so instance creation and
/// destruction are covered too.
pub(super) fn create_instance(
    entry: &ash::Entry,
    extensions: &[*const c_char],
    layers: &[*const c_char],
    layer_version: u32,
    validation: bool,
    messages: &Arc<MessageLog>,
) -> Result<ash::Instance> {
    let app = vk::ApplicationInfo::default()
        .application_name(c"vkpace")
        .api_version(vk::API_VERSION_1_3);
    let enables = [vk::ValidationFeatureEnableEXT::SYNCHRONIZATION_VALIDATION];
    let mut features = vk::ValidationFeaturesEXT::default().enabled_validation_features(&enables);
    // A validation layer older than VK_KHR_present_id2/present_wait2 (1.4.317; bookworm's
    // is 1.3.239) must not wrap handles: it would pass its wrapped swapchain handle to
    // vkWaitForPresent2KHR, a command it does not know and so forwards unchanged, and its
    // copy of VkPresentInfoKHR for unwrapping drops VkPresentId2KHR, a structure it does
    // not know. Everything else it validates as before; it reports what it does not know
    // (filtered exactly: `is_unknown_to_old_layer`).
    let old_layer = validation && layer_version < PRESENT_WAIT2_LAYER_VERSION;
    let disables = [vk::ValidationFeatureDisableEXT::UNIQUE_HANDLES];
    if old_layer {
        features = features.disabled_validation_features(&disables);
    }
    messages.old_layer.store(old_layer, Ordering::SeqCst);
    let mut chained_messenger = messenger_create_info(messages);
    let mut info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_extension_names(extensions)
        .enabled_layer_names(layers);
    if validation {
        // Chained so instance creation and destruction are covered too.
        info = info
            .push_next(&mut features)
            .push_next(&mut chained_messenger);
    }
    // SAFETY: every pointer in `info` refers to locals or to `extensions` and `layers`, all
    // alive for the call.
    unsafe { entry.create_instance(&info, None) }.context("vkCreateInstance")
}

/// With `validation`, the messenger of the instance's lifetime (reporting to `messages`).
pub(super) fn create_messenger(
    entry: &ash::Entry,
    instance: &ash::Instance,
    validation: bool,
    messages: &Arc<MessageLog>,
) -> Result<Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>> {
    Ok(if validation {
        let du = ash::ext::debug_utils::Instance::new(entry, instance);
        // SAFETY: valid instance with VK_EXT_debug_utils enabled.
        // A fresh create info: the chained one now has a pNext (VUID-VkDebugUtilsMessengerCreateInfoEXT-pNext-pNext).
        let m = unsafe { du.create_debug_utils_messenger(&messenger_create_info(messages), None) }?;
        Some((du, m))
    } else {
        None
    })
}

/// The surface the context presents to: a headless one, or the window's.
pub(super) fn create_surface(
    entry: &ash::Entry,
    instance: &ash::Instance,
    source: SurfaceSource<'_>,
) -> Result<vk::SurfaceKHR> {
    Ok(match source {
        SurfaceSource::Headless => {
            let hs = ash::ext::headless_surface::Instance::new(entry, instance);
            // SAFETY: instance with VK_EXT_headless_surface enabled.
            unsafe {
                hs.create_headless_surface(&vk::HeadlessSurfaceCreateInfoEXT::default(), None)
            }?
        }
        SurfaceSource::Window {
            display, window, ..
        } => {
            // SAFETY: the handles come from a live window that outlives the surface (the
            // caller destroys the context before the window).
            unsafe { ash_window::create_surface(entry, instance, display, window, None) }?
        }
    })
}
