//! The simulator's `gpu-bound` pacing comparison measured for real, over the virtual display
//! (the vdisplay layer on lavapipe, where frames overlap and display times are known): the
//! textbook loop at 3 frames in flight, vkpace frames-2, frames-1 and low-latency, GPU-bound
//! through the demo's extra GPU work, presenting IMMEDIATE (the scenario's display) with 4
//! swapchain images (the scenario's count: vdisplay's `min_images` 3, plus one).
//!
//! Each run is a worker process (this binary again, `VKPACE_BENCH_PACING_WORKER` set) with the
//! loader's environment pointing at the layer and vdisplay's present log on; the latency is
//! frame start (its image in hand) to *shown* (the log's display time), the fps is shown
//! frames per second, both over the frames after a warm-up. The loops' runs alternate in a
//! rotating order within each repetition, so drifts of the machine hit all of them alike.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context as _, Result};
use vkpace_demo::virtual_display::{self, LoggedPresent};
use vkpace_sim::pacing::Summary;

use crate::pacing_loops::{self, Frames, Loop};
use crate::real_driver::{median, number};
use crate::vulkan_context::{SurfaceSource, VulkanContext};

/// Set (to `loop,frames,gpu_load,out`) in a worker's environment.
pub const WORKER_ENV: &str = "VKPACE_BENCH_PACING_WORKER";
/// The demo's `--gpu-load` units: about 11 ms of GPU work per frame at [`EXTENT`] on this
/// machine's lavapipe (the scenario's GPU takes 10 ms).
pub const GPU_LOAD: f32 = 0.35;
/// The virtual display's extent.
pub const EXTENT: &str = "640x480";
/// Frames left out at the start of each run (pipeline first use, the policies settling).
const WARMUP: usize = 60;

/// One run's figures.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunFigures {
    /// Frame start to shown (the layer's display time), p50 and p99, ms.
    pub latency_ms_p50: f64,
    pub latency_ms_p99: f64,
    /// Shown frames per second.
    pub fps: f64,
    /// GPU time per frame as the layer saw it: rendering complete minus the later of the
    /// previous frame's completion and this frame's present (p50, ms).
    pub gpu_ms_p50: f64,
    /// Measured frames, and of those shown.
    pub frames: f64,
    pub shown: f64,
    /// vkpace only (else 0): frames whose display time present-wait reported, and the
    /// start-to-displayed p50 by that time (ms; present-wait is polled once per frame).
    pub present_wait_displayed: f64,
    pub present_wait_latency_ms_p50: f64,
}

impl RunFigures {
    const KEYS: [&'static str; 8] = [
        "latency_ms_p50",
        "latency_ms_p99",
        "fps",
        "gpu_ms_p50",
        "frames",
        "shown",
        "present_wait_displayed",
        "present_wait_latency_ms_p50",
    ];

    fn values(&self) -> [f64; 8] {
        [
            self.latency_ms_p50,
            self.latency_ms_p99,
            self.fps,
            self.gpu_ms_p50,
            self.frames,
            self.shown,
            self.present_wait_displayed,
            self.present_wait_latency_ms_p50,
        ]
    }

    fn json(&self) -> String {
        let fields: Vec<String> = Self::KEYS
            .iter()
            .zip(self.values())
            .map(|(k, v)| format!("\"{k}\": {v:.4}"))
            .collect();
        format!("{{{}}}", fields.join(", "))
    }

    fn parse(json: &str) -> Result<Self> {
        let get = |k: &str| number(json, "", k).with_context(|| format!("{k} missing: {json}"));
        Ok(Self {
            latency_ms_p50: get("latency_ms_p50")?,
            latency_ms_p99: get("latency_ms_p99")?,
            fps: get("fps")?,
            gpu_ms_p50: get("gpu_ms_p50")?,
            frames: get("frames")?,
            shown: get("shown")?,
            present_wait_displayed: get("present_wait_displayed")?,
            present_wait_latency_ms_p50: get("present_wait_latency_ms_p50")?,
        })
    }
}

/// Nearest-rank percentile of sorted `v`.
pub(crate) fn pct(v: &[f64], p: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v[((p / 100.0 * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1]
}

pub(crate) fn sorted(mut v: Vec<f64>) -> Vec<f64> {
    v.sort_by(f64::total_cmp);
    v
}

/// The log must hold one present per frame, in order, on one swapchain.
pub(crate) fn check_log(frames: &Frames, log: &[LoggedPresent]) -> Result<()> {
    let n = frames.start_ns.len();
    ensure!(
        log.len() == n,
        "{} presents logged for {n} frames",
        log.len()
    );
    ensure!(
        log.iter().all(|p| p.swapchain == log[0].swapchain),
        "more than one swapchain"
    );
    ensure!(
        log.iter().enumerate().all(|(i, p)| p.seq == i as u64 + 1),
        "log out of order"
    );
    Ok(())
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// The figures of one run from its frames and the layer's log of its one swapchain, over the
/// frames after the warm-up and before the last three (still queued at teardown).
pub fn figures(frames: &Frames, log: &[LoggedPresent]) -> Result<RunFigures> {
    check_log(frames, log)?;
    let window = WARMUP.min(log.len())..log.len() - 3.min(log.len());
    let per_frame =
        |f: &dyn Fn(usize) -> Option<f64>| sorted(window.clone().filter_map(f).collect());
    let lat = per_frame(&|i| Some(ms(log[i].shown_ns?.saturating_sub(frames.start_ns[i]))));
    // GPU time as the layer saw it: rendering complete, less the later of the previous frame's
    // completion and this frame's present.
    let gpu = per_frame(&|i| {
        let began = log[i].queued_ns.max(log[i.checked_sub(1)?].ready_ns?);
        Some(ms(log[i].ready_ns?.saturating_sub(began)))
    });
    let pw = per_frame(&|i| {
        let d = frames.displayed_ns.get(i).copied().flatten()?;
        Some(ms(d.saturating_sub(frames.start_ns[i])))
    });
    let shown: Vec<u64> = window.clone().filter_map(|i| log[i].shown_ns).collect();
    let fps = match (shown.first(), shown.last()) {
        (Some(a), Some(b)) if b > a => (shown.len() - 1) as f64 / ((b - a) as f64 / 1e9),
        _ => 0.0,
    };
    Ok(RunFigures {
        latency_ms_p50: pct(&lat, 50.0),
        latency_ms_p99: pct(&lat, 99.0),
        fps,
        gpu_ms_p50: pct(&gpu, 50.0),
        frames: window.len() as f64,
        shown: shown.len() as f64,
        present_wait_displayed: pw.len() as f64,
        present_wait_latency_ms_p50: pct(&pw, 50.0),
    })
}

/// In a worker process (the environment names the run): runs it and returns its outcome, for
/// `main` to return at once; `None` in the benchmark itself.
pub fn worker_if_asked() -> Option<Result<()>> {
    let spec = std::env::var(WORKER_ENV).ok()?;
    Some(worker(&spec).with_context(|| format!("pacing worker {spec}")))
}

fn worker(spec: &str) -> Result<()> {
    let parts: Vec<&str> = spec.splitn(4, ',').collect();
    let [name, frames, load, out] = parts[..] else {
        bail!("{WORKER_ENV} must be loop,frames,gpu_load,out");
    };
    let which = Loop::parse(name).with_context(|| format!("unknown loop {name}"))?;
    let frames: u64 = frames.parse()?;
    let load: f32 = load.parse()?;
    let log = PathBuf::from(std::env::var_os("VDISPLAY_LOG").context("VDISPLAY_LOG unset")?);
    let ctx = VulkanContext::new(SurfaceSource::Headless, false, true)?;
    let result = pacing_loops::run(&ctx, which, frames, load);
    ctx.destroy();
    let seen = result?;
    let f = figures(&seen, &virtual_display::read_present_log(&log)?)?;
    std::fs::write(out, f.json())?;
    Ok(())
}

/// This binary as a worker over the virtual display: the loader's environment for the layer,
/// no inherited `VDISPLAY_*` settings, the present log at `log` (old `log` and `out` removed),
/// [`EXTENT`] and 3 as the surface's minimum image count (swapchains of 4 images). The caller
/// adds its worker variable.
pub(crate) fn worker_command(log: &Path, out: &Path) -> Result<Command> {
    let lib = virtual_display::find_library()?;
    let manifest = virtual_display::write_manifest(&lib)?;
    let _ = std::fs::remove_file(log);
    let _ = std::fs::remove_file(out);
    let mut cmd = Command::new(std::env::current_exe()?);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("VDISPLAY_") {
            cmd.env_remove(k);
        }
    }
    cmd.envs(virtual_display::loader_env(&manifest, false))
        .env("VDISPLAY_LOG", log)
        .env("VDISPLAY_EXTENT", EXTENT)
        .env("VDISPLAY_MIN_IMAGES", "3");
    Ok(cmd)
}

/// Runs one worker and reads its figures.
fn run_worker(which: Loop, frames: u64, dir: &Path, rep: usize) -> Result<RunFigures> {
    let stem = format!("pacing-{}-{rep}", which.name());
    let (log, out) = (
        dir.join(format!("{stem}.jsonl")),
        dir.join(format!("{stem}.json")),
    );
    let mut cmd = worker_command(&log, &out)?;
    cmd.env(
        WORKER_ENV,
        format!("{},{frames},{GPU_LOAD},{}", which.name(), out.display()),
    );
    let done = cmd.output().context("starting a pacing worker")?;
    if !done.status.success() {
        bail!(
            "pacing worker {} failed ({}): {}",
            which.name(),
            done.status,
            String::from_utf8_lossy(&done.stderr)
        );
    }
    RunFigures::parse(&std::fs::read_to_string(&out)?)
}

/// Every loop's runs.
pub struct Comparison {
    pub runs: Vec<(Loop, Vec<RunFigures>)>,
    pub frames: u64,
}

/// Runs every loop `reps` times (`frames` frames each), writing logs into `dir`.
pub fn compare(reps: usize, frames: u64, dir: &Path) -> Result<Comparison> {
    let dir = dir.join("pacing-over-vdisplay");
    std::fs::create_dir_all(&dir)?;
    let mut runs: Vec<(Loop, Vec<RunFigures>)> =
        Loop::ALL.iter().map(|l| (*l, Vec::new())).collect();
    for rep in 0..reps {
        for k in 0..runs.len() {
            let i = (k + rep) % runs.len();
            let f = run_worker(runs[i].0, frames, &dir, rep)?;
            eprintln!(
                "  {} run {}: latency p50 {:.2} ms, {:.1} fps, GPU {:.2} ms",
                runs[i].0.name(),
                rep + 1,
                f.latency_ms_p50,
                f.fps,
                f.gpu_ms_p50
            );
            runs[i].1.push(f);
        }
    }
    Ok(Comparison { runs, frames })
}

impl Comparison {
    /// The median over the runs of `loop`'s field `f`.
    pub fn median(&self, which: Loop, f: fn(&RunFigures) -> f64) -> f64 {
        self.runs
            .iter()
            .find(|(l, _)| *l == which)
            .map_or(0.0, |(_, r)| median(&r.iter().map(f).collect::<Vec<_>>()))
    }

    /// `which` against the textbook loop: (latency p50 ratio, fps ratio), of the medians.
    pub fn ratios_to_textbook(&self, which: Loop) -> (f64, f64) {
        let r = |f: fn(&RunFigures) -> f64| self.median(which, f) / self.median(Loop::TEXTBOOK, f);
        (r(|f| f.latency_ms_p50), r(|f| f.fps))
    }

    /// The `"pacing_over_vdisplay"` object of the report.
    pub fn json(&self) -> String {
        let mut j = format!(
            "{{\"scenario\": \"gpu-bound\", \"present_mode\": \"IMMEDIATE\", \"extent\": \"{EXTENT}\", \
             \"gpu_load\": {GPU_LOAD}, \"swapchain_images\": 4, \"frames_per_run\": {}, \"warmup_frames\": {WARMUP}",
            self.frames
        );
        for (l, runs) in &self.runs {
            let med: Vec<String> = RunFigures::KEYS
                .iter()
                .enumerate()
                .map(|(k, key)| {
                    format!(
                        "\"{key}\": {:.4}",
                        median(&runs.iter().map(|r| r.values()[k]).collect::<Vec<_>>())
                    )
                })
                .collect();
            let each: Vec<String> = runs.iter().map(RunFigures::json).collect();
            let _ = write!(
                j,
                ", \"{}\": {{{}, \"runs\": [{}]}}",
                l.name(),
                med.join(", "),
                each.join(", ")
            );
        }
        for l in [
            Loop::LOW_LATENCY,
            Loop::LOW_LATENCY_TIMED,
            Loop::LOW_LATENCY_TIMED_BLIND,
        ] {
            let (lat, fps) = self.ratios_to_textbook(l);
            let _ = write!(
                j,
                ", \"{}_vs_textbook\": {{\"latency_ms_p50\": {lat:.4}, \"fps\": {fps:.4}}}",
                l.name()
            );
        }
        j.push('}');
        j
    }

    /// A markdown table, the simulator's figures of the same scenario beside the measured ones.
    pub fn markdown(&self, sim: &[(String, Summary)]) -> String {
        let base = |f: fn(&RunFigures) -> f64| self.median(Loop::TEXTBOOK, f);
        let sim_base = sim.iter().find(|(p, _)| p == "textbook").map(|(_, s)| *s);
        let mut m = format!(
            "\n### Pacing over the virtual display (vdisplay on lavapipe, GPU-bound: `--gpu-load {GPU_LOAD}`, {EXTENT}, \
             IMMEDIATE, 4 images; medians of {} runs of {} frames)\n\n\
             | loop | start to shown p50 ms (vs textbook) | fps (vs textbook) | GPU ms p50 | start to shown p50 per run | \
             present-wait: frames with a display time | simulator `gpu-bound`: start to shown p50 ms (vs textbook) | simulator fps (vs textbook) |\n\
             |---|---|---|---|---|---|---|---|\n",
            self.runs.first().map_or(0, |(_, r)| r.len()),
            self.frames
        );
        for (l, runs) in &self.runs {
            let lat = self.median(*l, |f| f.latency_ms_p50);
            let fps = self.median(*l, |f| f.fps);
            let per_run: Vec<String> = runs
                .iter()
                .map(|r| format!("{:.1}", r.latency_ms_p50))
                .collect();
            let pw = if *l == Loop::TEXTBOOK {
                "-".to_string()
            } else if !l.present_wait {
                "off".to_string()
            } else {
                format!(
                    "{:.0} of {:.0}",
                    self.median(*l, |f| f.present_wait_displayed),
                    self.median(*l, |f| f.frames)
                )
            };
            let s = sim
                .iter()
                .find(|(p, _)| *p == l.sim_name())
                .map(|(_, s)| *s);
            let sim_cells = match (s, sim_base) {
                (Some(s), Some(b)) => format!(
                    "{:.1} ({:.2}x) | {:.1} ({:.2}x)",
                    s.display_latency_ms_p50,
                    s.display_latency_ms_p50 / b.display_latency_ms_p50,
                    s.fps,
                    s.fps / b.fps
                ),
                _ => "- | -".into(),
            };
            let _ = writeln!(
                m,
                "| {} | {lat:.1} ({:.2}x) | {fps:.1} ({:.2}x) | {:.2} | {} | {pw} | {sim_cells} |",
                l.name(),
                lat / base(|f| f.latency_ms_p50),
                fps / base(|f| f.fps),
                self.median(*l, |f| f.gpu_ms_p50),
                per_run.join(", "),
            );
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_come_from_frame_starts_and_the_layer_log() -> Result<()> {
        let n = 100u64;
        let ms = 1_000_000u64;
        let frames = Frames {
            start_ns: (0..n).map(|i| 1_000 * ms + i * 10 * ms).collect(),
            displayed_ns: (0..n)
                .map(|i| (i % 2 == 0).then_some(1_000 * ms + i * 10 * ms + 30 * ms))
                .collect(),
            gpu_ns: vec![None; n as usize],
        };
        let log: Vec<LoggedPresent> = (0..n)
            .map(|i| LoggedPresent {
                swapchain: 1,
                seq: i + 1,
                present_id: i + 1,
                image: i % 4,
                acquired_ns: None,
                queued_ns: 1_000 * ms + i * 10 * ms + ms,
                target_ns: None,
                relative_ns: None,
                ready_ns: Some(1_000 * ms + i * 10 * ms + 9 * ms),
                shown_ns: Some(1_000 * ms + i * 10 * ms + 25 * ms),
            })
            .collect();
        let f = figures(&frames, &log)?;
        assert_eq!(f.frames, (n as usize - WARMUP - 3) as f64);
        assert_eq!(f.shown, f.frames);
        assert!((f.latency_ms_p50 - 25.0).abs() < 1e-9, "{f:?}");
        assert!((f.fps - 100.0).abs() < 1e-6, "{f:?}");
        // Ready 9 ms after the frame's start, the previous ready 1 ms before its present.
        assert!((f.gpu_ms_p50 - 8.0).abs() < 1e-9, "{f:?}");
        assert!((f.present_wait_latency_ms_p50 - 30.0).abs() < 1e-9, "{f:?}");
        assert!(f.present_wait_displayed > 0.0 && f.present_wait_displayed < f.frames);
        let parsed = RunFigures::parse(&f.json())?;
        assert!((parsed.fps - f.fps).abs() < 1e-3);
        let mut short = log.clone();
        short.pop();
        assert!(
            figures(&frames, &short).is_err(),
            "a missing present is an error"
        );
        Ok(())
    }
}
