//! `VK_LAYER_VKPACE_pacing` under applications that know nothing of vkpace, enabled by the
//! environment alone (the layer's committed manifest installed as an implicit layer in a
//! private `$XDG_DATA_HOME`, which both stacks' loaders search):
//!
//! - Debian's vkcube (unmodified, linked to libvulkan) in an X11 window with `--validate` and
//!   `VKPACE_FPS=30`: lavapipe offers no display timing, so the layer's CPU limiter paces; the
//!   mean interval between presents is within 1% of 33.3 ms by the layer's own frame log, the
//!   validation layer below it says nothing, and the layer's summary counts at least one pause
//!   (sleep or gate wait) per four frames, none with the device's lock held; the layer logs the
//!   validation layer below it, and uses swapchain maintenance1 (which it enables below
//!   vkcube), so vkcube's destruction of its swapchain needs no proof submission;
//! - the second door's example in its unpaced mode (a textbook loop that reuses its
//!   render-finished semaphore per frame) with validation below the layer, where the validation
//!   layer knows the check (sid's): VUID-vkQueueSubmit-pSignalSemaphores-00067 without the
//!   layer, none with it (the layer's present-semaphore repair); with its own maintenance1 and
//!   without (then the layer's), no validation message either way;
//! - Debian's vkcube over the virtual display at 60 Hz (its window surface made a virtual
//!   display, the layer pinned above vdisplay) at `VKPACE_FPS=30`: the layer enables present
//!   timing below vkcube, and by vdisplay's log (the neutral clock) every present carries a
//!   target and at most 1 of the 299 shown intervals after the first 20 is not exactly 2
//!   refreshes (`grid`'s learned lead aims at no missed refresh; issue 52 bounds a busy
//!   machine at 2 in 1000), over 320 frames;
//! - the same over a virtual display at 59.2 Hz whose surfaces offer no present timing, over
//!   240 frames: with present wait (the layer enables it below vkcube) the CPU limiter's grid
//!   follows the display's clock (the layer's summary: 33.78 ms per frame, 2 refreshes);
//!   without it (vdisplay's `present_wait = off`) the limiter keeps its own 33.33 ms and
//!   drifts through a refresh every 37 frames or so. Held to the display, at most half as
//!   many shown intervals after the first 40 are off 2 refreshes (the figures are in
//!   docs/testing.md);
//! - a test-only fault that panics inside the pacer at vkcube's 30th present: vkcube runs to
//!   its end, the layer says the device passes every call through from then on, and the
//!   stopped pacer's objects are destroyed with the device (validation below: no message);
//! - the example ending with its device alive (`--exit-without-teardown`): the layer's summary
//!   is written at the process's exit.
//!
//! Weston (Wayland) is in `tests/vulkan/wayland_window.rs`; the comparison with MangoHud is the
//! benchmark's (`scripts/bench-layers`).

use crate::demo_process;
use crate::pacing_layer_support;

use std::process::Command;
use std::time::Duration;

use anyhow::{ensure, Result};
use demo_process::{example, run_to_files, Display, Finished};
use pacing_layer_support::Installed;
use vkpace_demo::virtual_display::{self, GridRecord};

/// The cap the tests ask for, and its interval (ms).
const FPS: f64 = 30.0;
const INTERVAL_MS: f64 = 1000.0 / FPS;
/// vkcube's frames, and those left out at the start (the limiter's first deadline).
const FRAMES: usize = 150;
const SETTLE: usize = 10;
/// A run ends within this (a hang, not a measurement).
const LIMIT: Duration = Duration::from_secs(90);
/// What the example's loop reports without the repair (the check sid's validation layer makes).
const VUID_00067: &str = "VUID-vkQueueSubmit-pSignalSemaphores-00067";

#[test]
fn vkcube_is_paced_to_30_fps_by_the_layer_alone() -> Result<()> {
    let display = Display::get()?;
    let layer = Installed::new("vkcube")?;
    let log = layer.root.join("frames.csv");
    let mut cmd = Command::new("vkcube");
    cmd.args(["--validate", "--c", &FRAMES.to_string()])
        .env("DISPLAY", display.name())
        .env_remove("WAYLAND_DISPLAY")
        .envs(layer.env())
        .env("VKPACE_FPS", FPS.to_string())
        .env("VKPACE_LOG", &log);
    let Finished {
        status,
        stdout,
        stderr,
    } = run_to_files(&mut cmd, "pacing_layer", "vkcube_fps30", LIMIT)?;
    let output = format!("{stdout}\n{stderr}");
    ensure!(status.success(), "vkcube failed: {output}");
    ensure!(
        output.contains("vkpace-pacing: vkcube: paces"),
        "the layer did not pace vkcube: {output}"
    );
    ensure!(!output.contains("VUID-"), "validation messages: {output}");
    // The log says where the layer sits: vkcube's validation layer (--validate) is below it.
    ensure!(
        output
            .lines()
            .any(|l| l.contains("below it: ") && l.contains("libVkLayer_khronos_validation.so")),
        "the layer did not say what is below it: {output}"
    );
    let mean = pacing_layer_support::mean_present_interval(&log, SETTLE, FRAMES - SETTLE)?;
    let summary = output.lines().find(|l| l.contains("vkpace pacing:"));
    eprintln!(
        "vkcube at {FPS} fps through the layer: mean present interval {mean:.3} ms; {summary:?}"
    );
    ensure!(
        (mean - INTERVAL_MS).abs() <= INTERVAL_MS * 0.01,
        "mean interval {mean:.3} ms, not within 1% of {INTERVAL_MS:.3} ms"
    );
    // Both stacks' lavapipe offer swapchain maintenance1: the layer enables it below vkcube, and
    // vkcube's destruction of its swapchain at exit is proven by present fences, with no
    // submission of the layer's on vkcube's queue.
    ensure!(
        output.contains("swapchain maintenance1 (") && output.contains(", 0 proof submissions"),
        "swapchain maintenance1 not used below vkcube: {output}"
    );
    judge_the_lock(&output)
}

/// The summary's counts of vkcube's run: the limiter sleeps (at about every frame; judged: one
/// in four), and the driver's present and acquire of every frame (and the swapchain's creation
/// and destruction) are called, never with the device's lock held.
fn judge_the_lock(output: &str) -> Result<()> {
    let (released, held) = pacing_layer_support::pauses(output)?;
    eprintln!("pauses: {released} with the device lock released, {held} with it held");
    ensure!(
        held == 0 && released >= (FRAMES / 4) as u64,
        "pauses: {released} with the device lock released, {held} with it held"
    );
    let (released, held) = pacing_layer_support::calls_down(output)?;
    eprintln!("calls down: {released} with the device lock released, {held} with it held");
    ensure!(
        held == 0 && released >= FRAMES as u64,
        "calls down: {released} with the device lock released, {held} with it held"
    );
    Ok(())
}

/// Frames of the grid case, and those left out at its start (the refresh learnt from the first
/// results).
const GRID_FRAMES: usize = 320;
const GRID_SETTLE: usize = 20;
/// The virtual display's refresh (60 Hz), ns.
const REFRESH_NS: u64 = 1_000_000_000 / 60;

#[test]
fn vkcube_over_the_virtual_display_shows_every_frame_for_two_refreshes() -> Result<()> {
    let display = Display::get()?;
    let layer = Installed::new("vkcube_grid")?;
    let log = kept_log("vkcube_grid")?;
    let mut cmd = vkcube_over_vdisplay(&display, &layer, GRID_FRAMES, &log)?;
    cmd.env("VDISPLAY_REFRESH_HZ", "60");
    let done = run_to_files(&mut cmd, "pacing_layer", "vkcube_grid", LIMIT)?;
    let output = format!("{}\n{}", done.stdout, done.stderr);
    ensure!(done.status.success(), "vkcube failed: {output}");
    ensure!(
        output.contains("present timing enabled below the application"),
        "the layer did not enable present timing: {output}"
    );
    judge_grid_log(&log, &output)
}

/// Debian's vkcube for `frames` frames at [`FPS`] through the installed pacing layer, pinned
/// above vdisplay (the first named is nearest the application), its X11 surface made a
/// virtual display logging to `log`.
fn vkcube_over_vdisplay(
    display: &Display,
    layer: &Installed,
    frames: usize,
    log: &std::path::Path,
) -> Result<Command> {
    let manifest = virtual_display::write_manifest(&virtual_display::find_library()?)?;
    let mut cmd = Command::new("vkcube");
    cmd.args(["--c", &frames.to_string()])
        .env("DISPLAY", display.name())
        .env_remove("WAYLAND_DISPLAY")
        .envs(layer.env())
        .envs(virtual_display::loader_env(&manifest, false))
        .env(
            "VK_INSTANCE_LAYERS",
            "VK_LAYER_VKPACE_pacing:VK_LAYER_VKPACE_vdisplay",
        )
        .env("VDISPLAY_WINDOW_SURFACES", "virtual")
        .env("VDISPLAY_LOG", log)
        .env("VKPACE_FPS", FPS.to_string());
    Ok(cmd)
}

/// The library's own warning reaches the user through the layer (issue 50 item 5): over an
/// engine whose results are all in a time domain it never offered (vdisplay's `foreign`,
/// as Arm's WSI layer returns them), vkcube's stderr has the library's warning once, behind
/// the layer's prefix (before the layer's logger it was counted and never printed).
#[test]
fn the_librarys_warning_is_printed_once_by_the_layer() -> Result<()> {
    let display = Display::get()?;
    let layer = Installed::new("vkcube_foreign")?;
    let log = layer.root.join("vdisplay.jsonl");
    let mut cmd = vkcube_over_vdisplay(&display, &layer, 60, &log)?;
    cmd.env("VDISPLAY_TIMING_RESULT_DOMAIN", "foreign");
    let done = run_to_files(&mut cmd, "pacing_layer", "vkcube_foreign", LIMIT)?;
    let output = format!("{}\n{}", done.stdout, done.stderr);
    ensure!(done.status.success(), "vkcube failed: {output}");
    let warned = done
        .stderr
        .lines()
        .filter(|l| {
            l.starts_with(
                "vkpace-pacing: warning: vkpace: present timing: results in a time domain",
            )
        })
        .count();
    ensure!(warned == 1, "the warning printed {warned} times: {output}");
    Ok(())
}

/// vdisplay's log of the grid case: every present targeted and shown (but a retired
/// swapchain's, below), every shown interval after the settle 2 refreshes.
fn judge_grid_log(log: &std::path::Path, output: &str) -> Result<()> {
    let presents = virtual_display::read_present_log(log)?;
    let grid = GridRecord::of(&presents, GRID_SETTLE, REFRESH_NS);
    // vkcube recreates its swapchain after its first present; that present may be dropped
    // when the old swapchain is destroyed before its refresh (the spec lets a retired
    // swapchain's queued image go unshown, and vdisplay logs it "destroyed"). Every present
    // of the swapchain that carried the run is shown.
    let last = presents.iter().map(|p| p.swapchain).max();
    let unshown_of_last = presents
        .iter()
        .filter(|p| Some(p.swapchain) == last && p.shown_ns.is_none())
        .count();
    let (presents, targeted, shown) = (grid.presents, grid.targeted, grid.shown);
    let off = grid.off(2);
    eprintln!(
        "vkcube over vdisplay at {FPS} fps through the layer: {presents} presents, {targeted} with targets, {shown} shown, {off} of {} intervals not 2 refreshes",
        grid.refreshes.len()
    );
    ensure!(
        presents == GRID_FRAMES,
        "{presents} presents logged: {output}"
    );
    ensure!(
        targeted == GRID_FRAMES,
        "{targeted} of {GRID_FRAMES} presents carried a target"
    );
    ensure!(
        unshown_of_last == 0 && shown + 2 >= GRID_FRAMES,
        "{shown} of {GRID_FRAMES} shown, {unshown_of_last} of them on the last swapchain"
    );
    // The lead is learned (`vkpace_core::LeadEstimator`): it aims at no missed refresh, and a
    // frame slower than every recent one by more than its margin (half a refresh at first)
    // misses its refresh: the machine's doing (a busy machine's frame far slower than every
    // recent one), which no lead learned from recent frames foresees. So each interval off must be
    // such a frame, shown no more refreshes late than its lateness cost (each refresh after
    // its own up to the first at or after its ready time); any other is vkpace's and fails. The
    // figures are in docs/testing.md.
    let judged = judge_misses(&presents_of(log, last)?, GRID_SETTLE);
    eprintln!(
        "{} intervals off were frames slower from start to ready than the {} before them",
        judged.machines,
        lead_window()
    );
    ensure!(
        judged.vkpaces.is_empty(),
        "intervals off not explained by a slow frame: {:?}; intervals in refreshes: {:?}",
        judged.vkpaces,
        grid.refreshes
    );
    // A sanity bound: a run where 1 frame in 10 was that slow measured nothing.
    ensure!(
        judged.machines * 10 <= GRID_FRAMES,
        "{} frames that slow",
        judged.machines
    );
    Ok(())
}

/// The frames whose start-to-ready times the grid's lead covers (the layer's default policy,
/// `grid`: `vkpace_core::LeadAim::Grid`'s window).
fn lead_window() -> usize {
    vkpace_core::LeadAim::Grid.base().1
}

/// The presents of swapchain `which` in vdisplay's log, in order.
fn presents_of(
    log: &std::path::Path,
    which: Option<u64>,
) -> Result<Vec<virtual_display::LoggedPresent>> {
    let presents = virtual_display::read_present_log(log)?;
    Ok(presents
        .into_iter()
        .filter(|p| Some(p.swapchain) == which)
        .collect())
}

/// Intervals off 2 refreshes after `settle`: those the machine caused (the frame shown late
/// was not ready by its refresh, took longer from its start to ready than every one of the
/// [`lead_window`] frames before it, and lost no more refreshes than its lateness cost), and
/// the others, described.
struct Misses {
    machines: usize,
    vkpaces: Vec<String>,
}

fn judge_misses(log: &[virtual_display::LoggedPresent], settle: usize) -> Misses {
    let work = |p: &virtual_display::LoggedPresent| {
        p.ready_ns
            .zip(p.acquired_ns)
            .map(|(r, a)| r.saturating_sub(a))
    };
    let mut judged = Misses {
        machines: 0,
        vkpaces: Vec::new(),
    };
    for i in (settle + 1)..log.len() {
        let (a, b) = (&log[i - 1], &log[i]);
        let (Some(shown_a), Some(shown_b)) = (a.shown_ns, b.shown_ns) else {
            continue;
        };
        let refreshes = (shown_b.saturating_sub(shown_a) + REFRESH_NS / 2) / REFRESH_NS;
        if refreshes == 2 {
            continue;
        }
        let its_refresh = shown_a + 2 * REFRESH_NS;
        let slowest_before = log[i.saturating_sub(lead_window())..i]
            .iter()
            .filter_map(work)
            .max();
        let late_ready = b.ready_ns.is_some_and(|r| r > its_refresh);
        let slowest = work(b).zip(slowest_before).is_some_and(|(w, s)| w > s);
        // The refreshes its lateness cost: those after its refresh up to the one at or after
        // its ready time (a frame ready 17 ms after its refresh at 60 Hz costs two).
        let cost = b
            .ready_ns
            .map_or(0, |r| r.saturating_sub(its_refresh).div_ceil(REFRESH_NS));
        match refreshes > 2 && refreshes - 2 <= cost && late_ready && slowest {
            true => judged.machines += 1,
            false => judged.vkpaces.push(format!(
                "present {}: {refreshes} refreshes, ready {:?} ms after its refresh, {:?} ms from start to ready against at most {:?} before",
                b.seq,
                b.ready_ns.map(|r| (r as f64 - its_refresh as f64) / 1e6),
                work(b).map(|w| w as f64 / 1e6),
                slowest_before.map(|w| w as f64 / 1e6)
            )),
        }
    }
    judged
}

/// The display of the anchor test: 59.2 Hz, so that 2 refreshes (33.78 ms) are 1.35% longer
/// than the cap's interval; the CPU's grid gains 0.45 ms a frame on it.
const SLOW_HZ: f64 = 59.2;
/// Shown intervals the anchor test judges, after the first `ANCHOR_SETTLE` (the grid learns
/// the display's interval from its first 8, and may move once off a refresh).
const ANCHOR_FRAMES: usize = 240;
const ANCHOR_SETTLE: usize = 40;

#[test]
fn without_present_timing_the_cpu_limiter_follows_the_displays_clock() -> Result<()> {
    let display = Display::get()?;
    let (anchored, free) = (anchor_run(&display, "on")?, anchor_run(&display, "off")?);
    // On its own clock the limiter drifts through a refresh every 37 frames or so, and each
    // crossing is at least one interval off.
    ensure!(
        free.off >= 4,
        "on its own clock the limiter should drift through a refresh: {:?}",
        free.refreshes
    );
    // What the limiter controls is when frames start: held to the display's clock its grid
    // has the display's interval for the cap (2 refreshes, 33.784 ms), on its own clock the
    // cap's (33.333 ms). Each run is judged by the figure its own grid's legitimate moves
    // cannot shift, whatever the machine does to the frames' own times:
    // - held, the grid also moves with the lead (the slowest recent frame's time: the
    //   machine's load), and under a load that grows for seconds it moves a little earlier
    //   on most frames, shortening most intervals; the lead is clamped to one period, so the
    //   mean over the run (its first start to its last) moves at most a period over 199
    //   intervals, 0.17 ms, against the 0.225 ms between either period and the midpoint;
    // - on its own clock the grid moves only where a frame started a period late (the grid
    //   re-anchors there, lengthening one interval), so the median interval keeps its period.
    // (The figures, and the judgements this one replaced, are in docs/testing.md.)
    let two_refreshes = 2e9 / SLOW_HZ / 1e6;
    let cap = INTERVAL_MS;
    let closer_to_display = |ms: f64| (ms - two_refreshes).abs() < (ms - cap).abs();
    ensure!(
        closer_to_display(anchored.mean_start_interval_ms)
            && !closer_to_display(free.median_start_interval_ms),
        "start intervals: held mean {:.3} ms (median {:.3}), on the CPU's clock median {:.3} ms (mean {:.3}); the display's {two_refreshes:.3}, the cap's {cap:.3}; {} and {} intervals off",
        anchored.mean_start_interval_ms,
        anchored.median_start_interval_ms,
        free.median_start_interval_ms,
        free.mean_start_interval_ms,
        anchored.off,
        free.off
    );
    Ok(())
}

/// What an anchor run showed: the intervals after the settle not 2 refreshes, all of them in
/// refreshes, and the median and mean intervals between the frames' starts
/// ([`start_intervals_ms`]).
struct AnchorRun {
    off: usize,
    refreshes: Vec<u64>,
    median_start_interval_ms: f64,
    mean_start_interval_ms: f64,
}

/// How old frames were when shown, by vdisplay's log after the settle: the median from the
/// frame's start (its acquire's return) and from its ready time (its rendering complete), ms.
/// Printed for the figures in docs/layer.md; not judged: on this machine they are the frames'
/// own slowest times (the machine's load), which the lead must cover.
#[derive(Debug, Clone, Copy)]
struct Latency {
    start_to_shown_ms: f64,
    ready_to_shown_ms: f64,
}

impl Latency {
    fn of(log: &[virtual_display::LoggedPresent], settle: usize) -> Self {
        let median = |from: fn(&virtual_display::LoggedPresent) -> Option<u64>| {
            let mut ages: Vec<u64> = log
                .iter()
                .skip(settle)
                .filter_map(|p| Some(p.shown_ns?.saturating_sub(from(p)?)))
                .collect();
            ages.sort_unstable();
            ages.get(ages.len() / 2)
                .map_or(f64::NAN, |&ns| ns as f64 / 1e6)
        };
        Self {
            start_to_shown_ms: median(|p| p.acquired_ns),
            ready_to_shown_ms: median(|p| p.ready_ns),
        }
    }
}

/// The median and the mean interval between consecutive frames' starts (the return of their
/// acquire, in vdisplay's log) after `settle`, ms: the limiter's period as the frames felt it.
/// A late wake-up lengthens one interval and shortens the next, so the median keeps the
/// period; a move of the grid shifts every later start, so the mean (the first start to the
/// last) moves by that much over the whole run.
fn start_intervals_ms(log: &[virtual_display::LoggedPresent], settle: usize) -> (f64, f64) {
    let starts: Vec<u64> = log
        .iter()
        .filter_map(|p| p.acquired_ns)
        .skip(settle)
        .collect();
    let mut intervals: Vec<u64> = starts
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]))
        .collect();
    intervals.sort_unstable();
    let median = intervals
        .get(intervals.len() / 2)
        .map_or(0.0, |&ns| ns as f64 / 1e6);
    let mean = match (starts.first(), starts.last()) {
        (Some(&first), Some(&last)) if starts.len() > 1 => {
            last.saturating_sub(first) as f64 / 1e6 / (starts.len() - 1) as f64
        }
        _ => 0.0,
    };
    (median, mean)
}

/// Where a run tagged `tag` has vdisplay write its log: beside the run's output under the
/// target directory, kept for a look at a failure, and empty (vdisplay appends to its log).
fn kept_log(tag: &str) -> Result<std::path::PathBuf> {
    let log = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("pacing_layer")
        .join(format!("{tag}.vdisplay.log"));
    std::fs::create_dir_all(log.parent().unwrap_or(&log))?;
    let _ = std::fs::remove_file(&log);
    Ok(log)
}

/// vkcube at 30 fps through the layer over vdisplay at [`SLOW_HZ`] without present timing,
/// with present wait `on` or `off`: the shown intervals after the settle not 2 refreshes,
/// and all of them in refreshes (the layer's summary checked: the grid followed 2 refreshes
/// with present wait, nothing without).
fn anchor_run(display: &Display, present_wait: &str) -> Result<AnchorRun> {
    let refresh_ns = (1e9 / SLOW_HZ) as u64;
    let tag = format!("vkcube_anchor_{present_wait}");
    let layer = Installed::new(&tag)?;
    let log = kept_log(&tag)?;
    let mut cmd = vkcube_over_vdisplay(display, &layer, ANCHOR_FRAMES, &log)?;
    cmd.env("VDISPLAY_REFRESH_HZ", SLOW_HZ.to_string())
        .env("VDISPLAY_SURFACE_PRESENT_TIMING", "off")
        .env("VDISPLAY_PRESENT_WAIT", present_wait);
    let done = run_to_files(&mut cmd, "pacing_layer", &tag, LIMIT)?;
    let output = format!("{}\n{}", done.stdout, done.stderr);
    ensure!(done.status.success(), "vkcube failed: {output}");
    let presents = virtual_display::read_present_log(&log)?;
    let grid = GridRecord::of(&presents, ANCHOR_SETTLE, refresh_ns);
    ensure!(
        grid.targeted == 0,
        "targets without present timing: {output}"
    );
    let (median_start_interval_ms, mean_start_interval_ms) =
        start_intervals_ms(&presents, ANCHOR_SETTLE);
    let latency = Latency::of(&presents, ANCHOR_SETTLE);
    let followed = pacing_layer_support::followed_period_ms(&output);
    eprintln!(
        "present wait {present_wait}: {} of {} intervals not 2 refreshes, start intervals median {median_start_interval_ms:.3} ms and mean {mean_start_interval_ms:.3} ms, start to shown p50 {:.2} ms, ready to shown p50 {:.2} ms; the grid followed the display at {followed:?} ms",
        grid.off(2),
        grid.refreshes.len(),
        latency.start_to_shown_ms,
        latency.ready_to_shown_ms,
    );
    match present_wait {
        "on" => {
            // The display's interval for the cap, 2 refreshes, is what the grid learned.
            let two = 2.0 * refresh_ns as f64 / 1e6;
            ensure!(
                followed.is_some_and(|ms| (ms - two).abs() < 0.05),
                "the grid should follow {two:.3} ms: {output}"
            );
            // The grid's lead runs to each frame's ready time, watched on the layer's repair
            // submission (vkpace_core::DisplayAnchor::frame_ready).
            ensure!(
                output.contains("ready times from the layer's own submissions"),
                "no ready time was watched: {output}"
            );
        }
        _ => ensure!(followed.is_none(), "no present wait, yet: {output}"),
    }
    Ok(AnchorRun {
        off: grid.off(2),
        refreshes: grid.refreshes,
        median_start_interval_ms,
        mean_start_interval_ms,
    })
}

#[test]
fn a_panic_in_the_pacer_leaves_the_program_running_unpaced() -> Result<()> {
    let display = Display::get()?;
    let layer = Installed::new("vkcube_panic")?;
    let mut cmd = Command::new("vkcube");
    cmd.args(["--validate", "--c", "60"])
        .env("DISPLAY", display.name())
        .env_remove("WAYLAND_DISPLAY")
        .envs(layer.env())
        .env("VKPACE_FPS", FPS.to_string())
        .env("VKPACE_TEST_PANIC_AT_PRESENT", "30");
    let done = run_to_files(&mut cmd, "pacing_layer", "vkcube_panic", LIMIT)?;
    let output = format!("{}\n{}", done.stdout, done.stderr);
    ensure!(done.status.success(), "vkcube did not survive: {output}");
    ensure!(
        output.contains("vkpace-pacing: panic in the present pacer")
            && output.contains("passes every call through from now on"),
        "the layer did not say it fell back: {output}"
    );
    ensure!(
        output.contains("vkDestroyDevice: device destroyed through the layer"),
        "vkcube did not reach its end: {output}"
    );
    // The stopped pacer's semaphores and fences are not left behind: destroyed with the device,
    // while validation (below the layer) sees every object's last use.
    ensure!(
        output.contains(
            "the present pacer stopped by a panic: its objects destroyed with the device"
        ),
        "the stopped pacer's objects were not destroyed: {output}"
    );
    ensure!(!output.contains("VUID-"), "validation messages: {output}");
    Ok(())
}

#[test]
fn an_application_reusing_present_semaphores_is_repaired_by_the_layer() -> Result<()> {
    if !validation_layer_knows_00067()? {
        eprintln!("this stack's validation layer predates the check (sid's has it): skipped here");
        return Ok(());
    }
    let layer = Installed::new("own_swapchain")?;
    let alone = own_swapchain(None, &[], "own_swapchain_alone")?;
    let layered = own_swapchain(Some(&layer), &[], "own_swapchain_layer")?;
    let (before, after) = (
        alone.matches(VUID_00067).count(),
        layered.matches(VUID_00067).count(),
    );
    eprintln!("own_swapchain reusing present semaphores: {before} x 00067 alone, {after} through the layer");
    ensure!(before > 0, "the negative control reported nothing: {alone}");
    ensure!(
        layered.contains("vkpace-pacing: own_swapchain: paces"),
        "{layered}"
    );
    ensure!(
        !layered.contains("VUID-") && layered.contains("\"validation_messages\":0"),
        "through the layer: {layered}"
    );
    Ok(())
}

/// The example's own swapchain maintenance1 is used as it is; without it (the example enables
/// none) the layer adds it below the example; validation sees a valid device and valid presents
/// either way.
#[test]
fn swapchain_maintenance1_is_the_programs_or_added_below_it() -> Result<()> {
    let layer = Installed::new("own_swapchain_m1")?;
    let m1_used = |out: &str| {
        out.lines()
            .any(|l| l.contains("swapchain maintenance1 (") && l.contains(") in use by the pacer"))
    };
    let valid = |out: &str| !out.contains("VUID-") && out.contains("\"validation_messages\":0");
    let own = own_swapchain(Some(&layer), &[], "own_swapchain_m1_own")?;
    ensure!(m1_used(&own) && valid(&own), "the program's own: {own}");
    let added = own_swapchain(
        Some(&layer),
        &["--no-maintenance1"],
        "own_swapchain_m1_added",
    )?;
    let enabled = added.lines().any(|l| {
        l.contains("enabled below the application: ") && l.contains("swapchain_maintenance1")
    });
    ensure!(
        enabled
            && m1_used(&added)
            && added.contains("\"maintenance1\":\"legacy\"")
            && valid(&added),
        "maintenance1 added below the program: {added}"
    );
    Ok(())
}

/// The second door's example (`own_swapchain`), unpaced, headless with validation for 60
/// frames, through the layer where given; its output.
fn own_swapchain(layer: Option<&Installed>, extra: &[&str], tag: &str) -> Result<String> {
    let mut cmd = Command::new(example("own_swapchain")?);
    cmd.args(["--headless", "--validation", "--json", "--frames", "60"])
        .args(extra);
    if let Some(layer) = layer {
        cmd.envs(layer.env());
    }
    let done = run_to_files(&mut cmd, "pacing_layer", tag, LIMIT)?;
    Ok(format!("{}\n{}", done.stdout, done.stderr))
}

/// A program that ends with its device alive (no vkDestroyDevice, as many games end) still gets
/// the layer's summary: written at the process's exit.
#[test]
fn a_program_exiting_with_its_device_alive_gets_the_summary() -> Result<()> {
    let layer = Installed::new("exit_alive")?;
    let mut cmd = Command::new(example("own_swapchain")?);
    cmd.args(["--headless", "--frames", "40", "--exit-without-teardown"])
        .envs(layer.env())
        .env("VKPACE_FPS", FPS.to_string())
        .env("VKPACE_LOG", layer.root.join("frames.csv"));
    let done = run_to_files(&mut cmd, "pacing_layer", "exit_alive", LIMIT)?;
    let output = format!("{}\n{}", done.stdout, done.stderr);
    ensure!(done.status.success(), "own_swapchain failed: {output}");
    ensure!(
        output.contains("own_swapchain: 40 frames, exit without teardown")
            && !output.contains("vkDestroyDevice"),
        "the program did not end with its device alive: {output}"
    );
    let summary = output.lines().find(|l| l.contains("vkpace pacing: "));
    let counts = output.lines().find(|l| l.contains(" presents paced, "));
    eprintln!("at exit: {summary:?}, {counts:?}");
    ensure!(
        output.contains("the program did not destroy its device; the pacer's summary")
            && summary.is_some_and(|l| l.contains(" frames, started every "))
            && counts.is_some_and(|l| l.contains("vkpace-pacing: 40 presents paced")),
        "no summary at exit: {output}"
    );
    Ok(())
}

/// Whether this stack's validation layer checks present-semaphore reuse (1.4.313 and newer).
fn validation_layer_knows_00067() -> Result<bool> {
    // SAFETY: loads the system's Vulkan loader; a plain query.
    let entry = unsafe { ash::Entry::load() }?;
    // SAFETY: as above.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }?;
    Ok(layers.iter().any(|l| {
        l.layer_name_as_c_str() == Ok(c"VK_LAYER_KHRONOS_validation")
            && l.spec_version >= ash::vk::make_api_version(0, 1, 4, 313)
    }))
}

/// A run the layer steps aside for (another limiter: vkd3d-proton's `VKD3D_FRAME_RATE`) still gets the frame
/// log it asked for: the header and why (issue 50 item 6: it got no file at all).
#[test]
fn a_device_not_paced_gets_a_log_that_says_why() -> Result<()> {
    let layer = Installed::new("not_paced_log")?;
    let csv = layer.root.join("frames.csv");
    let mut cmd = Command::new(example("own_swapchain")?);
    cmd.args(["--headless", "--frames", "5"])
        .envs(layer.env())
        .env("VKD3D_FRAME_RATE", "30")
        .env("VKPACE_LOG", &csv);
    let done = run_to_files(&mut cmd, "pacing_layer", "not_paced_log", LIMIT)?;
    let output = format!("{}\n{}", done.stdout, done.stderr);
    ensure!(done.status.success(), "own_swapchain failed: {output}");
    let text = std::fs::read_to_string(&csv).unwrap_or_default();
    let mut lines = text.lines();
    ensure!(
        lines
            .next()
            .is_some_and(|l| l.starts_with("frame,start_ms,"))
            && lines
                .next()
                .is_some_and(|l| l.starts_with("# not paced: another frame limiter is active")),
        "the log {}: {text:?}\n{output}",
        csv.display()
    );
    Ok(())
}
