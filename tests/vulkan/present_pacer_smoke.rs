//! Smoke test of the second door ([`vkpace::PresentPacer`]) on lavapipe's headless surface,
//! with the Khronos validation layer failing the test on its first message: an application
//! that owns its swapchain creates it through the pacer, reuses its per-frame semaphores (two
//! frames, the textbook loop), recreates the swapchain every few frames and destroys the old
//! one right after, on the proof-based path and on the maintenance1 path
//! (`present_pacer_app`); and a pacer shared between threads behind a mutex, whose frame-limit
//! sleep leaves the mutex free.

use crate::present_pacer_app;

use std::time::Duration;

use anyhow::{ensure, Result};
use present_pacer_app::{reported_to_another_pacer, run, run_shared, FRAMES, RECREATE_EVERY};
use vkpace::{FrameLimit, PacingConfig, PresentPacerConfig, PresentPacerStats};
use vkpace_demo::owned_loop::create_pacer_with;

use crate::common::{SurfaceSource, VulkanContext};

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

/// Door 2 checks its pacing settings with door 1's one check (`PacingConfig`), before it makes
/// any Vulkan object, with the same typed errors (door 1's:
/// `headless::bad_configuration_is_a_typed_error`). Door 2 once took a zero wait bound, so
/// every wait it made timed out at once.
#[test]
fn bad_pacing_settings_are_the_same_typed_errors_as_door_1s() -> Result<()> {
    crate::common::set_runtime_dir();
    let ctx = VulkanContext::new(SurfaceSource::Headless, true, false)?;
    let with = |f: fn(&mut PacingConfig)| {
        let mut config = PresentPacerConfig::default();
        f(&mut config.pacing);
        config
    };
    // Whether the error is frames in flight's (true) or the wait bound's (false).
    let cases = [
        (with(|p| p.frames_in_flight = 0), true),
        (with(|p| p.frames_in_flight = 4), true),
        (with(|p| p.wait_timeout = Duration::ZERO), false),
    ];
    for (config, frames) in cases {
        match create_pacer_with(&ctx, config) {
            Ok(pacer) => {
                // SAFETY: nothing was made through it.
                unsafe { pacer.destroy() }?;
                anyhow::bail!("bad pacing settings accepted");
            }
            Err(e) => {
                let typed = match e.downcast_ref::<vkpace::Error>() {
                    Some(vkpace::Error::InvalidFramesInFlight { .. }) => Some(true),
                    Some(vkpace::Error::ZeroTimeout) => Some(false),
                    _ => None,
                };
                ensure!(typed == Some(frames), "{e:?}: not the expected error");
            }
        }
    }
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

/// A pacer shared behind a mutex (as the pacing layer keeps one per device), its calls made in
/// steps (`PacerCall`): at 4 fps each present ends with a frame-limit sleep of about 250 ms,
/// carried out with the mutex released, so a second thread that takes the mutex about every
/// millisecond gets it many times while the three present calls are in progress (about 700
/// on a quiet machine; judged: at least 30, which two busy threads leave). The control case,
/// the plain present called with the mutex held (the layer before), leaves it only the
/// instants between the flag that marks the call and the lock.
#[test]
fn a_shared_pacer_sleeps_with_its_lock_released() -> Result<()> {
    let shared = run_shared(FrameLimit::fps(4.0)?, 3, false)?;
    let stats = shared.stats;
    eprintln!(
        "shared: the other thread locked {} times, {} during presents; {stats:?}",
        shared.locks, shared.locks_during_presents
    );
    ensure!(
        stats.presents == 3 && stats.pauses_in_calls == 0,
        "{stats:?}"
    );
    ensure!(stats.pauses_between_calls >= 2, "{stats:?}");
    ensure!(
        shared.locks_during_presents >= 30,
        "the mutex was free {} times during the presents",
        shared.locks_during_presents
    );
    Ok(())
}

/// A call in steps whose report goes to another pacer of the same device: refused, so that
/// pacer records nothing (its `acquires` and calls down stay 0), the first one never heard of
/// the acquire either (its `acquires` 0: the report was its only way to learn), and the call
/// still finishes with the driver's image.
#[test]
fn a_call_reported_to_another_pacer_is_refused() -> Result<()> {
    let m = reported_to_another_pacer()?;
    ensure!(matches!(m.acquired, Ok((_, _))), "{:?}", m.acquired);
    ensure!(
        m.other.acquires == 0,
        "the other pacer recorded it: {:?}",
        m.other
    );
    ensure!(m.other.calls_down_between_calls == 0, "{:?}", m.other);
    ensure!(m.first.acquires == 0, "{:?}", m.first);
    Ok(())
}
