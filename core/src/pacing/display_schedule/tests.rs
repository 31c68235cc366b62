//! The display schedule's unit tests: targets on the refresh grid, late frames, learned
//! offsets, the swap interval policy and low latency's start times.

use super::*;

const R: u64 = 16_666_667;

fn schedule(choice: Interval, relative: bool) -> DisplaySchedule {
    let mut s = DisplaySchedule::new();
    s.set_timing(
        Some(DisplayTiming {
            refresh_ns: R,
            relative_targets: relative,
        }),
        choice,
    );
    s
}

#[test]
fn limits_on_the_grid_and_off_it() {
    assert_eq!(interval_for_limit(33_333_333, R), Some(2));
    assert_eq!(interval_for_limit(16_683_350, R), Some(1)); // 59.94 fps
    assert_eq!(interval_for_limit(8_333_333, R), Some(1)); // faster than the display
    assert_eq!(interval_for_limit(20_000_000, R), None); // 50 fps on 60 Hz
    assert_eq!(interval_for_limit(16_666_667, 6_944_444), None); // 60 fps on 144 Hz
    assert_eq!(interval_for_limit(16_666_667, 0), None);
}

/// Frame `f` started and submitted at `at` and presented: its target.
fn present(s: &mut DisplaySchedule, f: u64, at: u64) -> PresentTarget {
    s.frame_started(f, at, None);
    s.frame_submitted(f, at);
    s.plan_present(f, at, true)
}

#[test]
fn a_thirty_fps_schedule_targets_two_refreshes_and_starts_one_interval_ahead() {
    let mut s = schedule(Interval::Fixed(2), true);
    assert_eq!(s.path(), DisplayPath::RefreshGrid { interval: 2 });
    assert_eq!(present(&mut s, 0, 0), PresentTarget::Relative(2 * R));
    assert_eq!(s.start_at(1, Lead::OneInterval), None, "no anchor yet");
    s.frame_timed(0, Some(3_000_000), Some(R));
    assert_eq!(s.expected(3), Some(R + 6 * R));
    assert_eq!(s.start_at(3, Lead::OneInterval), Some(R + 4 * R));
    let mut abs = schedule(Interval::Fixed(2), false);
    assert_eq!(
        present(&mut abs, 0, 0),
        PresentTarget::None,
        "no anchor: no absolute target"
    );
    abs.frame_timed(0, None, Some(R));
    assert_eq!(present(&mut abs, 1, R), PresentTarget::Absolute(3 * R));
    assert_eq!(
        abs.plan_present(1, 2 * R, true),
        PresentTarget::Absolute(3 * R),
        "kept"
    );
}

#[test]
fn a_late_frame_moves_the_schedule_and_counts_a_miss() {
    let mut s = schedule(Interval::Fixed(1), true);
    s.frame_timed(0, None, Some(R));
    s.frame_timed(1, None, Some(3 * R)); // expected at 2R
    assert_eq!(s.missed(), 1);
    assert_eq!(s.expected(2), Some(4 * R));
    // An older result after a newer one teaches nothing about the schedule.
    s.frame_timed(0, None, Some(R));
    assert_eq!(s.expected(2), Some(4 * R));
}

#[test]
fn with_absolute_targets_a_late_frame_moves_the_frames_after_it() {
    let mut s = schedule(Interval::Fixed(2), false);
    s.frame_timed(0, None, Some(R));
    assert_eq!(present(&mut s, 1, R), PresentTarget::Absolute(3 * R));
    // Before its refresh, the present of frame 2 first waits for frame 1 until then.
    assert_eq!(s.fate_wait(2 * R), Some((1, 3 * R)));
    // Still rendering at its refresh: waited for, at most four intervals more.
    s.frames_pending(None, 3 * R);
    assert_eq!(s.fate_wait(3 * R), Some((1, 3 * R + 8 * R)));
    // Finished 1.5 refreshes late: shown at 5R; frame 2 is meant for 7R, not 5R.
    s.frames_complete(1, 4 * R + R / 2);
    assert_eq!(s.fate_wait(4 * R + R / 2), None);
    assert_eq!(
        present(&mut s, 2, 4 * R + R / 2),
        PresentTarget::Absolute(7 * R)
    );
    assert_eq!(s.expected(3), Some(9 * R));
    s.frame_timed(1, None, Some(5 * R));
    assert_eq!(s.missed(), 1);
    // Seen complete by its refresh: on time, no wait.
    s.frames_complete(2, 6 * R);
    assert_eq!(s.fate_wait(6 * R), None);
}

#[test]
fn a_frame_submitted_after_its_refresh_is_meant_for_the_next_one() {
    let mut s = schedule(Interval::Fixed(2), false);
    s.frame_timed(0, None, Some(R));
    // Frame 1 is expected at 3R, but the CPU submits it at 3.2R.
    assert_eq!(
        present(&mut s, 1, 3 * R + R / 5),
        PresentTarget::Absolute(4 * R)
    );
    assert_eq!(s.expected(2), Some(6 * R));
}

#[test]
fn with_absolute_targets_a_steady_offset_of_the_display_is_learned() {
    let mut s = schedule(Interval::Fixed(2), false);
    s.frame_timed(0, None, Some(R));
    assert_eq!(present(&mut s, 1, R), PresentTarget::Absolute(3 * R));
    // Ready at 2R, before its target, and still shown a refresh after it: once is not a
    // steady offset (the engine may have been late itself).
    s.frame_timed(1, Some(2 * R), Some(4 * R));
    assert_eq!(s.missed(), 1);
    assert_eq!(present(&mut s, 2, 4 * R), PresentTarget::Absolute(6 * R));
    // Twice in a row by the same amount: later targets are given a refresh earlier.
    s.frame_timed(2, Some(5 * R), Some(7 * R));
    assert_eq!(present(&mut s, 3, 7 * R), PresentTarget::Absolute(8 * R));
    assert_eq!(s.goal(3), Some(9 * R));
    s.frame_timed(3, Some(8 * R), Some(9 * R));
    assert_eq!(s.missed(), 2);
    // A display that stops lagging shows a frame early: the lead is taken back.
    assert_eq!(present(&mut s, 4, 9 * R), PresentTarget::Absolute(10 * R));
    s.frame_timed(4, Some(9 * R), Some(10 * R));
    assert_eq!(present(&mut s, 5, 11 * R), PresentTarget::Absolute(12 * R));
    // A frame not ready by its target teaches no offset: it missed.
    s.frame_timed(5, Some(13 * R), Some(13 * R));
    assert_eq!(present(&mut s, 6, 13 * R), PresentTarget::Absolute(15 * R));
}

#[test]
fn the_display_policy_raises_on_misses_and_lowers_when_frames_fit() {
    let mut s = schedule(Interval::Auto { at_least: 1 }, true);
    let mut shown = 0;
    for f in 0..3u64 {
        // Every frame takes 1.5 refreshes: each one misses.
        shown += 2 * R;
        s.frame_started(f, shown - 2 * R, None);
        s.frame_timed(f, Some(shown - R / 2), Some(shown));
    }
    assert_eq!(s.path(), DisplayPath::RefreshGrid { interval: 2 });
    // Now frames take 4 ms of CPU and GPU each: after a full window, back to 1.
    for f in 3..3 + u64::from(MISS_WINDOW) {
        shown += 2 * R;
        s.frame_started(f, shown - 2 * R, None);
        s.frame_submitted(f, shown - 2 * R + 2_000_000);
        s.frame_timed(f, Some(shown - 2 * R + 4_000_000), Some(shown));
    }
    assert_eq!(s.path(), DisplayPath::RefreshGrid { interval: 1 });
}

/// The lead an estimator of `aim` learns from `works` (start-to-ready times), on 60 Hz.
fn learned(aim: LeadAim, works: impl IntoIterator<Item = u64>) -> u64 {
    let mut e = LeadEstimator::new(aim);
    for w in works {
        e.frame_ready(w, R);
    }
    e.lead(R).unwrap_or(0)
}

#[test]
fn low_latency_leads_by_the_learned_work_and_margin() {
    let mut s = schedule(Interval::Auto { at_least: 1 }, true);
    for f in 0..8u64 {
        s.frame_started(f, f * R, None);
        s.frame_timed(f, Some(f * R + 5_000_000), Some((f + 1) * R));
    }
    let lead = learned(LeadAim::LowLatency, [5_000_000; 8]);
    assert!(lead > 5_000_000 && lead <= 5_000_000 + R / 8, "{lead}");
    assert_eq!(s.start_at(8, Lead::JustInTime), Some(9 * R - lead));
    assert_eq!(s.start_at(8, Lead::OneInterval), Some(8 * R));
}

#[test]
fn without_a_refresh_or_a_choice_nothing_is_scheduled() {
    let mut s = schedule(Interval::Off, true);
    s.frame_timed(0, None, Some(R));
    assert_eq!(s.path(), DisplayPath::Cpu);
    assert_eq!(s.plan_present(1, R, true), PresentTarget::None);
    assert_eq!(s.start_at(1, Lead::OneInterval), None);
    let mut none = DisplaySchedule::new();
    none.set_timing(None, Interval::Fixed(2));
    assert_eq!(none.path(), DisplayPath::Cpu);
}

#[test]
fn a_frame_limit_under_frames_in_flight_leads_by_as_many_refreshes() {
    let mut s = schedule(Interval::Fixed(1), true);
    for f in 0..8u64 {
        s.frame_started(f, f * R, None);
        s.frame_timed(f, Some(f * R + 5_000_000), Some((f + 1) * R));
    }
    // 60 fps on 60 Hz: one refresh for the display policy and one frame in flight, two for
    // two (the slack FIFO's queue gives the CPU limiter), never less than the interval.
    assert_eq!(s.start_at(8, Lead::OneInterval), Some(8 * R));
    assert_eq!(s.start_at(8, Lead::Refreshes(1)), Some(8 * R));
    assert_eq!(s.start_at(8, Lead::Refreshes(2)), Some(7 * R));
    let mut thirty = schedule(Interval::Fixed(2), true);
    thirty.frame_timed(0, Some(5_000_000), Some(R));
    assert_eq!(thirty.start_at(1, Lead::Refreshes(2)), Some(R));
    assert_eq!(thirty.start_at(1, Lead::Refreshes(3)), Some(0));
}

#[test]
fn the_grid_policy_leads_by_the_learned_lead_at_most_an_interval() {
    // 30 fps on 60 Hz, frames ready 5 ms after their start but one in 9 ms: the 97th
    // percentile (9 ms) and the margin ahead, where frames in flight lead by the whole
    // interval (two refreshes).
    let mut thirty = schedule(Interval::Fixed(2), true);
    assert_eq!(thirty.start_at(0, Lead::Learned), None, "no anchor yet");
    let work = |f: u64| if f == 3 { 9_000_000 } else { 5_000_000 };
    for f in 0..8u64 {
        thirty.frame_started(f, 2 * f * R, None);
        thirty.frame_timed(f, Some(2 * f * R + work(f)), Some((2 * f + 1) * R));
    }
    let lead = learned(LeadAim::Grid, (0..8).map(work));
    assert!(lead > 9_000_000 && lead <= 9_000_000 + R / 2, "{lead}");
    assert_eq!(thirty.start_at(8, Lead::Learned), Some(17 * R - lead));
    assert_eq!(thirty.start_at(8, Lead::Refreshes(2)), Some(15 * R));
    // One frame in 20 took 40 ms: never more than the interval ahead.
    let mut capped = schedule(Interval::Fixed(2), true);
    for f in 0..20u64 {
        let work = if f == 10 { 40_000_000 } else { 5_000_000 };
        capped.frame_started(f, 2 * f * R, None);
        capped.frame_timed(f, Some(2 * f * R + work), Some((2 * f + 1) * R));
    }
    assert_eq!(capped.start_at(20, Lead::Learned), Some(39 * R));
}

#[test]
fn a_frame_shown_late_though_ready_within_its_lead_widens_the_margin() {
    let run = |late_at: Option<u64>| {
        let mut s = schedule(Interval::Fixed(2), true);
        for f in 0..8u64 {
            let shown = (2 * f + 1) * R + if Some(f) == late_at { R } else { 0 };
            s.frame_started(f, 2 * f * R, None);
            s.frame_timed(f, Some(2 * f * R + 5_000_000), Some(shown));
        }
        s.start_at(8, Lead::Learned)
    };
    let (on_time, one_late) = (run(None), run(Some(5)));
    assert!(
        one_late < on_time,
        "a later start after a miss the work did not show: {one_late:?} against {on_time:?}"
    );
}
