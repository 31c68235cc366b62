//! Debug names (`VK_EXT_debug_utils`) for every object vkpace creates, so validation messages
//! and captures say "vkpace present semaphore (image 2, slot 1)" instead of a raw handle.

use std::ffi::CString;

use ash::vk;

/// Names objects when the instance has `VK_EXT_debug_utils`; does nothing otherwise.
pub(crate) struct Namer {
    debug_utils: Option<ash::ext::debug_utils::Device>,
}

impl Namer {
    pub(crate) fn new(instance: &ash::Instance, device: &ash::Device, enabled: bool) -> Self {
        Self {
            debug_utils: enabled.then(|| ash::ext::debug_utils::Device::new(instance, device)),
        }
    }

    /// Names `handle`. Only called when objects are created, never per frame.
    pub(crate) fn name<H: vk::Handle>(&self, handle: H, name: impl FnOnce() -> String) {
        let Some(du) = &self.debug_utils else { return };
        let Ok(name) = CString::new(name()) else {
            return;
        };
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(&name);
        // SAFETY: `handle` was created from this device and is alive; `info` and `name` outlive
        // the call. A naming failure is harmless, so its result is only logged.
        if let Err(e) = unsafe { du.set_debug_utils_object_name(&info) } {
            log::debug!("vkSetDebugUtilsObjectNameEXT failed: {e}");
        }
    }
}
