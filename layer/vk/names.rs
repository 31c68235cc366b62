//! Debug names (`VK_EXT_debug_utils`) for every object vkpace creates, so validation messages
//! and captures say "vkpace present semaphore #7" instead of a raw handle.
//!
//! A name is formatted into a buffer on the stack, never the heap: vkpace creates some objects
//! lazily (a present semaphore when an image's history first needs one more, which can be many
//! frames into a run when images rotate), and the frame loop must not allocate.

use std::ffi::CStr;
use std::fmt;

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

    /// Names `handle` (`format_args!` at the call: nothing is formatted without debug utils).
    /// Only called when objects are created.
    pub(crate) fn name<H: vk::Handle>(&self, handle: H, name: fmt::Arguments<'_>) {
        let Some(du) = &self.debug_utils else { return };
        let mut buffer = NameBuffer::default();
        // The buffer never fails a write: a long name is cut.
        let _ = fmt::write(&mut buffer, name);
        let info = vk::DebugUtilsObjectNameInfoEXT::default()
            .object_handle(handle)
            .object_name(buffer.as_c_str());
        // SAFETY: `handle` was created from this device and is alive; `info` and `buffer`
        // outlive the call. A naming failure is harmless, so its result is only logged.
        if let Err(e) = unsafe { du.set_debug_utils_object_name(&info) } {
            log::debug!("vkSetDebugUtilsObjectNameEXT failed: {e}");
        }
    }
}

/// Longest name kept, in bytes (vkpace's own names are far shorter).
const NAME_CAPACITY: usize = 95;

/// A NUL-terminated name on the stack: longer text is cut at a character boundary, and a NUL
/// inside the text ends it.
struct NameBuffer {
    bytes: [u8; NAME_CAPACITY + 1],
    len: usize,
    ended: bool,
}

impl Default for NameBuffer {
    fn default() -> Self {
        Self {
            bytes: [0; NAME_CAPACITY + 1],
            len: 0,
            ended: false,
        }
    }
}

impl NameBuffer {
    fn as_c_str(&self) -> &CStr {
        // The byte after the text is always a NUL (the array starts zeroed and the text never
        // reaches the last byte), so this finds one; the fallback is never taken.
        CStr::from_bytes_until_nul(&self.bytes).unwrap_or_default()
    }
}

impl fmt::Write for NameBuffer {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            let width = c.len_utf8();
            if self.ended || c == '\0' || self.len + width > NAME_CAPACITY {
                self.ended = true;
                return Ok(());
            }
            c.encode_utf8(&mut self.bytes[self.len..self.len + width]);
            self.len += width;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(args: fmt::Arguments<'_>) -> String {
        let mut b = NameBuffer::default();
        let _ = fmt::write(&mut b, args);
        b.as_c_str().to_string_lossy().into_owned()
    }

    #[test]
    fn a_name_is_formatted_whole() {
        let n = 7;
        assert_eq!(named(format_args!("vkpace fence #{n}")), "vkpace fence #7");
    }

    #[test]
    fn a_long_name_is_cut_at_a_character_boundary() {
        let long = "é".repeat(100);
        let got = named(format_args!("{long}"));
        assert_eq!(got, "é".repeat(NAME_CAPACITY / 2));
    }

    #[test]
    fn a_nul_ends_the_name() {
        assert_eq!(named(format_args!("a\0b{}", 1)), "a");
    }
}
