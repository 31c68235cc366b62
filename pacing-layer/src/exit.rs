//! The summary at the program's exit for a device it never destroyed. Many programs end
//! without `vkDestroyDevice` (games among them), and the summary line is what a user reads
//! after a run: an `atexit` handler writes it for every device still paced.
//!
//! glibc runs a handler registered by a shared object when that object is unloaded, too (its
//! `atexit` records the caller's object), so a layer library the loader unloads before the
//! process ends leaves no handler behind.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Once;

/// The process that registered the handler: a child made by `fork` inherits the handler, and
/// must not write its parent's summary (nor flush its parent's frame log a second time).
static REGISTERED_BY: AtomicU32 = AtomicU32::new(0);

/// Whether this process is the one that registered the handler.
pub(crate) fn in_registering_process() -> bool {
    REGISTERED_BY.load(Ordering::Relaxed) == std::process::id()
}

/// Registers `handler` to run at exit, once per process (the first call's handler; the layer
/// registers one). `handler` must not unwind.
pub(crate) fn register(handler: extern "C" fn()) {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        REGISTERED_BY.store(std::process::id(), Ordering::Relaxed);
        // SAFETY: `handler` is a plain function with no arguments that never unwinds.
        if unsafe { libc::atexit(handler) } != 0 {
            crate::log(format_args!(
                "atexit refused: no summary for a device alive at exit"
            ));
        }
    });
}
