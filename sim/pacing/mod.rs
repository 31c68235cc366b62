//! A deterministic virtual-time model of one render loop: a CPU thread, an asynchronous GPU
//! queue executing submissions in order, and a display (immediate, FIFO or mailbox at a fixed
//! refresh). vkpace's policies run as they ship: the frame machine
//! (`vkpace_core::FrameMachine`) is driven through its requests by the sim's shell
//! ([`crate::driver::SimSwapchain`]) against the world in load mode, so every pacing sleep,
//! fence wait and feedback read is the machine's own (module `machine`). The textbook loop
//! (3 frames in flight, wait on the frame's fence) is a plain model (module `textbook`). Same
//! scenario and seed, same numbers; both draw the same loads.
//!
//! Unlike lavapipe (whose present waits for rendering), this GPU runs behind the CPU, so
//! frames can queue up: the case pacing policies exist for.
//!
//! With present timing the FIFO display honours the target present times the machine asks
//! for, by the rule of a real presentation engine with
//! `VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT` (the world's display),
//! and the machine reads each frame's ready and first-pixel times once they have happened.

mod machine;
mod summary;
mod textbook;

pub use summary::{percentile, summarize, Summary};

use crate::rng::Rng;
use vkpace_core::PresentTarget;

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
    /// Present-wait feedback (present ids): the machine polls, at each acquire, which frames
    /// were displayed (a poll says "by now", not when), and low latency on FIFO waits for the
    /// next one during its pacing sleep (which says when).
    pub present_wait: bool,
    /// Present timing (`VK_EXT_present_timing`, relative targets): the machine is told
    /// the refresh and learns each frame's ready and first-pixel times, and the display
    /// honours the target times it asks for. Only FIFO has the fixed refresh grid this needs;
    /// other display modes ignore it.
    pub present_timing: bool,
    /// Each wake-up from a pacing sleep is late by a uniform 0..`wake_late_ms`: two busy CPU
    /// threads competing. 0: wake-ups are exact.
    pub wake_late_ms: f64,
    /// Present timing takes absolute target times only (no
    /// `VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT`): the pacing code gives each
    /// frame the time of its refresh, and the display shows it by the nearest-refresh rule.
    pub absolute_targets: bool,
    /// The display reports when each frame was ready before it shows it (present timing's
    /// partial results, read before each present and again after each wait there), as the
    /// virtual display does; without, the pacing code knows only what it saw complete.
    pub partial_results: bool,
    /// The machine reads GPU timestamps (exact GPU start and end); without, it learns GPU
    /// times from when it sees submissions complete.
    pub gpu_timestamps: bool,
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
    /// vkpace's `grid` policy, N = 2, frame limit at the given rate: frames start the lead
    /// learned for no missed refresh before their refresh (`vkpace_core::LeadAim::Grid`).
    Grid(f64),
    /// vkpace's low latency with a frame limit at the given rate, N = 2: on the grid, frames
    /// start the lead learned for its miss rate before their refresh.
    LowLatencyLimit(f64),
}

impl Policy {
    pub fn name(&self) -> String {
        match self {
            Policy::Textbook => "textbook".into(),
            Policy::Frames(n) => format!("frames-{n}"),
            Policy::LowLatency => "low-latency".into(),
            Policy::Limit(fps) => format!("limit-{fps:.0}"),
            Policy::Display => "display".into(),
            Policy::Grid(fps) => format!("grid-{fps:.0}"),
            Policy::LowLatencyLimit(fps) => format!("low-latency-{fps:.0}"),
        }
    }
}

/// One frame's times (ms, virtual clock).
#[derive(Debug, Clone, Copy)]
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
    /// What vkpace's present asked of the display, as it asked it (a relative target in ns, an
    /// absolute one on the world's clock in ns); `PresentTarget::None` without a target.
    pub asked: PresentTarget,
    /// vkpace's swap interval when it presented the frame, in refreshes (None: not paced on
    /// the refresh grid).
    pub interval: Option<u32>,
    /// When the display saw the frame ready (its present's wait signalled), if it did.
    pub ready: Option<f64>,
}

impl Default for FrameRecord {
    fn default() -> Self {
        Self {
            cpu_start: 0.0,
            submit: 0.0,
            gpu_start: 0.0,
            gpu_end: 0.0,
            display: None,
            target: None,
            asked: PresentTarget::None,
            interval: None,
            ready: None,
        }
    }
}

impl FrameRecord {
    /// CPU frame start to GPU end of that frame.
    pub fn latency(&self) -> f64 {
        self.gpu_end - self.cpu_start
    }
}

/// Milliseconds of the scenario as the world's nanoseconds.
fn ns(ms: f64) -> u64 {
    (ms.max(0.0) * 1e6).round() as u64
}

/// The world's nanoseconds as the records' milliseconds.
fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

impl Scenario {
    /// The load of a frame that starts at `t`.
    fn load_at(&self, t: f64) -> Load {
        let mut current = self.loads[0];
        for l in &self.loads {
            if l.from_ms <= t {
                current = *l;
            }
        }
        current
    }

    /// The refresh the machine is told of: FIFO's, with present timing.
    fn timed_refresh(&self) -> Option<f64> {
        match self.display {
            DisplayMode::Fifo { refresh_ms } if self.present_timing => Some(refresh_ms),
            _ => None,
        }
    }

    /// One duration of `base`: noise, and sometimes a spike.
    fn vary(&self, base: f64, rng: &mut Rng) -> f64 {
        let mut v = base * (1.0 + self.noise * (2.0 * rng.unit() - 1.0));
        if rng.unit() < self.spike_chance {
            v *= 2.0;
        }
        v
    }
}

/// Runs `policy` on `scenario` until its duration is over.
///
/// # Panics
///
/// When the machine breaks a Vulkan rule of the world or fails an operation (a bug the run
/// must not hide): [`try_run`] returns it instead.
pub fn run(scenario: &Scenario, policy: Policy, seed: u64) -> Vec<FrameRecord> {
    match try_run(scenario, policy, seed) {
        Ok(frames) => frames,
        Err(e) => panic!("{} with {}: {e:?}", scenario.name, policy.name()),
    }
}

/// [`run`], with what went wrong in the machine's run as an error.
pub fn try_run(
    scenario: &Scenario,
    policy: Policy,
    seed: u64,
) -> Result<Vec<FrameRecord>, crate::driver::SimError> {
    match policy {
        Policy::Textbook => Ok(textbook::run(scenario, seed)),
        _ => machine::run(scenario, policy, seed),
    }
}
