//! A render loop on a FIFO display with present timing and absolute targets, driven through
//! the frame machine, with frames that sometimes miss their refresh: what the display showed
//! must keep the schedule's promise, "on time, not early": a frame targeted on the refresh
//! grid is never shown less than its swap interval after the frame before it (a late frame
//! moves the frames after it; it is not caught up with a short one). The display is the
//! world's (`sim/world/display.rs`): it shows a present at the first refresh at or after its
//! semaphore signalled, a refresh after the present before it, and not before its target.

use vkpace_core::{FrameLimit, PacingPolicy};
use vkpace_core::{MachineConfig, PresentMode, PresentTarget};
use vkpace_sim::driver::{SimSurface, SimSwapchain};
use vkpace_sim::world::{DisplayConfig, Faults, World};

/// One display schedule.
#[derive(Debug, Clone)]
pub struct DisplayParams {
    pub seed: u64,
    /// Refresh, ns.
    pub refresh_ns: u64,
    /// Frames per swap interval (the frame limit on the grid).
    pub interval: u32,
    /// Largest GPU delay of a frame, in world ticks (100 us).
    pub max_gpu_delay: u32,
    /// Largest CPU time of a frame, in world ticks.
    pub max_cpu_ticks: u32,
    pub frames_in_flight: usize,
    /// The engine reports ready times before the first pixel (partial results).
    pub partial_results: bool,
    pub frames: u32,
}

/// What a display schedule showed.
#[derive(Debug, Default, Clone)]
pub struct DisplayOutcome {
    /// Consecutive targeted frames whose spacing was checked.
    pub pairs_checked: u64,
    /// Frames the machine saw miss their refresh.
    pub missed: u64,
    pub frames_presented: u64,
}

/// Runs the loop and checks every pair of consecutive presents the display showed.
pub fn run_display(p: &DisplayParams) -> Result<DisplayOutcome, String> {
    let refresh = p.refresh_ns;
    let period = refresh * u64::from(p.interval);
    let mut config = MachineConfig::default();
    config.pacing.frames_in_flight = p.frames_in_flight;
    config.present_ids = true;
    config.present_timing_slots = Some(8);
    config.pacing.policy = PacingPolicy::FramesInFlight;
    config.pacing.frame_limit =
        Some(FrameLimit::fps(1e9 / period as f64).map_err(|e| e.to_string())?);
    let faults = Faults {
        max_gpu_delay: p.max_gpu_delay,
        ..Faults::default()
    };
    let mut world = World::new(p.seed, faults);
    world.display.config = DisplayConfig {
        refresh_ns: refresh,
        phase_ns: refresh / 3,
        relative_targets: false,
        timing_slots: 8,
        partial_results: p.partial_results,
    };
    let surface = SimSurface {
        min_images: 3,
        extra_images: 0,
        p_create_fail: 0,
        present_modes: vec![PresentMode::FIFO],
        compatible_modes: Vec::new(),
    };
    let mut sim = SimSwapchain::new(config, world, surface).map_err(|e| format!("{e:?}"))?;
    sim.setup().map_err(|e| format!("{e:?}"))?;
    let mut checked = 0;
    for _ in 0..p.frames {
        let Some(frame) = sim.acquire().map_err(|e| format!("{e:?}"))? else {
            continue;
        };
        let cpu = sim.world.rng.below(p.max_cpu_ticks + 1);
        for _ in 0..cpu {
            sim.tick().map_err(|e| format!("{e:?}"))?;
        }
        // Submitted and presented together, as the shell does.
        sim.submit(&frame).map_err(|e| format!("{e:?}"))?;
        sim.present(frame.number).map_err(|e| format!("{e:?}"))?;
        checked = check_spacing(&sim, period, checked)?;
    }
    for _ in 0..200 {
        sim.tick().map_err(|e| format!("{e:?}"))?;
    }
    let checked = check_spacing(&sim, period, checked)?;
    let stats = sim.machine.stats();
    Ok(DisplayOutcome {
        pairs_checked: checked,
        missed: stats.refreshes_missed,
        frames_presented: stats.frames_presented,
    })
}

/// Every two consecutive presents shown with absolute targets (ids one apart, same swapchain):
/// the second at least a swap interval after the first. Returns the pairs checked so far
/// (the display keeps the latest 256 shown presents; only pairs not checked before count).
fn check_spacing(sim: &SimSwapchain, period: u64, checked_before: u64) -> Result<u64, String> {
    let shown = &sim.world.display.shown;
    let mut checked = 0;
    for (a, b) in shown.iter().zip(shown.iter().skip(1)) {
        let targeted = |t: PresentTarget| matches!(t, PresentTarget::Absolute(_));
        if b.id != a.id + 1 || a.gen != b.gen || !targeted(a.target) || !targeted(b.target) {
            continue;
        }
        let (Some(sa), Some(sb)) = (a.shown, b.shown) else {
            continue;
        };
        checked += 1;
        if sb < sa + period {
            return Err(format!(
                "present {} shown at {sa} ns and present {} at {sb} ns: {} ns on screen, less \
                 than the swap interval ({period} ns); {a:?} then {b:?}",
                a.id,
                b.id,
                sb - sa
            ));
        }
    }
    Ok(checked_before.max(checked))
}
