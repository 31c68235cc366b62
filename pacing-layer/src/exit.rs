//! The summary at the program's exit for a device it never destroyed. Many programs end
//! without `vkDestroyDevice` (games among them), and the summary line is what a user reads
//! after a run: an `atexit` handler writes it for every device still paced.
//!
//! glibc runs a handler registered by a shared object when that object is unloaded, too (its
//! `atexit` records the caller's object), so a layer library the loader unloads before the
//! process ends leaves no handler behind.

use std::ffi::c_int;
use std::sync::Once;

use crate::device::DEVICES;

extern "C" {
    /// The C library's `atexit`.
    fn atexit(handler: extern "C" fn()) -> c_int;
}

/// Registers the handler once per process (at the first paced device).
pub(crate) fn register() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: `at_exit` is a plain function with no arguments that never unwinds.
        if unsafe { atexit(at_exit) } != 0 {
            crate::log(format_args!(
                "atexit refused: no summary for a device alive at exit"
            ));
        }
    });
}

/// Writes the summary of every device still paced (no unwinding leaves it).
extern "C" fn at_exit() {
    crate::GUARD.catch("the summary at exit", || {
        for device in DEVICES.filter(|_| true) {
            device.pacing.summarize_at_exit();
        }
    });
}
