//! The acceptance runs of the headless demo, as a user types them: 2000 frames for each
//! present mode and frames-in-flight value, and a new extent every frame for 1000 frames, all
//! with validation (any message is exit code 1).

mod demo_process;

use anyhow::{ensure, Context as _, Result};
use demo_process::{json_number, run_demo};
use vkpace::core::semaphore_bound;

#[test]
fn every_present_mode_and_depth_for_2000_frames() -> Result<()> {
    for mode in ["fifo", "mailbox", "immediate", "fifo-relaxed"] {
        for n in ["1", "2", "3"] {
            let run = run_demo(
                None,
                &[
                    "--headless",
                    "--frames",
                    "2000",
                    "--present-mode",
                    mode,
                    "--frames-in-flight",
                    n,
                ],
            )
            .with_context(|| format!("{mode} x {n}"))?;
            ensure!(
                json_number(&run.report, "validation_messages")? == 0.0,
                "{}",
                run.summary
            );
            ensure!(
                json_number(&run.report, "frames")? == 2000.0,
                "{}",
                run.summary
            );
            ensure!(
                json_number(&run.report, "swapchains_created")? == 1.0,
                "{}",
                run.summary
            );
            ensure!(
                json_number(&run.report, "allocations_per_frame_steady")? == 0.0,
                "heap allocations in the steady frame loop: {}",
                run.summary
            );
        }
    }
    Ok(())
}

#[test]
fn resize_every_frame_for_1000_frames() -> Result<()> {
    let run = run_demo(
        None,
        &["--headless", "--resize-every", "1", "--frames", "1000"],
    )?;
    let r = &run.report;
    ensure!(
        json_number(r, "validation_messages")? == 0.0,
        "{}",
        run.summary
    );
    ensure!(
        json_number(r, "swapchains_created")? >= 1000.0,
        "{}",
        run.summary
    );
    ensure!(
        json_number(r, "old_swapchains_max_pending")? <= 6.0,
        "{}",
        run.summary
    );
    let images = json_number(r, "swapchain_images")? as usize;
    let bound = semaphore_bound(2, images, 5) as f64;
    ensure!(
        json_number(r, "semaphores_max_alive")? <= bound,
        "over the bound {bound}: {}",
        run.summary
    );
    Ok(())
}
