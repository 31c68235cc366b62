//! The demo on the virtual display (`--virtual-display`, the vdisplay layer) as a user runs it,
//! with `--headless` and without, on both sync paths, GPU-bound with 3 frames in flight and a
//! display resize every 30 frames, validation on: no message, display times through
//! present-wait, images rotating, and every resize a new swapchain.

mod demo_process;

use anyhow::{ensure, Result};
use demo_process::{distinct_images, json_number, run_checked, PATHS};

#[test]
fn the_demo_runs_on_the_virtual_display() -> Result<()> {
    for (path, extra) in PATHS {
        for headless in [true, false] {
            let mut args = vec![
                "--virtual-display",
                "--frames",
                "240",
                "--frames-in-flight",
                "3",
                "--gpu-load",
                "0.5",
                "--resize-every",
                "30",
            ];
            if headless {
                args.push("--headless");
            }
            let r = run_checked(None, path, extra, &args)?;
            let report = &r.report;
            ensure!(json_number(report, "frames")? == 240.0, "{}", r.summary);
            ensure!(
                report.contains("\"display_feedback\": \"present-wait\""),
                "{path}: no display feedback: {}",
                r.summary
            );
            // A resize every 30 frames: 7 new extents after the first swapchain.
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
