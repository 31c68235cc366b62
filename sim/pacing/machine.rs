//! vkpace's policies in the pacing model: the frame machine that ships, driven through its
//! requests by the sim's shell against the world in load mode. The renderer here only
//! acquires, spends the frame's CPU time, submits with the frame's GPU time and presents; every
//! pacing decision, wait and feedback read is the machine's. The records are read back from
//! what the world did.

use std::collections::BTreeMap;

use vkpace_core::{DisplayPath, MachineConfig, PresentMode, PresentTarget};
use vkpace_core::{FrameLimit, PacingPolicy};

use super::{ms, ns, DisplayMode, FrameRecord, Policy, Scenario};
use crate::driver::{SimError, SimGpuClock, SimSurface, SimSwapchain, WakeLateness};
use crate::rng::Rng;
use crate::world::{DisplayConfig, World};

/// Seed offset of the wake-up lateness stream: a stream of its own, so that the loads of a
/// run are the same with and without lateness.
const WAKE_STREAM: u64 = 0x3a4e_1a7e_0000_0001;

/// How long the world runs on after the last frame, so that every frame has finished and been
/// shown before the records are read.
const DRAIN_NS: u64 = 1_000_000_000;

/// GPU timestamps on a clock that counts nanoseconds and never wraps: the machine learns each
/// frame's exact GPU start and end, as a renderer with timestamp queries does.
const CLOCK: SimGpuClock = SimGpuClock {
    period_ns: 1.0,
    valid_bits: 64,
    offset: 0,
};

/// Results-queue slots of present timing.
const TIMING_SLOTS: u32 = 16;

/// Runs vkpace's `policy` on `scenario` (not the textbook loop).
pub(super) fn run(s: &Scenario, policy: Policy, seed: u64) -> Result<Vec<FrameRecord>, SimError> {
    let mut sim = SimSwapchain::new(config(s, policy)?, world(s, seed), surface(s))?;
    sim.gpu_clock = s.gpu_timestamps.then_some(CLOCK);
    sim.wake = (s.wake_late_ms > 0.0).then(|| WakeLateness {
        rng: Rng::new(seed ^ WAKE_STREAM),
        max_ns: s.wake_late_ms * 1e6,
    });
    sim.setup()?;
    let mut r = Recorder {
        loads: Rng::new(seed),
        frames: Vec::new(),
        gpu: BTreeMap::new(),
        shown: BTreeMap::new(),
        refresh_ms: Some(refresh_ms(s)).filter(|&r| r > 0.0),
    };
    while ms(sim.now) < s.duration_ms {
        r.frame(s, &mut sim)?;
        r.collect(&sim);
    }
    sim.move_to(sim.now + DRAIN_NS)?;
    r.collect(&sim);
    Ok(r.frames)
}

/// The machine's configuration for `policy`: GPU timestamps where the scenario has them; present ids with present
/// wait or present timing; present timing (targets) only on FIFO, the one mode with a
/// refresh grid to target.
fn config(s: &Scenario, policy: Policy) -> Result<MachineConfig, SimError> {
    let mut c = MachineConfig::default();
    let (pacing, frames, limit) = match policy {
        Policy::Frames(n) => (PacingPolicy::FramesInFlight, n, None),
        Policy::LowLatency => (PacingPolicy::LowLatency, 2, None),
        Policy::Display => (PacingPolicy::Display, 2, None),
        Policy::Limit(fps) => (PacingPolicy::FramesInFlight, 2, FrameLimit::fps(fps).ok()),
        Policy::Grid(fps) => (PacingPolicy::Grid, 2, FrameLimit::fps(fps).ok()),
        Policy::LowLatencyLimit(fps) => (PacingPolicy::LowLatency, 2, FrameLimit::fps(fps).ok()),
        // Never the machine's: `try_run` gives it to the textbook loop.
        Policy::Textbook => (PacingPolicy::FramesInFlight, 3, None),
    };
    c.pacing.policy = pacing;
    c.pacing.frames_in_flight = frames;
    c.pacing.frame_limit = limit;
    c.surface.present_mode = present_mode(s.display);
    c.surface.extra_images = 0;
    let timed = s.timed_refresh().is_some();
    c.present_ids = s.present_wait || timed;
    c.present_timing_slots = timed.then_some(TIMING_SLOTS);
    c.gpu_clock = match s.gpu_timestamps {
        true => Some(CLOCK.config()?),
        false => None,
    };
    Ok(c)
}

fn present_mode(d: DisplayMode) -> PresentMode {
    match d {
        DisplayMode::Immediate => PresentMode::IMMEDIATE,
        DisplayMode::Fifo { .. } => PresentMode::FIFO,
        DisplayMode::Mailbox { .. } => PresentMode::MAILBOX,
    }
}

/// The world in load mode with the scenario's display: a refresh grid from time 0 for FIFO
/// and mailbox (whose display replaces older ready frames at a refresh), none for immediate
/// (a frame is shown once ready).
fn world(s: &Scenario, seed: u64) -> World {
    let mut w = World::with_loads(seed);
    let refresh_ns = ns(refresh_ms(s));
    w.display.config = DisplayConfig {
        refresh_ns,
        phase_ns: 0,
        relative_targets: !s.absolute_targets,
        timing_slots: TIMING_SLOTS,
        partial_results: s.partial_results,
    };
    w.display.replaces = matches!(s.display, DisplayMode::Mailbox { .. });
    w.display.exact_refresh_ns = (refresh_ns > 0).then(|| refresh_ms(s) * 1e6);
    w
}

/// The display's refresh (0: none, immediate).
fn refresh_ms(s: &Scenario) -> f64 {
    match s.display {
        DisplayMode::Fifo { refresh_ms } | DisplayMode::Mailbox { refresh_ms } => refresh_ms,
        DisplayMode::Immediate => 0.0,
    }
}

/// The scenario's swapchain images, exactly, in its one mode.
fn surface(s: &Scenario) -> SimSurface {
    SimSurface {
        min_images: s.swapchain_images as u32,
        extra_images: 0,
        p_create_fail: 0,
        present_modes: vec![present_mode(s.display)],
        compatible_modes: Vec::new(),
    }
}

/// The renderer, and what it reads back from the world.
struct Recorder {
    /// The loads' stream (the textbook loop draws the same).
    loads: Rng,
    frames: Vec<FrameRecord>,
    /// Frames whose GPU times are not read yet: the world's submission number, the record.
    gpu: BTreeMap<u64, usize>,
    /// Frames not seen shown yet: their present's sequence number, the record.
    shown: BTreeMap<u64, usize>,
    /// The display's refresh: shown times are read as refreshes of the scenario's grid.
    refresh_ms: Option<f64>,
}

impl Recorder {
    /// One frame: acquire (the machine's gate, pacing sleep and acquire), the CPU work,
    /// the submission with the frame's GPU time, the present.
    fn frame(&mut self, s: &Scenario, sim: &mut SimSwapchain) -> Result<(), SimError> {
        let Some(frame) = sim.acquire()? else {
            return Ok(());
        };
        let cpu_start = ms(sim.now);
        let load = s.load_at(cpu_start);
        let cpu = s.vary(load.cpu_ms, &mut self.loads);
        let gpu = s.vary(load.gpu_ms, &mut self.loads);
        sim.move_to(sim.now + ns(cpu))?;
        if let Some(l) = sim.world.load.as_mut() {
            l.next_frame_gpu_ns = ns(gpu);
        }
        let (number, _) = sim.submit(&frame)?;
        let submit = ms(sim.now);
        sim.present(frame.number)?;
        let interval = match sim.machine.display_path() {
            DisplayPath::RefreshGrid { interval } => Some(interval),
            _ => None,
        };
        let i = self.frames.len();
        self.gpu.insert(number, i);
        self.shown.insert(sim.world.last_present_seq(), i);
        self.frames.push(FrameRecord {
            cpu_start,
            submit,
            interval,
            ..FrameRecord::default()
        });
        Ok(())
    }

    /// Reads the GPU times and display times the world has for frames still missing them.
    fn collect(&mut self, sim: &SimSwapchain) {
        for (number, (start, end)) in &sim.world.gpu_times {
            if let Some(i) = self.gpu.remove(number) {
                self.frames[i].gpu_start = ms(*start);
                self.frames[i].gpu_end = ms(*end);
            }
        }
        for p in &sim.world.display.shown {
            let (Some(i), Some(at)) = (self.shown.remove(&p.seq), p.shown) else {
                continue;
            };
            let display = self.on_grid(at);
            let before = self.frames[..i].iter().rev().find_map(|f| f.display);
            self.frames[i].display = Some(display);
            self.frames[i].asked = p.target;
            self.frames[i].ready = p.ready.map(ms);
            self.frames[i].target = match p.target {
                PresentTarget::Absolute(t) => Some(ms(t)),
                PresentTarget::Relative(d) => before.map(|b| b + ms(d)),
                PresentTarget::None => None,
            };
        }
    }

    /// A shown time as the scenario's refresh it is (the world's grid counts whole
    /// nanoseconds, the scenario's is exact).
    fn on_grid(&self, at: u64) -> f64 {
        match self.refresh_ms {
            Some(r) => (ms(at) / r).round() * r,
            None => ms(at),
        }
    }
}
