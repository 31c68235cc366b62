//! Panics must not unwind into the loader (C frames): every entry point runs its body through
//! [`guard`], which turns a panic into a Vulkan error code.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ash::vk;

/// Runs `body`; a panic is logged to stderr and becomes `on_panic`.
pub fn guard<T>(name: &str, on_panic: T, body: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            eprintln!("vdisplay: panic in {name}: {what}");
            on_panic
        }
    }
}

/// [`guard`] for entry points returning `VkResult`: a panic becomes `VK_ERROR_UNKNOWN`.
pub fn guard_result(name: &str, body: impl FnOnce() -> vk::Result) -> vk::Result {
    guard(name, vk::Result::ERROR_UNKNOWN, body)
}
