//! Panics must not unwind into the loader (C frames): every entry point of a layer runs its
//! body through a [`Guard`], which turns a panic into a value the caller can take (a Vulkan
//! error code, a null pointer) and says so on stderr.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ash::vk;

/// A layer's panic guard; its name prefixes the message a caught panic prints.
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    layer: &'static str,
}

impl Guard {
    /// The guard of the layer called `layer` in messages (`vdisplay`).
    pub const fn new(layer: &'static str) -> Self {
        Self { layer }
    }

    /// The layer's name in messages.
    pub const fn layer(&self) -> &'static str {
        self.layer
    }

    /// Runs `body`; a panic is reported on stderr as a panic in `name` and becomes `on_panic`.
    pub fn run<T>(&self, name: &str, on_panic: T, body: impl FnOnce() -> T) -> T {
        self.catch(name, body).unwrap_or(on_panic)
    }

    /// [`run`](Self::run) for entry points returning `VkResult`: a panic becomes
    /// `VK_ERROR_UNKNOWN`.
    pub fn result(&self, name: &str, body: impl FnOnce() -> vk::Result) -> vk::Result {
        self.run(name, vk::Result::ERROR_UNKNOWN, body)
    }

    /// Runs `body`; a panic is reported on stderr and becomes `None` (for a caller that must
    /// remember it, e.g. to turn a device into a pass-through).
    pub fn catch<T>(&self, name: &str, body: impl FnOnce() -> T) -> Option<T> {
        match catch_unwind(AssertUnwindSafe(body)) {
            Ok(value) => Some(value),
            Err(payload) => {
                let what = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                eprintln!("{}: panic in {name}: {what}", self.layer);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GUARD: Guard = Guard::new("test-layer");

    #[test]
    fn a_panic_becomes_the_fallback_value() {
        assert_eq!(GUARD.run("ok", 0, || 7), 7);
        assert_eq!(GUARD.run("boom", 0, || -> i32 { panic!("boom") }), 0);
        assert_eq!(
            GUARD.result("boom", || panic!("boom")),
            vk::Result::ERROR_UNKNOWN
        );
        assert_eq!(GUARD.catch("boom", || -> u8 { panic!("{}", 1) }), None);
        assert_eq!(GUARD.catch("ok", || 3u8), Some(3));
    }
}
