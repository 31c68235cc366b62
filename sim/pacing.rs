//! A deterministic virtual-time model of one render loop: a CPU thread, an asynchronous GPU
//! queue executing submissions in order, and a display (immediate, FIFO or mailbox at a fixed
//! refresh). It drives either vkpace's real pacing code ([`vkpace::core::Pacing`] behind the
//! frames-in-flight gate) or a textbook loop (3 frames in flight, wait on the frame's fence).
//! Same scenario and seed, same numbers.
//!
//! Unlike lavapipe (whose present waits for rendering), this GPU runs behind the CPU, so
//! frames can queue up: the case pacing policies exist for.

use vkpace::core::{FrameLimit, Pacing, PacingPolicy};

use crate::rng::Rng;

/// How the display takes frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DisplayMode {
    /// Shown as soon as rendered (no refresh wait).
    Immediate,
    /// One frame per refresh, in order; an image is free once the next frame is shown.
    Fifo { refresh_ms: f64 },
    /// At each refresh the newest finished frame; older unshown ones are dropped.
    Mailbox { refresh_ms: f64 },
}

/// CPU and GPU work per frame from time `from_ms` on.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    pub from_ms: f64,
    pub cpu_ms: f64,
    pub gpu_ms: f64,
}

/// One simulated run's setting.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub name: &'static str,
    pub display: DisplayMode,
    pub swapchain_images: usize,
    /// Load phases, sorted by `from_ms`, the first from 0.
    pub loads: Vec<Load>,
    /// Relative noise: each duration is scaled by a factor uniform in 1 +- noise.
    pub noise: f64,
    /// Chance per frame of a spike (a duration doubled).
    pub spike_chance: f64,
    pub duration_ms: f64,
    /// Present-wait feedback: the pacing code learns when each frame was displayed.
    pub present_wait: bool,
}

/// Which loop runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Policy {
    /// 3 frames in flight, fence wait before reuse, no vkpace code.
    Textbook,
    /// vkpace, N frames in flight.
    Frames(usize),
    /// vkpace low latency (N = 2 at most).
    LowLatency,
    /// vkpace, N = 2, frame limit at the given rate.
    Limit(f64),
}

impl Policy {
    pub fn name(&self) -> String {
        match self {
            Policy::Textbook => "textbook".into(),
            Policy::Frames(n) => format!("frames-{n}"),
            Policy::LowLatency => "low-latency".into(),
            Policy::Limit(fps) => format!("limit-{fps:.0}"),
        }
    }
}

/// One frame's times (ms, virtual clock).
#[derive(Debug, Clone, Copy, Default)]
pub struct FrameRecord {
    pub cpu_start: f64,
    pub submit: f64,
    pub gpu_start: f64,
    pub gpu_end: f64,
    /// When it reached the screen; None when mailbox dropped it.
    pub display: Option<f64>,
}

impl FrameRecord {
    /// CPU frame start to GPU end of that frame.
    pub fn latency(&self) -> f64 {
        self.gpu_end - self.cpu_start
    }
}

fn ns(ms: f64) -> u64 {
    (ms.max(0.0) * 1e6).round() as u64
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

impl Scenario {
    fn load_at(&self, t: f64) -> Load {
        let mut current = self.loads[0];
        for l in &self.loads {
            if l.from_ms <= t {
                current = *l;
            }
        }
        current
    }

    fn vary(&self, base: f64, rng: &mut Rng) -> f64 {
        let mut v = base * (1.0 + self.noise * (2.0 * rng.unit() - 1.0));
        if rng.unit() < self.spike_chance {
            v *= 2.0;
        }
        v
    }
}

/// Runs `policy` on `scenario` until its duration is over.
pub fn run(scenario: &Scenario, policy: Policy, seed: u64) -> Vec<FrameRecord> {
    let mut rng = Rng::new(seed);
    let n = match policy {
        Policy::Textbook => 3,
        Policy::Frames(n) => n,
        Policy::LowLatency | Policy::Limit(_) => 2,
    };
    let mut pacing = match policy {
        Policy::Textbook => None,
        Policy::Frames(_) => Some(Pacing::new(PacingPolicy::FramesInFlight, None)),
        Policy::LowLatency => Some(Pacing::new(PacingPolicy::LowLatency, None)),
        Policy::Limit(fps) => Some(Pacing::new(
            PacingPolicy::FramesInFlight,
            FrameLimit::fps(fps).ok(),
        )),
    };
    if let Some(p) = pacing.as_mut() {
        // As the frame machine does from the present mode: only FIFO queues frames.
        p.set_display_queues(matches!(scenario.display, DisplayMode::Fifo { .. }));
    }
    let mut frames: Vec<FrameRecord> = Vec::new();
    let mut reported_gpu = 0usize;
    let mut reported_display = 0usize;
    let mut t = 0.0f64;
    while t < scenario.duration_ms {
        let f = frames.len();
        // 1. The frames-in-flight gate: frame F waits for frame F-N's fence.
        if f >= n {
            t = t.max(frames[f - n].gpu_end);
        }
        // 2. vkpace's policy decides when the CPU work begins (completions it has seen so far
        //    are reported first, as the shell does when it polls fences).
        if let Some(p) = pacing.as_mut() {
            feed(
                p,
                scenario,
                &frames,
                &mut reported_gpu,
                &mut reported_display,
                t,
            );
            if let Some(at) = p.start_at(ns(t)) {
                t = t.max(ms(at));
            }
        }
        // 3. Acquire: an image must be free (the presentation engine's back-pressure).
        t = t.max(image_free_at(scenario, &frames, f));
        let cpu_start = t;
        if let Some(p) = pacing.as_mut() {
            p.frame_started(f as u64, ns(cpu_start));
        }
        let load = scenario.load_at(cpu_start);
        let submit = cpu_start + scenario.vary(load.cpu_ms, &mut rng);
        if let Some(p) = pacing.as_mut() {
            p.frame_submitted(f as u64, ns(submit));
            p.frame_presented(f as u64);
        }
        let gpu_start = frames
            .last()
            .map_or(submit, |prev| prev.gpu_end.max(submit));
        let gpu_end = gpu_start + scenario.vary(load.gpu_ms, &mut rng);
        frames.push(FrameRecord {
            cpu_start,
            submit,
            gpu_start,
            gpu_end,
            display: None,
        });
        place_on_display(scenario, &mut frames);
        t = submit;
    }
    frames
}

/// Tells the pacing code about GPU completions (timestamps) and, with present wait, displays
/// that happened by `now`.
fn feed(
    p: &mut Pacing,
    scenario: &Scenario,
    frames: &[FrameRecord],
    reported_gpu: &mut usize,
    reported_display: &mut usize,
    now: f64,
) {
    while *reported_gpu < frames.len() && frames[*reported_gpu].gpu_end <= now {
        let fr = frames[*reported_gpu];
        p.gpu_done(*reported_gpu as u64, ns(fr.gpu_start), ns(fr.gpu_end));
        *reported_gpu += 1;
    }
    if scenario.present_wait {
        while *reported_display < frames.len() {
            match frames[*reported_display].display {
                Some(d) if d <= now => {
                    p.frame_displayed(*reported_display as u64, ns(d));
                    *reported_display += 1;
                }
                // A dropped (mailbox) frame is never displayed: skip it.
                None if frames[*reported_display].gpu_end <= now
                    && *reported_display + 1 < frames.len() =>
                {
                    *reported_display += 1
                }
                _ => break,
            }
        }
    }
}

/// When frame `f` can acquire an image: once the frame `images` before it was replaced on
/// screen (FIFO, immediate) or finished being superseded (mailbox).
fn image_free_at(scenario: &Scenario, frames: &[FrameRecord], f: usize) -> f64 {
    let images = scenario.swapchain_images;
    if f < images {
        return 0.0;
    }
    // The image of frame f - images is released when a later frame takes the screen.
    let older = f - images;
    let next = &frames[older + 1];
    match scenario.display {
        DisplayMode::Immediate | DisplayMode::Mailbox { .. } => next.gpu_end,
        DisplayMode::Fifo { .. } => next.display.unwrap_or(next.gpu_end),
    }
}

/// Decides when the newest frame reaches the screen (and, for mailbox, drops the one it
/// replaces before a refresh).
fn place_on_display(scenario: &Scenario, frames: &mut [FrameRecord]) {
    let Some(last) = frames.len().checked_sub(1) else {
        return;
    };
    let ready = frames[last].gpu_end;
    let prev_display = frames[..last].iter().rev().find_map(|f| f.display);
    // The epsilon keeps a time already on a refresh (k * period) on it despite rounding.
    let vblank_after = |t: f64, period: f64| (t / period - 1e-9).ceil() * period;
    frames[last].display = Some(match scenario.display {
        DisplayMode::Immediate => ready,
        DisplayMode::Fifo { refresh_ms } => {
            let earliest = prev_display.map_or(ready, |d| ready.max(d + refresh_ms));
            vblank_after(earliest, refresh_ms)
        }
        DisplayMode::Mailbox { refresh_ms } => {
            let slot = vblank_after(ready, refresh_ms);
            // A previous frame waiting for the same refresh is replaced.
            if last > 0 && frames[last - 1].display == Some(slot) {
                frames[last - 1].display = None;
            }
            slot
        }
    });
}

/// The figures the benchmark reports for one run, measured after a warm-up second.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub latency_ms_p50: f64,
    pub latency_ms_p99: f64,
    pub fps: f64,
    pub interval_ms_stddev: f64,
    /// CPU frame start to the frame reaching the screen (shown frames only): with FIFO the
    /// latency a user sees, which `latency_ms_*` (to GPU end) leaves out.
    pub display_latency_ms_p50: f64,
}

pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Summarizes frames whose CPU start lies in [from_ms, to_ms).
pub fn summarize(frames: &[FrameRecord], from_ms: f64, to_ms: f64) -> Summary {
    let window: Vec<&FrameRecord> = frames
        .iter()
        .filter(|f| f.cpu_start >= from_ms && f.cpu_start < to_ms)
        .collect();
    let mut lat: Vec<f64> = window.iter().map(|f| f.latency()).collect();
    lat.sort_by(f64::total_cmp);
    let shown: Vec<f64> = window.iter().filter_map(|f| f.display).collect();
    let mut to_display: Vec<f64> = window
        .iter()
        .filter_map(|f| f.display.map(|d| d - f.cpu_start))
        .collect();
    to_display.sort_by(f64::total_cmp);
    let intervals: Vec<f64> = shown.windows(2).map(|w| w[1] - w[0]).collect();
    let fps = if shown.len() > 1 {
        (shown.len() - 1) as f64 / ((shown[shown.len() - 1] - shown[0]) / 1e3)
    } else {
        0.0
    };
    let mean = intervals.iter().sum::<f64>() / intervals.len().max(1) as f64;
    let var =
        intervals.iter().map(|i| (i - mean).powi(2)).sum::<f64>() / intervals.len().max(1) as f64;
    Summary {
        latency_ms_p50: percentile(&lat, 50.0),
        latency_ms_p99: percentile(&lat, 99.0),
        fps,
        interval_ms_stddev: var.sqrt(),
        display_latency_ms_p50: percentile(&to_display, 50.0),
    }
}
