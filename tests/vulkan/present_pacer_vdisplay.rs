//! The second door's display feedback over the virtual display (vdisplay, which implements
//! `VK_KHR_present_id2` + `VK_KHR_present_wait2` and their first versions over lavapipe): an
//! application that owns its swapchain (`present_pacer_app`) gets present ids added to its
//! presents, its swapchains made with the create flags present_wait2 needs (each recreation
//! too), and frames learn their display times, with validation on.

use crate::present_pacer_app;
use crate::vdisplay_support;

use anyhow::{ensure, Context as _, Result};
use ash::vk;
use present_pacer_app::{
    acquire_beside_a_blocked_one, calls_beside_a_blocked_present, run, run_frames, run_frames_in,
    FRAMES, PRESENT_BLOCKS_FOR,
};
use vkpace::FrameLimit;
use vkpace_demo::virtual_display::{self, GridRecord};

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

/// A presentation engine with less room for timing results than vkpace sized its queue for
/// (vdisplay's `fault_timing_queue_cap`) refuses presents whose timing vkpace added. The
/// application, which asked for no timing, is told success for them, in the present's result
/// and in its `pResults`, where the driver's `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT` came
/// through before: an error code of an extension it may not have enabled.
#[test]
fn a_refusal_vkpace_caused_is_not_in_the_applications_results() -> Result<()> {
    // One slot on a 20 Hz display, FIFO with 4 images: presents queue on the display, so two
    // results are soon outstanding and the engine must refuse one.
    let settings = [
        ("refresh_hz", "20".to_string()),
        ("min_images", "4".to_string()),
        ("fault_timing_queue_cap", "1".to_string()),
    ];
    let outcome = vdisplay_support::run(&settings, || run_frames(false, None, 40, 12))?;
    let stats = outcome.stats;
    ensure!(
        stats.swapchains_timed > 0 && stats.timing_queue_full > 0,
        "no present refused, the case shows nothing: {stats:?}"
    );
    ensure!(
        outcome.told.len() == 40,
        "{} results told",
        outcome.told.len()
    );
    let not_success: Vec<_> = outcome
        .told
        .iter()
        .filter(|r| **r != vk::Result::SUCCESS)
        .collect();
    ensure!(
        not_success.is_empty(),
        "the application was told {not_success:?} ({} refused by the engine): {stats:?}",
        stats.timing_queue_full
    );
    Ok(())
}

/// Frames of the frame-limit case (2.5 s at 60 fps).
const LIMIT_FRAMES: u32 = 150;
/// Frames left out of the judgement at the start (the grid is learnt from the first results).
const LIMIT_SETTLE: usize = 20;
/// The display's refresh, ns (60 Hz).
const REFRESH_NS: u64 = 1_000_000_000 / 60;

/// Frame limit 30 on a 60 Hz display with present timing, swapchains in `mode`: what
/// vdisplay's log (the neutral witness) shows after the settle, printed.
fn limit_30_in(mode: vk::PresentModeKHR, tag: &str) -> Result<GridRecord> {
    let log = vdisplay_support::artifacts_dir().join(format!("present_pacer_limit30{tag}.log"));
    std::fs::create_dir_all(log.parent().context("log directory")?)?;
    let _ = std::fs::remove_file(&log);
    let settings = [
        ("refresh_hz", "60".to_string()),
        ("log", log.display().to_string()),
    ];
    let outcome = vdisplay_support::run(&settings, move || {
        let limit = Some(FrameLimit::fps(30.0)?);
        run_frames_in(mode, false, limit, (LIMIT_FRAMES, u32::MAX))
    })?;
    let grid = GridRecord::of(
        &virtual_display::read_present_log(&log)?,
        LIMIT_SETTLE,
        REFRESH_NS,
    );
    println!(
        "{mode:?}: {} presents logged, {} with targets, {} shown; {} of {} intervals after the settle not 2 refreshes, mean {:.3} refreshes: {:?}",
        grid.presents,
        grid.targeted,
        grid.shown,
        grid.off(2),
        grid.refreshes.len(),
        mean_refreshes(&grid),
        outcome.stats
    );
    ensure!(
        grid.shown + 4 >= LIMIT_FRAMES as usize,
        "{} of {LIMIT_FRAMES} frames shown",
        grid.shown
    );
    Ok(grid)
}

/// The mean shown interval after the settle, in refreshes (0 without intervals).
fn mean_refreshes(grid: &GridRecord) -> f64 {
    let n = grid.refreshes.len().max(1) as f64;
    grid.refreshes.iter().sum::<u64>() as f64 / n
}

/// How far the mean shown interval at a 30 fps cap may be from 2 refreshes: 2.5% (the CPU
/// limiter's grid is absolute, so a late start is made up by the next; 2 of 130 intervals
/// one refresh off would be 1.5%).
const MEAN_BOUND: f64 = 0.05;

/// Frame limit 30 on a 60 Hz display with present timing: the pacer puts its presents on the
/// refresh grid with present-timing targets (vdisplay's log, the neutral witness, shows them),
/// and every shown interval after the settle is exactly 2 refreshes by the display's own clock.
#[test]
fn frame_limit_30_holds_two_refreshes_with_targets() -> Result<()> {
    let grid = limit_30_in(vk::PresentModeKHR::FIFO, "")?;
    ensure!(
        grid.targeted + LIMIT_SETTLE >= LIMIT_FRAMES as usize,
        "{} of {LIMIT_FRAMES} presents carried a target",
        grid.targeted
    );
    ensure!(
        (mean_refreshes(&grid) - 2.0).abs() <= MEAN_BOUND,
        "{grid:?}"
    );
    ensure!(
        grid.off(2) == 0,
        "intervals in refreshes: {:?}",
        grid.refreshes
    );
    Ok(())
}

/// The same on MAILBOX, which takes no targets (issue 50 item 7): no present carries one, and
/// the CPU limiter keeps the cap, the mean interval as close to 2 refreshes as FIFO's must be.
/// (Before the fix: about 39.5 fps, half the intervals one refresh.)
#[test]
fn frame_limit_30_on_mailbox_is_the_cpu_limiters() -> Result<()> {
    let grid = limit_30_in(vk::PresentModeKHR::MAILBOX, "_mailbox")?;
    ensure!(
        grid.targeted == 0,
        "{} presents carried a target",
        grid.targeted
    );
    ensure!(
        (mean_refreshes(&grid) - 2.0).abs() <= MEAN_BOUND,
        "mean {:.3} refreshes: {:?}",
        mean_refreshes(&grid),
        grid.refreshes
    );
    Ok(())
}

/// Two swapchains of one device through one pacer shared behind a mutex: an acquire that
/// waits for a free image (every image of its swapchain held; vdisplay's acquire blocks, here
/// until its 2 s timeout) must leave the mutex to another thread's acquire from the other
/// swapchain, which has images free.
#[test]
fn a_waiting_acquire_leaves_a_shared_pacer_to_the_other_swapchain() -> Result<()> {
    let settings = [("refresh_hz", "60".to_string())];
    let b = vdisplay_support::run(&settings, acquire_beside_a_blocked_one)?;
    eprintln!(
        "the waiting acquire got {:?} after {:?}; the other swapchain's {:?} after {:?}",
        b.blocked.0, b.blocked.1, b.other.0, b.other.1
    );
    ensure!(
        b.blocked.0 == ash::vk::Result::TIMEOUT,
        "the waiting acquire got {:?}",
        b.blocked.0
    );
    ensure!(
        b.other.0 == ash::vk::Result::SUCCESS && b.other.1 < std::time::Duration::from_secs(1),
        "the other swapchain's acquire got {:?} after {:?}",
        b.other.0,
        b.other.1
    );
    Ok(())
}

/// The other swapchains' calls beside a present that blocks in the driver (lavapipe's WSI,
/// and vdisplay's present over it, wait inside `vkQueuePresentKHR` for the frame, here fills
/// of 64 MiB for about 1.5 s of this machine's time, measured just before): a swapchain
/// created and destroyed and an acquire of another swapchain, on another thread 100 ms into
/// the present, through the same pacer behind a mutex, must never
/// wait 100 ms for the mutex (each run of the pacer takes well under 1 ms; a mutex held
/// through the present would make the first wait the rest of it, at least 200 ms). The calls'
/// own durations are printed, not judged: the driver's acquire may wait for the queue. The
/// present must have blocked at least 300 ms (else the case shows nothing); the pacer counts
/// every call down of the race with its lock released.
#[test]
fn calls_beside_a_blocked_present_do_not_wait_for_it() -> Result<()> {
    let b = calls_beside_a_blocked_present()?;
    eprintln!(
        "present {:?} after {:?}; beside it: create {:?}, destroy {:?}, acquire {:?} after {:?}, the longest wait for the mutex {:?}; calls down: {} with the lock released, {} with it held",
        b.present.0, b.present.1, b.create, b.destroy, b.acquire.0, b.acquire.1, b.lock_wait,
        b.calls_down.0, b.calls_down.1
    );
    ensure!(
        b.present.0 == ash::vk::Result::SUCCESS && b.present.1 >= PRESENT_BLOCKS_FOR,
        "the present did not block (got {:?} after {:?}): the case shows nothing",
        b.present.0,
        b.present.1
    );
    ensure!(
        b.lock_wait < std::time::Duration::from_millis(100),
        "a call beside the present waited {:?} for the mutex",
        b.lock_wait
    );
    ensure!(
        b.acquire.0 == ash::vk::Result::SUCCESS,
        "the other acquire got {:?}",
        b.acquire.0
    );
    ensure!(
        b.calls_down.1 == 0 && b.calls_down.0 >= 5,
        "calls down: {} with the mutex released, {} with it held",
        b.calls_down.0,
        b.calls_down.1
    );
    Ok(())
}
