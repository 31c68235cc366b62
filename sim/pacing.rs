//! A deterministic virtual-time model of one render loop: a CPU thread, an asynchronous GPU
//! queue executing submissions in order, and a display (immediate, FIFO or mailbox at a fixed
//! refresh). It drives either vkpace's real pacing code ([`vkpace::core::Pacing`] behind the
//! frames-in-flight gate) or a textbook loop (3 frames in flight, wait on the frame's fence).
//! Same scenario and seed, same numbers.
//!
//! Unlike lavapipe (whose present waits for rendering), this GPU runs behind the CPU, so
//! frames can queue up: the case pacing policies exist for.
//!
//! With present timing the FIFO display honours the target present times the pacing code asks
//! for, by the rule of a real presentation engine with
//! `VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT` (the virtual display's
//! `target_ok`), and the pacing code learns each frame's ready and first-pixel times once they
//! have happened.

use vkpace::core::{DisplayTiming, Pacing, PresentTarget};
use vkpace::{FrameLimit, PacingPolicy};

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
    /// Present timing (`VK_EXT_present_timing`, relative targets): the pacing code is told
    /// the refresh and learns each frame's ready and first-pixel times, and the display
    /// honours the target times it asks for. Only FIFO has the fixed refresh grid this needs;
    /// other display modes ignore it.
    pub present_timing: bool,
    /// Each wake-up from a pacing sleep is late by a uniform 0..`wake_late_ms`: two busy CPU
    /// threads competing (measured here, that gives a CPU limiter 1-2.5 ms of interval
    /// standard deviation). 0: wake-ups are exact.
    pub wake_late_ms: f64,
    /// Present timing takes absolute target times only (no
    /// `VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT`): the pacing code gives each
    /// frame the time of its refresh, and the display shows it by the nearest-refresh rule.
    pub absolute_targets: bool,
    /// The display reports when each frame was ready before it shows it (present timing's
    /// partial results, read before each present and again after each wait there), as the
    /// virtual display does; without, the pacing code knows only what it saw complete.
    pub partial_results: bool,
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
    /// vkpace, N = 2, frame limit at the given rate: with the scenario's present timing and a
    /// rate on the refresh grid, target present times every k refreshes (as the library does
    /// once it has present timing); otherwise the CPU limiter.
    Limit(f64),
    /// vkpace's display policy (an automatic swap interval with present timing; frames in
    /// flight without it), N = 2.
    Display,
}

impl Policy {
    pub fn name(&self) -> String {
        match self {
            Policy::Textbook => "textbook".into(),
            Policy::Frames(n) => format!("frames-{n}"),
            Policy::LowLatency => "low-latency".into(),
            Policy::Limit(fps) => format!("limit-{fps:.0}"),
            Policy::Display => "display".into(),
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
    /// The present time it asked for (FIFO with present timing): not shown at a refresh more
    /// than half a refresh before this. None: no target.
    pub target: Option<f64>,
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

    /// The refresh the pacing code is told of: FIFO's, with present timing.
    fn timed_refresh(&self) -> Option<f64> {
        match self.display {
            DisplayMode::Fifo { refresh_ms } if self.present_timing => Some(refresh_ms),
            _ => None,
        }
    }

    /// How late one wake-up from a pacing sleep is (no draw when lateness is off, so runs
    /// without it keep their numbers).
    fn wake_lateness(&self, rng: &mut Rng) -> f64 {
        if self.wake_late_ms > 0.0 {
            rng.unit() * self.wake_late_ms
        } else {
            0.0
        }
    }

    fn vary(&self, base: f64, rng: &mut Rng) -> f64 {
        let mut v = base * (1.0 + self.noise * (2.0 * rng.unit() - 1.0));
        if rng.unit() < self.spike_chance {
            v *= 2.0;
        }
        v
    }
}

/// Seed offset of the wake-up lateness stream: a stream of its own, so that the loads of a
/// run are the same with and without lateness.
const WAKE_STREAM: u64 = 0x3a4e_1a7e_0000_0001;

/// Runs `policy` on `scenario` until its duration is over.
pub fn run(scenario: &Scenario, policy: Policy, seed: u64) -> Vec<FrameRecord> {
    let mut rng = Rng::new(seed);
    let mut wake_rng = Rng::new(seed ^ WAKE_STREAM);
    let n = match policy {
        Policy::Textbook => 3,
        Policy::Frames(n) => n,
        Policy::LowLatency | Policy::Limit(_) | Policy::Display => 2,
    };
    let mut pacing = pacing_for(scenario, policy);
    let mut frames: Vec<FrameRecord> = Vec::new();
    let mut reported = Reported::default();
    let mut t = 0.0f64;
    while t < scenario.duration_ms {
        let f = frames.len();
        // 1. The frames-in-flight gate: frame F waits for frame F-N's fence.
        if f >= n {
            t = t.max(frames[f - n].gpu_end);
        }
        // 2. vkpace's policy decides when the CPU work begins (completions it has seen so far
        //    are reported first, as the shell does when it polls fences); a sleep wakes late.
        if let Some(p) = pacing.as_mut() {
            feed(p, scenario, &frames, &mut reported, t);
            if let Some(woke) = pacing_sleep(p, &frames, t) {
                t = woke + scenario.wake_lateness(&mut wake_rng);
            }
        }
        // 3. Acquire: an image must be free (the presentation engine's back-pressure).
        t = t.max(image_free_at(scenario, &frames, f));
        t = render(
            scenario,
            pacing.as_mut(),
            &mut frames,
            t,
            &mut rng,
            &mut reported,
        );
    }
    frames
}

/// The pacing sleep before a frame, from `now`, as the machine makes it: until the policy's
/// start time, watching the newest presented frame's completion where the schedule asks
/// (`Pacing::fate_wait`, capped at the sleep's end). Returns when it ended (None: no sleep).
fn pacing_sleep(p: &mut Pacing, frames: &[FrameRecord], now: f64) -> Option<f64> {
    let mut t = now;
    let mut slept = false;
    while let Some(at) = p.start_at(ns(t)) {
        slept = true;
        match p.fate_wait(ns(t)) {
            // As the machine: a frame already done is not waited for in a sleep (the display's
            // word on it is read before the present).
            Some((frame, until)) if until.min(at) > ns(t) && frames[frame as usize].gpu_end > t => {
                t = fate_wait_ends(p, frames, frame, ms(until.min(at)), t);
            }
            _ => {
                t = t.max(ms(at));
                break;
            }
        }
    }
    slept.then_some(t)
}

/// A wait from `now` until `until` for frame `frame` to finish, as the machine makes it:
/// returns when it ended, having told the pacing code what it saw.
fn fate_wait_ends(p: &mut Pacing, frames: &[FrameRecord], frame: u64, until: f64, now: f64) -> f64 {
    let end = frames[frame as usize].gpu_end;
    if end <= until {
        let t = now.max(end);
        p.frames_complete(frame, ns(t));
        t
    } else {
        p.frame_pending(frame, ns(until));
        until
    }
}

/// How often the machine reads the results again while it waits for the display's word on a
/// frame done on the GPU (`FATE_POLL_NS`).
const POLL_MS: f64 = 0.5;

/// The present's waits, as the machine makes them, from `now`: the results read first (where
/// the display reports partial ones) and again after each wait; returns when the present is
/// made.
fn present_waits(
    p: &mut Pacing,
    s: &Scenario,
    frames: &[FrameRecord],
    r: &mut Reported,
    now: f64,
) -> f64 {
    let mut t = now;
    while let Some((frame, until)) = p.fate_wait(ns(t)) {
        if s.partial_results && read_ready(p, frames, r, t) {
            continue;
        }
        let until = ms(until);
        t = if frames[frame as usize].gpu_end <= t {
            p.frames_complete(frame, ns(t));
            if p.fate_wait(ns(t)).is_none() {
                break;
            }
            until.min(t + POLL_MS)
        } else {
            fate_wait_ends(p, frames, frame, until, t)
        };
    }
    t
}

/// The display's partial results at `now`: each frame ready by then and not reported yet says
/// when it was ready. Returns whether there was one.
fn read_ready(p: &mut Pacing, frames: &[FrameRecord], r: &mut Reported, now: f64) -> bool {
    let mut any = false;
    while let Some(fr) = frames.get(r.ready).filter(|f| f.gpu_end <= now) {
        p.frame_timed(r.ready as u64, Some(ns(fr.gpu_end)), None);
        r.ready += 1;
        any = true;
    }
    any
}

/// The pacing code `policy` runs (None: the textbook loop), told about the display as the
/// frame machine is: only FIFO queues frames, and only FIFO with present timing has a refresh
/// grid to target.
fn pacing_for(scenario: &Scenario, policy: Policy) -> Option<Pacing> {
    let mut p = match policy {
        Policy::Textbook => return None,
        Policy::Frames(_) => Pacing::new(PacingPolicy::FramesInFlight, None),
        Policy::LowLatency => Pacing::new(PacingPolicy::LowLatency, None),
        Policy::Limit(fps) => Pacing::new(PacingPolicy::FramesInFlight, FrameLimit::fps(fps).ok()),
        Policy::Display => Pacing::new(PacingPolicy::Display, None),
    };
    p.set_display_queues(matches!(scenario.display, DisplayMode::Fifo { .. }));
    if let Some(refresh_ms) = scenario.timed_refresh() {
        p.set_display_timing(Some(DisplayTiming {
            refresh_ns: ns(refresh_ms),
            relative_targets: !scenario.absolute_targets,
        }));
    }
    Some(p)
}

/// Frame `frames.len()` begins its CPU work at `cpu_start`: records its CPU and GPU times and
/// its place on the display; returns its submit time (when the CPU is free again).
fn render(
    scenario: &Scenario,
    mut pacing: Option<&mut Pacing>,
    frames: &mut Vec<FrameRecord>,
    cpu_start: f64,
    rng: &mut Rng,
    reported: &mut Reported,
) -> f64 {
    let f = frames.len() as u64;
    if let Some(p) = pacing.as_deref_mut() {
        p.frame_started(f, ns(cpu_start));
    }
    let load = scenario.load_at(cpu_start);
    let submit = cpu_start + scenario.vary(load.cpu_ms, rng);
    let mut target = PresentTarget::None;
    let mut cpu_free = submit;
    if let Some(p) = pacing {
        p.frame_submitted(f, ns(submit));
        // The machine's present first waits where the schedule asks (absolute targets).
        cpu_free = present_waits(p, scenario, frames, reported, submit);
        target = p.present_target(f, ns(cpu_free), scenario.present_timing);
        p.frame_presented(f);
    }
    let gpu_start = frames
        .last()
        .map_or(submit, |prev| prev.gpu_end.max(submit));
    let gpu_end = gpu_start + scenario.vary(load.gpu_ms, rng);
    frames.push(FrameRecord {
        cpu_start,
        submit,
        gpu_start,
        gpu_end,
        display: None,
        target: None,
    });
    place_on_display(scenario, frames, target);
    cpu_free
}

/// How far the pacing code's feedback has got.
#[derive(Debug, Default)]
struct Reported {
    /// Frames whose GPU completion was reported.
    gpu: usize,
    /// Frames whose display (present wait) or timing result (present timing) was reported.
    display: usize,
    /// Frames whose ready time a partial timing result reported.
    ready: usize,
}

/// Tells the pacing code about GPU completions (timestamps) and, with present wait or present
/// timing, displays that happened by `now` (a shell reads them without blocking, so a result
/// is known only once its first pixel is out).
fn feed(p: &mut Pacing, scenario: &Scenario, frames: &[FrameRecord], r: &mut Reported, now: f64) {
    while r.gpu < frames.len() && frames[r.gpu].gpu_end <= now {
        let fr = frames[r.gpu];
        p.gpu_done(r.gpu as u64, ns(fr.gpu_start), ns(fr.gpu_end));
        p.frames_complete(r.gpu as u64, ns(now));
        r.gpu += 1;
    }
    if r.gpu < frames.len() {
        // The round saw the oldest submission still running.
        p.frames_pending(ns(now));
    }
    if scenario.timed_refresh().is_some() {
        // FIFO shows every frame, in order.
        while let Some(fr) = frames.get(r.display) {
            match fr.display {
                Some(d) if d <= now => {
                    p.frame_timed(r.display as u64, Some(ns(fr.gpu_end)), Some(ns(d)));
                    r.display += 1;
                }
                _ => break,
            }
        }
    } else if scenario.present_wait {
        while r.display < frames.len() {
            match frames[r.display].display {
                Some(d) if d <= now => {
                    p.frame_displayed(r.display as u64, ns(d), true);
                    r.display += 1;
                }
                // A dropped (mailbox) frame is never displayed: skip it.
                None if frames[r.display].gpu_end <= now && r.display + 1 < frames.len() => {
                    r.display += 1
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
/// replaces before a refresh). FIFO honours `target` with the nearest-refresh rule: the first
/// refresh `v` at or after both the frame's readiness and one refresh after the previous frame
/// for which `v + refresh / 2 >= goal`; a relative goal counts from the previous frame's first
/// pixel (none for the first frame, as a new swapchain's first present ignores it).
fn place_on_display(scenario: &Scenario, frames: &mut [FrameRecord], target: PresentTarget) {
    let Some(last) = frames.len().checked_sub(1) else {
        return;
    };
    let ready = frames[last].gpu_end;
    let prev_display = frames[..last].iter().rev().find_map(|f| f.display);
    frames[last].display = Some(match scenario.display {
        DisplayMode::Immediate => ready,
        DisplayMode::Fifo { refresh_ms } => {
            let goal = match target {
                PresentTarget::Relative(after) => prev_display.map(|d| d + ms(after)),
                PresentTarget::Absolute(at) => Some(ms(at)),
                PresentTarget::None => None,
            };
            frames[last].target = goal;
            let earliest = prev_display.map_or(ready, |d| ready.max(d + refresh_ms));
            let on_time = goal.map_or(earliest, |g| earliest.max(g - refresh_ms / 2.0));
            vblank_after(on_time, refresh_ms)
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

/// The first refresh at or after `t`. The epsilon keeps a time already on a refresh
/// (k * period) on it despite rounding.
fn vblank_after(t: f64, period: f64) -> f64 {
    (t / period - 1e-9).ceil() * period
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
