//! The issues' acceptance runs of the headless demo, as a user types them, on the maintenance1
//! path (where the driver offers it, as Mesa 25 lavapipe does) and the proof-based path
//! (`--no-maintenance1`): 2000 frames for each present mode and frames-in-flight value, a new
//! extent every frame for 1000 frames, and a present-mode switch every 10 frames, all with
//! validation (any message is exit code 1). Also: SIGTERM and Ctrl-C end a run cleanly, and a
//! report path that cannot be written is refused before the run.
//!
//! The long runs repeat the same frame for confidence, not coverage: `scripts/test` runs them
//! shorter (200 frames for each mode and depth, 400 for the mode switches, 120 for each pacing
//! policy), and `scripts/test --full` (`VKPACE_FULL=1`) at the length the issues named.

use crate::demo_process;
use crate::object_bounds;
use crate::run_length;

use anyhow::{ensure, Context as _, Result};

/// Frames of each present mode and depth's run: 2000 with `VKPACE_FULL`, else 200.
fn long_run() -> u64 {
    run_length::frames(200, 2000)
}

/// Frames of the present-mode switching run: 2000 with `VKPACE_FULL`, else 400.
fn switching_run() -> u64 {
    run_length::frames(400, 2000)
}
use demo_process::{json_number, run_checked, Run, PATHS};
use object_bounds::semaphores_allowed;

/// Runs the headless demo with `args` plus the path's flags; checks validation and the path.
fn run(path: &str, extra: &[&str], args: &[&str]) -> Result<Run> {
    let all: Vec<&str> = ["--headless"].iter().chain(args).copied().collect();
    run_checked(None, path, extra, &all)
}

#[test]
fn every_present_mode_and_depth_for_2000_frames() -> Result<()> {
    let frames = long_run().to_string();
    for (path, extra) in PATHS {
        for mode in ["fifo", "mailbox", "immediate", "fifo-relaxed"] {
            for n in ["1", "2", "3"] {
                let args = [
                    "--frames",
                    &frames,
                    "--present-mode",
                    mode,
                    "--frames-in-flight",
                    n,
                ];
                let r = run(path, extra, &args)?;
                ensure!(
                    json_number(&r.report, "frames")? == long_run() as f64,
                    "{}",
                    r.summary
                );
                ensure!(
                    json_number(&r.report, "swapchains_created")? == 1.0,
                    "{}",
                    r.summary
                );
                let allocs = json_number(&r.report, "allocations_per_frame_steady")?;
                ensure!(
                    allocs == 0.0,
                    "heap allocations in the steady loop: {}",
                    r.summary
                );
                // The default run: a producer thread's timeline waited for on the GPU, two
                // batches per frame, the timeline backend.
                for field in [
                    "\"submission\": \"batches+producer\"",
                    "\"completion\": \"timeline\"",
                ] {
                    ensure!(r.report.contains(field), "{field} not in {}", r.report);
                }
            }
        }
    }
    Ok(())
}

/// A new extent every frame on both paths; maintenance1 keeps at most 2 retired swapchains
/// pending, fewer than the proof-based path on the same driver.
#[test]
fn resize_every_frame_for_1000_frames() -> Result<()> {
    let m1 = resize_every_frame_on("maintenance1", &[])?;
    let legacy = resize_every_frame_on("legacy", &["--no-maintenance1"])?;
    ensure!(
        m1 <= 2.0,
        "maintenance1 had {m1} retired swapchains pending"
    );
    ensure!(m1 < legacy, "maintenance1 {m1} vs legacy {legacy}");
    Ok(())
}

/// Returns `old_swapchains_max_pending`.
fn resize_every_frame_on(path: &str, extra: &[&str]) -> Result<f64> {
    let r = run(path, extra, &["--resize-every", "1", "--frames", "1000"])?;
    let j = &r.report;
    ensure!(
        json_number(j, "swapchains_created")? >= 1000.0,
        "{}",
        r.summary
    );
    let pending = json_number(j, "old_swapchains_max_pending")?;
    ensure!(pending <= 6.0, "{}", r.summary);
    // The renderer's framebuffers and depth images (per image, per slot, sized to the
    // extent) are rebuilt for every new swapchain and the old ones destroyed while running:
    // at the end at most one set per slot is still held besides the current one.
    let (made, retired) = (json_number(j, "made")?, json_number(j, "retired")?);
    ensure!(made >= 1000.0, "{made} framebuffer sets: {}", r.summary);
    ensure!(
        made - retired <= 4.0,
        "{made} made, {retired} retired: {}",
        r.summary
    );
    let images = json_number(j, "swapchain_images")? as usize;
    // 2 frames in flight (the demo's default), 5 retired (the default cap).
    let bound = semaphores_allowed(2, images, 5) as f64;
    ensure!(
        json_number(j, "semaphores_max_alive")? <= bound,
        "over {bound}: {}",
        r.summary
    );
    Ok(pending)
}

/// `--switch-present-mode-every 10` for 2000 frames (400 by default): a switch every 10 frames
/// but at most 10 missed, on both paths. On the headless surface lavapipe reports no compatible
/// modes, so each switch recreates (the window test shows maintenance1's one-swapchain case).
#[test]
fn switch_present_mode_every_10_frames() -> Result<()> {
    let frames = switching_run();
    for (path, extra) in PATHS {
        let r = run(
            path,
            extra,
            &[
                "--frames",
                &frames.to_string(),
                "--switch-present-mode-every",
                "10",
            ],
        )?;
        let switches = json_number(&r.report, "present_mode_switches")?;
        ensure!(
            switches >= (frames / 10 - 10) as f64,
            "{path}: {}",
            r.summary
        );
        let created = json_number(&r.report, "swapchains_created")?;
        ensure!(created <= 1.0 + switches, "{path}: {}", r.summary);
    }
    Ok(())
}

/// The pacing flags: each policy, with and without a frame limit, on both paths: zero
/// validation messages, no allocation in the steady loop, the report names what ran, and a
/// limited run never goes faster than its limit (the precision figures are benchmark numbers,
/// printed by the README's commands, not asserted here).
#[test]
fn pacing_policies_and_frame_limit() -> Result<()> {
    let frames = run_length::frames(120, 300).to_string();
    for (path, extra) in PATHS {
        for policy in ["frames", "low-latency"] {
            for fps in [None, Some("60")] {
                let mut args = vec!["--frames", &frames, "--policy", policy];
                if let Some(f) = fps {
                    args.extend(["--fps", f]);
                }
                let r = run(path, extra, &args)?;
                ensure!(
                    r.report.contains(&format!("\"policy\": \"{policy}\"")),
                    "{}",
                    r.report
                );
                let allocs = json_number(&r.report, "allocations_per_frame_steady")?;
                ensure!(allocs == 0.0, "{path} {args:?}: {allocs} allocations/frame");
                let measured = json_number(&r.report, "fps")?;
                ensure!(measured > 0.0, "{}", r.report);
                if fps.is_some() {
                    ensure!(json_number(&r.report, "fps_limit")? == 60.0, "{}", r.report);
                    ensure!(measured <= 60.5, "limited to 60 but ran at {measured} fps");
                }
                println!("{path} {policy} {fps:?}: {measured:.1} fps");
            }
        }
    }
    Ok(())
}

#[test]
fn a_bad_frame_limit_is_a_clear_error() -> Result<()> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkpace-demo"))
        .args(["--headless", "--frames", "10", "--fps", "0"])
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(!out.status.success(), "--fps 0 accepted");
    ensure!(
        stderr.contains("frame limit must be a rate between 1 and 10000 fps"),
        "{stderr}"
    );
    Ok(())
}

/// SIGTERM and SIGINT (Ctrl-C) end a headless run between frames: exit status 0, the summary
/// printed, the report written and saying so, validation clean (so everything was destroyed in
/// order), within a second of the signal.
#[test]
fn a_signal_ends_the_run_cleanly() -> Result<()> {
    for signal in ["TERM", "INT"] {
        let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("demo-signal");
        std::fs::create_dir_all(&dir)?;
        let (report, err) = (
            dir.join(format!("{signal}.json")),
            dir.join(format!("{signal}.err")),
        );
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_vkpace-demo"))
            .args([
                "--headless",
                "--frames",
                "10000000",
                "--validation",
                "--report",
            ])
            .arg(&report)
            .stdout(std::process::Stdio::piped())
            .stderr(std::fs::File::create(&err)?)
            .spawn()?;
        let started = std::time::Instant::now();
        // The device line comes once the context exists; frames follow at once.
        while !std::fs::read_to_string(&err)?.contains("vkpace demo: device") {
            ensure!(started.elapsed().as_secs() < 60, "the demo did not start");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
        let sent = std::time::Instant::now();
        let pid = child.id().to_string();
        ensure!(std::process::Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()?
            .success());
        let out = child.wait_with_output()?;
        let took = sent.elapsed();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let j = std::fs::read_to_string(&report)?;
        println!(
            "SIG{signal}: ended in {took:?}, {}",
            stdout.lines().last().unwrap_or("")
        );
        ensure!(out.status.success(), "SIG{signal}: exit {:?}", out.status);
        ensure!(
            stdout.contains("ended by signal"),
            "no summary line: {stdout}"
        );
        ensure!(j.contains("\"ended_by\": \"signal\""), "{j}");
        ensure!(json_number(&j, "frames")? > 0.0, "{j}");
        ensure!(json_number(&j, "validation_messages")? == 0.0, "{j}");
        ensure!(
            took.as_secs_f64() < 5.0,
            "SIG{signal} took {took:?} to end the run"
        );
    }
    Ok(())
}

/// `--report` into a directory that does not exist: refused at once with a clear line, exit
/// code 2, before any Vulkan object is made (no device line).
#[test]
fn an_unwritable_report_path_is_refused_before_the_run() -> Result<()> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_vkpace-demo"))
        .args([
            "--headless",
            "--frames",
            "100",
            "--report",
            "/nonexistent-dir/r.json",
        ])
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(
        out.status.code() == Some(2),
        "exit {:?}: {stderr}",
        out.status
    );
    ensure!(
        stderr.contains("--report /nonexistent-dir/r.json: cannot be written"),
        "{stderr}"
    );
    ensure!(
        !stderr.contains("vkpace demo: device"),
        "the run started: {stderr}"
    );
    ensure!(
        out.stdout.is_empty(),
        "frames were run: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    Ok(())
}

/// A window asked for and not there is an error (exit 2, a line that says so), not a quiet
/// headless run: DISPLAY naming no X server, WAYLAND_DISPLAY naming no compositor, `--window`
/// with neither. With neither variable and no flag the demo still falls back to headless and
/// says so, in its output and its report.
#[test]
fn a_window_that_cannot_be_had_is_an_error() -> Result<()> {
    let free = (4200..4300)
        .find(|n| !std::path::Path::new(&format!("/tmp/.X11-unix/X{n}")).exists())
        .context("no free X display number")?;
    let no_x = format!(":{free}");
    // (environment, flags) of each run that must fail.
    type Case<'a> = (&'a [(&'a str, &'a str)], &'a [&'a str]);
    let cases: [Case; 3] = [
        (&[("DISPLAY", no_x.as_str())], &[]),
        (&[("WAYLAND_DISPLAY", "vkpace-no-such-compositor")], &[]),
        (&[], &["--window"]),
    ];
    for (env, flags) in cases {
        let out = demo_without_display(env, flags, &["--frames", "20"])?;
        let stderr = String::from_utf8_lossy(&out.stderr);
        ensure!(
            out.status.code() == Some(2) && stderr.contains("no window system answered"),
            "{env:?} {flags:?}: exit {:?}: {stderr}",
            out.status
        );
    }
    let report = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fallback.json");
    let report_arg = report.to_string_lossy().into_owned();
    let out = demo_without_display(&[], &[], &["--frames", "20", "--report", &report_arg])?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    ensure!(out.status.success(), "fallback run: {stdout}");
    ensure!(
        stdout.contains("no display") && stdout.contains("20 frames on headless"),
        "{stdout}"
    );
    let json = std::fs::read_to_string(&report)?;
    ensure!(json.contains("\"window_system\": \"headless\""), "{json}");
    Ok(())
}

/// The demo with no DISPLAY or WAYLAND_DISPLAY but those in `env`, and `flags` then `args`.
fn demo_without_display(
    env: &[(&str, &str)],
    flags: &[&str],
    args: &[&str],
) -> Result<std::process::Output> {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_vkpace-demo"));
    cmd.env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .envs(env.iter().copied())
        .args(flags)
        .args(args);
    Ok(cmd.output()?)
}
