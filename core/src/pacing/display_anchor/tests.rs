use super::*;
use crate::{FrameLimit, Pacing, PacingPolicy};

const MS: u64 = 1_000_000;

/// A FIFO display and a program capped by the CPU limiter, simulated: each frame starts at the
/// limiter's deadline (a little late), is presented `render(frame)` later, ready `gpu_tail_ns`
/// after its present, and shown at the first refresh after that which is free. With
/// `anchored`, a frame shown before the next frame's start is reported exact (a watch during
/// the pacing sleep), `report_late(frame)` after it was shown (the thread's wake-up); with
/// `ready_seen`, its ready time is reported too (a shell that sees its submissions complete).
/// Returns the shown times.
struct Sim {
    refresh_ns: u64,
    /// The first refresh.
    phase_ns: u64,
    fps: f64,
    anchored: bool,
    gpu_tail_ns: u64,
    ready_seen: bool,
}

impl Sim {
    fn run(
        &self,
        frames: u64,
        render: impl Fn(u64) -> u64,
        report_late: impl Fn(u64) -> u64,
    ) -> (Vec<u64>, Pacing) {
        let limit = FrameLimit::fps(self.fps).unwrap();
        let mut p = Pacing::new(PacingPolicy::FramesInFlight, Some(limit));
        let mut now = 0;
        let mut shown = Vec::new();
        let mut pending: Option<(u64, u64)> = None;
        for f in 0..frames {
            loop {
                let start = p.start_at(now).unwrap_or(now);
                match pending.take() {
                    Some((seen, at)) if at <= start => {
                        now = now.max(at);
                        if self.anchored {
                            p.frame_displayed(seen, at, true);
                        }
                    }
                    _ => {
                        now = start + mix(f | 1 << 41) % 200_000;
                        break;
                    }
                }
            }
            p.frame_started(f, now);
            let presented = now + render(f);
            p.frame_presented(f, presented);
            let ready = presented + self.gpu_tail_ns;
            if self.ready_seen {
                p.frame_ready_by(f, ready);
            }
            let mut at = self.refresh_after(ready);
            if let Some(&last) = shown.last() {
                at = at.max(last + self.refresh_ns);
            }
            shown.push(at);
            pending = Some((f, at + report_late(f)));
            now += 2 * MS;
        }
        (shown, p)
    }

    /// The first refresh at or after `t`.
    fn refresh_after(&self, t: u64) -> u64 {
        let k = (t.saturating_sub(self.phase_ns)).div_ceil(self.refresh_ns);
        self.phase_ns + k * self.refresh_ns
    }

    /// Intervals between shown frames, in refreshes, from frame `from` on.
    fn refreshes(&self, shown: &[u64], from: usize) -> Vec<u64> {
        shown[from..]
            .windows(2)
            .map(|w| (w[1] - w[0] + self.refresh_ns / 2) / self.refresh_ns)
            .collect()
    }
}

/// A pseudo-random render time from 4 to 9 ms.
fn render(f: u64) -> u64 {
    4 * MS + mix(f) % (5 * MS)
}

/// A report of the display up to 0.5 ms after it happened.
fn late(f: u64) -> u64 {
    mix(f | 1 << 40) % 500_000
}

fn off_grid(intervals: &[u64], k: u64) -> usize {
    intervals.iter().filter(|&&n| n != k).count()
}

#[test]
fn a_cap_on_a_display_slower_than_twice_it_keeps_two_refreshes_once_anchored() {
    // 30 fps on a display at 59.5 Hz: the CPU's grid gains 0.28 ms per frame on the display.
    let refresh_ns = (1e9 / 59.5) as u64;
    for phase_ns in [0, 4 * MS, 9 * MS, 13 * MS] {
        let mut sim = Sim {
            refresh_ns,
            phase_ns,
            fps: 30.0,
            anchored: false,
            gpu_tail_ns: 0,
            ready_seen: false,
        };
        let (free, _) = sim.run(2_000, render, late);
        let free_off = off_grid(&sim.refreshes(&free, 60), 2);
        assert!(
            free_off >= 20,
            "phase {phase_ns}: the control drifts: {free_off}"
        );
        sim.anchored = true;
        let (shown, p) = sim.run(2_000, render, late);
        let off = off_grid(&sim.refreshes(&shown, 60), 2);
        assert_eq!(off, 0, "phase {phase_ns}");
        let a = p.display_anchor().unwrap();
        let period = a.period_ns().unwrap();
        assert!(period.abs_diff(2 * refresh_ns) < 50_000, "{period}");
        assert!(a.slips() <= 2, "{}", a.slips());
    }
}

#[test]
fn a_phase_that_puts_ready_times_across_a_refresh_is_moved_off_it() {
    // The display at exactly twice the cap, its refresh 6 ms into each frame: renders of 4 to
    // 9 ms are ready on both sides of it.
    let refresh_ns = 16_666_667;
    let mut sim = Sim {
        refresh_ns,
        phase_ns: 6 * MS,
        fps: 30.0,
        anchored: false,
        gpu_tail_ns: 0,
        ready_seen: false,
    };
    let (free, _) = sim.run(600, render, late);
    assert!(off_grid(&sim.refreshes(&free, 60), 2) >= 50);
    sim.anchored = true;
    let (shown, p) = sim.run(600, render, late);
    assert_eq!(off_grid(&sim.refreshes(&shown, 60), 2), 0);
    // Placed for the slowest render and the margin, without a refresh missed to learn it.
    assert_eq!(p.display_anchor().unwrap().slips(), 0);
}

/// A GPU that finishes each frame 6 ms after its present (a real GPU's queue; lavapipe's, seen
/// through vdisplay, takes about 0.1 ms): a shell that sees the frames ready places the grid for
/// that from the first frames, with no refresh missed; one that sees only the presents learns
/// it from missed refreshes, each a visible hitch.
#[test]
fn a_gpu_tail_seen_ready_is_covered_without_a_missed_refresh() {
    let mut sim = Sim {
        refresh_ns: (1e9 / 59.5) as u64,
        phase_ns: 6 * MS,
        fps: 30.0,
        anchored: true,
        gpu_tail_ns: 6 * MS,
        ready_seen: false,
    };
    let (blind, p) = sim.run(600, render, late);
    let blind_off = off_grid(&sim.refreshes(&blind, 20), 2);
    let blind_slips = p.display_anchor().unwrap().slips();
    assert!(
        blind_slips >= 2 && blind_off >= 2,
        "the control learns the tail from misses: {blind_slips} slips, {blind_off} off"
    );
    sim.ready_seen = true;
    let (shown, p) = sim.run(600, render, late);
    assert_eq!(off_grid(&sim.refreshes(&shown, 20), 2), 0);
    assert_eq!(p.display_anchor().unwrap().slips(), 0);
}

#[test]
fn a_cap_off_the_displays_grid_keeps_the_cpus_period() {
    // 40 fps on 60 Hz: frames alternate 1 and 2 refreshes, no interval agrees with the cap.
    let sim = Sim {
        refresh_ns: 16_666_667,
        phase_ns: 0,
        fps: 40.0,
        anchored: true,
        gpu_tail_ns: 0,
        ready_seen: false,
    };
    let (shown, p) = sim.run(400, render, late);
    assert_eq!(p.display_anchor().unwrap().period_ns(), None);
    let mean = (shown[399] - shown[40]) / 359;
    assert!(mean.abs_diff(25 * MS) < 100_000, "{mean}");
}

/// An anchor at 33 ms per frame whose frames were presented `work` after their slots and
/// shown on a display grid 20 ms after the first slot, for frames `0..10`, the grid following
/// it; returns the anchor and the next frame's slot.
fn placed(work: u64) -> (DisplayAnchor, u64) {
    let period = 33 * MS;
    let mut a = DisplayAnchor::new(period);
    let mut slot = 0u64;
    for f in 0..10 {
        a.frame_started(f, slot);
        a.frame_presented(f, slot + work);
        let follow = a.frame_shown(f, f * period + 20 * MS);
        slot = (slot + period).saturating_add_signed(follow.shift_ns);
    }
    (a, slot)
}

#[test]
fn the_grid_is_placed_for_the_slowest_recent_frame_and_a_margin() {
    let (a, slot) = placed(5 * MS);
    // Frame 10 starts 5 ms and the margin (an eighth of the interval) before its refresh.
    let margin = (33.0 * MS as f64 * LEAD_MARGIN_SHARE) as u64;
    assert_eq!(10 * 33 * MS + 20 * MS - slot, 5 * MS + margin);
    assert_eq!(a.period_ns(), Some(33 * MS));
    assert_eq!(a.slips(), 0);
}

#[test]
fn a_frame_shown_early_shortens_the_lead_at_once_and_late_lengthens_it_when_repeated() {
    let (mut a, mut slot) = placed(5 * MS);
    let lead = (10 * 33 * MS + 20 * MS - slot) as i64;
    let mut shown_after = |f: u64, since: i64| {
        a.frame_started(f, slot);
        a.frame_presented(f, slot + 5 * MS);
        let shift = a.frame_shown(f, (slot as i64 + since) as u64).shift_ns;
        slot = (slot + 33 * MS).saturating_add_signed(shift);
        shift
    };
    // 4 ms off: noise, nothing moves.
    assert_eq!(shown_after(10, lead + 4 * MS as i64), 0);
    // A refresh (16 ms) late: once, nothing; again soon, the lead grows by an eighth of it.
    assert_eq!(shown_after(11, lead + 16 * MS as i64), 0);
    assert_eq!(shown_after(12, lead), 0);
    assert_eq!(shown_after(13, lead + 16 * MS as i64), -2 * MS as i64);
    // A refresh early: an eighth of it off the lead again, at once.
    assert_eq!(
        shown_after(14, lead + 2 * MS as i64 - 16 * MS as i64),
        2 * MS as i64
    );
    assert_eq!(a.slips(), 2);
}

#[test]
fn a_grid_re_anchored_after_a_stall_is_placed_again() {
    let (mut a, slot) = placed(5 * MS);
    let lead = 10 * 33 * MS + 20 * MS - slot;
    // The limiter re-anchored its grid on a frame that started 10 ms later than its slot
    // against the display: it is shown 10 ms sooner after its slot.
    a.grid_reanchored();
    let late_slot = slot + 10 * MS;
    a.frame_started(10, late_slot);
    a.frame_presented(10, late_slot + 5 * MS);
    let follow = a.frame_shown(10, slot + lead);
    // Taken as it is (not a missed refresh), and the grid moved back to the lead at once.
    assert_eq!(follow.shift_ns, -10 * MS as i64);
    assert_eq!(a.slips(), 0);
}

#[test]
fn a_reset_forgets_the_display() {
    let mut a = DisplayAnchor::new(33 * MS);
    for f in 0..10 {
        a.frame_started(f, f * 33 * MS);
        let _ = a.frame_shown(f, f * 33 * MS + 5 * MS);
    }
    assert!(a.period_ns().is_some());
    a.reset();
    assert_eq!(a.period_ns(), None);
    assert_eq!(a.frame_shown(10, 400 * MS), Follow::default());
}

/// splitmix64: a well-mixed pseudo-random value of `x`.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[test]
fn frames_started_before_a_move_move_with_the_grid() {
    let (mut a, slot) = placed(5 * MS);
    let lead = 10 * 33 * MS + 20 * MS - slot;
    // Frames 10 and 11 start before 10 is shown; 10 took 15 ms to its present, so the lead
    // grows by 10 ms when it is shown, and the grid moves 10 ms earlier.
    a.frame_started(10, slot);
    a.frame_presented(10, slot + 15 * MS);
    a.frame_started(11, slot + 33 * MS);
    let moved = a.frame_shown(10, slot + lead).shift_ns;
    assert_eq!(moved, -10 * MS as i64);
    // Frame 11, shown on the display's next interval, is on the moved grid's lead: nothing
    // to follow, no refresh taken early.
    a.frame_presented(11, slot + 33 * MS + 5 * MS);
    assert_eq!(a.frame_shown(11, slot + lead + 33 * MS).shift_ns, 0);
    assert_eq!(a.slips(), 0);
}
