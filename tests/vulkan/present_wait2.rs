//! Display feedback through `VK_KHR_present_id2` + `VK_KHR_present_wait2` where the surface
//! supports them, `VK_KHR_present_id` + `VK_KHR_present_wait` otherwise, and none where the
//! device offers neither; all with the Khronos validation layer (synchronization validation on)
//! failing a run on its first message, and a leak check at teardown.
//!
//! * Over the virtual display (vdisplay, which implements both pairs over lavapipe): a surface
//!   that supports present_wait2 gets it (`Swapchain::display_feedback`), and frames learn
//!   their display times (`FrameTimes::displayed`) on every swapchain of the run, through a
//!   display resize between phases (each a recreation: the create flags must go with it), on
//!   both sync paths (maintenance1 and the proof-based one).
//! * present_wait alone where asked for it alone (`DisplayChoice::PresentWait`): real display
//!   times come back (the positive branch of `tests/vulkan/headless.rs`'s present_wait test, which
//!   lavapipe alone cannot take).
//! * A surface that says no (vdisplay's `surface_present_wait2` / `surface_present_id2`
//!   settings) while the device enabled both extensions falls back to present_wait.
//! * On lavapipe alone (a child process without vdisplay, which offers neither pair): no
//!   display feedback and frames run as always; `present_wait2` asked for without the device
//!   extension is `Error::InvalidConfig`, before any Vulkan object is made (the leak check).
//!
//! Debian bookworm's validation layer (1.3.239) predates these extensions; the demo's context
//! turns its handle wrapping off and leaves uncounted exactly the messages about the names,
//! structure types and swapchain create flags it does not know (`is_unknown_to_old_layer` in
//! `demo/vulkan_context/messages.rs`); every other message fails the run. Sid's layer (1.4.363)
//! knows them: nothing is filtered there.

use crate::common;
use crate::vdisplay_support;

use std::time::Duration;

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use common::{Harness, RenderTarget};
use vdisplay_support::{artifacts_dir, read_log};
use vkpace::{Acquired, DisplayFeedback, SwapchainConfig};
use vkpace_demo::virtual_display::set_extent;

/// Display extents, one per phase: the first at creation, each later one a recreation.
const PHASES: [(u32, u32); 4] = [(480, 360), (400, 300), (560, 420), (320, 240)];
/// Frames per phase (60 Hz display, light GPU load: about 0.7 s each).
const PHASE_FRAMES: usize = 40;
/// Light GPU load (the demo's `--gpu-load` units), so the display sets the pace.
const GPU_LOAD: f32 = 0.1;
/// Marks the child process of [`neither_offered_and_asked_without_the_extension`].
const PLAIN_LAVAPIPE_ENV: &str = "VKPACE_PW2_PLAIN_LAVAPIPE";

fn config(m1: bool) -> SwapchainConfig {
    let mut c = SwapchainConfig::default();
    c.present_mode = vk::PresentModeKHR::FIFO;
    c.pacing.frames_in_flight = 2;
    // The context enables the names the layer offers and sets the real ones.
    c.paths.swapchain_maintenance1 = m1.then_some(vkpace::Maintenance1Names::Ext);
    c.pacing.wait_timeout = Duration::from_secs(5);
    c
}

/// One frame: the demo scene with [`GPU_LOAD`], submitted and presented, canary checked.
fn frame(h: &mut Harness) -> Result<()> {
    let (Some(sc), Some(r)) = (h.swapchain.as_mut(), h.renderer.as_mut()) else {
        bail!("harness finished");
    };
    let frame = match sc.acquire()? {
        Acquired::Frame(f) => f,
        _ => bail!("zero extent (the display never reports one here)"),
    };
    let t = h.frames as f32 / 60.0;
    let cmd = r.record(RenderTarget::of(sc, &frame), t, GPU_LOAD, &h.history)?;
    // SAFETY: `cmd` was recorded for this frame's free slot and lives until the renderer is
    // destroyed, after the swapchain waited for its submissions.
    let submitted = unsafe {
        sc.submit(
            frame,
            vkpace::Submission::command_buffers(
                &[cmd],
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            ),
        )
    }?;
    sc.present(submitted)?;
    h.frames += 1;
    h.check_canary("after presenting")
}

/// Frames of `frames` (numbers) whose display time vkpace's telemetry holds now.
fn displayed_among(h: &mut Harness, frames: std::ops::Range<u64>) -> usize {
    h.swapchain()
        .telemetry()
        .filter(|t| frames.contains(&t.frame) && t.displayed.is_some())
        .count()
}

/// Runs the phases; returns, per phase, the frames with a display time and the swapchains
/// created so far.
fn phases(h: &mut Harness) -> Result<Vec<(usize, u64)>> {
    let mut seen = Vec::new();
    for (i, (w, hgt)) in PHASES.into_iter().enumerate() {
        if i > 0 {
            ensure!(set_extent(0, w, hgt)? == 1, "one virtual display expected");
        }
        let first = h.frames;
        for _ in 0..PHASE_FRAMES {
            frame(h)?;
        }
        // The telemetry ring holds more than a phase; the last frames' times arrive within a
        // few frames, so those are not asked for.
        let last = h.frames - 4;
        let shown = displayed_among(h, first..last);
        seen.push((shown, h.swapchain().stats().swapchains_created));
    }
    Ok(seen)
}

/// On the virtual display: present_wait2 is enabled and in use on the `m1` sync path before
/// and after the phases; returns [`phases`]'s figures and the final stats.
fn phases_with_present_wait2(m1: bool) -> Result<(Vec<(usize, u64)>, vkpace::SwapchainStats)> {
    let mut h = Harness::headless(config(m1))?;
    ensure!(
        h.ctx.as_ref().is_some_and(|c| c.present_wait2),
        "the context did not enable present_wait2 over vdisplay"
    );
    ensure!(
        h.swapchain().info().maintenance1.is_some() == m1,
        "sync path"
    );
    let feedback = h.swapchain().info().display_feedback;
    ensure!(feedback == DisplayFeedback::PresentWait2, "{feedback:?}");
    ensure!(
        h.swapchain().info().display_feedback.in_use(),
        "uses_present_wait"
    );
    let seen = phases(&mut h)?;
    let feedback = h.swapchain().info().display_feedback;
    ensure!(
        feedback == DisplayFeedback::PresentWait2,
        "after: {feedback:?}"
    );
    let stats = h.finish()?;
    Ok((seen, stats))
}

/// A surface with present_wait2: it is in use, and display times arrive on every swapchain.
fn run_present_wait2(m1: bool) -> Result<String> {
    let name = if m1 { "m1" } else { "legacy" };
    let dir = artifacts_dir().join("present_wait2");
    std::fs::create_dir_all(&dir)?;
    let log = dir.join(format!("{name}.jsonl"));
    let _ = std::fs::remove_file(&log);
    let settings = vec![
        ("extent", format!("{}x{}", PHASES[0].0, PHASES[0].1)),
        ("log", log.display().to_string()),
    ];
    let log_path = log.clone();
    let (seen, stats) = vdisplay_support::run(&settings, move || phases_with_present_wait2(m1))
        .with_context(|| name.to_string())?;
    let per_phase = PHASE_FRAMES - 4;
    for (i, (shown, _)) in seen.iter().enumerate() {
        // FIFO, display-bound: nearly every frame is shown and learnt; a few around the
        // recreation are not (their swapchain is retired before vkpace may ask).
        ensure!(
            2 * shown > per_phase,
            "{name}: phase {i}: display times for {shown} of {per_phase} frames ({seen:?})"
        );
    }
    ensure!(
        stats.swapchains_created >= PHASES.len() as u64,
        "{name}: every resize recreates: {stats:?}"
    );
    let presents = read_log(&log_path)?;
    let with_id = presents.iter().filter(|p| p.present_id != 0).count();
    ensure!(
        with_id == presents.len() && !presents.is_empty(),
        "{name}: {with_id} of {} presents carried an id",
        presents.len()
    );
    Ok(format!(
        "{name}: present-wait2, {} frames, {} swapchains; display times per phase (of {per_phase}): \
         {:?}; layer log: {} presents, all with ids",
        stats.frames_presented,
        stats.swapchains_created,
        seen.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        presents.len()
    ))
}

#[test]
fn present_wait2_through_resizes_legacy() -> Result<()> {
    println!("present_wait2: {}", run_present_wait2(false)?);
    Ok(())
}

#[test]
fn present_wait2_through_resizes_maintenance1() -> Result<()> {
    println!("present_wait2: {}", run_present_wait2(true)?);
    Ok(())
}

/// A surface that says no to one capability while the device enabled both extensions: vkpace
/// falls back to present_wait, and display times still arrive.
fn run_surface_says_no(setting: &'static str) -> Result<String> {
    let settings = vec![
        ("extent", "480x360".to_string()),
        (setting, "false".to_string()),
    ];
    vdisplay_support::run(&settings, move || -> Result<String> {
        let mut h = Harness::headless(config(true))?;
        let ctx = h.ctx.as_ref().context("context")?;
        ensure!(ctx.present_wait2 && ctx.present_wait, "both pairs enabled");
        let feedback = h.swapchain().info().display_feedback;
        ensure!(feedback == DisplayFeedback::PresentWait, "{feedback:?}");
        ensure!(
            h.swapchain().info().display_feedback.in_use(),
            "uses_present_wait"
        );
        for _ in 0..PHASE_FRAMES {
            frame(&mut h)?;
        }
        let last = h.frames - 4;
        let shown = displayed_among(&mut h, 0..last);
        let of = PHASE_FRAMES - 4;
        ensure!(2 * shown > of, "display times for {shown} of {of} frames");
        h.finish()?;
        Ok(format!(
            "{setting} = false: present-wait, display times for {shown} of {of} frames"
        ))
    })
}

#[test]
fn surface_without_present_wait2_falls_back_to_present_wait() -> Result<()> {
    println!(
        "present_wait2: {}",
        run_surface_says_no("surface_present_wait2")?
    );
    println!(
        "present_wait2: {}",
        run_surface_says_no("surface_present_id2")?
    );
    Ok(())
}

/// Display frames at vdisplay's refresh for [`present_wait_is_used_where_offered`].
const PRESENT_WAIT_FRAMES: usize = 120;

/// The positive branch of `tests/vulkan/headless.rs`'s present_wait test, which lavapipe alone never
/// takes: over the virtual display (which offers present_id and present_wait) the context
/// enables them, vkpace uses present_wait where asked for it alone, and real display times come
/// back (`common::check_present_wait_display_times`: at vdisplay's 60 Hz, FIFO).
#[test]
fn present_wait_is_used_where_offered() -> Result<()> {
    let settings = vec![
        ("extent", "320x240".to_string()),
        ("refresh_hz", "60".to_string()),
    ];
    let shown = vdisplay_support::run(&settings, move || -> Result<usize> {
        let mut c = config(false);
        c.display = vkpace::DisplayChoice::PresentWait;
        let mut h = Harness::headless(c)?;
        ensure!(
            h.ctx.as_ref().is_some_and(|c| c.present_wait),
            "the context did not enable present_wait over vdisplay"
        );
        let refresh_ns = Some(1_000_000_000 / 60);
        let shown =
            common::check_present_wait_display_times(&mut h, PRESENT_WAIT_FRAMES, refresh_ns)?;
        h.finish()?;
        Ok(shown)
    })?;
    println!("present_wait: display times for {shown} of {PRESENT_WAIT_FRAMES} frames");
    Ok(())
}

/// `SwapchainConfig::display` picks among what the device enabled (vdisplay offers present
/// timing and both pairs): Auto takes present timing and present_wait2, a forced pair takes
/// only that pair, Off neither; display times arrive on every path but Off.
#[test]
fn display_choice_picks_among_the_enabled_paths() -> Result<()> {
    use vkpace::DisplayChoice;
    let settings = vec![("extent", "480x360".to_string())];
    let report = vdisplay_support::run(&settings, move || -> Result<String> {
        let mut out = Vec::new();
        let cases = [
            (DisplayChoice::Auto, DisplayFeedback::PresentWait2, true),
            (
                DisplayChoice::PresentWait2,
                DisplayFeedback::PresentWait2,
                false,
            ),
            (
                DisplayChoice::PresentWait,
                DisplayFeedback::PresentWait,
                false,
            ),
            (DisplayChoice::Off, DisplayFeedback::None, false),
        ];
        for (choice, feedback, timing) in cases {
            let mut c = config(true);
            c.display = choice;
            let mut h = Harness::headless(c)?;
            let ctx = h.ctx.as_ref().context("context")?;
            ensure!(ctx.present_wait2 && ctx.present_wait, "both pairs enabled");
            let enabled_timing = ctx.present_timing;
            let info = h.swapchain().info();
            ensure!(info.display_feedback == feedback, "{choice:?}: {info:?}");
            let timed = info.present_timing.is_some();
            ensure!(
                timed == (timing && enabled_timing),
                "{choice:?}: timing {timed}"
            );
            for _ in 0..PHASE_FRAMES {
                frame(&mut h)?;
            }
            let last = h.frames - 4;
            let shown = displayed_among(&mut h, 0..last);
            ensure!(
                (shown > 0) == feedback.in_use(),
                "{choice:?}: {shown} frames with a display time"
            );
            h.finish()?;
            out.push(format!("{choice:?}: {} shown, timing {timed}", shown));
        }
        Ok(out.join("; "))
    })?;
    println!("display choice: {report}");
    Ok(())
}

/// Lavapipe alone offers neither pair. Runs in a child process of this binary without vdisplay
/// (the loader's environment for it is set for the whole process once another test used it).
#[test]
fn neither_offered_and_asked_without_the_extension() -> Result<()> {
    if std::env::var_os(PLAIN_LAVAPIPE_ENV).is_some() {
        return on_plain_lavapipe();
    }
    let exe = std::env::current_exe()?;
    let out = std::process::Command::new(exe)
        .args([
            "--exact",
            "present_wait2::neither_offered_and_asked_without_the_extension",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(PLAIN_LAVAPIPE_ENV, "1")
        .env_remove("VK_INSTANCE_LAYERS")
        .env_remove("VDISPLAY_SETTINGS_FILE")
        .output()?;
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    ensure!(out.status.success(), "the child failed:\n{text}");
    for line in text
        .lines()
        .filter_map(|l| l.find("present_wait2:").map(|at| &l[at..]))
    {
        println!("{line}");
    }
    Ok(())
}

/// The child's part: (c) neither offered: no display feedback, frames and resizes as always;
/// (d) present_wait2 asked for without the device extension: InvalidConfig, nothing leaked.
fn on_plain_lavapipe() -> Result<()> {
    common::set_runtime_dir();
    let mut h = Harness::headless(config(true))?;
    let ctx = h.ctx.as_ref().context("context")?;
    ensure!(
        !ctx.present_wait2 && !ctx.present_wait,
        "lavapipe alone offers neither pair ({})",
        ctx.device_name
    );
    let feedback = h.swapchain().info().display_feedback;
    ensure!(feedback == DisplayFeedback::None, "{feedback:?}");
    ensure!(
        !h.swapchain().info().display_feedback.in_use(),
        "uses_present_wait"
    );
    for (i, (w, hgt)) in PHASES.into_iter().enumerate() {
        h.swapchain().resize(vk::Extent2D {
            width: w,
            height: hgt,
        });
        for _ in 0..10 {
            frame(&mut h)?;
        }
        ensure!(
            h.swapchain().info().display_feedback == DisplayFeedback::None,
            "phase {i}"
        );
    }
    let all = h.frames;
    let shown = displayed_among(&mut h, 0..all);
    ensure!(shown == 0, "{shown} display times without display feedback");
    let stats = h.finish()?;
    println!(
        "present_wait2: neither offered: none, {} frames, {} swapchains, no display times",
        stats.frames_presented, stats.swapchains_created
    );
    asked_without_the_extension()
}

/// (d): the context did not enable VK_KHR_present_id2 / present_wait2; asking for
/// present_wait2 is refused before any Vulkan object is made.
fn asked_without_the_extension() -> Result<()> {
    let ctx = common::VulkanContext::new(common::SurfaceSource::Headless, true, false)?;
    let mut c = config(false);
    c.paths.present_wait2 = true;
    // SAFETY: the context's handles; present_wait2 is the option vkpace checks itself
    // (documented on Swapchain::new: InvalidConfig without the extension).
    let result = unsafe { ctx.swapchain_as_given(c) };
    let messages = ctx.messages.clone();
    let error = match result {
        Ok(sc) => {
            drop(sc);
            ctx.destroy();
            bail!("present_wait2 without the extension was accepted");
        }
        Err(e) => e,
    };
    ctx.destroy();
    let invalid = matches!(
        error.downcast_ref::<vkpace::Error>(),
        Some(vkpace::Error::InvalidConfig(_))
    );
    ensure!(invalid, "{error:#}");
    ensure!(
        messages.count() == 0,
        "{} validation message(s): something was made (and leaked) or misused",
        messages.count()
    );
    println!("present_wait2: asked without the extension: {error:#}");
    Ok(())
}
