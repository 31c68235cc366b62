//! The second door's display feedback over the virtual display (vdisplay, which implements
//! `VK_KHR_present_id2` + `VK_KHR_present_wait2` and their first versions over lavapipe): an
//! application that owns its swapchain (`present_pacer_app`) gets present ids added to its
//! presents, its swapchains made with the create flags present_wait2 needs (each recreation
//! too), and frames learn their display times, with validation on.

mod common;
mod present_pacer_app;
mod vdisplay_support;

use anyhow::{ensure, Result};
use present_pacer_app::{run, FRAMES};

#[test]
fn present_ids_are_added_and_display_times_come_back() -> Result<()> {
    let outcome = vdisplay_support::run(&[], || run(false, None))?;
    let stats = outcome.stats;
    ensure!(stats.present_ids_added == u64::from(FRAMES), "{stats:?}");
    // The last swapchain's lineage (all of them): frames shown on the 60 Hz display report it
    // within a few frames; at least half of the 50 must have.
    ensure!(
        outcome.displayed >= FRAMES as usize / 2,
        "{} of {FRAMES} frames with a display time: {stats:?}",
        outcome.displayed
    );
    Ok(())
}
