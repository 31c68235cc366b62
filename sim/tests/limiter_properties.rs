//! Property tests of the frame limiter's deadline grid against random start times: frames
//! that start on time, a little late, very late (stalls) or early, at rates from 30 to 240 fps.
//! `VKPACE_SCHEDULES` sets how many cases run (default 10,000).

mod proptest_cases;

use proptest::prelude::*;
use vkpace_core::FrameLimit;
use vkpace_core::FrameLimiter;

/// How a frame starts relative to its deadline, in millionths of a period: mostly a little
/// late, sometimes a stall of up to 1.5 periods, sometimes early (a caller that did not wait).
fn offsets() -> impl Strategy<Value = Vec<i64>> {
    prop::collection::vec(
        prop_oneof![
            8 => 0i64..=20_000,
            1 => 20_000i64..=1_500_000,
            1 => -500_000i64..=0,
        ],
        1..300,
    )
}

/// Runs the limiter over `offsets`; returns each frame's start and the deadline it was given.
fn drive(l: &mut FrameLimiter, period: u64, offsets: &[i64]) -> Vec<(u64, u64)> {
    let mut now = 1_000_000_000u64;
    let mut out = Vec::new();
    for &o in offsets {
        if let Some(d) = l.deadline() {
            let shift = (o as f64 / 1e6 * period as f64) as i64;
            now = now.max(d.saturating_add_signed(shift));
        }
        l.frame_started(now);
        out.push((now, l.deadline().unwrap_or(0)));
    }
    out
}

proptest! {
    #![proptest_config(proptest_cases::config())]

    /// The next deadline always lies ahead of the frame that set it, by at least the period
    /// less an eighth of it (the gradual catch-up never makes an interval shorter), and by at
    /// most the period plus the lag still to pay back (less than a period).
    #[test]
    fn deadlines_keep_intervals_near_the_period(fps in 30.0f64..=240.0, offs in offsets()) {
        let limit = FrameLimit::fps(fps).unwrap();
        let period = limit.period_ns();
        let mut l = FrameLimiter::new(limit);
        for (start, deadline) in drive(&mut l, period, &offs) {
            let ahead = deadline - start;
            // The catch-up pays back at most an eighth of the lag a frame, and the lag is under
            // a period (more re-anchors): no interval is cut by more than an eighth of a period
            // (docs/design.md; the 1 ns is the deadline's rounding).
            let shortest = period - period / 8 - 1;
            prop_assert!(ahead >= shortest, "deadline {ahead} ns ahead, period {period}");
            prop_assert!(ahead <= 2 * period, "deadline {ahead} ns ahead, period {period}");
        }
    }

    /// Drift-free: whatever happened before, frames that then start on their deadlines are
    /// back on a grid of exactly one period within 40 frames, and stay there.
    #[test]
    fn after_any_history_on_time_frames_rejoin_the_grid(
        fps in 30.0f64..=240.0,
        offs in offsets(),
    ) {
        let limit = FrameLimit::fps(fps).unwrap();
        let period = limit.period_ns();
        let mut l = FrameLimiter::new(limit);
        let mut all = offs.clone();
        all.extend(std::iter::repeat_n(0, 60));
        let starts: Vec<u64> = drive(&mut l, period, &all).into_iter().map(|(s, _)| s).collect();
        let tail = &starts[starts.len() - 20..];
        for w in tail.windows(2) {
            prop_assert_eq!(w[1] - w[0], period);
        }
    }

    /// A bounded lateness per frame leaves a bounded lag: over a long run the frames keep the
    /// rate exactly (elapsed time is frames x period, give or take nine times that bound).
    #[test]
    fn bounded_lateness_never_drifts(
        fps in 30.0f64..=240.0,
        late in prop::collection::vec(0i64..=60_000, 200..600),
    ) {
        let limit = FrameLimit::fps(fps).unwrap();
        let period = limit.period_ns();
        let mut l = FrameLimiter::new(limit);
        let starts: Vec<u64> = drive(&mut l, period, &late).into_iter().map(|(s, _)| s).collect();
        let frames = (starts.len() - 1) as u64;
        let elapsed = starts[starts.len() - 1] - starts[0];
        let bound = 10 * (0.06 * period as f64) as u64;
        prop_assert!(elapsed.abs_diff(frames * period) <= bound,
            "elapsed {elapsed}, expected {} +- {bound}", frames * period);
    }
}
