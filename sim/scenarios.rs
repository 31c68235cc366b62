//! The benchmark's simulated scenarios and policies, and the load-step convergence measure.

use crate::pacing::{summarize, DisplayMode, FrameRecord, Load, Policy, Scenario};

/// Seed of every benchmark run: same seed, same numbers.
pub const SEED: u64 = 0x005e_ed0f_7ace;

/// Load-step phase boundaries (ms).
pub const STEPS_MS: [f64; 2] = [4_000.0, 8_000.0];

pub fn policies() -> [Policy; 5] {
    [
        Policy::Textbook,
        Policy::Frames(2),
        Policy::Frames(1),
        Policy::LowLatency,
        Policy::Limit(60.0),
    ]
}

/// Four swapchain images (what Mesa's X11 surface gives here): enough that the presentation
/// engine's back-pressure does not cap the textbook loop below its 3 frames in flight.
fn scenario(name: &'static str, display: DisplayMode, loads: Vec<Load>, ms: f64) -> Scenario {
    Scenario {
        name,
        display,
        swapchain_images: 4,
        loads,
        noise: 0.05,
        spike_chance: 0.01,
        duration_ms: ms,
        present_wait: true,
        present_timing: false,
        wake_late_ms: 0.0,
        absolute_targets: false,
        partial_results: false,
        gpu_timestamps: true,
    }
}

fn load(from_ms: f64, cpu_ms: f64, gpu_ms: f64) -> Load {
    Load {
        from_ms,
        cpu_ms,
        gpu_ms,
    }
}

/// GPU 10 ms, CPU 3 ms, shown at once: the GPU is the bottleneck and frames queue behind it.
pub fn gpu_bound() -> Scenario {
    scenario(
        "gpu-bound",
        DisplayMode::Immediate,
        vec![load(0.0, 3.0, 10.0)],
        10_000.0,
    )
}

/// CPU 10 ms, GPU 4 ms.
pub fn cpu_bound() -> Scenario {
    scenario(
        "cpu-bound",
        DisplayMode::Immediate,
        vec![load(0.0, 10.0, 4.0)],
        10_000.0,
    )
}

/// GPU-bound, then CPU-bound from 4 s, then GPU-bound again from 8 s.
pub fn load_step() -> Scenario {
    scenario(
        "load-step",
        DisplayMode::Immediate,
        vec![
            load(0.0, 3.0, 10.0),
            load(STEPS_MS[0], 10.0, 3.0),
            load(STEPS_MS[1], 3.0, 10.0),
        ],
        12_000.0,
    )
}

/// FIFO at 60 Hz, GPU 12 ms, CPU 2 ms: the display is the bottleneck.
pub fn fifo_60hz() -> Scenario {
    scenario(
        "fifo-60hz",
        DisplayMode::Fifo {
            refresh_ms: 1000.0 / 60.0,
        },
        vec![load(0.0, 2.0, 12.0)],
        10_000.0,
    )
}

/// FIFO at `refresh_hz` with present timing (relative targets), CPU and GPU at the given
/// durations (5% noise, no spikes), and wake-ups from pacing sleeps up to `wake_late_ms` late:
/// the setting of the refresh-grid pacing's tests. Its CPU limiter twin is the same with
/// `present_timing` false.
pub fn timed_fifo(refresh_hz: f64, cpu_ms: f64, gpu_ms: f64, wake_late_ms: f64) -> Scenario {
    Scenario {
        spike_chance: 0.0,
        present_timing: true,
        wake_late_ms,
        ..scenario(
            "timed-fifo",
            DisplayMode::Fifo {
                refresh_ms: 1000.0 / refresh_hz,
            },
            vec![load(0.0, cpu_ms, gpu_ms)],
            5_000.0,
        )
    }
}

pub fn scenarios() -> [Scenario; 4] {
    [gpu_bound(), cpu_bound(), load_step(), fifo_60hz()]
}

/// After each load step, the simulated time until latency settles: the first moment after
/// which the rolling median latency (9 frames, so a lone spike does not count) stays within
/// 15% (or 1 ms) of the phase's settled median (the median of its last second). None when it
/// never settles within the phase.
pub fn convergence_ms(frames: &[FrameRecord]) -> Vec<Option<f64>> {
    const ROLL: usize = 9;
    let mut out = Vec::new();
    let bounds = [STEPS_MS[0], STEPS_MS[1], 12_000.0];
    for w in bounds.windows(2) {
        let (step, end) = (w[0], w[1]);
        let settled = summarize(frames, end - 1_000.0, end).latency_ms_p50;
        let tolerance = (0.15 * settled).max(1.0);
        let phase: Vec<&FrameRecord> = frames
            .iter()
            .filter(|f| f.cpu_start >= step && f.cpu_start < end)
            .collect();
        let rolling: Vec<f64> = (0..phase.len())
            .map(|i| {
                let lo = i.saturating_sub(ROLL - 1);
                let mut v: Vec<f64> = phase[lo..=i].iter().map(|f| f.latency()).collect();
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            })
            .collect();
        let last_bad = rolling
            .iter()
            .rposition(|m| (m - settled).abs() > tolerance);
        out.push(match last_bad {
            None => Some(0.0),
            Some(i) if i + 1 < phase.len() => Some(phase[i + 1].cpu_start - step),
            Some(_) => None,
        });
    }
    out
}
