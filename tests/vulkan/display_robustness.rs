//! Present timing against presentation engines that are not vdisplay's default, each a case an
//! independent `VK_EXT_present_timing` engine showed (issue 40): a refresh of 1 ns from an
//! engine with no refresh limit, a refresh of 0 or `UINT64_MAX`, a variable refresh, results in
//! a time domain the application was never offered, relative targets counted from the last
//! visible time, and a device with present timing but only the EXT calibrated-timestamps
//! extension. Each runs the demo over the virtual display with a 30 fps limit, under
//! validation, and judges vkpace's decisions: the path its report names, the targets its presents carried (vdisplay's present
//! log, the neutral witness), the report's refresh and counters, and, where the CPU limiter
//! keeps the limit, the mean shown interval by the display's own clock.

use crate::demo_process;

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context as _, Result};
use demo_process::{json_number, run_demo_with_env};

/// The limit every case runs at, and its interval, ms.
const FPS: &str = "30";
const INTERVAL_MS: f64 = 1e3 / 30.0;
/// The virtual display's default period, ms (60 Hz).
const REFRESH_MS: f64 = 1e3 / 60.0;
/// Shown frames left out at the start (the swapchain and the schedule settle).
const SETTLE: usize = 8;
/// How many limit intervals a run on the CPU limiter's own clock may fall short of the limit
/// in all ([`check_no_grid`]): the first judged frame's lag behind its slot (under one
/// interval, or the grid re-anchors later) and the difference between two frames' start to
/// shown (under two on any machine that shows the frames at all).
const UNDER_INTERVALS: f64 = 3.0;

/// One present of vdisplay's log.
#[derive(Debug, Clone, Copy)]
struct Present {
    ready_ns: Option<u64>,
    shown_ns: Option<u64>,
    /// Whether it carried a target, absolute or relative.
    targeted: bool,
    /// Its relative target, ns, if it carried one.
    relative_ns: Option<u64>,
}

/// A number field of one log line (null or missing: None).
fn log_field(line: &str, key: &str) -> Option<u64> {
    let rest = line.split(&format!("\"{key}\":")).nth(1)?;
    rest.split([',', '}']).next()?.trim().parse().ok()
}

fn presents(log: &Path) -> Result<Vec<Present>> {
    let text = std::fs::read_to_string(log).with_context(|| format!("{}", log.display()))?;
    Ok(text
        .lines()
        .map(|l| Present {
            ready_ns: log_field(l, "ready_ns"),
            shown_ns: log_field(l, "shown_ns"),
            targeted: log_field(l, "target_ns").is_some() || log_field(l, "relative_ns").is_some(),
            relative_ns: log_field(l, "relative_ns"),
        })
        .collect())
}

/// A string field of the report's present timing section (null: None).
fn text_field<'a>(section: &'a str, key: &str) -> Option<&'a str> {
    let rest = section.split(&format!("\"{key}\": ")).nth(1)?;
    rest.strip_prefix('"')?.split('"').next()
}

/// One run: the report's present timing section, the display's log and the demo's stderr.
struct Run {
    timing: String,
    presents: Vec<Present>,
    stderr: String,
}

impl Run {
    fn shown(&self) -> Vec<u64> {
        self.presents.iter().filter_map(|p| p.shown_ns).collect()
    }

    fn targeted(&self) -> usize {
        self.presents.iter().filter(|p| p.targeted).count()
    }

    /// The mean interval between shown frames after [`SETTLE`], ms.
    fn mean_interval_ms(&self) -> Result<f64> {
        let shown = self.shown();
        ensure!(shown.len() > SETTLE + 40, "{} frames shown", shown.len());
        let s = &shown[SETTLE..];
        Ok((s[s.len() - 1] - s[0]) as f64 / 1e6 / (s.len() - 1) as f64)
    }
}

/// The median of `v` (not empty).
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Runs the demo (`frames` at the 30 fps limit) over the virtual display with `settings`.
fn run(name: &str, frames: &str, settings: &[(&str, &str)]) -> Result<Run> {
    let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("display-robustness")
        .join(format!("{name}.log"));
    std::fs::create_dir_all(log.parent().context("log directory")?)?;
    let _ = std::fs::remove_file(&log);
    // A small display: the software renderer's frames stay short beside other work, so the
    // machine keeps up with the limit and the intervals are vkpace's.
    let mut env = vec![
        ("VDISPLAY_LOG", log.as_os_str()),
        ("VDISPLAY_EXTENT", std::ffi::OsStr::new("256x144")),
    ];
    env.extend(settings.iter().map(|(k, v)| (*k, std::ffi::OsStr::new(*v))));
    let args = ["--virtual-display", "--frames", frames, "--fps", FPS];
    let run = run_demo_with_env(None, &args, &env)?;
    ensure!(
        json_number(&run.report, "validation_messages")? == 0.0,
        "{name}: {}",
        run.summary
    );
    let timing = run
        .report
        .split("\"present_timing\": ")
        .nth(1)
        .context("no present_timing section")?
        .to_string();
    Ok(Run {
        timing,
        presents: presents(&log)?,
        stderr: run.stderr,
    })
}

/// No fixed grid: the CPU limiter paces, no present carries a target, the report gives no
/// refresh and says why, and the limit holds.
///
/// - **Never faster than the limit**, on any machine: the limiter on its own clock starts
///   every frame at or after its slot on a fixed grid, and a frame that starts more than an
///   interval late moves the grid later, never earlier. So the mean shown interval falls short
///   of the limit's only by what the first judged frame's lateness and the spread of the
///   frames' own start-to-shown times leave over the run: less than [`UNDER_INTERVALS`]
///   intervals in all. A grid that followed the engine's reports (its own output, on a display
///   with no grid) walks past that (issue 52: 32.2 to 32.6 ms at a 30 fps limit on a loaded
///   machine).
/// - **The limit kept**: within 1% of the limit's interval (plus one refresh of the display's
///   grid over the run, where it has one: a frame the CPU presents is shown at the next
///   blank). Judged when the machine kept up, that is no interval ran a quarter of the limit's
///   interval plus a refresh over it: the limiter pays a frame's lateness back gradually and
///   re-anchors its grid after a lag of a whole interval, so on a starved machine (a loaded
///   2-core machine rendering with validation in software) a long mean is the machine's, and
///   the run then says so instead.
fn check_no_grid(name: &str, r: &Run, why: &str, refresh_ms: f64) -> Result<()> {
    let t = &r.timing;
    ensure!(text_field(t, "path") == Some("cpu"), "{name}: {t}");
    ensure!(json_number(t, "swap_interval")? == 0.0, "{name}: {t}");
    ensure!(t.contains("\"refresh_ms\": null"), "{name}: {t}");
    let reason = text_field(t, "no_grid").unwrap_or("");
    ensure!(
        reason.contains(why),
        "{name}: no_grid {reason:?}, not {why:?}: {t}"
    );
    ensure!(
        r.targeted() == 0,
        "{name}: {} presents had a target",
        r.targeted()
    );
    let mean = r.mean_interval_ms()?;
    let shown = r.shown();
    let judged = (shown.len() - SETTLE - 1) as f64;
    let floor = INTERVAL_MS - (UNDER_INTERVALS * INTERVAL_MS + refresh_ms) / judged;
    ensure!(
        mean >= floor,
        "{name}: mean shown interval {mean:.3} ms, faster than the limit's {INTERVAL_MS:.3} ms (at least {floor:.3} ms over {judged} intervals)"
    );
    let stall_ms = 1.25 * INTERVAL_MS + refresh_ms;
    let stalls = shown[SETTLE..]
        .windows(2)
        .filter(|w| (w[1] - w[0]) as f64 / 1e6 > stall_ms)
        .count();
    if stalls > 0 {
        println!("{name}: {stalls} intervals over {stall_ms:.1} ms (the machine did not keep up): mean {mean:.3} ms judged only against the floor {floor:.3} ms; {t}");
        return Ok(());
    }
    let bound = INTERVAL_MS * 0.01 + refresh_ms / judged;
    ensure!(
        (mean - INTERVAL_MS).abs() <= bound,
        "{name}: mean shown interval {mean:.3} ms, not within {bound:.3} ms of {INTERVAL_MS:.3}"
    );
    println!("{name}: mean shown interval {mean:.3} ms; {t}");
    Ok(())
}

/// An engine with no refresh limit reports a refresh of 1 ns, and counts each relative target
/// from the time it showed the previous image: no grid. Its exact times are the limiter's own
/// output there, so this run is the one where a grid that followed them would walk: 600
/// frames (20 s), long enough for a walk to show past [`UNDER_INTERVALS`].
#[test]
fn a_one_nanosecond_refresh_is_no_grid() -> Result<()> {
    let settings = [
        ("VDISPLAY_REFRESH_HZ", "1000000000"),
        ("VDISPLAY_TIMING_RELATIVE_FROM", "visible"),
    ];
    let r = run("one-ns", "600", &settings)?;
    check_no_grid("one-ns", &r, "no usable refresh", 0.0)
}

/// A refresh of 0 ("not able to determine") and of `UINT64_MAX`, while the engine runs its
/// 60 Hz grid; and a variable refresh (`refreshInterval` = `UINT64_MAX`, shortest cycle the
/// display's period): no fixed grid, and the report says which.
#[test]
fn zero_max_and_variable_refreshes_are_no_fixed_grid() -> Result<()> {
    let cases: [(&str, (&str, &str), &str); 3] = [
        (
            "zero",
            ("VDISPLAY_TIMING_REFRESH_DURATION", "0"),
            "no usable refresh",
        ),
        (
            "max",
            ("VDISPLAY_TIMING_REFRESH_DURATION", "max"),
            "no usable refresh",
        ),
        (
            "variable",
            ("VDISPLAY_TIMING_REFRESH_INTERVAL", "max"),
            "variable refresh",
        ),
    ];
    // Every case runs; the failures are told together.
    let failures: Vec<String> = cases
        .into_iter()
        .filter_map(|(name, setting, why)| {
            let r = run(name, "75", &[setting]);
            r.and_then(|r| check_no_grid(name, &r, why, REFRESH_MS))
                .err()
        })
        .map(|e| format!("{e:#}"))
        .collect();
    ensure!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

/// The library's warning about results it could not map, as the demo's logger prints it.
pub const UNMAPPED_WARNING: &str =
    "warning: vkpace: present timing: results in a time domain the swapchain did not offer";

/// Results in a domain the swapchain never offered: counted in the report (every result read
/// is one), they give no frame a display time, and the library's warning reaches the user
/// once (the demo's logger; issue 50 item 5: it was counted and never printed).
#[test]
fn results_in_a_domain_never_offered_are_counted() -> Result<()> {
    let r = run(
        "foreign",
        "60",
        &[("VDISPLAY_TIMING_RESULT_DOMAIN", "foreign")],
    )?;
    let t = &r.timing;
    let results = json_number(t, "results")?;
    ensure!(results >= 30.0, "{t}");
    ensure!(json_number(t, "unmapped_results")? == results, "{t}");
    ensure!(json_number(t, "frames_shown")? == 0.0, "{t}");
    let warned = r
        .stderr
        .lines()
        .filter(|l| l.starts_with("vkpace demo: ") && l.contains(UNMAPPED_WARNING))
        .count();
    ensure!(
        warned == 1,
        "the warning printed {warned} times:\n{}",
        r.stderr
    );
    println!("foreign: {t}");
    Ok(())
}

/// On a 60 Hz grid, relative targets counted from when the engine acted on the previous image
/// (later than its blank) keep a 30 fps limit: every present asks for two refreshes (vkpace's
/// decision, in the display's log) rounded to the nearest one, so no frame is shown early and
/// a frame ready in time is shown two refreshes after the one before. Only an engine thread
/// that acted more than half a refresh late (the machine's doing) moves one a refresh later;
/// without the rounding every frame would be (three refreshes), so the median of the frames
/// ready in time is exactly two.
#[test]
fn relative_targets_from_the_visible_time_keep_the_limit_on_a_grid() -> Result<()> {
    let r = run(
        "visible-grid",
        "90",
        &[("VDISPLAY_TIMING_RELATIVE_FROM", "visible")],
    )?;
    let t = &r.timing;
    ensure!(text_field(t, "targets") == Some("relative"), "{t}");
    ensure!(text_field(t, "path") == Some("refresh-grid"), "{t}");
    ensure!(
        r.targeted() + 5 >= r.presents.len(),
        "{} of {} targeted",
        r.targeted(),
        r.presents.len()
    );
    // vdisplay reports its period rounded to the nanosecond: two of them, as vkpace asks.
    let two_refreshes = 2 * (REFRESH_MS * 1e6).round() as u64;
    for p in r.presents.iter().filter(|p| p.targeted) {
        ensure!(
            p.relative_ns == Some(two_refreshes),
            "a present asked for {:?} ns, not {two_refreshes}: {p:?}",
            p.relative_ns
        );
    }
    let shown: Vec<(u64, u64)> = r
        .presents
        .iter()
        .filter_map(|p| Some((p.ready_ns?, p.shown_ns?)))
        .collect();
    let refresh_ns = REFRESH_MS * 1e6;
    let mut in_time = Vec::new();
    for w in shown.windows(2).skip(SETTLE) {
        let refreshes = ((w[1].1 - w[0].1) as f64 / refresh_ns).round();
        ensure!(refreshes >= 2.0, "a frame shown early: {w:?} of {t}");
        if w[1].0 as f64 <= w[0].1 as f64 + 1.5 * refresh_ns {
            in_time.push(refreshes);
        }
    }
    ensure!(
        in_time.len() >= 20,
        "{} frames ready in time",
        in_time.len()
    );
    let late = in_time.iter().filter(|&&n| n != 2.0).count();
    let median = median(in_time.clone());
    ensure!(
        median == 2.0,
        "frames ready in time shown {median} refreshes apart (median; {late} of {} not 2)",
        in_time.len()
    );
    println!(
        "visible-grid: {} frames ready in time, {late} of them late; {t}",
        in_time.len()
    );
    Ok(())
}

/// A device that offers present timing but lists only `VK_EXT_calibrated_timestamps` (as
/// lavapipe does on both stacks, under a layer that adds present timing): the registry makes
/// the KHR name a dependency of `VK_EXT_present_timing`, so enabling present timing with the
/// EXT name alone is invalid (VUID-vkCreateDevice-ppEnabledExtensionNames-01387, which sid's
/// validation layer reports). vkpace declines present timing there, validation-clean, and the
/// CPU limiter paces.
#[test]
fn present_timing_without_the_khr_calibrated_timestamps_is_declined_cleanly() -> Result<()> {
    let r = run(
        "ext-calibrated",
        "45",
        &[("VDISPLAY_CALIBRATED_TIMESTAMPS", "ext")],
    )?;
    let t = &r.timing;
    ensure!(text_field(t, "targets") == Some("none"), "{t}");
    ensure!(text_field(t, "path") == Some("cpu"), "{t}");
    ensure!(json_number(t, "results")? == 0.0, "{t}");
    ensure!(r.targeted() == 0, "{} presents had a target", r.targeted());
    println!("ext-calibrated: {t}");
    Ok(())
}
