//! `vkpace-bench`: the pacing benchmark. Simulated scenarios under every policy (exact, seeded
//! figures), then the real driver: the demo's frame limiter and vkpace's own CPU cost per frame
//! against a textbook loop measured in the same run, pacing over the virtual display, and
//! pacing to the display with present timing (`pacing_display.rs`). Writes a JSON report, a
//! markdown table of ratios to the textbook loop and PNG plots of the load-step scenario.
//! `scripts/bench` builds and runs it; `--help` lists the flags.

mod cpu_guard;
mod cpu_load;
mod cpu_time;
mod driver_meter;
mod full_run;
mod instructions;
mod layer_figures;
mod layer_peers;
mod layer_report;
mod overhead;
mod pacing_display;
mod pacing_loops;
mod pacing_vdisplay;
mod plots;
mod real_driver;
mod repair_cost;
mod sim_matrix;
mod textbook_objects;
mod timer_baseline;

use vkpace_demo::{frame_history, renderer, vulkan_context};
use vkpace_sim::{pacing as sim, scenarios};

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::Parser;

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
    /// Exit with status 1 when an acceptance threshold is missed (and count instructions and
    /// L1 lines missed per frame under callgrind: the CPU guard's verdicts).
    #[arg(long)]
    check: bool,
    /// Count the CPU guard's instructions per frame under callgrind without `--check`.
    #[arg(long)]
    instructions: bool,
    /// Run only the CPU guard (both loops interleaved, and the instruction counts); the report
    /// holds just that section.
    #[arg(long)]
    only_cpu: bool,
    /// Run only the present pacer's repair cost (CPU per present with present-semaphore repair
    /// on and off, interleaved in one run); the report holds just that section.
    #[arg(long)]
    only_repair: bool,
    /// Run only the drop-in limiters on vkcube (MangoHud's `fps_limit` early and late,
    /// vkpace's pacing layer, uncapped) over the virtual display; needs Debian sid's root file
    /// system (`scripts/bench-layers`). The report holds just that section.
    #[arg(long)]
    only_layers: bool,
    /// Internal: run one loop alone under callgrind (`textbook` or `vkpace`, `--frames`).
    #[arg(long, hide = true)]
    instructions_child: Option<String>,
}

/// Frames per real-driver run unless `--frames` says otherwise.
const FRAMES: u64 = 600;
/// Frames per run of the pacing-to-display comparison unless `--frames` says otherwise: at
/// 30 fps about 940 shown intervals a run after the warm-up.
const DISPLAY_FRAMES: u64 = 1000;

/// Frames per run of the layer comparison unless `--frames` says otherwise: at 30 fps about
/// 570 shown intervals a run after the warm-up.
const LAYER_FRAMES: u64 = 600;

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
    let section = Section {
        name: "pacing_to_display",
        json: display.json(),
        markdown: display.markdown(),
        md_file: "bench.md",
        checks: display.checks(),
    };
    section.write(out_dir, json_path, check)
}

/// `--only-layers`: the drop-in limiters side by side, the report
/// (`{"real": {"layers": ...}}`), `layers.md` and verdicts.
fn layers_only(
    reps: usize,
    frames: u64,
    out_dir: &std::path::Path,
    json_path: &std::path::Path,
    args: &Args,
) -> Result<()> {
    let layers = layer_peers::compare(reps, frames, out_dir, &demo_binary(args)?)?;
    let section = Section {
        name: "layers",
        json: layers.json(),
        markdown: layers.markdown(),
        md_file: "layers.md",
        checks: layers.checks(),
    };
    section.write(out_dir, json_path, args.check)
}

/// The outputs of a benchmark section run alone.
struct Section {
    /// Its key in the report: `{"real": {NAME: ...}}`.
    name: &'static str,
    json: String,
    markdown: String,
    /// The markdown file beside the report.
    md_file: &'static str,
    checks: Vec<(bool, String)>,
}

impl Section {
    /// Writes the report and the markdown (with the verdicts), prints both; under `check`,
    /// a missed verdict is an error.
    fn write(
        self,
        out_dir: &std::path::Path,
        json_path: &std::path::Path,
        check: bool,
    ) -> Result<()> {
        let mut verdicts = Verdicts {
            lines: String::new(),
            failed: 0,
        };
        for (ok, what) in self.checks {
            verdicts.check(ok, what);
        }
        let json = format!(
            "{{\n  \"real\": {{\n    \"{}\": {}\n  }}\n}}\n",
            self.name, self.json
        );
        std::fs::write(json_path, json)
            .with_context(|| format!("writing {}", json_path.display()))?;
        let md_path = out_dir.join(self.md_file);
        let md = format!(
            "{}\nAcceptance thresholds:\n{}",
            self.markdown, verdicts.lines
        );
        std::fs::write(&md_path, &md)?;
        println!("{md}");
        println!("wrote {}, {}", json_path.display(), md_path.display());
        if check && verdicts.failed > 0 {
            anyhow::bail!("{} threshold(s) missed", verdicts.failed);
        }
        Ok(())
    }
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
    ensure_runtime_dir()?;
    let json_path = args.json.clone().context("--json is required")?;
    let reps = args.reps.max(1);
    let out_dir = report_dir(&json_path);
    std::fs::create_dir_all(&out_dir)?;
    let demo = demo_binary(&args)?;
    if let Some(outcome) = one_section(&args, reps, &out_dir, &json_path) {
        return outcome;
    }
    let frames = args.frames.unwrap_or(FRAMES);
    let mut verdicts = Verdicts {
        lines: String::new(),
        failed: 0,
    };
    let all = full_run::measure_all(&args, &demo, reps, frames, &out_dir, &mut verdicts)?;

    // --- outputs ---------------------------------------------------------------------------
    std::fs::write(&json_path, full_run::json(&all, reps))
        .with_context(|| format!("writing {}", json_path.display()))?;
    let md_path = out_dir.join("bench.md");
    let md = full_run::markdown(&all, reps, frames);
    std::fs::write(&md_path, &md)?;
    println!("{md}\nAcceptance thresholds:\n{}", verdicts.lines);
    println!("wrote {}, {}", json_path.display(), md_path.display());
    for p in &all.sim.plot_paths {
        println!("wrote {}", p.display());
    }
    if args.check && verdicts.failed > 0 {
        anyhow::bail!("{} threshold(s) missed", verdicts.failed);
    }
    Ok(())
}

/// The section an `--only-*` flag asks for, run alone; `None` for the whole benchmark.
fn one_section(
    args: &Args,
    reps: usize,
    out_dir: &std::path::Path,
    json_path: &std::path::Path,
) -> Option<Result<()>> {
    let frames = |default| args.frames.unwrap_or(default);
    if args.only_display {
        return Some(display_only(
            reps,
            frames(DISPLAY_FRAMES),
            out_dir,
            json_path,
            args.check,
        ));
    }
    if args.only_layers {
        return Some(layers_only(
            reps,
            frames(LAYER_FRAMES),
            out_dir,
            json_path,
            args,
        ));
    }
    if args.only_repair {
        return Some(repair_only(reps, frames(FRAMES), json_path));
    }
    if args.only_cpu {
        return Some(cpu_only(reps, frames(FRAMES), out_dir, json_path, args));
    }
    None
}

/// `--only-repair`: the present pacer's repair cost alone.
fn repair_only(reps: usize, frames: u64, json_path: &std::path::Path) -> Result<()> {
    let runs = repair_cost::measure(frames, reps)?;
    std::fs::write(json_path, repair_cost::json(&runs))
        .with_context(|| format!("writing {}", json_path.display()))?;
    println!("{}", repair_cost::markdown(&runs));
    Ok(())
}

/// Gives Mesa's WSI the `XDG_RUNTIME_DIR` it wants when the environment has none: a private
/// directory under the temporary one.
fn ensure_runtime_dir() -> Result<()> {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        let dir = std::env::temp_dir().join(format!("vkpace-bench-xdg-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        std::env::set_var("XDG_RUNTIME_DIR", &dir);
    }
    Ok(())
}

/// The directory of the JSON report, where the markdown table and plots go too (`.` when
/// the path names no directory).
fn report_dir(json_path: &std::path::Path) -> PathBuf {
    json_path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), PathBuf::from)
}

/// The demo binary that the frame limiter runs use: `--demo`, or `vkpace-demo` beside this
/// binary.
fn demo_binary(args: &Args) -> Result<PathBuf> {
    Ok(match &args.demo {
        Some(d) => d.clone(),
        None => std::env::current_exe()?
            .parent()
            .context("bench binary has no directory")?
            .join("vkpace-demo"),
    })
}
