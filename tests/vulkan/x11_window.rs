//! In a real X11 window (Xvfb when there is no display), through the demo binary with
//! validation on, on both the maintenance1 and the proof-based path: the present-mode x
//! frames-in-flight matrix, a resize every frame, and present-mode switching. Lavapipe's
//! headless surface always hands back image 0; a window rotates images, so only here are the
//! per-image present histories exercised: each run must acquire more than one image index.
//! Both completion backends run in the window: the matrix's 2-in-flight cases with fences, the
//! others with the demo's default, the timeline (so this module is in `scripts/test`'s first
//! pass only: a second pass with `VKPACE_COMPLETION=timeline` would repeat it case for case).

use crate::demo_process;
use crate::run_length;

use anyhow::{ensure, Result};
use demo_process::x11::window_turn;
use demo_process::{
    distinct_images, json_number, quantile, read_resize_log, run_checked, Display, Run, PATHS,
};

/// Frames of each matrix case: 300 with `VKPACE_FULL` (`scripts/test --full`), else 100.
fn case_frames() -> u64 {
    run_length::frames(100, 300)
}

/// Frames of the present-mode switching run: 2000 with `VKPACE_FULL`, else 400 (a repeat of
/// the same switch for confidence, not coverage).
fn switching_frames() -> u64 {
    run_length::frames(400, 2000)
}

/// The completion backend of a matrix case: fences for 2 frames in flight, else the timeline.
/// A `VKPACE_COMPLETION` set by the caller would win over the flag; the suite's first pass
/// leaves it unset.
fn completion_for(frames_in_flight: &str) -> &'static str {
    if frames_in_flight == "2" {
        "fences"
    } else {
        "timeline"
    }
}

fn run(display: &Display, path: &str, extra: &[&str], args: &[&str]) -> Result<Run> {
    run_checked(Some(display), path, extra, args)
}

/// Runs `case` on each path (maintenance1, then legacy) on one display, in the test's turn
/// with the display.
fn on_each_path(case: impl Fn(&Display, &str, &[&str]) -> Result<()>) -> Result<()> {
    let _turn = window_turn();
    let display = Display::get()?;
    for (path, extra) in PATHS {
        case(&display, path, extra)?;
    }
    Ok(())
}

/// The present-mode x frames-in-flight matrix on one path (`PATHS[path]`), in the test's turn
/// with the display.
fn matrix(path: usize) -> Result<()> {
    let _turn = window_turn();
    let display = Display::get()?;
    let case_frames = case_frames().to_string();
    let (path, extra) = PATHS[path];
    for mode in ["fifo", "mailbox", "immediate", "fifo-relaxed"] {
        for n in ["1", "2", "3"] {
            matrix_case(&display, path, extra, mode, n, &case_frames)?;
        }
    }
    Ok(())
}

#[test]
fn matrix_maintenance1() -> Result<()> {
    matrix(0)
}

#[test]
fn matrix_legacy() -> Result<()> {
    matrix(1)
}

#[test]
fn resize_every_frame() -> Result<()> {
    on_each_path(resize_every_frame_on)
}

#[test]
fn switch_present_modes() -> Result<()> {
    on_each_path(switch_present_modes_on)
}

/// One matrix case: `mode` with `n` frames in flight for `case_frames` frames, every frame
/// presented in the mode asked for, on the case's completion backend, more than one image
/// index acquired.
fn matrix_case(
    display: &Display,
    path: &str,
    extra: &[&str],
    mode: &str,
    n: &str,
    case_frames: &str,
) -> Result<()> {
    let completion = completion_for(n);
    let args = [
        "--frames",
        case_frames,
        "--present-mode",
        mode,
        "--frames-in-flight",
        n,
        "--completion",
        completion,
    ];
    let r = run(display, path, extra, &args)?;
    ensure!(
        json_number(&r.report, "frames")? == case_frames.parse::<f64>()?,
        "{}",
        r.summary
    );
    let want = format!("\"completion\": \"{completion}\"");
    ensure!(r.report.contains(&want), "{want} not in {}", r.report);
    // X11 under Mesa offers all four modes: the window must run the one asked for.
    let want = format!("\"present_mode\": \"{mode}\"");
    ensure!(
        r.report.contains(&want),
        "{path} {mode} x {n}: {}",
        r.summary
    );
    let images = distinct_images(&r.summary)?;
    ensure!(
        images > 1,
        "{path} {mode} x {n}: one image index only: {}",
        r.summary
    );
    println!("test x11 {path} {mode} x {n} {completion} ... ok ({images} images rotated)");
    Ok(())
}

/// A resize every frame for 600 frames: most sizes presented, a swapchain for most, few old
/// swapchains pending, and the demo's framebuffer sets retired as it goes.
fn resize_every_frame_on(display: &Display, path: &str, extra: &[&str]) -> Result<()> {
    let log = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("x11-resizes-{path}.jsonl"));
    let log_arg = log.to_string_lossy().into_owned();
    let args = [
        "--frames",
        "600",
        "--resize-every",
        "1",
        "--resize-log",
        &log_arg,
    ];
    let r = run(display, path, extra, &args)?;
    check_sizes_presented(path, &log)?;
    ensure!(json_number(&r.report, "frames")? == 600.0, "{}", r.summary);
    let created = json_number(&r.report, "swapchains_created")?;
    ensure!(
        created >= 300.0,
        "{path}: only {created} swapchains: {}",
        r.summary
    );
    let pending = json_number(&r.report, "old_swapchains_max_pending")?;
    ensure!(pending <= 6.0, "{path}: {}", r.summary);
    if path == "maintenance1" {
        ensure!(pending <= 2.0, "maintenance1: {}", r.summary);
    }
    // The demo's framebuffers and per-slot depth images follow every new swapchain and the
    // old sets are destroyed while running (at most one per slot left besides the current).
    let (made, retired) = (
        json_number(&r.report, "made")?,
        json_number(&r.report, "retired")?,
    );
    ensure!(
        made >= 300.0 && made - retired <= 4.0,
        "{path}: {made} framebuffer sets made, {retired} retired"
    );
    println!("test x11 {path} resize every frame ... ok ({created} swapchains, {pending} max retired pending)");
    Ok(())
}

/// The resize log at `log`: at least half of the 600 sizes asked for were presented; prints
/// how long the first frame of a size took to be presented.
fn check_sizes_presented(path: &str, log: &std::path::Path) -> Result<()> {
    let to_presented: Vec<f64> = read_resize_log(log)?
        .iter()
        .filter_map(|r| r.ms_to_present())
        .collect();
    ensure!(
        to_presented.len() >= 300,
        "{path}: only {} of 600 asked-for sizes presented",
        to_presented.len()
    );
    println!(
        "x11 {path}: {} of 600 asked-for sizes presented; resize to first frame presented \
         p50 {:.1} ms, max {:.1} ms (Xvfb: no compositor record)",
        to_presented.len(),
        quantile(&to_presented, 0.5),
        quantile(&to_presented, 1.0)
    );
    Ok(())
}

/// Switching: the window surface reports all four modes compatible, so maintenance1
/// switches per present on one swapchain; the legacy path recreates for each switch.
fn switch_present_modes_on(display: &Display, path: &str, extra: &[&str]) -> Result<()> {
    let frames = switching_frames();
    let frames_arg = frames.to_string();
    let args = ["--frames", &frames_arg, "--switch-present-mode-every", "10"];
    let r = run(display, path, extra, &args)?;
    let switches = json_number(&r.report, "present_mode_switches")?;
    let created = json_number(&r.report, "swapchains_created")?;
    ensure!(
        switches >= (frames / 10 - 10) as f64,
        "{path}: {}",
        r.summary
    );
    if path == "maintenance1" {
        ensure!(
            created == 1.0,
            "maintenance1 recreated for compatible modes: {}",
            r.summary
        );
    } else {
        ensure!(created >= switches, "legacy: {}", r.summary);
    }
    println!("test x11 {path} switch present mode every 10 ... ok ({switches} switches, {created} swapchains)");
    Ok(())
}
