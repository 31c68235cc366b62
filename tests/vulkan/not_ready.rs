//! A window the presentation engine stops serving (hidden, occluded, a compositor that stopped
//! repainting) is not an error: over the virtual display layer, whose display is paused here
//! (`vdisplay_pause`: nothing shown, no image handed back), `Swapchain::acquire` returns
//! `Acquired::NotReady` within its wait bound, with nothing acquired or waiting, again on each
//! try while the display stays paused; once it resumes, frames go on. Both sync paths, on each
//! stack with the demo's default completion backend (VKPACE_COMPLETION picks the other),
//! validation with synchronization validation.

use crate::common;
use crate::vdisplay_support;

use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Result};
use ash::vk;
use common::Harness;
use vkpace::{Acquired, SwapchainConfig};
use vkpace_demo::virtual_display::set_paused;

/// vkpace's bound on every wait, the acquire's included: short, so the test is quick.
const BOUND: Duration = Duration::from_millis(300);
/// How much later than the bound an acquire may return on a busy machine.
const SLACK: Duration = Duration::from_millis(700);
/// How much earlier than the bound a not-ready acquire may return (clock granularity).
const EARLY: Duration = Duration::from_millis(20);

fn config(maintenance1: bool) -> SwapchainConfig {
    let mut c = SwapchainConfig::default();
    c.present_mode = vk::PresentModeKHR::FIFO;
    c.pacing.frames_in_flight = 2;
    c.paths.swapchain_maintenance1 = maintenance1.then_some(vkpace::Maintenance1Names::Ext);
    c.pacing.wait_timeout = BOUND;
    c
}

/// Renders frames until an acquire returns `NotReady` (the display is paused: the images still
/// free go first); returns how many rendered and how long the not-ready acquire took.
fn render_until_not_ready(h: &mut Harness) -> Result<(u32, Duration)> {
    for rendered in 0..16 {
        let started = Instant::now();
        match h.swapchain().acquire()? {
            Acquired::Frame(frame) => {
                h.render(frame, None, 0.0)?;
            }
            Acquired::NotReady => return Ok((rendered, started.elapsed())),
            other => bail!("{other:?} while paused"),
        }
    }
    bail!("16 frames acquired from a paused display")
}

fn run(maintenance1: bool) -> Result<String> {
    let mut h = Harness::headless(config(maintenance1))?;
    for _ in 0..30 {
        ensure!(h.frame()?, "zero extent");
    }
    ensure!(set_paused(0, true)? == 1, "one virtual display expected");
    let (rendered, first) = render_until_not_ready(&mut h)?;
    // Still paused: every try is not ready again, having waited the bound (not less: the
    // acquire really waited for an image) and returned (not much more: the thread is free).
    for _ in 0..3 {
        let started = Instant::now();
        let again = h.swapchain().acquire()?;
        let took = started.elapsed();
        ensure!(matches!(again, Acquired::NotReady), "{again:?}");
        ensure!(
            took >= BOUND - EARLY && took < BOUND + SLACK,
            "took {took:?}"
        );
    }
    // The first also waited for the gate (earlier frames' completion) before its acquire.
    ensure!(
        first >= BOUND - EARLY,
        "the not-ready acquire took {first:?}"
    );
    let skips = h.swapchain().stats().not_ready_skips;
    ensure!(skips == 4, "{skips} not-ready acquires counted, 4 made");
    ensure!(set_paused(0, false)? == 1, "resume");
    for i in 0..30 {
        ensure!(h.frame()?, "frame {i} after resuming: not rendered");
    }
    let stats = h.finish()?;
    Ok(format!(
        "{} frames, {rendered} rendered after the pause, not ready after {first:?} \
         (bound {BOUND:?}), {} not-ready acquires",
        stats.frames_presented, stats.not_ready_skips
    ))
}

#[test]
fn a_paused_display_makes_acquire_not_ready_and_frames_resume() -> Result<()> {
    for maintenance1 in [true, false] {
        let line = vdisplay_support::run(&[("extent", "320x240".to_string())], move || {
            run(maintenance1)
        })?;
        println!("not ready (maintenance1 {maintenance1}): {line}");
    }
    Ok(())
}
