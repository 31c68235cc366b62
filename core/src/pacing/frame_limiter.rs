//! A frame-rate limit on a fixed deadline grid: deadline k+1 = deadline k + period, never
//! "now + period", so rounding and wake-up lateness do not accumulate into drift.
//!
//! A frame that starts late (the OS or hypervisor took the CPU away at the deadline) leaves
//! the loop behind the grid. Catching up at once would follow the long interval with an equally
//! short one: two visible hitches, and twice the variance. So a lag beyond
//! [`CATCH_UP_AT_ONCE`] of a period is paid back gradually, [`CATCH_UP_SHARE`] of what is left
//! each frame; the grid is rejoined a few frames later, drift-free all the same (the lag stays
//! bounded). Wake-up jitter below that is paid back at once, so the loop stays exactly on the
//! grid. A frame that starts more than one period behind the grid re-anchors it instead.

use crate::CoreError;

/// Lag up to this fraction of the period (1/100) is paid back in the next interval, as on a
/// plain grid: ordinary wake-up jitter never leaves the grid.
pub const CATCH_UP_AT_ONCE: f64 = 0.01;

/// Of a larger lag, this share (1/8) is paid back per frame, at least [`CATCH_UP_AT_ONCE`] of
/// the period. A frame that started 2 ms late at 60 Hz is followed by intervals 0.25 ms,
/// 0.22 ms, ... short instead of one 2 ms short: the variance the stall adds drops from 2X² to
/// about 1.07X² (the stall itself), and no interval is cut by more than an eighth of the lag.
/// A constant lateness L per frame settles at a constant lag of at most 8L: bounded, so no
/// drift.
pub const CATCH_UP_SHARE: f64 = 0.125;

/// A frame rate limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameLimit {
    period_ns: u64,
}

impl FrameLimit {
    /// The slowest frame limit, fps.
    pub const MIN_FPS: f64 = 1.0;
    /// The fastest frame limit, fps.
    pub const MAX_FPS: f64 = 10_000.0;

    /// A limit of `fps` frames per second ([`Self::MIN_FPS`] to [`Self::MAX_FPS`]).
    ///
    /// ```
    /// use vkpace_core::FrameLimit;
    /// let limit = FrameLimit::fps(60.0)?;
    /// assert_eq!(limit.period_ns(), 16_666_667);
    /// assert!(FrameLimit::fps(0.0).is_err());
    /// # Ok::<(), vkpace_core::CoreError>(())
    /// ```
    pub fn fps(fps: f64) -> Result<Self, CoreError> {
        if !(Self::MIN_FPS..=Self::MAX_FPS).contains(&fps) {
            return Err(CoreError::InvalidFrameLimit(format!("{fps}")));
        }
        Ok(Self {
            period_ns: (1e9 / fps).round() as u64,
        })
    }

    /// The frame period in nanoseconds.
    #[must_use]
    pub fn period_ns(&self) -> u64 {
        self.period_ns
    }
}

/// The limiter's deadline grid.
#[derive(Debug, Clone)]
pub struct FrameLimiter {
    limit: FrameLimit,
    /// The grid's period: the limit's, or the display's interval for it where the grid follows
    /// the display ([`FrameLimiter::follow_display`]).
    period_ns: u64,
    /// The next frame's slot on the grid.
    slot: Option<u64>,
    /// When the next frame may start: its slot, or later while lag is being paid back.
    next: Option<u64>,
    /// The slot of the frame started last.
    started_slot: Option<u64>,
    /// That frame started more than a period behind the grid, which was re-anchored on it.
    reanchored: bool,
}

impl FrameLimiter {
    /// A limiter with no deadline yet (the first frame starts at once).
    #[must_use]
    pub fn new(limit: FrameLimit) -> Self {
        Self {
            limit,
            period_ns: limit.period_ns,
            slot: None,
            next: None,
            started_slot: None,
            reanchored: false,
        }
    }

    /// The limit it keeps.
    #[must_use]
    pub fn limit(&self) -> FrameLimit {
        self.limit
    }

    /// The earliest start of the next frame.
    #[must_use]
    pub fn deadline(&self) -> Option<u64> {
        self.next
    }

    /// The slot on the grid of the frame started last (its start, or earlier where it started
    /// late).
    #[must_use]
    pub fn started_slot(&self) -> Option<u64> {
        self.started_slot
    }

    /// Whether the frame started last re-anchored the grid (it started more than a period
    /// behind it).
    #[must_use]
    pub fn reanchored(&self) -> bool {
        self.reanchored
    }

    /// The display's clock, as [`super::DisplayAnchor`] learned it: the grid takes its
    /// period from now on and moves by its shift now (the next frame's deadline with it).
    pub fn follow_display(&mut self, follow: super::Follow) {
        self.period_ns = follow.period_ns.unwrap_or(self.limit.period_ns);
        let shift = |t: u64| t.saturating_add_signed(follow.shift_ns);
        self.slot = self.slot.map(shift);
        self.next = self.next.map(shift);
    }

    /// A frame began at `now`. The next deadline is one period after this frame's slot on the
    /// grid, plus what is left of this frame's lag after paying back its share (see
    /// `CATCH_UP_SHARE`, an eighth of the lag).
    pub fn frame_started(&mut self, now: u64) {
        let period = self.period_ns;
        let slot = match self.slot {
            Some(s) if now <= s.saturating_add(period) => s,
            _ => now,
        };
        self.reanchored = self.slot.is_some() && slot == now && self.slot != Some(now);
        let lag = now.saturating_sub(slot);
        let at_once = (period as f64 * CATCH_UP_AT_ONCE) as u64;
        let payback = if lag <= at_once {
            lag
        } else {
            at_once.max((lag as f64 * CATCH_UP_SHARE) as u64)
        };
        let next_slot = slot.saturating_add(period);
        self.started_slot = Some(slot);
        self.slot = Some(next_slot);
        self.next = Some(next_slot.saturating_add(lag - payback));
        if cfg!(vkpace_mutation = "drifting_limiter") {
            // The rule this module exists to avoid: the next deadline a period after now.
            self.next = Some(now.saturating_add(period));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Starts each frame `late` after its deadline for `frames` frames; returns the starts.
    fn run(
        l: &mut FrameLimiter,
        first: u64,
        frames: usize,
        late: impl Fn(usize) -> u64,
    ) -> Vec<u64> {
        let mut now = first;
        let mut starts = Vec::new();
        for k in 0..frames {
            starts.push(now);
            l.frame_started(now);
            now = l.deadline().unwrap() + late(k);
        }
        starts
    }

    #[test]
    fn deadlines_stay_on_the_grid_despite_late_wakeups() {
        let limit = FrameLimit::fps(100.0).unwrap();
        let mut l = FrameLimiter::new(limit);
        assert_eq!(l.deadline(), None);
        l.frame_started(1_000);
        for k in 1..1000u64 {
            let d = l.deadline().unwrap();
            assert_eq!(d, 1_000 + k * 10_000_000);
            // Wake up a little late every time (within 1% of the period): no drift.
            l.frame_started(d + 60_000 + k % 40_000);
        }
    }

    #[test]
    fn a_constant_lateness_beyond_the_catch_up_leaves_a_bounded_lag_and_no_drift() {
        let period = 10_000_000;
        let mut l = FrameLimiter::new(FrameLimit::fps(100.0).unwrap());
        let starts = run(&mut l, 0, 1000, |_| 150_000);
        for (k, s) in starts.iter().enumerate() {
            let lag = s - k as u64 * period;
            assert!(lag <= 9 * 150_000, "frame {k}: lag {lag}");
        }
        // Settled: every interval is the period.
        for w in starts[500..].windows(2) {
            assert_eq!(w[1] - w[0], period);
        }
    }

    #[test]
    fn a_late_start_is_paid_back_over_several_frames_without_drift() {
        let period = 10_000_000;
        let stall = 2_500_000;
        let mut l = FrameLimiter::new(FrameLimit::fps(100.0).unwrap());
        // Frame 1 starts 2.5 ms late, every other frame on time.
        let starts = run(&mut l, 0, 60, |k| if k == 0 { stall } else { 0 });
        assert_eq!(starts[1], period + stall);
        let mut paid = 0;
        for w in starts[1..].windows(2) {
            let short = period - (w[1] - w[0]);
            // Never more than an eighth of the stall (or 1% of the period) short.
            assert!(short <= stall / 8, "{short}");
            paid += short;
        }
        // All of it paid back: frame k is on its slot of the grid again, and stays there.
        assert_eq!(paid, stall);
        for (k, s) in starts.iter().enumerate().skip(30) {
            assert_eq!(*s, k as u64 * period, "frame {k}");
        }
    }

    /// The deadline after a first frame at 0 and a second at `second`, at 100 fps.
    #[test]
    fn the_deadline_after_a_second_frame() {
        for (case, second, deadline) in [
            // Wake-up jitter within 1% of the period is paid back at once.
            ("jitter", 10_000_000 + 60_000, 20_000_000),
            // A frame that started before its slot keeps the slot.
            ("early start", 9_000_000, 20_000_000),
            // More than one period behind: the grid re-anchors instead of bursting.
            ("long stall", 95_000_000, 105_000_000),
        ] {
            let mut l = FrameLimiter::new(FrameLimit::fps(100.0).unwrap());
            l.frame_started(0);
            l.frame_started(second);
            assert_eq!(l.deadline(), Some(deadline), "{case}");
        }
    }

    #[test]
    fn bad_rates_are_refused() {
        for bad in [0.0, -5.0, f64::NAN, f64::INFINITY, 20_000.0] {
            assert!(FrameLimit::fps(bad).is_err(), "{bad}");
        }
    }
}
