//! Pacing to the display (`VK_EXT_present_timing`) measured over the virtual display: the
//! acceptance comparison of present timing against the CPU frame limiter and of the display
//! policy against the textbook FIFO loop, each also with two busy CPU threads beside it.
//!
//! The virtual display (vdisplay on lavapipe) refreshes at 60 Hz, offers present timing and
//! logs when each present became visible (`shown_ns`, on its refresh grid) and when its
//! rendering was complete (`ready_ns`). Every run presents FIFO on 4 images at [`EXTENT`] with
//! the same light GPU work ([`GPU_LOAD`]), in a worker process of its own (the layer comes in
//! through the loader's environment). The comparisons:
//!
//! * `fps30`: a 30 fps limit on the 60 Hz display. With present timing vkpace asks for every
//!   second refresh (a target present time); with the CPU limiter it sleeps to a 33.3 ms grid
//!   of its own and the display shows each frame at whichever refresh follows. Counted: shown
//!   intervals of 1, 2 and 3 or more refreshes, and their standard deviation.
//! * `fps60`: a 60 fps limit, present timing (every refresh) against the CPU limiter, whose
//!   grid drifts against the display's: the interval standard deviation.
//! * `latency`: vkpace's display policy (Swappy's: the smallest swap interval the frames keep
//!   up with, each frame started one interval before its refresh) against the textbook loop
//!   (3 frames in flight, a fence per frame, FIFO, no limit: it runs ahead until FIFO blocks):
//!   frame start to first pixel, p50 and p99.
//!
//! Every figure comes from the display's log and the frame starts the loop stamped (its image
//! in hand), the same way for every run, so runs with and without present timing compare
//! fairly (vkpace's own present-timing telemetry exists only for the former). The two runs of
//! a comparison alternate in rotating order within each repetition; figures are medians over
//! the repetitions.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use vkpace::SwapchainConfig;
use vkpace::{DisplayPath, FrameLimit, PacingPolicy};
use vkpace_demo::virtual_display::{self, LoggedPresent};

use crate::cpu_load::{Busy, Load, BUSY_THREADS};
use crate::pacing_loops::{self, Frames};
use crate::pacing_vdisplay::{check_log, pct, sorted, worker_command, EXTENT};
use crate::real_driver::{median, number};
use crate::vulkan_context::{SurfaceSource, VulkanContext};

/// Set (to `run,frames,out`) in a worker's environment.
pub const WORKER_ENV: &str = "VKPACE_BENCH_DISPLAY_WORKER";
/// The virtual display's refresh rate (set explicitly, though it is vdisplay's default).
pub const REFRESH_HZ: u32 = 60;
/// One refresh, ns.
const REFRESH_NS: f64 = 1e9 / REFRESH_HZ as f64;
/// The demo's `--gpu-load` units for every run: a couple of milliseconds of lavapipe work per
/// frame, so frames are ready well before their refresh unless the CPU is starved.
pub const GPU_LOAD: f32 = 0.05;
/// Frames left out at the start of each run (pipeline first use, the policies settling).
const WARMUP: usize = 60;

/// One run of a comparison (what its worker process runs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run {
    /// vkpace, `--fps 30`, present timing (a target present time every second refresh).
    Fps30Timing,
    /// vkpace, `--fps 30`, present timing off: the CPU limiter.
    Fps30Cpu,
    /// vkpace, `--fps 60`, present timing (every refresh).
    Fps60Timing,
    /// vkpace, `--fps 60`, the CPU limiter.
    Fps60Cpu,
    /// vkpace, the display policy with present timing, no limit.
    DisplayPolicy,
    /// The textbook loop: 3 frames in flight, FIFO, no limit.
    TextbookFifo,
}

impl Run {
    /// The name in the report.
    pub fn name(self) -> &'static str {
        match self {
            Run::Fps30Timing => "fps30-present-timing",
            Run::Fps30Cpu => "fps30-cpu-limiter",
            Run::Fps60Timing => "fps60-present-timing",
            Run::Fps60Cpu => "fps60-cpu-limiter",
            Run::DisplayPolicy => "display-policy",
            Run::TextbookFifo => "textbook-fifo",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        COMPARISONS
            .iter()
            .flat_map(|c| c.runs)
            .find(|r| r.name() == name)
    }

    /// Refreshes each frame is meant to stay on screen: the frame limit's share of the display
    /// (2 at 30 fps); for the display policy the swap interval it chose (`swap_interval`, as it
    /// stood at the end of the run: it raises it when frames miss); else 1 (what the textbook
    /// loop reaches with light frames).
    pub fn wanted_refreshes(self, swap_interval: u32) -> u32 {
        match self {
            Run::Fps30Timing | Run::Fps30Cpu => 2,
            Run::DisplayPolicy => swap_interval.max(1),
            _ => 1,
        }
    }

    /// vkpace's policy, frame limit and whether present timing is on; `None`: the textbook loop.
    fn vkpace(self) -> Option<(PacingPolicy, Option<f64>, bool)> {
        let f = PacingPolicy::FramesInFlight;
        match self {
            Run::Fps30Timing => Some((f, Some(30.0), true)),
            Run::Fps30Cpu => Some((f, Some(30.0), false)),
            Run::Fps60Timing => Some((f, Some(60.0), true)),
            Run::Fps60Cpu => Some((f, Some(60.0), false)),
            Run::DisplayPolicy => Some((PacingPolicy::Display, None, true)),
            Run::TextbookFifo => None,
        }
    }
}

/// A comparison: its name in the report and its two runs (the one judged first).
#[derive(Debug, Clone, Copy)]
pub struct Comparison {
    pub name: &'static str,
    pub runs: [Run; 2],
}

/// The three comparisons, in report order.
pub const COMPARISONS: [Comparison; 3] = [
    Comparison {
        name: "fps30",
        runs: [Run::Fps30Timing, Run::Fps30Cpu],
    },
    Comparison {
        name: "fps60",
        runs: [Run::Fps60Timing, Run::Fps60Cpu],
    },
    Comparison {
        name: "latency",
        runs: [Run::DisplayPolicy, Run::TextbookFifo],
    },
];

/// One run's figures, over the frames after the warm-up and before the last three.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunFigures {
    /// Shown intervals measured (between consecutive shown frames).
    pub intervals: f64,
    /// Intervals of 1 refresh (or less): a frame up for a single refresh.
    pub refreshes_1: f64,
    /// Intervals of exactly 2 refreshes (30 fps on 60 Hz done right).
    pub refreshes_2: f64,
    /// Intervals of 3 refreshes or more.
    pub refreshes_3_plus: f64,
    /// Intervals whose frame was not ready in time: its rendering completed (`ready_ns`) after
    /// the refresh it was meant for (the previous frame's shown time plus
    /// [`Run::wanted_refreshes`]). No pacing could have shown it there: excused.
    pub not_ready: f64,
    /// Intervals other than [`Run::wanted_refreshes`] although the frame was ready in time:
    /// the pacing's own misses.
    pub off_target_ready: f64,
    /// Shown interval mean and (population) standard deviation, ms.
    pub interval_ms_mean: f64,
    pub interval_ms_stddev: f64,
    /// Frame start (its image in hand) to shown (first pixel), p50 and p99, ms.
    pub latency_ms_p50: f64,
    pub latency_ms_p99: f64,
    /// vkpace's swap interval on the refresh grid at the end of the run (refreshes per frame
    /// with present timing's target times); 0 on the CPU path and for the textbook loop.
    pub swap_interval: f64,
}

impl RunFigures {
    pub const KEYS: [&'static str; 11] = [
        "intervals",
        "refreshes_1",
        "refreshes_2",
        "refreshes_3_plus",
        "not_ready",
        "off_target_ready",
        "interval_ms_mean",
        "interval_ms_stddev",
        "latency_ms_p50",
        "latency_ms_p99",
        "swap_interval",
    ];

    pub fn values(&self) -> [f64; 11] {
        [
            self.intervals,
            self.refreshes_1,
            self.refreshes_2,
            self.refreshes_3_plus,
            self.not_ready,
            self.off_target_ready,
            self.interval_ms_mean,
            self.interval_ms_stddev,
            self.latency_ms_p50,
            self.latency_ms_p99,
            self.swap_interval,
        ]
    }

    fn from_values(v: [f64; 11]) -> Self {
        let [intervals, refreshes_1, refreshes_2, refreshes_3_plus, not_ready, off_target_ready, interval_ms_mean, interval_ms_stddev, latency_ms_p50, latency_ms_p99, swap_interval] =
            v;
        Self {
            intervals,
            refreshes_1,
            refreshes_2,
            refreshes_3_plus,
            not_ready,
            off_target_ready,
            interval_ms_mean,
            interval_ms_stddev,
            latency_ms_p50,
            latency_ms_p99,
            swap_interval,
        }
    }

    pub fn json(&self) -> String {
        let fields: Vec<String> = Self::KEYS
            .iter()
            .zip(self.values())
            .map(|(k, v)| format!("\"{k}\": {v:.4}"))
            .collect();
        format!("{{{}}}", fields.join(", "))
    }

    fn parse(json: &str) -> Result<Self> {
        let mut v = [0.0; 11];
        for (slot, k) in v.iter_mut().zip(Self::KEYS) {
            *slot = number(json, "", k).with_context(|| format!("{k} missing: {json}"))?;
        }
        Ok(Self::from_values(v))
    }

    /// Each field's median over `runs`.
    pub fn median_of(runs: &[RunFigures]) -> Self {
        let mut v = [0.0; 11];
        for (k, slot) in v.iter_mut().enumerate() {
            *slot = median(&runs.iter().map(|r| r.values()[k]).collect::<Vec<_>>());
        }
        Self::from_values(v)
    }
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// Shown intervals of `log` (consecutive shown presents) sorted by length in refreshes, and
/// whether each frame was ready for the refresh `wanted` after its predecessor's; also the
/// intervals in ms.
fn count_intervals(log: &[LoggedPresent], wanted: u32, f: &mut RunFigures) -> Vec<f64> {
    let shown: Vec<(&LoggedPresent, u64)> =
        log.iter().filter_map(|p| Some((p, p.shown_ns?))).collect();
    let mut lengths = Vec::with_capacity(shown.len());
    for w in shown.windows(2) {
        let ((_, prev), (p, at)) = (w[0], w[1]);
        let d = at.saturating_sub(prev);
        let refreshes = (d as f64 / REFRESH_NS).round() as u32;
        let meant_ns = prev + (f64::from(wanted) * REFRESH_NS).round() as u64;
        let ready = p.ready_ns.is_some_and(|r| r <= meant_ns);
        match refreshes {
            0 | 1 => f.refreshes_1 += 1.0,
            2 => f.refreshes_2 += 1.0,
            _ => f.refreshes_3_plus += 1.0,
        }
        if !ready {
            f.not_ready += 1.0;
        } else if refreshes != wanted {
            f.off_target_ready += 1.0;
        }
        lengths.push(ms(d));
    }
    f.intervals = lengths.len() as f64;
    lengths
}

/// The figures of one run from its frame starts and the layer's log of its one swapchain;
/// `wanted`: refreshes per frame aimed at, `swap_interval`: vkpace's at the end (0: none).
pub fn figures(
    frames: &Frames,
    log: &[LoggedPresent],
    wanted: u32,
    swap_interval: u32,
) -> Result<RunFigures> {
    check_log(frames, log)?;
    let end = log.len().saturating_sub(3);
    let window = WARMUP.min(end)..end;
    let mut f = RunFigures {
        swap_interval: f64::from(swap_interval),
        ..RunFigures::default()
    };
    let lengths = count_intervals(&log[window.clone()], wanted, &mut f);
    if !lengths.is_empty() {
        let n = lengths.len() as f64;
        f.interval_ms_mean = lengths.iter().sum::<f64>() / n;
        let var = lengths
            .iter()
            .map(|l| (l - f.interval_ms_mean).powi(2))
            .sum::<f64>()
            / n;
        f.interval_ms_stddev = var.sqrt();
    }
    let lat = sorted(
        window
            .filter_map(|i| Some(ms(log[i].shown_ns?.saturating_sub(frames.start_ns[i]))))
            .collect(),
    );
    f.latency_ms_p50 = pct(&lat, 50.0);
    f.latency_ms_p99 = pct(&lat, 99.0);
    Ok(f)
}

/// In a worker process (the environment names the run): runs it and returns its outcome, for
/// `main` to return at once; `None` in the benchmark itself.
pub fn worker_if_asked() -> Option<Result<()>> {
    let spec = std::env::var(WORKER_ENV).ok()?;
    Some(worker(&spec).with_context(|| format!("display pacing worker {spec}")))
}

fn worker(spec: &str) -> Result<()> {
    let parts: Vec<&str> = spec.splitn(3, ',').collect();
    let [name, frames, out] = parts[..] else {
        bail!("{WORKER_ENV} must be run,frames,out");
    };
    let run = Run::parse(name).with_context(|| format!("unknown run {name}"))?;
    let frames: u64 = frames.parse()?;
    let log = PathBuf::from(std::env::var_os("VDISPLAY_LOG").context("VDISPLAY_LOG unset")?);
    let ctx = VulkanContext::new(SurfaceSource::Headless, false, true)?;
    let result = match run.vkpace() {
        Some(setup) => run_vkpace(&ctx, setup, frames),
        None => pacing_loops::run_textbook(&ctx, vk::PresentModeKHR::FIFO, frames, GPU_LOAD)
            .map(|f| (f, 0)),
    };
    ctx.destroy();
    let (seen, swap_interval) = result?;
    let log = virtual_display::read_present_log(&log)?;
    let wanted = run.wanted_refreshes(swap_interval);
    let f = figures(&seen, &log, wanted, swap_interval)?;
    std::fs::write(out, f.json())?;
    Ok(())
}

/// A vkpace loop presenting FIFO with `policy`, the frame limit and present timing on or off
/// (everything else as the context enables it, like the demo). Returns the frames and the
/// swap interval on the refresh grid at the end (0: the CPU path).
fn run_vkpace(
    ctx: &VulkanContext,
    (policy, fps, timing): (PacingPolicy, Option<f64>, bool),
    frames: u64,
) -> Result<(Frames, u32)> {
    let mut config = SwapchainConfig::default();
    config.pacing.policy = policy;
    config.pacing.frame_limit = fps.map(FrameLimit::fps).transpose()?;
    config.present_mode = vk::PresentModeKHR::FIFO;
    let mut sc = ctx.swapchain_with(config, |c| c.paths.present_timing &= timing)?;
    ensure!(
        !timing || sc.info().present_timing.is_some_and(|t| t.targets),
        "present timing with target times is not in use over the virtual display"
    );
    let mut renderer = ctx.renderer(sc.info().format().context("format")?)?;
    let result = pacing_loops::vkpace_frames(&mut sc, &mut renderer, frames, GPU_LOAD);
    let swap_interval = match sc.info().display_path {
        DisplayPath::RefreshGrid { interval } => interval,
        _ => 0,
    };
    let closed = sc.destroy();
    renderer.destroy();
    let out = result?;
    closed?;
    Ok((out, swap_interval))
}

/// Runs one worker (with the busy threads beside it under [`Load::Busy`]) and reads its
/// figures.
fn run_worker(run: Run, load: Load, frames: u64, dir: &Path, rep: usize) -> Result<RunFigures> {
    let stem = format!("display-{}-{}-{rep}", run.name(), load.name());
    let (log, out) = (
        dir.join(format!("{stem}.jsonl")),
        dir.join(format!("{stem}.json")),
    );
    let mut cmd = worker_command(&log, &out)?;
    cmd.env(
        WORKER_ENV,
        format!("{},{frames},{}", run.name(), out.display()),
    )
    .env("VDISPLAY_REFRESH_HZ", REFRESH_HZ.to_string());
    let busy = (load == Load::Busy).then(Busy::start);
    let done = cmd.output().context("starting a display pacing worker");
    drop(busy);
    let done = done?;
    if !done.status.success() {
        bail!(
            "display pacing worker {} ({}) failed ({}): {}",
            run.name(),
            load.name(),
            done.status,
            String::from_utf8_lossy(&done.stderr)
        );
    }
    RunFigures::parse(&std::fs::read_to_string(&out)?)
}

/// Every run's figures, per load.
pub struct DisplayComparison {
    pub frames: u64,
    pub reps: usize,
    pub cells: Vec<(Load, Run, Vec<RunFigures>)>,
}

/// Runs every comparison under each load `reps` times (`frames` frames a run), the two runs of
/// a comparison in rotating order, writing the logs into `dir`.
pub fn compare(reps: usize, frames: u64, dir: &Path) -> Result<DisplayComparison> {
    eprintln!(
        "vkpace-bench: pacing to the display over the virtual display ({REFRESH_HZ} Hz, FIFO), \
         {} comparisons x {} CPU loads x {reps} runs of {frames} frames",
        COMPARISONS.len(),
        Load::ALL.len()
    );
    let dir = dir.join("pacing-to-display");
    std::fs::create_dir_all(&dir)?;
    let mut cells: Vec<(Load, Run, Vec<RunFigures>)> = Load::ALL
        .iter()
        .flat_map(|l| {
            COMPARISONS
                .iter()
                .flat_map(|c| c.runs.map(|r| (*l, r, Vec::new())))
        })
        .collect();
    for rep in 0..reps {
        for load in Load::ALL {
            for c in COMPARISONS {
                for k in 0..2 {
                    let run = c.runs[(k + rep) % 2];
                    let f = run_worker(run, load, frames, &dir, rep)?;
                    eprintln!(
                        "  {} {} run {}: intervals 1/2/3+ {:.0}/{:.0}/{:.0} ({:.0} not ready), sd {:.3} ms, \
                         start to shown p50 {:.1} ms",
                        run.name(), load.name(), rep + 1, f.refreshes_1, f.refreshes_2,
                        f.refreshes_3_plus, f.not_ready, f.interval_ms_stddev, f.latency_ms_p50
                    );
                    let cell = cells.iter_mut().find(|(l, r, _)| *l == load && *r == run);
                    cell.context("no cell")?.2.push(f);
                }
            }
        }
    }
    Ok(DisplayComparison {
        frames,
        reps,
        cells,
    })
}

impl DisplayComparison {
    /// The runs of `run` under `load`.
    pub fn runs(&self, load: Load, run: Run) -> &[RunFigures] {
        self.cells
            .iter()
            .find(|(l, r, _)| *l == load && *r == run)
            .map_or(&[], |(_, _, v)| v.as_slice())
    }

    /// The medians of `run` under `load`.
    pub fn median(&self, load: Load, run: Run) -> RunFigures {
        RunFigures::median_of(self.runs(load, run))
    }

    /// The acceptance verdicts (ok, what) for each load: present timing's 30-on-60 intervals
    /// all exactly 2 refreshes where the frame was ready (and on the refresh grid at all), its
    /// 60 fps interval sd not above the CPU limiter's and no refresh missed by a ready frame,
    /// the display policy's latency p50 below the textbook loop's.
    pub fn checks(&self) -> Vec<(bool, String)> {
        let mut v = Vec::new();
        for load in Load::ALL {
            let l = load.name();
            let (t30, c30) = (
                self.median(load, Run::Fps30Timing),
                self.median(load, Run::Fps30Cpu),
            );
            let runs30 = self.runs(load, Run::Fps30Timing);
            let missed: f64 = runs30.iter().map(|r| r.off_target_ready).sum();
            let grid = runs30.iter().all(|r| r.swap_interval == 2.0)
                && self
                    .runs(load, Run::Fps60Timing)
                    .iter()
                    .all(|r| r.swap_interval == 1.0);
            v.push((grid, format!(
                "display {l}: present timing on the refresh grid (swap interval 2 at 30 fps, 1 at 60, every run)"
            )));
            v.push((missed == 0.0, format!(
                "display {l}: 30 fps on 60 Hz with present timing: {missed:.0} intervals not 2 refreshes \
                 though the frame was ready, over all runs (none allowed); medians: 1/2/3+ refreshes \
                 {:.0}/{:.0}/{:.0}, not ready {:.0}; CPU limiter {:.0}/{:.0}/{:.0}",
                t30.refreshes_1, t30.refreshes_2, t30.refreshes_3_plus, t30.not_ready,
                c30.refreshes_1, c30.refreshes_2, c30.refreshes_3_plus
            )));
            let (t60, c60) = (
                self.median(load, Run::Fps60Timing),
                self.median(load, Run::Fps60Cpu),
            );
            // The virtual display keeps time on the clock the CPU limiter sleeps on, so the
            // limiter's grid never drifts against the refreshes as it does on a real display:
            // both can reach 0. Present timing must not be worse, and must miss no refresh for
            // which its frame was ready.
            let missed60: f64 = self
                .runs(load, Run::Fps60Timing)
                .iter()
                .map(|r| r.off_target_ready)
                .sum();
            v.push((
                t60.interval_ms_stddev <= c60.interval_ms_stddev && missed60 == 0.0,
                format!(
                    "display {l}: 60 fps interval sd: present timing {:.3} ms, CPU limiter {:.3} ms \
                     (not above); {missed60:.0} intervals off one refresh though the frame was ready",
                    t60.interval_ms_stddev, c60.interval_ms_stddev
                ),
            ));
            let (d, t) = (
                self.median(load, Run::DisplayPolicy),
                self.median(load, Run::TextbookFifo),
            );
            v.push((d.latency_ms_p50 < t.latency_ms_p50, format!(
                "display {l}: start to shown p50: display policy {:.1} ms, textbook FIFO {:.1} ms (below)",
                d.latency_ms_p50, t.latency_ms_p50
            )));
        }
        v
    }

    /// The `"pacing_to_display"` object of the report: the setup, then per load per run the
    /// medians and each run's figures.
    pub fn json(&self) -> String {
        let mut j = format!(
            "{{\"refresh_hz\": {REFRESH_HZ}, \"present_mode\": \"FIFO\", \"extent\": \"{EXTENT}\", \
             \"gpu_load\": {GPU_LOAD}, \"swapchain_images\": 4, \"busy_threads\": {BUSY_THREADS}, \
             \"frames_per_run\": {}, \"warmup_frames\": {WARMUP}, \"runs\": {}",
            self.frames, self.reps
        );
        for load in Load::ALL {
            let _ = write!(j, ", \"{}\": {{", load.name());
            let mut first = true;
            for run in COMPARISONS.iter().flat_map(|c| c.runs) {
                let med = self.median(load, run).json();
                let each: Vec<String> = self.runs(load, run).iter().map(RunFigures::json).collect();
                let sep = if first { "" } else { ", " };
                first = false;
                let _ = write!(
                    j,
                    "{sep}\"{}\": {}, \"runs\": [{}]}}",
                    run.name(),
                    &med[..med.len() - 1],
                    each.join(", ")
                );
            }
            j.push('}');
        }
        j.push('}');
        j
    }

    /// A markdown table: one row per run and load, medians.
    pub fn markdown(&self) -> String {
        let mut m = format!(
            "\n### Pacing to the display (present timing; vdisplay on lavapipe, {REFRESH_HZ} Hz, FIFO, \
             {EXTENT}, 4 images, `--gpu-load {GPU_LOAD}`; medians of {} runs of {} frames)\n\n\
             Shown intervals and latency from the display's log, the same way for every run; \
             \"not ready\": the frame's rendering completed after the refresh it was meant for; \
             \"busy\": {BUSY_THREADS} spinning threads beside the run.\n\n\
             | comparison | CPU | run | swap interval | shown intervals 1 / 2 / 3+ refreshes | not ready | \
             off target though ready | interval mean / sd ms | start to shown p50 / p99 ms |\n\
             |---|---|---|---|---|---|---|---|---|\n",
            self.reps, self.frames
        );
        for c in COMPARISONS {
            for load in Load::ALL {
                for run in c.runs {
                    let f = self.median(load, run);
                    let _ = writeln!(
                        m,
                        "| {} | {} | {} | {} | {:.0} / {:.0} / {:.0} | {:.0} | {:.0} | {:.3} / {:.3} | {:.1} / {:.1} |",
                        c.name, load.name(), run.name(),
                        if f.swap_interval > 0.0 { format!("{:.0}", f.swap_interval) } else { "CPU".into() },
                        f.refreshes_1, f.refreshes_2, f.refreshes_3_plus, f.not_ready, f.off_target_ready,
                        f.interval_ms_mean, f.interval_ms_stddev, f.latency_ms_p50, f.latency_ms_p99
                    );
                }
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn present(seq: u64, ready_ns: u64, shown_ns: u64) -> LoggedPresent {
        LoggedPresent {
            swapchain: 1,
            seq,
            present_id: seq,
            image: seq % 4,
            acquired_ns: None,
            queued_ns: ready_ns.saturating_sub(1_000_000),
            target_ns: None,
            relative_ns: None,
            ready_ns: Some(ready_ns),
            shown_ns: Some(shown_ns),
        }
    }

    /// 30 fps on the grid: every interval 2 refreshes but one 3 (the frame ready after its
    /// refresh: excused) and one 1 (ready early, shown early: the pacing's miss).
    #[test]
    fn intervals_are_counted_in_refreshes_and_late_frames_excused() -> Result<()> {
        let r = |k: u64| (k as f64 * REFRESH_NS).round() as u64 + 1_000_000_000;
        let n = 100u64;
        let mut at = Vec::new();
        let mut k = 0;
        for i in 0..n {
            k += match i {
                70 => 3,
                80 => 1,
                _ => 2,
            };
            at.push(k);
        }
        let log: Vec<LoggedPresent> = (0..n)
            .map(|i| {
                let shown = r(at[i as usize]);
                let ready = if i == 70 {
                    r(at[i as usize] - 1) + 1
                } else {
                    shown - 5_000_000
                };
                present(i + 1, ready, shown)
            })
            .collect();
        let frames = Frames {
            start_ns: log
                .iter()
                .map(|p| p.shown_ns.unwrap() - 20_000_000)
                .collect(),
            displayed_ns: vec![None; n as usize],
            gpu_ns: vec![None; n as usize],
        };
        let f = figures(&frames, &log, 2, 2)?;
        let measured = (n as usize - WARMUP - 3 - 1) as f64;
        assert_eq!(f.intervals, measured);
        assert_eq!((f.refreshes_1, f.refreshes_3_plus), (1.0, 1.0), "{f:?}");
        assert_eq!(f.refreshes_2, measured - 2.0);
        assert_eq!((f.not_ready, f.off_target_ready), (1.0, 1.0), "{f:?}");
        assert!((f.latency_ms_p50 - 20.0).abs() < 1e-9, "{f:?}");
        assert!(f.interval_ms_stddev > 0.0 && (f.interval_ms_mean - 33.33).abs() < 0.1);
        let parsed = RunFigures::parse(&f.json())?;
        assert_eq!(parsed.refreshes_2, f.refreshes_2);
        assert_eq!(parsed.swap_interval, 2.0);
        Ok(())
    }

    #[test]
    fn runs_parse_back_from_their_names() {
        for c in COMPARISONS {
            for r in c.runs {
                assert_eq!(Run::parse(r.name()), Some(r));
            }
        }
        assert_eq!(Run::parse("nope"), None);
    }
}
