//! Property tests of pacing to the display's refresh grid (`VK_EXT_present_timing`) in the
//! virtual-time simulation: the real `vkpace::core::Pacing` against a FIFO display that
//! honours target times by the nearest-refresh rule, over random CPU and GPU loads, noise,
//! CPU wake-ups up to 2.5 ms late (two busy threads competing) and 60, 120 and 144 Hz.
//! `VKPACE_SCHEDULES` sets how many cases of each property run (default 10,000: a run of a
//! few simulated seconds takes about 10 us, so the file takes well under a second).

mod proptest_cases;

use proptest::prelude::*;
use vkpace_sim::pacing::{run, summarize, FrameRecord, Policy, Scenario};
use vkpace_sim::scenarios::timed_fifo;

/// Frames left out at the start of a run while the schedule anchors (the first frames run
/// before any first-pixel time is known).
const SETTLE: usize = 5;
/// Tolerance of "exact" in ms: the display model works in f64 ms, the pacing code in ns.
const EXACT_MS: f64 = 1e-6;

fn refresh_hz() -> impl Strategy<Value = f64> {
    prop_oneof![3 => Just(60.0), 1 => Just(120.0), 1 => Just(144.0)]
}

/// A FIFO run with present timing at `hz`; its CPU and GPU times, noise and lateness as given.
fn timed(hz: f64, cpu: f64, gpu: f64, noise: f64, wake: f64, ms: f64) -> Scenario {
    Scenario {
        noise,
        duration_ms: ms,
        ..timed_fifo(hz, cpu, gpu, wake)
    }
}

/// Display intervals in refreshes between consecutive shown frames from frame `from` on.
fn intervals(frames: &[FrameRecord], refresh: f64, from: usize) -> Vec<f64> {
    let shown: Vec<f64> = frames[from.min(frames.len())..]
        .iter()
        .filter_map(|f| f.display)
        .collect();
    shown.windows(2).map(|w| (w[1] - w[0]) / refresh).collect()
}

/// Every interval from frame `from` on is exactly `k` refreshes.
fn assert_every_interval(
    frames: &[FrameRecord],
    refresh: f64,
    from: usize,
    k: f64,
) -> Result<(), TestCaseError> {
    for (i, iv) in intervals(frames, refresh, from).iter().enumerate() {
        prop_assert!(
            (iv * refresh - k * refresh).abs() <= EXACT_MS,
            "frame {} shown {iv} refreshes after the one before, not {k}",
            from + i + 1
        );
    }
    Ok(())
}

/// Any policy of vkpace's, with a frame limit on the grid of `hz` or anywhere.
fn policy(hz: f64) -> impl Strategy<Value = Policy> {
    prop_oneof![
        Just(Policy::Display),
        Just(Policy::LowLatency),
        (1usize..=3).prop_map(Policy::Frames),
        (1u32..=4).prop_map(move |k| Policy::Limit(hz / f64::from(k))),
        (20.0f64..240.0).prop_map(Policy::Limit),
    ]
}

proptest! {
    #![proptest_config(proptest_cases::config())]

    /// Whatever the load and policy, the display model keeps a presentation engine's rules:
    /// every frame is shown on a refresh, after it is ready, at least a refresh after the one
    /// before, and never more than half a refresh before the target it asked for.
    #[test]
    fn no_frame_is_shown_before_its_target_or_off_the_grid(
        (hz, policy) in refresh_hz().prop_flat_map(|hz| (Just(hz), policy(hz))),
        cpu in 0.2f64..25.0,
        gpu in 0.2f64..25.0,
        noise in 0.0f64..0.3,
        spikes in 0.0f64..0.05,
        wake in 0.0f64..=2.5,
        images in 2usize..=4,
        present_timing in prop::bool::weighted(0.8),
        seed in any::<u64>(),
    ) {
        let s = Scenario {
            spike_chance: spikes,
            swapchain_images: images,
            present_timing,
            ..timed(hz, cpu, gpu, noise, wake, 2_000.0)
        };
        let refresh = 1000.0 / hz;
        let mut prev: Option<f64> = None;
        for (i, f) in run(&s, policy, seed).iter().enumerate() {
            let d = f.display.expect("FIFO shows every frame");
            let on_grid = (d / refresh - (d / refresh).round()).abs() * refresh <= EXACT_MS;
            prop_assert!(on_grid, "frame {i} shown at {d} ms, off the {refresh} ms grid");
            prop_assert!(d >= f.gpu_end - EXACT_MS, "frame {i} shown before it was ready");
            if let Some(goal) = f.target {
                prop_assert!(present_timing, "frame {i} has a target without present timing");
                prop_assert!(d + refresh / 2.0 >= goal - EXACT_MS,
                    "frame {i} shown at {d} ms, target {goal} ms");
            }
            if let Some(p) = prev {
                prop_assert!(d - p >= refresh - EXACT_MS, "frame {i} shown {} ms after", d - p);
            }
            prev = Some(d);
        }
    }

    /// 30 fps on 60 Hz with present timing, CPU and GPU well under the 33 ms interval: once
    /// anchored, every frame stays on screen exactly two refreshes, however late the CPU
    /// wakes (up to 2.5 ms).
    #[test]
    fn thirty_fps_on_sixty_hz_shows_every_frame_two_refreshes(
        cpu in 0.5f64..12.0,
        gpu in 0.5f64..12.0,
        noise in 0.0f64..0.2,
        wake in 0.0f64..=2.5,
        seed in any::<u64>(),
    ) {
        let frames = run(&timed(60.0, cpu, gpu, noise, wake, 3_000.0), Policy::Limit(30.0), seed);
        assert_every_interval(&frames, 1000.0 / 60.0, SETTLE, 2.0)?;
    }

    /// 60 fps on 60 Hz with present timing, CPU and GPU each under 7 ms: every interval is
    /// exactly one refresh.
    #[test]
    fn sixty_fps_on_sixty_hz_shows_every_frame_one_refresh(
        cpu in 0.5f64..6.0,
        gpu in 0.5f64..6.0,
        noise in 0.0f64..0.1,
        wake in 0.0f64..=2.5,
        seed in any::<u64>(),
    ) {
        let frames = run(&timed(60.0, cpu, gpu, noise, wake, 3_000.0), Policy::Limit(60.0), seed);
        assert_every_interval(&frames, 1000.0 / 60.0, SETTLE, 1.0)?;
    }

    /// The display policy with a GPU that needs 1.3 refreshes a frame settles on a swap
    /// interval of 2 and keeps it: after the first second every interval is exactly two
    /// refreshes, never 1 and 2 (or 1 and 3) alternating.
    #[test]
    fn the_display_policy_settles_a_slow_gpu_on_two_refreshes(
        hz in refresh_hz(),
        cpu_share in 0.05f64..0.3,
        noise in 0.0f64..0.05,
        wake in 0.0f64..=2.5,
        seed in any::<u64>(),
    ) {
        let refresh = 1000.0 / hz;
        let s = timed(hz, cpu_share * refresh, 1.3 * refresh, noise, wake, 3_000.0);
        let frames = run(&s, Policy::Display, seed);
        let settled = frames.iter().position(|f| f.cpu_start >= 1_000.0).unwrap_or(frames.len());
        prop_assert!(frames.len() - settled > 20, "too few frames after the first second");
        assert_every_interval(&frames, refresh, settled, 2.0)?;
    }

    /// A frame limit on the grid (k = 1..3 refreshes at 60, 120 or 144 Hz) with present
    /// timing, CPU and GPU inside the interval: every interval is exactly k refreshes and the
    /// latency from a frame's CPU start to its first pixel stays within the interval plus two
    /// refreshes (the queue never stuffs).
    #[test]
    fn a_limit_on_the_grid_keeps_its_interval_and_a_short_queue(
        hz in refresh_hz(),
        k in 1u32..=3,
        cpu_share in 0.05f64..0.5,
        gpu_share in 0.05f64..0.6,
        noise in 0.0f64..0.1,
        wake_share in 0.0f64..=1.0,
        seed in any::<u64>(),
    ) {
        let refresh = 1000.0 / hz;
        let period = refresh * f64::from(k);
        let wake = wake_share * 2.5f64.min(0.3 * period);
        let s = timed(hz, cpu_share * period, gpu_share * period, noise, wake, 2_000.0);
        let frames = run(&s, Policy::Limit(hz / f64::from(k)), seed);
        assert_every_interval(&frames, refresh, SETTLE, f64::from(k))?;
        for (i, f) in frames.iter().enumerate().skip(SETTLE) {
            let latency = f.display.unwrap_or(f64::INFINITY) - f.cpu_start;
            prop_assert!(latency <= period + 2.0 * refresh + EXACT_MS,
                "frame {i}: {latency} ms from CPU start to first pixel, interval {period} ms");
        }
    }
}

/// Stddev of display intervals (ms) over frames starting in [from_ms, to_ms).
fn stddev(frames: &[FrameRecord], from_ms: f64, to_ms: f64) -> f64 {
    summarize(frames, from_ms, to_ms).interval_ms_stddev
}

/// 60 fps on 60 Hz with wake-ups up to 2.5 ms late, fixed seed: present timing shows every
/// frame for exactly one refresh from the start, with less latency; the CPU limiter
/// (the same run without present timing) repeats a frame once a late wake-up makes one miss
/// its refresh, and from then on keeps a frame queued.
#[test]
fn at_sixty_fps_present_timing_is_steadier_and_shorter_than_the_cpu_limiter() {
    let grid = timed_fifo(60.0, 4.0, 8.0, 2.5);
    let cpu = Scenario {
        present_timing: false,
        ..grid.clone()
    };
    let (g, c) = (
        run(&grid, Policy::Limit(60.0), 7),
        run(&cpu, Policy::Limit(60.0), 7),
    );
    let (sg, sc) = (stddev(&g, 0.0, 5_000.0), stddev(&c, 0.0, 5_000.0));
    assert!(sg <= EXACT_MS, "present timing: interval stddev {sg} ms");
    assert!(sc > 0.1, "CPU limiter: interval stddev {sc} ms");
    let (lg, lc) = (
        summarize(&g, 1_000.0, 5_000.0).display_latency_ms_p50,
        summarize(&c, 1_000.0, 5_000.0).display_latency_ms_p50,
    );
    assert!(
        lg < lc,
        "start-to-shown p50: present timing {lg} ms, CPU limiter {lc} ms"
    );
}

/// 30 fps on 60 Hz, fixed seed, where the CPU limiter's frames are ready close to a refresh:
/// under late wake-ups it shows frames for 1 and 3 refreshes as well as 2 (a stddev of
/// several ms), while present timing shows every one for exactly 2.
#[test]
fn at_thirty_fps_late_wake_ups_jitter_the_cpu_limiter_only() {
    let grid = timed_fifo(60.0, 2.0, 4.0, 2.5);
    let cpu = Scenario {
        present_timing: false,
        ..grid.clone()
    };
    let (g, c) = (
        run(&grid, Policy::Limit(30.0), 7),
        run(&cpu, Policy::Limit(30.0), 7),
    );
    let (sg, sc) = (stddev(&g, 1_000.0, 5_000.0), stddev(&c, 1_000.0, 5_000.0));
    assert!(sg <= EXACT_MS, "present timing: interval stddev {sg} ms");
    assert!(sc > 1.0, "CPU limiter: interval stddev {sc} ms");
}
