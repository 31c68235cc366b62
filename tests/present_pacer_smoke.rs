//! Smoke test of the second door ([`vkpace::PresentPacer`]) on lavapipe's headless surface,
//! with the Khronos validation layer failing the test on its first message: an application
//! that owns its swapchain creates it through the pacer, reuses its per-frame semaphores (two
//! frames, the textbook loop), recreates the swapchain every few frames and destroys the old
//! one right after, on the proof-based path and on the maintenance1 path
//! (`present_pacer_app`).

mod common;
mod present_pacer_app;

use std::time::Duration;

use anyhow::{ensure, Result};
use present_pacer_app::{run, FRAMES, RECREATE_EVERY};
use vkpace::{FrameLimit, PresentPacerStats};

fn check(stats: &PresentPacerStats) -> Result<()> {
    let recreations = u64::from((FRAMES - 1) / RECREATE_EVERY);
    ensure!(stats.presents == u64::from(FRAMES), "{stats:?}");
    ensure!(
        stats.repair_submits == u64::from(FRAMES),
        "one repair per present: {stats:?}"
    );
    ensure!(stats.swapchains_created == recreations + 1, "{stats:?}");
    ensure!(
        stats.swapchains_destroyed == recreations + 1,
        "every one destroyed: {stats:?}"
    );
    ensure!(stats.unpaced_calls == 0, "{stats:?}");
    // 2 frames in flight: each image's history is at most 3 deep, and the pool holds at most
    // 6 spare; lavapipe's headless surface hands out 2-3 images.
    ensure!(
        stats.semaphores_created <= 3 * 3 + 6,
        "repair semaphores grow: {stats:?}"
    );
    Ok(())
}

#[test]
fn fifty_frames_on_the_proof_path() -> Result<()> {
    check(&run(false, None)?.stats)
}

/// The frame limit's sleep at the end of each present, across recreations: 200 fps puts the
/// frames' starts at least 5 ms apart on its grid, so the 49 presents after the first take at
/// least 48 intervals less one (the first frame's own). A lower bound: it holds on a busy
/// machine too.
#[test]
fn a_frame_limit_spaces_the_frames() -> Result<()> {
    let outcome = run(false, Some(FrameLimit::fps(200.0)?))?;
    let (stats, elapsed) = (outcome.stats, outcome.elapsed);
    check(&stats)?;
    let floor = Duration::from_millis(5 * u64::from(FRAMES - 3));
    ensure!(
        elapsed >= floor,
        "{elapsed:?} for {FRAMES} frames at 200 fps: {stats:?}"
    );
    ensure!(stats.pacing_sleeps > 0, "{stats:?}");
    Ok(())
}

#[test]
fn fifty_frames_on_the_maintenance1_path() -> Result<()> {
    let stats = run(true, None)?.stats;
    check(&stats)?;
    ensure!(stats.present_fences_added == u64::from(FRAMES), "{stats:?}");
    Ok(())
}
