//! A frame limit anchored on the display: where the display says exactly when frames were
//! shown (present ids watched during the pacing sleep) and there are no present-timing targets,
//! the CPU limiter's deadline grid follows the display's clock instead of its own.
//!
//! Why: a CPU limiter keeps its own period, and the display keeps its refresh. A cap of 30 on
//! a display that refreshes at 59.94 Hz, or whose clock runs a little off the CPU's, shows
//! every frame for 2 refreshes only while the frames' ready times stay on the same side of a
//! refresh; they drift through it, and when they cross one a frame is shown one refresh early
//! or late, a visible hitch every few hundred frames (and every few dozen where the rates are
//! further apart). The grid's phase is also luck: where it puts the ready times next to a
//! refresh, frames alternate 1 and 3 refreshes (MangoHud's `fps_limit` in docs/layer.md).
//!
//! What the anchor does, from exact display times only (a time seen by a poll is only "shown
//! by then", up to a loop period late):
//! - **Period**: the display's interval for the cap is learned from the intervals between
//!   frames shown one after the other (consecutive frames, both with exact times) that agree
//!   with the cap (within [`GRID_TOLERANCE`]: a cap on the display's grid, and [`DRIFT_SHARE`]
//!   for the reports' noise); once [`ANCHOR_AFTER`] have, the grid's period is their median
//!   over the last [`ANCHOR_WINDOW`], so the grid drifts no more against the display.
//! - **Phase**: the grid is placed so that each frame starts, before the refresh it is meant
//!   for, the slowest of the last [`LEAD_WINDOW`] frames' times from slot to ready and a
//!   margin: ready just before its refresh, as late (and so with as little latency) as the
//!   frames' own times allow. The margin is [`LEAD_MARGIN_SHARE`] of the interval. Where the
//!   shell sees when frames were ready (the second door's repair submission completing, the
//!   first door's GPU timestamps), a frame's time runs to then, so the GPU's time after the
//!   present is in the lead from the first frames; where it sees only the present, the lead
//!   learns that time from missed refreshes (below), each a visible hitch. Where the frames' times
//!   spread so far that the fastest would then be ready before the refresh before (a frame
//!   shown a refresh early), and the refresh is known (each missed or early refresh measures
//!   one), the lead is the middle of the slowest's and the fastest's. Moving the grid within
//!   the refresh moves when frames start, never when they are shown. A difference up to [`DRIFT_SHARE`] of the interval from
//!   where the grid was placed (the period's rounding, the thread's ordinary wake-up) is
//!   followed by [`PHASE_GAIN`] of it; one up to [`SLIP_SHARE`] is noise (a late report, a late
//!   start) and moves nothing.
//! - **Missed and early refreshes**: a frame shown more than [`SLIP_SHARE`] of the interval
//!   away (a refresh late: it was not ready; a refresh early: it was ready before the refresh
//!   before) lengthens or shortens the lead by [`MOVE_SHARE`] of that distance (the GPU's time
//!   after the present, which the lead cannot see, is learned this way); small steps, so that
//!   where the frames' times spread over more than a refresh the lead settles where misses on
//!   both sides balance instead of jumping between them. A late one counts only if another
//!   was late within [`LATE_MEMORY`] frames: a time that is late once may be the watching
//!   thread's late wake-up (on a busy machine, milliseconds), which no early time can be.
//! - A grid the limiter re-anchored (a frame that started more than a period late) is placed
//!   again from the next frame shown.
//!
//! A cap off the display's grid (40 on 60 Hz) never agrees with its intervals: the grid then
//! keeps the CPU's period, as without the anchor.

use std::collections::VecDeque;

use super::display_schedule::GRID_TOLERANCE;

/// Intervals that agree with the cap before the grid follows the display.
pub const ANCHOR_AFTER: usize = 8;
/// The display intervals the grid's period is the median of.
pub const ANCHOR_WINDOW: usize = 32;
/// The frames whose slowest time from slot to present the lead covers (4 s at 30 fps: a
/// frame slower than every recent one misses its refresh, so the window reaches back past
/// the last few slow ones).
pub const LEAD_WINDOW: usize = 128;
/// The share of a small phase difference the grid follows per shown frame.
pub const PHASE_GAIN: f64 = 0.125;
/// A frame shown up to this share of the interval from where the phase puts it is drift (the
/// period's rounding, the thread's ordinary wake-up), which the grid follows.
pub const DRIFT_SHARE: f64 = 0.0625;
/// A frame shown more than this share of the interval from where the phase puts it was
/// shown a refresh early or late: a refresh is the whole interval of a cap of one refresh, and
/// a quarter of it for a cap of 4. Between the two it is noise (a late report or start), which
/// moves nothing.
pub const SLIP_SHARE: f64 = 0.2;

/// The margin of the lead beyond the slowest recent frame (slot to ready, or to present), as
/// a share of the interval: a frame slower than every recent one, the engine's latch before
/// its refresh, and (where the shell sees only presents) the GPU's time after the present.
/// Smaller margins missed refreshes on a 2-core machine, where a frame's time is the machine's
/// load (docs/layer.md).
pub const LEAD_MARGIN_SHARE: f64 = 0.125;

/// The share of a missed (or early) refresh the lead moves away from it.
pub const MOVE_SHARE: f64 = 0.125;

/// A frame shown late moves the grid only if another was within this many frames before
/// it: a single late time may be the watching thread's late wake-up, not the display's.
pub const LATE_MEMORY: u64 = 32;

/// Frames whose slots are remembered until they are shown.
const SLOTS: usize = 8;

/// How the limiter's grid should follow the display after a shown frame.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Follow {
    /// The grid's period from now on (None: the cap's own).
    pub period_ns: Option<u64>,
    /// Move the grid by this much now (ns; negative: earlier).
    pub shift_ns: i64,
}

/// The display's clock as the limiter's grid sees it.
#[derive(Debug, Clone)]
pub struct DisplayAnchor {
    /// The cap's period.
    nominal_ns: u64,
    /// (frame, its slot on the grid), oldest first.
    slots: VecDeque<(u64, u64)>,
    /// Recent frames and their times from their slot to their present, or to ready where the
    /// shell said when that was, oldest first.
    works: VecDeque<(u64, u64)>,
    /// The last frame shown with an exact time.
    last_shown: Option<(u64, u64)>,
    /// Per-frame display intervals that agreed with the cap, oldest first.
    intervals: VecDeque<u64>,
    /// The time from a frame's slot to its display the grid is placed for (its lead).
    aim_ns: Option<i64>,
    /// What missed (more) or early (less) refreshes added to the lead.
    extra_ns: i64,
    /// The display's refresh, as far as missed and early refreshes showed it (each one is a
    /// refresh off).
    refresh_ns: Option<u64>,
    /// The last frame shown late beyond [`SLIP_SHARE`] that did not move the grid.
    late_since: Option<u64>,
    /// Frames shown a refresh early or late that moved the grid.
    slips: u64,
}

impl DisplayAnchor {
    /// An anchor for a cap of period `nominal_ns`, following nothing yet.
    #[must_use]
    pub fn new(nominal_ns: u64) -> Self {
        Self {
            nominal_ns,
            slots: VecDeque::with_capacity(SLOTS),
            works: VecDeque::with_capacity(LEAD_WINDOW),
            last_shown: None,
            intervals: VecDeque::with_capacity(ANCHOR_WINDOW),
            aim_ns: None,
            extra_ns: 0,
            refresh_ns: None,
            late_since: None,
            slips: 0,
        }
    }

    /// The display starts over (a new swapchain, a display that stopped reporting): what was
    /// learned of its phase may not hold. Its period is learned again too (a new swapchain may
    /// be on another display).
    pub fn reset(&mut self) {
        *self = Self::new(self.nominal_ns);
    }

    /// The limiter's grid was re-anchored at a frame's start (it started more than a period
    /// late): its phase against the display is new, and is taken from the next frame shown.
    pub fn grid_reanchored(&mut self) {
        self.aim_ns = None;
        self.late_since = None;
    }

    /// Frame `frame` started with its slot on the grid at `slot`.
    pub fn frame_started(&mut self, frame: u64, slot: u64) {
        if self.slots.len() == SLOTS {
            self.slots.pop_front();
        }
        self.slots.push_back((frame, slot));
    }

    /// Frame `frame` was presented at `at`: its time from its slot counts towards the lead.
    pub fn frame_presented(&mut self, frame: u64, at: u64) {
        let Some(slot) = self.slot_of(frame) else {
            return;
        };
        if self.works.len() == LEAD_WINDOW {
            self.works.pop_front();
        }
        self.works.push_back((frame, at.saturating_sub(slot)));
    }

    /// Frame `frame`, presented, was ready for the display at `at` (its rendering complete;
    /// where that is after its present, the GPU's time after it): its time runs to then.
    pub fn frame_ready(&mut self, frame: u64, at: u64) {
        let Some(slot) = self.slot_of(frame) else {
            return;
        };
        if let Some((_, work)) = self.works.iter_mut().rev().find(|(f, _)| *f == frame) {
            *work = (*work).max(at.saturating_sub(slot));
        }
    }

    /// The slot of a frame started recently.
    fn slot_of(&self, frame: u64) -> Option<u64> {
        self.slots
            .iter()
            .find(|(f, _)| *f == frame)
            .map(|&(_, s)| s)
    }

    /// The lead the grid is placed for: the slowest recent frame from its slot to ready (or
    /// its present) and a margin; where that would put the fastest recent frame's ready time
    /// before the refresh before (the refresh is known from a missed or early one), the middle
    /// of the two; and what missed or early refreshes added; at most a frame interval.
    fn lead(&self, period: u64) -> i64 {
        let works = self.works.iter().map(|&(_, w)| w);
        let slowest = works.clone().max().unwrap_or(0) as i64;
        let fastest = works.min().unwrap_or(0) as i64;
        let margin = (period as f64 * LEAD_MARGIN_SHARE) as i64;
        let late_side = slowest + margin;
        let lead = match self.refresh_ns {
            Some(r) if late_side > fastest + r as i64 - margin => {
                (slowest + fastest + r as i64) / 2
            }
            _ => late_side,
        };
        (lead + self.extra_ns).clamp(0, period as i64)
    }

    /// The display's interval for the cap, once learned.
    #[must_use]
    pub fn period_ns(&self) -> Option<u64> {
        if self.intervals.len() < ANCHOR_AFTER {
            return None;
        }
        // The median: a report that came late (the watching thread woke up late) makes one
        // interval long and the next short, and the long one's frame is often not reported
        // exactly at all (it came after the sleep's end), which would bias a mean short.
        let mut sorted = [0u64; ANCHOR_WINDOW];
        let n = self.intervals.len();
        for (s, i) in sorted.iter_mut().zip(&self.intervals) {
            *s = *i;
        }
        sorted[..n].sort_unstable();
        Some(sorted[n / 2])
    }

    /// Frames that were shown a refresh early or late and moved the grid.
    #[must_use]
    pub fn slips(&self) -> u64 {
        self.slips
    }

    /// Frame `frame` was shown at exactly `at`: how the grid follows.
    pub fn frame_shown(&mut self, frame: u64, at: u64) -> Follow {
        self.learn_interval(frame, at);
        let Some(period) = self.period_ns() else {
            return Follow::default();
        };
        let Some(slot) = self.slot_of(frame) else {
            return Follow {
                period_ns: Some(period),
                shift_ns: 0,
            };
        };
        let since_slot = at as i64 - slot as i64;
        // The first frame after the period was learned (or the grid re-anchored) is shown where
        // the grid happened to be placed: that is the aim it moves from.
        let aim = *self.aim_ns.get_or_insert(since_slot);
        let off = since_slot - aim;
        let slip = (period as f64 * SLIP_SHARE) as i64;
        let drift = (period as f64 * DRIFT_SHARE) as i64;
        let follow = if off.abs() <= drift {
            (off as f64 * PHASE_GAIN) as i64
        } else if off.abs() <= slip {
            // Neither drift nor a refresh: a late report, or a frame that started late.
            0
        } else if off > 0
            && self
                .late_since
                .is_none_or(|f| frame.saturating_sub(f) > LATE_MEMORY)
        {
            // Late once: a refresh missed, or only a late report of the display (the
            // watching thread woke up late). The lead grows only if it happens again soon.
            self.late_since = Some(frame);
            0
        } else {
            // A refresh taken early (off < 0: no late report makes that), or missed again: the
            // lead moves a share of the distance away from it.
            self.late_since = None;
            self.slips += 1;
            let bound = period as i64;
            self.extra_ns = (self.extra_ns + (off as f64 * MOVE_SHARE) as i64).clamp(-bound, bound);
            let seen = off.unsigned_abs();
            self.refresh_ns = Some(self.refresh_ns.map_or(seen, |r| (3 * r + seen) / 4));
            0
        };
        // The grid is placed for the lead from now on: moving it earlier by a millisecond
        // starts the frames a millisecond sooner before the same refresh.
        let lead = self.lead(period);
        self.aim_ns = Some(lead);
        let shift_ns = follow + aim - lead;
        // Frames started already (beyond the one shown) had their slots on the grid as it
        // was: they move with it, or their display would count the shift twice.
        for (f, s) in self.slots.iter_mut() {
            if *f > frame {
                *s = s.saturating_add_signed(shift_ns);
            }
        }
        Follow {
            period_ns: Some(period),
            shift_ns,
        }
    }

    /// Learns the per-frame interval since the last exactly shown frame where it agrees with
    /// the cap.
    fn learn_interval(&mut self, frame: u64, at: u64) {
        let last = self.last_shown.replace((frame, at));
        // Only frames shown one after the other: over a gap, a cap off the grid (frames
        // alternating 1 and 2 refreshes) would average out to the cap.
        let Some((_, t0)) = last.filter(|(f0, t0)| frame == f0 + 1 && at > *t0) else {
            return;
        };
        let per_frame = at - t0;
        // On the grid within its tolerance, and wide enough for the reports' noise to fall
        // on both sides of the display's interval (a window cut at the grid's tolerance would
        // keep the short side of a display slower than the cap, and bias the period short).
        let nominal = self.nominal_ns as f64;
        if (per_frame as f64 - nominal).abs() > nominal * (GRID_TOLERANCE + DRIFT_SHARE) {
            return;
        }
        if self.intervals.len() == ANCHOR_WINDOW {
            self.intervals.pop_front();
        }
        self.intervals.push_back(per_frame);
    }
}

#[cfg(test)]
mod tests;
