//! The examples in `examples/` run as a user runs them, headless and in an X11 window (Xvfb
//! when there is no display), with the validation layer on: on the maintenance1 path (where
//! offered) and the proof-based one (`--no-maintenance1`), with a new extent every frame, with
//! a 0x0 extent now and then (headless), and on both completion backends. Every run must exit
//! 0 (an example exits 1 on any error or validation message) and print its summary line with
//! the frames asked for, so a run that silently did nothing fails too. Lavapipe never overlaps
//! frames, so the runs are repeated over the virtual display layer, where frames do.
//!
//! The example binaries are found next to this test's executable (`cargo test` with no target
//! selection builds them; with `--test vulkan`, build them first with
//! `cargo build --release --examples`; the virtual display needs
//! `cargo build --release -p vkpace-vdisplay`).

use crate::demo_process;
use crate::run_length;

use std::ffi::OsString;
use std::process::Command;
use std::time::Duration;

use anyhow::{ensure, Context as _, Result};
use demo_process::{example, run_to_files, Display, Finished};
use vkpace_demo::virtual_display;

const FRAMES: u64 = 120;
/// A run of 120 frames takes about a second; this only stops a hang.
const LIMIT: Duration = Duration::from_secs(120);

/// What one run printed.
struct Run {
    summary: String,
}

impl Run {
    /// The number before `what` in the summary (`... 12 swapchains ...`).
    fn count(&self, what: &str) -> Result<u64> {
        let at = self
            .summary
            .find(what)
            .with_context(|| format!("{what:?} missing"))?;
        let digits = self.summary[..at].trim_end();
        let start = digits.rfind(' ').map_or(0, |s| s + 1);
        Ok(digits[start..].parse()?)
    }
}

/// Where an example presents.
#[derive(Clone, Copy)]
enum Target<'a> {
    /// `--headless`: lavapipe's headless surface (frames never overlap there).
    Headless,
    /// A window on this display.
    Window(&'a Display),
    /// `--headless` over the virtual display layer (this loader environment): frames overlap.
    VirtualDisplay(&'a [(&'static str, OsString)]),
}

/// Runs example `name` with `--frames 120 --validation` and `flags` on `target`; checks its
/// exit status and summary line.
fn run(name: &str, target: Target<'_>, flags: &[&str]) -> Result<Run> {
    let place = match target {
        Target::Headless => "headless",
        Target::Window(_) => "x11",
        Target::VirtualDisplay(_) => "vdisplay",
    };
    let tag = format!("{name}_{place}{}", flags.join("_"));
    let mut cmd = Command::new(example(name)?);
    cmd.args(["--frames", &FRAMES.to_string(), "--validation"])
        .args(flags);
    match target {
        Target::Headless => cmd.arg("--headless"),
        Target::Window(d) => cmd.env("DISPLAY", d.name()).env_remove("WAYLAND_DISPLAY"),
        Target::VirtualDisplay(env) => cmd.arg("--headless").envs(env.iter().cloned()),
    };
    let Finished {
        status,
        stdout,
        stderr,
    } = run_to_files(&mut cmd, "examples", &tag, LIMIT)?;
    let context = || format!("{name} {flags:?} ({place}): {status}\n{stdout}\n{stderr}");
    ensure!(status.success(), "{}", context());
    let prefix = format!("{name}: {FRAMES} frames ");
    let summary = stdout
        .lines()
        .find(|l| l.starts_with(&prefix))
        .with_context(context)?;
    ensure!(summary.contains(" 0 validation messages"), "{}", context());
    // Lavapipe offers maintenance1 on both stacks (EXT on bookworm, KHR on sid).
    let legacy = flags.contains(&"--no-maintenance1");
    ensure!(
        summary.contains("maintenance1 legacy") == legacy,
        "{}",
        context()
    );
    println!("{}", summary);
    Ok(Run {
        summary: summary.to_string(),
    })
}

/// The runs every example makes on `target`, on both sync paths: plain, a new extent every
/// frame, the same on the other completion backend, and (headless) 0x0 every 10th frame.
/// Per push (without `VKPACE_FULL`) each judgement once per sync path: a new extent every
/// frame on the maintenance1 path with the example's own backend and on the other path with
/// the other backend, and 0x0 on one path (the plain runs, the other combinations and the
/// second 0x0 run repeat cases of the library's own matrix on the same surface).
fn matrix(name: &str, target: Target<'_>, other_backend: &str) -> Result<()> {
    let full = run_length::full_length();
    for (k, m1) in [&[][..], &["--no-maintenance1"][..]]
        .into_iter()
        .enumerate()
    {
        let own_backend = k == 0;
        if full {
            run(name, target, m1)?;
        }
        if full || own_backend {
            resized(name, target, &[m1, &["--resize-every-frame"][..]].concat())?;
        }
        if full || !own_backend {
            let backend = ["--completion", other_backend, "--resize-every-frame"];
            resized(name, target, &[m1, &backend[..]].concat())?;
        }
        // Only lavapipe's own headless surface takes 0x0 from the application (vdisplay's
        // surface reports its own extent, a window its size).
        if matches!(target, Target::Headless) && (full || !own_backend) {
            let minimize = [m1, &["--minimize-every", "10"][..]].concat();
            let minimized = run(name, target, &minimize)?;
            let skips = minimized.count(" zero-extent skips")?;
            ensure!(skips >= 10, "{}", minimized.summary);
        }
    }
    Ok(())
}

/// A run with a new extent every frame: a swapchain for (nearly) every frame.
fn resized(name: &str, target: Target<'_>, flags: &[&str]) -> Result<Run> {
    let resized = run(name, target, flags)?;
    let swapchains = resized.count(" swapchains")?;
    ensure!(swapchains >= FRAMES / 2, "{}", resized.summary);
    Ok(resized)
}

#[test]
fn render_pass_headless() -> Result<()> {
    matrix("render_pass", Target::Headless, "timeline")
}

#[test]
fn producer_batches_headless() -> Result<()> {
    matrix("producer_batches", Target::Headless, "fences")
}

/// Both examples in one test: one display for all runs (tests run in parallel, and two private
/// Xvfb servers started at once could pick the same display number).
#[test]
fn examples_in_an_x11_window() -> Result<()> {
    let display = Display::get()?;
    matrix("render_pass", Target::Window(&display), "timeline")?;
    matrix("producer_batches", Target::Window(&display), "fences")
}

/// Over the virtual display (vdisplay, `vdisplay/`), a layer that implements the headless
/// swapchain itself: there frames really overlap on lavapipe, so a frame begins while the one
/// before is still pending and takes another slot (the render pass example's per-slot depth
/// images, the producer's per-slot tiles). The runs here must use more than one slot.
#[test]
fn examples_over_the_virtual_display() -> Result<()> {
    let library = virtual_display::find_library()?;
    let env = virtual_display::loader_env(&virtual_display::write_manifest(&library)?, true);
    for (name, other_backend) in [("render_pass", "timeline"), ("producer_batches", "fences")] {
        let target = Target::VirtualDisplay(&env);
        matrix(name, target, other_backend)?;
        let r = run(name, target, &["--resize-every-frame"])?;
        ensure!(r.count(" slots used")? > 1, "no overlap: {}", r.summary);
    }
    Ok(())
}
