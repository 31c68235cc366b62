//! The full benchmark run (no `--only-*` flag): its sections measured in order, each one's
//! verdicts recorded, and its JSON report and markdown table.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::real_driver::{median_intervals, Intervals};
use crate::{
    cpu_guard, pacing_display, pacing_loops, pacing_vdisplay, plots, real_driver, scenarios, sim,
    sim_matrix, timer_baseline, Args, Verdicts, DISPLAY_FRAMES,
};

/// Everything the full run measures, kept for its JSON report and markdown table.
pub struct FullRun {
    pub sim: SimSection,
    limiter: LimiterSection,
    guard: cpu_guard::CpuGuard,
    pacing: pacing_vdisplay::Comparison,
    display: pacing_display::DisplayComparison,
}

/// The full run's measurements in their order (simulation, frame limiter, CPU guard, pacing
/// over the virtual display, pacing to the display), each section's verdicts into `verdicts`.
pub fn measure_all(
    args: &Args,
    demo: &Path,
    reps: usize,
    frames: u64,
    out_dir: &Path,
    verdicts: &mut Verdicts,
) -> Result<FullRun> {
    let sim = simulation(out_dir, verdicts)?;
    let limiter = frame_limiter(demo, reps, frames, out_dir, verdicts)?;

    // --- real driver: the CPU guard -------------------------------------------------------
    let guard = cpu_guard::measure(reps, frames, out_dir, args.check || args.instructions)?;
    verdicts.record(guard.checks());

    let pacing = pacing_over_vdisplay(reps, frames, out_dir, verdicts)?;

    // --- real driver: pacing to the display (present timing) -------------------------------
    let display_frames = args.frames.unwrap_or(DISPLAY_FRAMES);
    let display = pacing_display::compare(reps, display_frames, out_dir)?;
    for (ok, what) in display.checks() {
        verdicts.check(ok, what);
    }
    Ok(FullRun {
        sim,
        limiter,
        guard,
        pacing,
        display,
    })
}

/// The simulation's results, its markdown table and the load-step plots written.
pub struct SimSection {
    results: Vec<sim_matrix::ScenarioResult>,
    table: String,
    pub plot_paths: Vec<PathBuf>,
}

/// Runs the simulated scenarios under every policy, records their verdicts and plots the
/// load-step scenario into `out_dir`.
fn simulation(out_dir: &Path, verdicts: &mut Verdicts) -> Result<SimSection> {
    // --- simulation -----------------------------------------------------------------------
    eprintln!(
        "vkpace-bench: simulation (4 scenarios x 5 policies, seed {:#x})",
        scenarios::SEED
    );
    let sim = sim_matrix::run_all();
    let table = sim_matrix::markdown(&sim);
    check_simulation(&sim, verdicts);
    let load_step = sim.iter().find(|r| r.name == "load-step");
    let mut plot_paths = Vec::new();
    if let (Some(r), Some(s)) = (
        load_step,
        scenarios::scenarios()
            .iter()
            .find(|s| s.name == "load-step"),
    ) {
        plot_paths = plots::load_step(out_dir, &r.frames, s.duration_ms)?;
    }
    Ok(SimSection {
        results: sim,
        table,
        plot_paths,
    })
}

/// The simulation's acceptance checks: low latency against the textbook loop when GPU-bound,
/// convergence after each load step, no drop below 60 fps under FIFO.
fn check_simulation(sim: &[sim_matrix::ScenarioResult], verdicts: &mut Verdicts) {
    let find = |scenario: &str, policy: &str| {
        sim.iter()
            .find(|r| r.name == scenario)
            .and_then(|r| r.rows.iter().find(|(p, _)| p == policy))
            .map(|(_, s)| *s)
    };
    if let (Some(t), Some(l)) = (
        find("gpu-bound", "textbook"),
        find("gpu-bound", "low-latency"),
    ) {
        let (lat, fps) = (l.latency_ms_p50 / t.latency_ms_p50, l.fps / t.fps);
        verdicts.check(
            lat <= 0.5,
            format!("gpu-bound: low-latency latency p50 {lat:.3}x textbook (at most 0.5x)"),
        );
        verdicts.check(
            fps >= 0.95,
            format!("gpu-bound: low-latency fps {fps:.3}x textbook (at least 0.95x)"),
        );
    }
    let load_step = sim.iter().find(|r| r.name == "load-step");
    if let Some(r) = load_step {
        if let Some((_, frames)) = r.frames.iter().find(|(p, _)| *p == sim::Policy::LowLatency) {
            for (i, c) in scenarios::convergence_ms(frames).iter().enumerate() {
                verdicts.check(
                    c.is_some_and(|ms| ms <= 1_000.0),
                    format!(
                        "load-step: low-latency settles {c:?} ms after step {} (within 1000)",
                        i + 1
                    ),
                );
            }
        }
    }
    if let Some(r) = sim.iter().find(|r| r.name == "fifo-60hz") {
        for (p, s) in &r.rows {
            verdicts.check(
                s.fps >= 59.9,
                format!("fifo-60hz: {p} at {:.2} fps (no drop below 60)", s.fps),
            );
        }
    }
}

/// The frame limiter's figures: medians of the limited and unlimited demo runs and of the
/// timer floor, and the per-run standard deviations the markdown lists.
struct LimiterSection {
    lim: Intervals,
    unl: Intervals,
    base: Intervals,
    grid: Intervals,
    runs_sd: Vec<String>,
    floor_sd: Vec<String>,
    grid_sd: Vec<String>,
}

/// Runs the headless demo with and without `--fps 60` and the timer floor, `reps` times each
/// interleaved, and records the limiter's verdicts.
fn frame_limiter(
    demo: &Path,
    reps: usize,
    frames: u64,
    out_dir: &Path,
    verdicts: &mut Verdicts,
) -> Result<LimiterSection> {
    // --- real driver: the frame limiter ----------------------------------------------------
    eprintln!(
        "vkpace-bench: real driver, demo headless {} frames x {reps}, with and without --fps 60",
        frames
    );
    let report = out_dir.join("demo-report.json");
    let mut limited = Vec::new();
    let mut unlimited = Vec::new();
    let mut floor = Vec::new();
    for _ in 0..reps {
        limited.push(real_driver::demo_run(demo, frames, Some(60.0), &report)?);
        floor.push(timer_baseline::run(frames, 60.0)?);
        unlimited.push(real_driver::demo_run(demo, frames, None, &report)?);
    }
    let _ = std::fs::remove_file(&report);
    let section = LimiterSection {
        lim: median_intervals(&limited),
        unl: median_intervals(&unlimited),
        base: median_intervals(&floor.iter().map(|f| f.limiter).collect::<Vec<_>>()),
        grid: median_intervals(&floor.iter().map(|f| f.plain_grid).collect::<Vec<_>>()),
        runs_sd: limited.iter().map(|r| format!("{:.4}", r.stddev)).collect(),
        floor_sd: floor
            .iter()
            .map(|r| format!("{:.4}", r.limiter.stddev))
            .collect(),
        grid_sd: floor
            .iter()
            .map(|r| format!("{:.4}", r.plain_grid.stddev))
            .collect(),
    };
    check_limiter(&section.lim, verdicts);
    Ok(section)
}

/// The limiter's acceptance checks on the median `--fps 60` intervals.
fn check_limiter(lim: &Intervals, verdicts: &mut Verdicts) {
    let target = 1000.0 / 60.0;
    verdicts.check(
        ((lim.mean - target) / target).abs() <= 0.005,
        format!(
            "limit-60: mean interval {:.4} ms (within 0.5% of {target:.3})",
            lim.mean
        ),
    );
    verdicts.check(
        lim.stddev <= 0.05,
        format!("limit-60: interval sd {:.4} ms (at most 0.05)", lim.stddev),
    );
    verdicts.check(
        lim.p99 <= 16.8,
        format!("limit-60: interval p99 {:.4} ms (at most 16.8)", lim.p99),
    );
}

/// Compares the pacing loops over the virtual display (GPU-bound) and records their verdicts
/// and information lines.
fn pacing_over_vdisplay(
    reps: usize,
    frames: u64,
    out_dir: &Path,
    verdicts: &mut Verdicts,
) -> Result<pacing_vdisplay::Comparison> {
    // --- real driver: pacing over the virtual display --------------------------------------
    eprintln!(
        "vkpace-bench: pacing over the virtual display (gpu-bound), {} loops x {reps} runs of {} frames",
        pacing_loops::Loop::ALL.len(),
        frames
    );
    let pacing = pacing_vdisplay::compare(reps, frames, out_dir)?;
    let (lat_x, fps_x) = pacing.ratios_to_textbook(pacing_loops::Loop::LOW_LATENCY);
    verdicts.check(
        lat_x <= 0.6,
        format!("vdisplay gpu-bound: low-latency start-to-shown p50 {lat_x:.3}x textbook (at most 0.6x)"),
    );
    verdicts.check(
        fps_x >= 0.95,
        format!("vdisplay gpu-bound: low-latency fps {fps_x:.3}x textbook (at least 0.95x)"),
    );
    for l in [
        pacing_loops::Loop::LOW_LATENCY_TIMED,
        pacing_loops::Loop::LOW_LATENCY_TIMED_BLIND,
    ] {
        let (lat, fps) = pacing.ratios_to_textbook(l);
        let _ = writeln!(
            verdicts.lines,
            "  [info] vdisplay gpu-bound: {}: start-to-shown p50 {lat:.3}x textbook, fps {fps:.3}x",
            l.name()
        );
    }
    Ok(pacing)
}

/// The full run's JSON report.
pub fn json(all: &FullRun, reps: usize) -> String {
    let l = &all.limiter;
    format!(
        "{{\n  \"sim\": {},\n  \"real\": {{\n    \"limit-60\": {},\n    \"timer-floor-60\": {},\n    \"timer-floor-60-plain-grid\": {},\n    \
         \"unlimited\": {},\n    \
         \"overhead\": {},\n    \
         \"pacing_over_vdisplay\": {},\n    \"pacing_to_display\": {}\n  }}\n}}\n",
        sim_matrix::json(&all.sim.results),
        intervals_json(&l.lim, reps),
        intervals_json(&l.base, reps),
        intervals_json(&l.grid, reps),
        intervals_json(&l.unl, reps),
        all.guard.json(),
        all.pacing.json(),
        all.display.json(),
    )
}

/// The full run's markdown (`bench.md`): the simulation table, then the real driver's.
pub fn markdown(all: &FullRun, reps: usize, frames: u64) -> String {
    let sim_gpu_bound = all
        .sim
        .results
        .iter()
        .find(|r| r.name == "gpu-bound")
        .map(|r| r.rows.clone())
        .unwrap_or_default();
    let (l, guard) = (&all.limiter, &all.guard);
    let (lim, base, grid, unl) = (&l.lim, &l.base, &l.grid, &l.unl);
    let mut md =
        String::from("### Simulation (virtual time, seeded; ratios to the textbook loop)\n\n");
    md.push_str(&all.sim.table);
    let _ = write!(
        md,
        "\n### Real driver (lavapipe, medians of {reps} runs of {} frames)\n\n\
         | measure | value |\n|---|---|\n\
         | `--fps 60` interval mean / sd / p99 | {:.4} / {:.4} / {:.4} ms |\n\
         | `--fps 60` interval sd of each run | {} ms |\n\
         | timer floor (the limiter's grid and sleep, no Vulkan): mean / sd / p99 | {:.4} / {:.4} / {:.4} ms |\n\
         | timer floor sd of each run | {} ms |\n\
         | the floor's stalls replayed on a plain grid (catching up at once): mean / sd / p99 | {:.4} / {:.4} / {:.4} ms |\n\
         | plain-grid replay sd of each run | {} ms |\n\
         | unlimited interval mean / sd / p99 | {:.4} / {:.4} / {:.4} ms ({:.0} fps) |\n{}",
        frames,
        lim.mean, lim.stddev, lim.p99,
        l.runs_sd.join(", "),
        base.mean, base.stddev, base.p99,
        l.floor_sd.join(", "),
        grid.mean, grid.stddev, grid.p99,
        l.grid_sd.join(", "),
        unl.mean, unl.stddev, unl.p99, unl.fps,
        guard.markdown_rows(),
    );
    md.push_str(&all.pacing.markdown(&sim_gpu_bound));
    md.push_str(&all.display.markdown());
    md
}

fn intervals_json(i: &Intervals, runs: usize) -> String {
    format!(
        "{{\"interval_ms_mean\": {:.4}, \"interval_ms_stddev\": {:.4}, \"interval_ms_p99\": {:.4}, \
         \"fps\": {:.2}, \"runs\": {runs}}}",
        i.mean, i.stddev, i.p99, i.fps
    )
}
