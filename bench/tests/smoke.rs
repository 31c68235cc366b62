//! The benchmark's smoke runs: one repetition of 120 frames writes every output with every field
//! the README and docs/performance.md promise, and a short `--only-repair` run writes the
//! second door's repair cost. Their figures are not judged here (one short repetition says
//! nothing); `vkpace-bench --check` judges the benchmark's.
//!
//! An integration test rather than a step of `scripts/test`, so that the benchmark binary is
//! built by the suite's one test build, with the same dependency features (a separate
//! `cargo build --bins` rebuilt a few dependencies for the binary alone).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{ensure, Context as _, Result};

/// Keys of bench.json a reader relies on.
const KEYS: [&str; 34] = [
    "sim",
    "gpu-bound",
    "cpu-bound",
    "load-step",
    "fifo-60hz",
    "textbook",
    "frames-2",
    "frames-1",
    "low-latency",
    "limit-60",
    "latency_ms_p50",
    "latency_ms_p99",
    "fps",
    "interval_ms_stddev",
    "real",
    "interval_ms_mean",
    "interval_ms_p99",
    "overhead",
    "vkpace_cpu_us_per_frame",
    "textbook_cpu_us_per_frame",
    "loop_cpu_ratio",
    "textbook_self_ratio",
    "pacing_to_display",
    "idle",
    "busy",
    "fps30-present-timing",
    "fps30-cpu-limiter",
    "fps60-present-timing",
    "fps60-cpu-limiter",
    "display-policy",
    "textbook-fifo",
    "refreshes_2",
    "not_ready",
    "off_target_ready",
];

/// The other files of a run, each non-empty.
const FILES: [&str; 3] = [
    "bench.md",
    "load-step-latency.png",
    "load-step-interval.png",
];

/// Runs `vkpace-bench` with `args` and `--json <dir>/<json>` in a fresh `dir` under the test's
/// temporary folder; its output goes to `<dir>/bench.log`. Fails unless it exits 0; returns the
/// folder and the JSON text.
fn run_bench(dir: &str, json: &str, args: &[&str]) -> Result<(PathBuf, String)> {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(dir);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out)?;
    let json = out.join(json);
    let run = Command::new(env!("CARGO_BIN_EXE_vkpace-bench"))
        .args(args)
        .arg("--json")
        .arg(&json)
        .output()
        .with_context(|| format!("running vkpace-bench {args:?}"))?;
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    std::fs::write(out.join("bench.log"), &log)?;
    ensure!(run.status.success(), "vkpace-bench {args:?} failed:\n{log}");
    let text = std::fs::read_to_string(&json)?;
    Ok((out, text))
}

#[test]
fn a_short_run_writes_every_output_with_every_field() -> Result<()> {
    let (out, text) = run_bench(
        "bench-smoke",
        "bench.json",
        &["--reps", "1", "--frames", "120"],
    )?;
    let missing: Vec<&str> = KEYS
        .iter()
        .copied()
        .filter(|k| !text.contains(&format!("\"{k}\"")))
        .collect();
    ensure!(missing.is_empty(), "bench.json lacks {missing:?}");
    for f in FILES {
        let len = std::fs::metadata(out.join(f)).map_or(0, |m| m.len());
        ensure!(len > 0, "the benchmark did not write {f}");
    }
    println!("smoke run wrote {} and {FILES:?}", out.display());
    Ok(())
}

/// The second door's repair cost (`--only-repair`): one short repetition writes both figures
/// (CPU per present with repair on and off) and their ratio, each a positive number.
#[test]
fn the_repair_cost_run_writes_both_figures() -> Result<()> {
    let (_, text) = run_bench(
        "bench-smoke-repair",
        "repair.json",
        &["--only-repair", "--reps", "1", "--frames", "60"],
    )?;
    for key in ["repair_on_us", "repair_off_us", "ratio"] {
        let value: f64 = text
            .split(&format!("\"{key}\":"))
            .nth(1)
            .and_then(|rest| rest.split([',', '}']).next())
            .and_then(|v| v.trim().parse().ok())
            .with_context(|| format!("{key} missing in {text}"))?;
        ensure!(value > 0.0, "{key} is {value} in {text}");
    }
    Ok(())
}
