//! `vkpace-bench`: the pacing benchmark. Simulated scenarios under every policy (exact, seeded
//! figures), then the real driver: the demo's frame limiter and vkpace's own CPU cost per frame
//! against a textbook loop measured in the same run, pacing over the virtual display, and
//! pacing to the display with present timing (`pacing_display.rs`). Writes a JSON report, a
//! markdown table of ratios to the textbook loop and PNG plots of the load-step scenario.
//! `scripts/bench` builds and runs it; `--help` lists the flags.

mod cpu_guard;
mod cpu_time;
mod driver_meter;
mod instructions;
mod overhead;
mod pacing_display;
mod pacing_loops;
mod pacing_vdisplay;
mod plots;
mod real_driver;
mod sim_matrix;
mod textbook_objects;
mod timer_baseline;

use vkpace_demo::{frame_history, renderer, vulkan_context};
use vkpace_sim::{pacing as sim, scenarios};

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::Parser;

use real_driver::{median_intervals, Intervals};

#[derive(Parser, Debug)]
#[command(about = "vkpace pacing benchmark: simulation matrix, frame limiter and CPU overhead")]
struct Args {
    /// Write the JSON report here (the markdown table and plots go beside it).
    #[arg(long, required_unless_present = "instructions_child")]
    json: Option<PathBuf>,
    /// Repetitions of every real-driver measurement (figures are medians).
    #[arg(long, default_value_t = 5)]
    reps: usize,
    /// Frames per real-driver run (default 600, and 1000 for the pacing-to-display comparison,
    /// whose 30 fps runs need that many intervals to show a rare miss).
    #[arg(long)]
    frames: Option<u64>,
    /// Run only the pacing-to-display comparison (present timing against the CPU limiter, the
    /// display policy against the textbook FIFO loop); the report holds just that section.
    #[arg(long)]
    only_display: bool,
    /// The demo binary (default: `vkpace-demo` beside this one).
    #[arg(long)]
    demo: Option<PathBuf>,
    /// Exit with status 1 when an acceptance threshold is missed (and count instructions per
    /// frame under callgrind for the CPU guard's report).
    #[arg(long)]
    check: bool,
    /// Count the CPU guard's instructions per frame under callgrind without `--check`.
    #[arg(long)]
    instructions: bool,
    /// Run only the CPU guard (both loops interleaved, and the instruction counts); the report
    /// holds just that section.
    #[arg(long)]
    only_cpu: bool,
    /// Internal: run one loop alone under callgrind (`textbook` or `vkpace`, `--frames`).
    #[arg(long, hide = true)]
    instructions_child: Option<String>,
}

/// Frames per real-driver run unless `--frames` says otherwise.
const FRAMES: u64 = 600;
/// Frames per run of the pacing-to-display comparison unless `--frames` says otherwise: at
/// 30 fps about 940 shown intervals a run after the warm-up.
const DISPLAY_FRAMES: u64 = 1000;

struct Verdicts {
    lines: String,
    failed: usize,
}

impl Verdicts {
    /// Verdicts (`Some(ok)`) and information lines (`None`).
    fn record(&mut self, lines: Vec<(Option<bool>, String)>) {
        for (ok, what) in lines {
            match ok {
                Some(ok) => self.check(ok, what),
                None => {
                    let _ = writeln!(self.lines, "  [info] {what}");
                }
            }
        }
    }

    fn check(&mut self, ok: bool, what: String) {
        let _ = writeln!(
            self.lines,
            "  [{}] {what}",
            if ok { "ok" } else { "MISSED" }
        );
        if !ok {
            self.failed += 1;
        }
    }
}

fn intervals_json(i: &Intervals, runs: usize) -> String {
    format!(
        "{{\"interval_ms_mean\": {:.4}, \"interval_ms_stddev\": {:.4}, \"interval_ms_p99\": {:.4}, \
         \"fps\": {:.2}, \"runs\": {runs}}}",
        i.mean, i.stddev, i.p99, i.fps
    )
}

/// `--only-display`: the pacing-to-display comparison alone, its report
/// (`{"real": {"pacing_to_display": ...}}`), `bench.md` and verdicts; for working on present
/// timing without waiting for the rest of the benchmark.
fn display_only(
    reps: usize,
    frames: u64,
    out_dir: &std::path::Path,
    json_path: &std::path::Path,
    check: bool,
) -> Result<()> {
    let display = pacing_display::compare(reps, frames, out_dir)?;
    let mut verdicts = Verdicts {
        lines: String::new(),
        failed: 0,
    };
    for (ok, what) in display.checks() {
        verdicts.check(ok, what);
    }
    let json = format!(
        "{{\n  \"real\": {{\n    \"pacing_to_display\": {}\n  }}\n}}\n",
        display.json()
    );
    std::fs::write(json_path, json).with_context(|| format!("writing {}", json_path.display()))?;
    let md_path = out_dir.join("bench.md");
    let md = display.markdown();
    std::fs::write(&md_path, &md)?;
    println!("{md}\nAcceptance thresholds:\n{}", verdicts.lines);
    println!("wrote {}, {}", json_path.display(), md_path.display());
    if check && verdicts.failed > 0 {
        anyhow::bail!("{} threshold(s) missed", verdicts.failed);
    }
    Ok(())
}

/// `--only-cpu`: the CPU guard alone, its report (`{"real": {"overhead": ...}}`) and verdicts.
fn cpu_only(
    reps: usize,
    frames: u64,
    out_dir: &std::path::Path,
    json_path: &std::path::Path,
    args: &Args,
) -> Result<()> {
    let guard = cpu_guard::measure(reps, frames, out_dir, args.check || args.instructions)?;
    let mut verdicts = Verdicts {
        lines: String::new(),
        failed: 0,
    };
    verdicts.record(guard.checks());
    let json = format!(
        "{{\n  \"real\": {{\n    \"overhead\": {}\n  }}\n}}\n",
        guard.json()
    );
    std::fs::write(json_path, json).with_context(|| format!("writing {}", json_path.display()))?;
    println!(
        "| measure | value |\n|---|---|\n{}\nAcceptance thresholds:\n{}",
        guard.markdown_rows(),
        verdicts.lines
    );
    if args.check && verdicts.failed > 0 {
        anyhow::bail!("{} threshold(s) missed", verdicts.failed);
    }
    Ok(())
}

fn main() -> Result<()> {
    // A worker process of the pacing comparison (the virtual display's loader environment).
    if let Some(outcome) = pacing_vdisplay::worker_if_asked() {
        return outcome;
    }
    if let Some(outcome) = pacing_display::worker_if_asked() {
        return outcome;
    }
    let args = Args::parse();
    if let Some(which) = args.instructions_child.as_deref() {
        let frames = args.frames.unwrap_or(instructions::FRAMES);
        return overhead::run_alone(which == "vkpace", frames);
    }
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        let dir = std::env::temp_dir().join(format!("vkpace-bench-xdg-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
    let json_path = args.json.clone().context("--json is required")?;
    let reps = args.reps.max(1);
    let out_dir = json_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), PathBuf::from);
    std::fs::create_dir_all(&out_dir)?;
    let demo = match &args.demo {
        Some(d) => d.clone(),
        None => std::env::current_exe()?
            .parent()
            .context("bench binary has no directory")?
            .join("vkpace-demo"),
    };
    let mut verdicts = Verdicts {
        lines: String::new(),
        failed: 0,
    };
    if args.only_display {
        let frames = args.frames.unwrap_or(DISPLAY_FRAMES);
        return display_only(reps, frames, &out_dir, &json_path, args.check);
    }
    if args.only_cpu {
        return cpu_only(
            reps,
            args.frames.unwrap_or(FRAMES),
            &out_dir,
            &json_path,
            &args,
        );
    }
    let frames = args.frames.unwrap_or(FRAMES);

    // --- simulation -----------------------------------------------------------------------
    eprintln!(
        "vkpace-bench: simulation (4 scenarios x 5 policies, seed {:#x})",
        scenarios::SEED
    );
    let sim = sim_matrix::run_all();
    let table = sim_matrix::markdown(&sim);
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
    let mut plot_paths = Vec::new();
    if let (Some(r), Some(s)) = (
        load_step,
        scenarios::scenarios()
            .iter()
            .find(|s| s.name == "load-step"),
    ) {
        plot_paths = plots::load_step(&out_dir, &r.frames, s.duration_ms)?;
    }

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
        limited.push(real_driver::demo_run(&demo, frames, Some(60.0), &report)?);
        floor.push(timer_baseline::run(frames, 60.0)?);
        unlimited.push(real_driver::demo_run(&demo, frames, None, &report)?);
    }
    let _ = std::fs::remove_file(&report);
    let lim = median_intervals(&limited);
    let unl = median_intervals(&unlimited);
    let base = median_intervals(&floor.iter().map(|f| f.limiter).collect::<Vec<_>>());
    let grid = median_intervals(&floor.iter().map(|f| f.plain_grid).collect::<Vec<_>>());
    let runs_sd: Vec<String> = limited.iter().map(|r| format!("{:.4}", r.stddev)).collect();
    let floor_sd: Vec<String> = floor
        .iter()
        .map(|r| format!("{:.4}", r.limiter.stddev))
        .collect();
    let grid_sd: Vec<String> = floor
        .iter()
        .map(|r| format!("{:.4}", r.plain_grid.stddev))
        .collect();
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

    // --- real driver: the CPU guard -------------------------------------------------------
    let guard = cpu_guard::measure(reps, frames, &out_dir, args.check || args.instructions)?;
    verdicts.record(guard.checks());

    // --- real driver: pacing over the virtual display --------------------------------------
    eprintln!(
        "vkpace-bench: pacing over the virtual display (gpu-bound), {} loops x {reps} runs of {} frames",
        pacing_loops::Loop::ALL.len(),
        frames
    );
    let pacing = pacing_vdisplay::compare(reps, frames, &out_dir)?;
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

    // --- real driver: pacing to the display (present timing) -------------------------------
    let display_frames = args.frames.unwrap_or(DISPLAY_FRAMES);
    let display = pacing_display::compare(reps, display_frames, &out_dir)?;
    for (ok, what) in display.checks() {
        verdicts.check(ok, what);
    }
    let sim_gpu_bound = sim
        .iter()
        .find(|r| r.name == "gpu-bound")
        .map(|r| r.rows.clone())
        .unwrap_or_default();

    // --- outputs ---------------------------------------------------------------------------
    let json = format!(
        "{{\n  \"sim\": {},\n  \"real\": {{\n    \"limit-60\": {},\n    \"timer-floor-60\": {},\n    \"timer-floor-60-plain-grid\": {},\n    \
         \"unlimited\": {},\n    \
         \"overhead\": {},\n    \
         \"pacing_over_vdisplay\": {},\n    \"pacing_to_display\": {}\n  }}\n}}\n",
        sim_matrix::json(&sim),
        intervals_json(&lim, reps),
        intervals_json(&base, reps),
        intervals_json(&grid, reps),
        intervals_json(&unl, reps),
        guard.json(),
        pacing.json(),
        display.json(),
    );
    std::fs::write(&json_path, &json)
        .with_context(|| format!("writing {}", json_path.display()))?;
    let md_path = out_dir.join("bench.md");
    let mut md =
        String::from("### Simulation (virtual time, seeded; ratios to the textbook loop)\n\n");
    md.push_str(&table);
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
        runs_sd.join(", "),
        base.mean, base.stddev, base.p99,
        floor_sd.join(", "),
        grid.mean, grid.stddev, grid.p99,
        grid_sd.join(", "),
        unl.mean, unl.stddev, unl.p99, unl.fps,
        guard.markdown_rows(),
    );
    md.push_str(&pacing.markdown(&sim_gpu_bound));
    md.push_str(&display.markdown());
    std::fs::write(&md_path, &md)?;
    println!("{md}\nAcceptance thresholds:\n{}", verdicts.lines);
    println!("wrote {}, {}", json_path.display(), md_path.display());
    for p in &plot_paths {
        println!("wrote {}", p.display());
    }
    if args.check && verdicts.failed > 0 {
        anyhow::bail!("{} threshold(s) missed", verdicts.failed);
    }
    Ok(())
}
