//! The present-mode x frames-in-flight matrix and a resize every frame, in a real X11 window
//! (Xvfb when there is no display), through the demo binary with validation on. Lavapipe's
//! headless surface always hands back image 0; a window rotates images, so only here are the
//! per-image present histories exercised: each run must acquire more than one image index.

mod demo_process;

use anyhow::{ensure, Context as _, Result};
use demo_process::{distinct_images, json_number, run_demo, Display};

const FRAMES: u32 = 300;

fn main() -> Result<()> {
    let display = Display::get()?;
    let mut passed = 0;
    let frames = FRAMES.to_string();
    for mode in ["fifo", "mailbox", "immediate", "fifo-relaxed"] {
        for n in ["1", "2", "3"] {
            let run = run_demo(
                Some(&display),
                &[
                    "--frames",
                    &frames,
                    "--present-mode",
                    mode,
                    "--frames-in-flight",
                    n,
                ],
            )
            .with_context(|| format!("{mode} x {n}"))?;
            ensure!(
                json_number(&run.report, "validation_messages")? == 0.0,
                "{mode} x {n}: {}",
                run.summary
            );
            ensure!(json_number(&run.report, "frames")? == f64::from(FRAMES));
            // X11 under Mesa offers all four modes: the window must run the one asked for.
            ensure!(
                run.report
                    .contains(&format!("\"present_mode\": \"{mode}\"")),
                "{mode} x {n}: ran another mode: {}",
                run.summary
            );
            let images = distinct_images(&run.summary)?;
            ensure!(
                images > 1,
                "{mode} x {n}: only {images} image index acquired: {}",
                run.summary
            );
            println!("test x11 {mode} x {n} ... ok ({images} images rotated)");
            passed += 1;
        }
    }
    let run = run_demo(
        Some(&display),
        &["--frames", &frames, "--resize-every", "1"],
    )?;
    ensure!(
        json_number(&run.report, "validation_messages")? == 0.0,
        "{}",
        run.summary
    );
    let created = json_number(&run.report, "swapchains_created")?;
    ensure!(
        created >= f64::from(FRAMES) / 2.0,
        "only {created} swapchains for a resize every frame"
    );
    ensure!(
        json_number(&run.report, "old_swapchains_max_pending")? <= 6.0,
        "{}",
        run.summary
    );
    println!("test x11 resize every frame ... ok ({created} swapchains)");
    passed += 1;
    println!("{passed} passed, 0 failed");
    Ok(())
}
