//! Ctrl-C (SIGINT) and SIGTERM end a run the way the last frame does: the loop stops between
//! frames, vkpace tears the swapchain down, the summary is printed and the report written.
//! A second signal while the first is handled changes nothing (the run is already ending).

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler for SIGINT and SIGTERM (also when the shell that started the demo made
/// it ignore SIGINT, as background jobs do).
pub fn install() -> anyhow::Result<()> {
    ctrlc::set_handler(|| REQUESTED.store(true, Ordering::SeqCst))
        .map_err(|e| anyhow::anyhow!("installing the Ctrl-C/SIGTERM handler: {e}"))
}

/// Whether a signal asked the run to end.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
