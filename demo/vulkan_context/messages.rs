//! The validation canary's message filter: the log that counts validation messages, the
//! messenger's callback, and the exact messages it leaves uncounted (known layer bugs, what a
//! layer older than present_wait2 does not know). Separate from the context's setup: it is
//! what decides whether a run is clean, and it runs on every message, without allocating.

use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};

use ash::vk;

/// Counts validation messages (warnings and errors) and prints each one.
#[derive(Debug, Default)]
pub struct MessageLog {
    count: AtomicU64,
    /// The validation layer predates VK_KHR_present_id2/present_wait2 (see
    /// `is_unknown_to_old_layer`).
    pub(super) old_layer: std::sync::atomic::AtomicBool,
    /// The device enabled VK_KHR_present_id2/present_wait2 (vkpace may then create swapchains
    /// with their flags).
    pub(super) present_wait2: std::sync::atomic::AtomicBool,
    /// Messages left uncounted by `is_unknown_to_old_layer` (one per present on that path:
    /// only the first few are printed).
    unknown_to_old_layer: AtomicU64,
}

impl MessageLog {
    /// Messages so far.
    pub fn count(&self) -> u64 {
        self.count.load(Ordering::SeqCst)
    }

    /// Messages of a validation layer older than VK_KHR_present_id2/present_wait2 about what
    /// it does not know of them, left uncounted (see `is_unknown_to_old_layer`).
    pub fn unknown_to_old_layer(&self) -> u64 {
        self.unknown_to_old_layer.load(Ordering::SeqCst)
    }
}

pub(super) unsafe extern "system" fn on_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: `user` is the `MessageLog` the context keeps alive (in an `Arc`) until after the
    // instance and messenger are destroyed.
    let log = unsafe { &*(user as *const MessageLog) };
    // SAFETY: the layer passes a valid callback-data pointer whose strings live for the call.
    // Borrowed, not copied: an old layer reports an unknown structure on every present, and a
    // steady frame must not allocate (the demo counts allocations per frame).
    let (id, text) = unsafe {
        let string = |p: *const std::ffi::c_char| {
            if p.is_null() {
                std::borrow::Cow::Borrowed("")
            } else {
                CStr::from_ptr(p).to_string_lossy()
            }
        };
        data.as_ref()
            .map(|d| (string(d.p_message_id_name), string(d.p_message)))
            .unwrap_or_default()
    };
    if crate::virtual_display::is_loader_env_notice(&id, &text) {
        // The loader telling that VK_INSTANCE_LAYERS is set (the virtual display sets it).
        return vk::FALSE;
    }
    if is_known_layer_bug(&id, &text) {
        eprintln!("[validation layer bug, not counted] {text}");
        return vk::FALSE;
    }
    let present_wait2 = log.present_wait2.load(Ordering::SeqCst);
    if log.old_layer.load(Ordering::SeqCst) && is_unknown_to_old_layer(&id, &text, present_wait2) {
        if log.unknown_to_old_layer.fetch_add(1, Ordering::SeqCst) < 8 {
            eprintln!("[validation layer predates present_wait2, not counted] {text}");
        }
        return vk::FALSE;
    }
    log.count.fetch_add(1, Ordering::SeqCst);
    eprintln!("[validation {severity:?}] {text}");
    vk::FALSE
}

/// A message the validation layer itself calls its own bug, and exactly that one: older layers
/// (bookworm's 1.3.239) time out in their own tracking of a timeline semaphore a host thread
/// signals while another thread waits on it ("Timeout waiting for timeline semaphore state to
/// update. This is most likely a validation bug"; fixed in Vulkan-ValidationLayers pull request
/// 8519, 2024). Sid's layer does not report it; every other message still counts.
fn is_known_layer_bug(id: &str, text: &str) -> bool {
    id == "UNASSIGNED-VkSemaphore-state-timeout" && text.contains("most likely a validation bug")
}

/// A message of a validation layer older than VK_KHR_present_id2 / VK_KHR_present_wait2
/// (1.4.317; only such a layer's messages are asked about) about exactly what it does not know
/// of them, and nothing else: the two extension names ("not supported by this layer"), their
/// five structure types in a pNext chain ("unknown VkStructureType"), and, only on a device
/// that enabled them (`present_wait2`), the swapchain create flags it does not recognize
/// (VUID-VkSwapchainCreateInfoKHR-flags-parameter: its text names no bit, and vkpace sets
/// PRESENT_ID_2 | PRESENT_WAIT_2 there). Sid's layer (1.4.363) knows them and checks their
/// valid usage; every other message still counts.
fn is_unknown_to_old_layer(id: &str, text: &str, present_wait2: bool) -> bool {
    use vkpace_registry::structure_type as st;
    let names = [
        "VK_KHR_present_id2",
        "VK_KHR_present_wait2",
        "VK_EXT_present_timing",
        "VK_KHR_calibrated_timestamps",
    ];
    let extension = id == "VUID_Undefined"
        && names.iter().any(|n| {
            text.split("Device Extension ")
                .chain(text.split("Extension "))
                .skip(1)
                .any(|rest| {
                    rest.strip_prefix(n)
                        .is_some_and(|r| r.starts_with(" is not supported by this layer"))
                })
        });
    let stypes = [
        st::PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR,
        st::PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR,
        st::SURFACE_CAPABILITIES_PRESENT_ID_2_KHR,
        st::SURFACE_CAPABILITIES_PRESENT_WAIT_2_KHR,
        st::PRESENT_ID_2_KHR,
        st::PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT,
        st::PRESENT_TIMING_SURFACE_CAPABILITIES_EXT,
        st::PRESENT_TIMINGS_INFO_EXT,
    ];
    let structure = id.ends_with("-pNext-pNext")
        && unknown_structure_type(text).is_some_and(|t| stypes.iter().any(|s| s.as_raw() == t));
    let flags = present_wait2 && id == "VUID-VkSwapchainCreateInfoKHR-flags-parameter";
    extension || structure || flags
}

/// The number in a message's "unknown VkStructureType (N)", read without allocating.
fn unknown_structure_type(text: &str) -> Option<i32> {
    let (_, rest) = text.split_once("unknown VkStructureType (")?;
    let (number, _) = rest.split_once(')')?;
    number.parse().ok()
}
