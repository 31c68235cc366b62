//! The demo on the virtual display (`--virtual-display`, the vdisplay layer) as a user runs it,
//! with `--headless` and without, on both sync paths, GPU-bound with 3 frames in flight and a
//! display resize every eighth of the run, validation on: no message, display times through
//! present-wait2 (the virtual display's surfaces support it), images rotating, and every resize
//! a new swapchain.

use crate::demo_process;
use crate::run_length;

use anyhow::{ensure, Result};
use demo_process::{distinct_images, json_number, run_checked, PATHS};

#[test]
fn the_demo_runs_on_the_virtual_display() -> Result<()> {
    // 8 extents per run: 120 frames, a resize every 15 (240 and 30 with `VKPACE_FULL`).
    let frames = run_length::frames(120, 240);
    let (frames_arg, every_arg) = (frames.to_string(), (frames / 8).to_string());
    for (path, extra) in PATHS {
        for headless in [true, false] {
            let mut args = vec![
                "--virtual-display",
                "--frames",
                &frames_arg,
                "--frames-in-flight",
                "3",
                "--gpu-load",
                "0.5",
                "--resize-every",
                &every_arg,
            ];
            if headless {
                args.push("--headless");
            }
            let r = run_checked(None, path, extra, &args)?;
            let report = &r.report;
            ensure!(
                json_number(report, "frames")? == frames as f64,
                "{}",
                r.summary
            );
            ensure!(
                report.contains("\"display_feedback\": \"present-wait2\""),
                "{path}: no display feedback: {}",
                r.summary
            );
            // A resize every eighth of the run: 7 new extents after the first swapchain.
            ensure!(
                json_number(report, "swapchains_created")? >= 8.0,
                "{path}: {}",
                r.summary
            );
            ensure!(distinct_images(&r.summary)? > 1, "{path}: {}", r.summary);
            println!("{path} (headless {headless}): {}", r.summary);
        }
    }
    Ok(())
}

/// Low latency on the virtual display's FIFO without present timing learns when frames were
/// shown by waiting for their presents (bounded, during its pacing sleeps, and before a frame
/// while it has no display time yet): validation-clean on both sync paths, and at least two
/// exact display times (the refresh is learnt from two). Polls alone give none.
#[test]
fn low_latency_watches_the_display_for_exact_times() -> Result<()> {
    let frames = run_length::frames(120, 240).to_string();
    for (path, extra) in PATHS {
        let args = [
            "--virtual-display",
            "--present-mode",
            "fifo",
            "--policy",
            "low-latency",
            "--no-present-timing",
            "--frames",
            &frames,
        ];
        let r = run_checked(None, path, extra, &args)?;
        let watched = json_number(&r.report, "display_times_watched")?;
        ensure!(
            r.report.contains("\"display_feedback\": \"present-wait2\""),
            "{path}: {}",
            r.summary
        );
        ensure!(
            watched >= 2.0,
            "{path}: {watched} display times watched: {}",
            r.report
        );
        println!("{path}: {watched} display times watched of {frames} frames");
    }
    Ok(())
}

/// A failing run prints vkpace's state dump after its error line: the virtual display reports the
/// surface lost after 40 presents (`VDISPLAY_FAULT_SURFACE_LOST_AFTER`), and the demo exits
/// with the error and the dump naming the stream and each image's present semaphores.
#[test]
fn a_failing_run_prints_the_state_dump() -> Result<()> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkpace-demo"))
        .args(["--virtual-display", "--headless", "--frames", "200"])
        .env("VDISPLAY_FAULT_SURFACE_LOST_AFTER", "40")
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(
        out.status.code() == Some(2),
        "exit {:?}\n{stderr}",
        out.status
    );
    let error_at = stderr.find("vkpace demo: error:").unwrap_or(usize::MAX);
    let dump_at = stderr.find("vkpace state: stream").unwrap_or(0);
    ensure!(
        error_at < dump_at,
        "the dump must follow the error line:\n{stderr}"
    );
    for expected in [
        "the surface was lost",
        "vkpace's state when the run failed:",
        "vkpace state: stream",
        "acquire semaphores:",
        "    image 0: ",
    ] {
        ensure!(
            stderr.contains(expected),
            "stderr lacks {expected:?}:\n{stderr}"
        );
    }
    println!("{stderr}");
    Ok(())
}

/// Door 1's frame limit without present timing, on a virtual display at 59.2 Hz with present
/// wait: the limiter's grid follows the display's clock (the display's interval for a cap of
/// 30, 2 refreshes, 33.78 ms: 1.35% longer than the cap's own 33.33 ms), learned from the
/// exact display times its pacing sleeps watched, and the report says so (the statistics both
/// doors count the same way: `anchored_period_ns`, `anchor_moves`). The display is small
/// (256x144) so that lavapipe's frames keep well inside the cap beside two spinning threads
/// (all but 2 of 240 display times watched there); the grid follows only what its sleeps
/// watched, so where the machine cannot keep the cap at all (frames slower than it: no sleep)
/// the run says so and is not judged.
///
/// The grid's period is the median of the display intervals the sleeps watched, and a watched
/// time is when the watching thread woke up: its wake-up on a loaded machine is the machine's,
/// not vkpace's. So the period is judged to follow the display's clock, within a quarter of the
/// 0.45 ms between the display's 2 refreshes and the cap's own interval (0.11 ms), not to the
/// microsecond: 33.773-33.802 ms quiet and beside two spinning threads (8 runs), 33.846 beside
/// the test suite's other lane (0.062 ms off, which a 0.05 ms bound failed).
#[test]
fn a_frame_limit_follows_the_displays_clock_without_present_timing() -> Result<()> {
    let frames = run_length::frames(120, 240).to_string();
    let args = [
        "--virtual-display",
        "--present-mode",
        "fifo",
        "--fps",
        "30",
        "--no-present-timing",
        "--frames",
        &frames,
    ];
    // A small display, so that lavapipe's frames stay well inside the cap on a loaded machine.
    let env = [
        ("VDISPLAY_REFRESH_HZ", std::ffi::OsStr::new("59.2")),
        ("VDISPLAY_EXTENT", std::ffi::OsStr::new("256x144")),
    ];
    let r = demo_process::run_demo_with_env(None, &args, &env)?;
    let period_ms = json_number(&r.report, "anchored_period_ns")? / 1e6;
    let two_refreshes = 2000.0 / 59.2;
    ensure!(
        json_number(&r.report, "validation_messages")? == 0.0,
        "{}",
        r.summary
    );
    let mean_ms = json_number(&r.report, "mean")?;
    if mean_ms > two_refreshes * 1.1 {
        println!("frames {mean_ms:.3} ms apart on average: the machine did not keep the cap (nothing to follow): {}", r.summary);
        return Ok(());
    }
    let watched = json_number(&r.report, "display_times_watched")?;
    ensure!(
        watched >= 8.0,
        "the grid learns the display's interval from 8 watched display times, {watched} watched: {}",
        r.report
    );
    let cap_ms = 1000.0 / 30.0;
    let bound = (two_refreshes - cap_ms) / 4.0;
    ensure!(
        (period_ms - two_refreshes).abs() < bound,
        "the grid should follow the display's {two_refreshes:.3} ms (within {bound:.3}), not {period_ms:.3} (the cap's own clock: {cap_ms:.3}): {}",
        r.report
    );
    println!(
        "the grid followed {period_ms:.3} ms, moved {} times; {watched} display times watched",
        json_number(&r.report, "anchor_moves")?,
    );
    Ok(())
}
