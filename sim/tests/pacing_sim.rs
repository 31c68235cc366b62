//! The pacing policies judged in the deterministic GPU/display simulation (virtual time, so
//! these are exact figures, not timings): the acceptance thresholds of the pacing issue.

use vkpace_sim::pacing::{run, summarize, Policy};
use vkpace_sim::scenarios::{
    convergence_ms, cpu_bound, fifo_60hz, gpu_bound, load_step, policies, SEED,
};

const WARMUP_MS: f64 = 1_000.0;

#[test]
fn same_seed_same_numbers() {
    let a = run(&gpu_bound(), Policy::LowLatency, SEED);
    let b = run(&gpu_bound(), Policy::LowLatency, SEED);
    assert_eq!(a.len(), b.len());
    assert!(a.iter().zip(&b).all(|(x, y)| x.gpu_end == y.gpu_end));
}

#[test]
fn gpu_bound_low_latency_halves_latency_at_the_same_fps() {
    let s = gpu_bound();
    let text = summarize(&run(&s, Policy::Textbook, SEED), WARMUP_MS, s.duration_ms);
    let low = summarize(&run(&s, Policy::LowLatency, SEED), WARMUP_MS, s.duration_ms);
    println!("textbook {text:?}\nlow latency {low:?}");
    assert!(
        low.latency_ms_p50 <= 0.5 * text.latency_ms_p50,
        "{low:?} vs {text:?}"
    );
    assert!(low.fps >= 0.95 * text.fps, "{low:?} vs {text:?}");
}

#[test]
fn load_step_low_latency_reconverges_within_a_second() {
    let frames = run(&load_step(), Policy::LowLatency, SEED);
    let c = convergence_ms(&frames);
    println!("convergence after each step: {c:?}");
    for (i, t) in c.iter().enumerate() {
        let t = t.unwrap_or(f64::INFINITY);
        assert!(t <= 1_000.0, "step {i}: {t} ms");
    }
}

#[test]
fn fifo_60hz_no_policy_drops_below_60_fps() {
    let s = fifo_60hz();
    for p in policies() {
        let m = summarize(&run(&s, p, SEED), WARMUP_MS, s.duration_ms);
        println!("{}: {m:?}", p.name());
        assert!(m.fps >= 59.99, "{}: {m:?}", p.name());
    }
}

/// FIFO at 60 Hz with present ids and no GPU timestamps: low latency learns GPU times from the
/// completions it watches and display times from the presents it watches, in the same sleep,
/// and still keeps 60 fps and shows frames sooner than two frames in flight (watching the
/// submission before the display did not: it never caught a display time).
#[test]
fn fifo_60hz_low_latency_without_gpu_timestamps() {
    let s = vkpace_sim::pacing::Scenario {
        gpu_timestamps: false,
        ..fifo_60hz()
    };
    let frames = summarize(&run(&s, Policy::Frames(2), SEED), WARMUP_MS, s.duration_ms);
    let low = summarize(&run(&s, Policy::LowLatency, SEED), WARMUP_MS, s.duration_ms);
    println!("frames-2 {frames:?}\nlow latency {low:?}");
    assert!(low.fps >= 59.99, "{low:?}");
    assert!(
        low.display_latency_ms_p50 < frames.display_latency_ms_p50,
        "{low:?} vs {frames:?}"
    );
}

#[test]
fn cpu_bound_low_latency_costs_no_fps() {
    let s = cpu_bound();
    let text = summarize(&run(&s, Policy::Textbook, SEED), WARMUP_MS, s.duration_ms);
    let low = summarize(&run(&s, Policy::LowLatency, SEED), WARMUP_MS, s.duration_ms);
    assert!(low.fps >= 0.99 * text.fps, "{low:?} vs {text:?}");
}

/// Mailbox at 60 Hz with a GPU far faster than the refresh: the display shows one frame per
/// refresh, on the grid, and drops the frames a newer one replaced before its refresh.
#[test]
fn mailbox_shows_one_frame_per_refresh_and_drops_the_rest() {
    let refresh = 1000.0 / 60.0;
    let s = vkpace_sim::pacing::Scenario {
        display: vkpace_sim::pacing::DisplayMode::Mailbox {
            refresh_ms: refresh,
        },
        loads: vec![vkpace_sim::pacing::Load {
            from_ms: 0.0,
            cpu_ms: 1.0,
            gpu_ms: 3.0,
        }],
        ..gpu_bound()
    };
    for p in [Policy::Frames(2), Policy::LowLatency, Policy::Textbook] {
        let frames = run(&s, p, SEED);
        let m = summarize(&frames, WARMUP_MS, s.duration_ms);
        println!("{}: {m:?}", p.name());
        let dropped = frames.iter().filter(|f| f.display.is_none()).count();
        assert!(
            dropped > frames.len() / 2,
            "{}: {dropped} dropped",
            p.name()
        );
        assert!((m.fps - 60.0).abs() < 0.01, "{}: {m:?}", p.name());
        for f in frames.iter().filter_map(|f| f.display) {
            let off = (f / refresh - (f / refresh).round()).abs() * refresh;
            assert!(off < 1e-6, "{}: shown at {f} ms, off the grid", p.name());
        }
    }
}

/// FIFO at 60 Hz with present timing, CPU 2 ms and GPU 12 ms, and one frame in ten a spike
/// (lavapipe on a busy machine is like that): low latency keeps one refresh per frame (a frame
/// that misses costs itself a refresh, about the spikes' share of the frame rate, not the
/// loop half its rate, as raising the swap interval did) and still shows frames sooner than
/// two frames in flight do.
#[test]
fn timed_fifo_low_latency_keeps_the_refresh_rate_through_slow_frames() {
    let s = vkpace_sim::pacing::Scenario {
        spike_chance: 0.1,
        ..vkpace_sim::scenarios::timed_fifo(60.0, 2.0, 12.0, 0.5)
    };
    let frames = summarize(&run(&s, Policy::Frames(2), SEED), WARMUP_MS, s.duration_ms);
    let low = summarize(&run(&s, Policy::LowLatency, SEED), WARMUP_MS, s.duration_ms);
    println!("frames-2 {frames:?}\nlow latency {low:?}");
    assert!(low.fps >= 0.9 * frames.fps, "{low:?} vs {frames:?}");
    assert!(
        low.display_latency_ms_p50 < frames.display_latency_ms_p50,
        "{low:?} vs {frames:?}"
    );
}
