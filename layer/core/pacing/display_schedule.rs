//! Pacing to the display's refresh grid with `VK_EXT_present_timing`: which refresh each frame
//! is meant for, what the present asks of the presentation engine, and when the CPU should
//! start the frame so that it is ready in time, and no earlier.
//!
//! A frame is given a *swap interval* of k refreshes: it is to stay on screen exactly k
//! refreshes. The present asks for that with a target time relative to the previous frame's
//! first pixel (`VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT`: "a relative time from
//! the previous presentation's FIRST_PIXEL_VISIBLE stage"), or, where the surface only takes
//! absolute times, the predicted refresh itself; both with
//! `PRESENT_AT_NEAREST_REFRESH_CYCLE`, which the spec recommends "when targeting the time of a
//! vertical blanking period". A relative target never makes the frame after a late one short:
//! a late frame moves the whole schedule one refresh, it is not caught up (Swappy's "on time,
//! not early").
//!
//! The schedule is anchored on the latest frame whose first-pixel time came back; the frame
//! `n` after it is expected at `shown + n * k * refresh`. The CPU starts a frame one *lead*
//! before its expected refresh: `k` refreshes (the frame-limit and display policies; where
//! frames take longer than that from start to ready, that time and half a refresh), or the
//! measured start-to-ready time plus a margin (low latency). Frames queued ahead push the
//! expected refresh of the next one back, so the start waits for them: a queue stuffed by
//! earlier frames drains by itself instead of adding latency for good.
//!
//! k comes from the frame limit when it falls on the grid (30 fps on 60 Hz: 2; within
//! [`GRID_TOLERANCE`]); the display policy raises it when frames miss their refresh
//! ([`MISSES_TO_RAISE`] in [`MISS_WINDOW`] shown frames) and lowers it again once a frame's CPU
//! and GPU times both fit [`LOWER_BELOW`] of one refresh fewer. Without a fixed refresh, or a
//! frame limit off the grid, the schedule stays inactive and the CPU limiter paces instead.

use super::window_stats::WindowStats;

/// How far a frame limit's period may be from a whole number of refreshes and still be paced
/// on the grid (2%: 59.94 fps content on a 60 Hz display is on it).
pub const GRID_TOLERANCE: f64 = 0.02;
/// Swap intervals the display policy chooses from: 1 to this many refreshes.
pub const MAX_SWAP_INTERVAL: u32 = 4;
/// Shown frames over which misses are counted.
pub const MISS_WINDOW: u32 = 16;
/// Misses within [`MISS_WINDOW`] shown frames that raise the swap interval by one.
pub const MISSES_TO_RAISE: u32 = 2;
/// The interval is lowered once the 90th percentile of the frames' CPU and GPU times is below
/// this share of the shorter interval.
pub const LOWER_BELOW: f64 = 0.8;
/// Low latency: what is added to the predicted start-to-ready time, as a share of a refresh
/// (at least [`MIN_MARGIN_NS`]).
pub const MARGIN_SHARE: f64 = 0.15;
/// The smallest low-latency margin: 1 ms.
pub const MIN_MARGIN_NS: u64 = 1_000_000;

/// What the display reports of its refresh (`VkSwapchainTimingPropertiesEXT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DisplayTiming {
    /// The fixed refresh duration, ns.
    pub refresh_ns: u64,
    /// The presentation engine takes targets relative to the previous frame's first pixel;
    /// else absolute targets are given.
    pub relative_targets: bool,
}

/// What a present asks of the presentation engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresentTarget {
    /// As soon as the present mode allows.
    None,
    /// Not before the previous frame has been visible this long (ns), nearest refresh.
    Relative(u64),
    /// At this time (the machine's clock), nearest refresh.
    Absolute(u64),
}

/// How frames are paced to the display now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DisplayPath {
    /// The schedule is active: `interval` refreshes per frame. Presents in FIFO modes carry
    /// targets (relative ones at once, absolute ones once the first timing result anchored
    /// the grid), and frames start from the predicted refreshes once anchored; in MAILBOX and
    /// IMMEDIATE presents carry none.
    RefreshGrid {
        /// The swap interval in refreshes.
        interval: u32,
    },
    /// No target times: the CPU limiter or the frames-in-flight gate alone.
    Cpu,
}

/// Who chooses the swap interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Interval {
    /// No schedule: no frame limit on the grid and no display policy.
    Off,
    /// The frame limit's, fixed.
    Fixed(u32),
    /// The display policy's, at least this many (the frame limit's, or 1).
    Auto { at_least: u32 },
}

/// One frame's CPU times, kept until its timing result comes back.
#[derive(Debug, Clone, Copy, Default)]
struct Started {
    frame: u64,
    start: u64,
    submit: u64,
}

/// Frames remembered between their start and their timing result.
const REMEMBERED: usize = 16;

/// The refresh-grid schedule of one swapchain object.
#[derive(Debug, Clone)]
pub struct DisplaySchedule {
    timing: Option<DisplayTiming>,
    choice: Interval,
    interval: u32,
    /// The latest frame whose first pixel is known, and when.
    anchor: Option<(u64, u64)>,
    /// The latest frame whose rendering finished (queue operations end), and when.
    last_ready: Option<(u64, u64)>,
    started: [Started; REMEMBERED],
    /// Start to ready of recent frames (the low-latency lead).
    work: WindowStats,
    /// The larger of CPU and GPU time of recent frames (what lowering the interval needs).
    busy: WindowStats,
    shown_in_window: u32,
    misses: u32,
    /// Frames shown later than their refresh since the schedule began.
    missed_total: u64,
    /// Absolute targets: the last frame shown late, and by how much (ns).
    late_offset: Option<(u64, u64)>,
    /// Absolute targets: how much earlier than its expected refresh a frame is targeted, the
    /// display's steady offset learned from results (ns).
    target_lead: u64,
}

impl DisplaySchedule {
    pub(super) fn new() -> Self {
        Self {
            timing: None,
            choice: Interval::Off,
            interval: 1,
            anchor: None,
            last_ready: None,
            started: [Started::default(); REMEMBERED],
            work: WindowStats::default(),
            busy: WindowStats::default(),
            shown_in_window: 0,
            misses: 0,
            missed_total: 0,
            late_offset: None,
            target_lead: 0,
        }
    }

    /// What the display reports (None: no present timing, or no fixed refresh).
    pub(super) fn set_timing(&mut self, timing: Option<DisplayTiming>, choice: Interval) {
        if timing != self.timing {
            self.anchor = None;
        }
        self.timing = timing.filter(|t| t.refresh_ns > 0);
        self.set_choice(choice);
    }

    /// A new swapchain: its first present ignores relative targets, so the anchor is gone.
    pub(super) fn swapchain_changed(&mut self) {
        self.anchor = None;
        self.last_ready = None;
    }

    pub(super) fn set_choice(&mut self, choice: Interval) {
        self.choice = choice;
        self.interval = match choice {
            Interval::Off => 1,
            Interval::Fixed(k) => k,
            Interval::Auto { at_least } => self.interval.max(at_least),
        };
    }

    /// The refresh in use while the schedule is active.
    fn refresh(&self) -> Option<u64> {
        match self.choice {
            Interval::Off => None,
            _ => self.timing.map(|t| t.refresh_ns),
        }
    }

    /// How frames are paced now.
    #[must_use]
    pub fn path(&self) -> DisplayPath {
        match self.refresh() {
            Some(_) => DisplayPath::RefreshGrid {
                interval: self.interval,
            },
            None => DisplayPath::Cpu,
        }
    }

    /// Frames shown later than the refresh they were meant for.
    #[must_use]
    pub fn missed(&self) -> u64 {
        self.missed_total
    }

    /// One frame's stay on screen, ns.
    fn frame_period(&self) -> Option<u64> {
        self.refresh().map(|r| r * u64::from(self.interval))
    }

    /// When frame `frame` is expected to be visible, from the latest known first pixel.
    #[must_use]
    pub fn expected(&self, frame: u64) -> Option<u64> {
        let period = self.frame_period()?;
        let (at_frame, shown) = self.anchor?;
        let ahead = frame.checked_sub(at_frame)?;
        Some(shown.saturating_add(ahead.saturating_mul(period)))
    }

    /// What the present of `frame` asks for.
    #[must_use]
    pub fn target(&self, frame: u64) -> PresentTarget {
        let (Some(timing), Some(period)) = (self.timing, self.frame_period()) else {
            return PresentTarget::None;
        };
        if timing.relative_targets {
            return PresentTarget::Relative(period);
        }
        self.expected(frame).map_or(PresentTarget::None, |at| {
            PresentTarget::Absolute(at.saturating_sub(self.target_lead))
        })
    }

    /// When `frame` should start: its expected refresh less the lead; None while the schedule
    /// is inactive or has no anchor yet (the CPU limiter paces those frames).
    #[must_use]
    pub fn start_at(&self, frame: u64, low_latency: bool) -> Option<u64> {
        let expected = self.expected(frame)?;
        let period = self.frame_period()?;
        let refresh = self.refresh()?;
        let lead = if low_latency {
            let margin = MIN_MARGIN_NS.max((refresh as f64 * MARGIN_SHARE) as u64);
            self.work
                .percentile(90)
                .map_or(period, |w| w.saturating_add(margin))
        } else {
            // A frame interval ahead, or, where frames take longer than that from start to
            // ready, that time and half a refresh: frames overlap, as with two in flight.
            let slow = self
                .work
                .percentile(90)
                .map_or(0, |w| w.saturating_add(refresh / 2));
            period.max(slow)
        };
        Some(expected.saturating_sub(lead))
    }

    /// Frame `frame` began its CPU work at `now`.
    pub(super) fn frame_started(&mut self, frame: u64, now: u64) {
        let slot = &mut self.started[(frame % REMEMBERED as u64) as usize];
        *slot = Started {
            frame,
            start: now,
            submit: now,
        };
    }

    /// Frame `frame` was submitted at `now`.
    pub(super) fn frame_submitted(&mut self, frame: u64, now: u64) {
        let slot = &mut self.started[(frame % REMEMBERED as u64) as usize];
        if slot.frame == frame {
            slot.submit = now;
        }
    }

    fn started(&self, frame: u64) -> Option<Started> {
        Some(self.started[(frame % REMEMBERED as u64) as usize]).filter(|s| s.frame == frame)
    }

    /// The presentation engine reported frame `frame`: rendering finished at `ready`
    /// (`QUEUE_OPERATIONS_END`), first pixel visible at `shown`. Results may come out of
    /// order; older ones than the anchor only teach durations.
    pub(super) fn frame_timed(&mut self, frame: u64, ready: Option<u64>, shown: Option<u64>) {
        if let (Some(ready), Some(s)) = (ready, self.started(frame)) {
            self.work.push(ready.saturating_sub(s.start));
            let gpu_from = match self.last_ready {
                Some((f, at)) if f + 1 == frame => at.max(s.submit),
                _ => s.submit,
            };
            let cpu = s.submit.saturating_sub(s.start);
            self.busy.push(cpu.max(ready.saturating_sub(gpu_from)));
        }
        if let Some(ready) = ready {
            if self.last_ready.map_or(true, |(f, _)| f < frame) {
                self.last_ready = Some((frame, ready));
            }
        }
        let Some(shown) = shown else {
            return;
        };
        if self.anchor.is_some_and(|(f, _)| f >= frame) {
            return;
        }
        let expected = self.expected(frame);
        if self.moves_grid(frame, expected, shown) {
            self.anchor = Some((frame, shown));
        }
        self.judge(expected, shown);
    }

    /// Whether `frame`, shown at `shown`, becomes the anchor. With relative targets always:
    /// the display spaces each frame from the one before, so a late frame moves the whole
    /// schedule. With absolute targets the frames after a late one were mostly started and
    /// targeted on the old grid already; moving the grid then would start the next frames a
    /// refresh late for targets they still carry, and lateness would feed itself (every other
    /// frame late). So a single late frame leaves the grid alone (one hitch, then on time). A
    /// second one late by the same amount is a steady offset of the display (it shows frames
    /// that long after their targets): the grid moves, and later targets are given that much
    /// earlier ([`Self::target`]), so frames keep their interval instead of each one's offset
    /// adding to the next. Frames shown early take back as much of that lead.
    fn moves_grid(&mut self, frame: u64, expected: Option<u64>, shown: u64) -> bool {
        let relative = self.timing.is_some_and(|t| t.relative_targets);
        let (Some(e), Some(refresh), false) = (expected, self.refresh(), relative) else {
            return true;
        };
        if shown.saturating_add(refresh / 2) < e {
            self.target_lead = self.target_lead.saturating_sub(e - shown);
        }
        if shown <= e.saturating_add(refresh / 2) {
            self.late_offset = None;
            return true;
        }
        let offset = shown - e;
        let steady = self
            .late_offset
            .is_some_and(|(f, o)| f + 1 == frame && o.abs_diff(offset) <= refresh / 2);
        self.late_offset = Some((frame, offset));
        if steady {
            self.target_lead = self.target_lead.saturating_add(offset);
        }
        steady
    }

    /// Counts a miss when `shown` is later than half a refresh after `expected`, and lets the
    /// display policy move the swap interval.
    fn judge(&mut self, expected: Option<u64>, shown: u64) {
        let Some(refresh) = self.refresh() else {
            return;
        };
        let missed = expected.is_some_and(|e| shown > e.saturating_add(refresh / 2));
        self.missed_total += u64::from(missed);
        let Interval::Auto { at_least } = self.choice else {
            return;
        };
        self.misses += u32::from(missed);
        self.shown_in_window += 1;
        if self.misses >= MISSES_TO_RAISE && self.interval < MAX_SWAP_INTERVAL {
            self.interval += 1;
            self.restart_window();
        } else if self.shown_in_window >= MISS_WINDOW {
            if self.interval > at_least && self.fits(self.interval - 1, refresh) {
                self.interval -= 1;
            }
            self.restart_window();
        }
    }

    /// Whether recent frames' CPU and GPU times fit `interval` refreshes with room to spare.
    fn fits(&self, interval: u32, refresh: u64) -> bool {
        let room = (refresh * u64::from(interval)) as f64 * LOWER_BELOW;
        self.busy.len() >= MISS_WINDOW as usize
            && self.busy.percentile(90).is_some_and(|b| (b as f64) < room)
    }

    fn restart_window(&mut self) {
        self.misses = 0;
        self.shown_in_window = 0;
        self.busy.clear();
    }
}

/// The swap interval a frame limit of `period_ns` gives on a refresh of `refresh_ns`: the
/// nearest whole number of refreshes if within [`GRID_TOLERANCE`], None if off the grid. A
/// limit faster than the refresh is one refresh (FIFO shows no more anyway).
#[must_use]
pub fn interval_for_limit(period_ns: u64, refresh_ns: u64) -> Option<u32> {
    if refresh_ns == 0 {
        return None;
    }
    let ratio = period_ns as f64 / refresh_ns as f64;
    if ratio <= 1.0 + GRID_TOLERANCE {
        return Some(1);
    }
    let k = ratio.round();
    ((ratio - k).abs() <= k * GRID_TOLERANCE && k <= f64::from(u32::MAX)).then_some(k as u32)
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn a_thirty_fps_schedule_targets_two_refreshes_and_starts_one_interval_ahead() {
        let mut s = schedule(Interval::Fixed(2), true);
        assert_eq!(s.path(), DisplayPath::RefreshGrid { interval: 2 });
        assert_eq!(s.target(0), PresentTarget::Relative(2 * R));
        assert_eq!(s.start_at(1, false), None, "no anchor yet");
        s.frame_started(0, 0);
        s.frame_timed(0, Some(3_000_000), Some(R));
        assert_eq!(s.expected(3), Some(R + 6 * R));
        assert_eq!(s.start_at(3, false), Some(R + 4 * R));
        let mut abs = schedule(Interval::Fixed(2), false);
        assert_eq!(
            abs.target(1),
            PresentTarget::None,
            "no anchor: no absolute target"
        );
        abs.frame_timed(0, None, Some(R));
        assert_eq!(abs.target(1), PresentTarget::Absolute(3 * R));
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
    fn with_absolute_targets_one_late_frame_leaves_the_grid_and_a_steady_offset_moves_it() {
        let mut s = schedule(Interval::Fixed(2), false);
        s.frame_timed(0, None, Some(R));
        s.frame_timed(1, None, Some(4 * R)); // expected at 3R: late by one refresh
        assert_eq!(s.expected(2), Some(5 * R), "the grid holds");
        s.frame_timed(2, None, Some(5 * R));
        assert_eq!(s.expected(3), Some(7 * R));
        s.frame_timed(3, None, Some(8 * R)); // late by one refresh
        s.frame_timed(4, None, Some(10 * R)); // late by the same: the display's own offset
        assert_eq!(s.expected(5), Some(12 * R), "the grid moved");
        assert_eq!(s.missed(), 3);
        // Targets are given that much earlier, and the display (showing each a refresh after
        // its target) keeps two refreshes per frame instead of three.
        assert_eq!(s.target(5), PresentTarget::Absolute(11 * R));
        s.frame_timed(5, None, Some(12 * R));
        assert_eq!(s.target(6), PresentTarget::Absolute(13 * R));
        assert_eq!(s.missed(), 3);
        // A display that stops lagging shows the next frame early: the lead is taken back.
        s.frame_timed(6, None, Some(13 * R));
        assert_eq!(s.target(7), PresentTarget::Absolute(15 * R));
    }

    #[test]
    fn the_display_policy_raises_on_misses_and_lowers_when_frames_fit() {
        let mut s = schedule(Interval::Auto { at_least: 1 }, true);
        let mut shown = 0;
        for f in 0..3u64 {
            // Every frame takes 1.5 refreshes: each one misses.
            shown += 2 * R;
            s.frame_started(f, shown - 2 * R);
            s.frame_timed(f, Some(shown - R / 2), Some(shown));
        }
        assert_eq!(s.path(), DisplayPath::RefreshGrid { interval: 2 });
        // Now frames take 4 ms of CPU and GPU each: after a full window, back to 1.
        for f in 3..3 + u64::from(MISS_WINDOW) {
            shown += 2 * R;
            s.frame_started(f, shown - 2 * R);
            s.frame_submitted(f, shown - 2 * R + 2_000_000);
            s.frame_timed(f, Some(shown - 2 * R + 4_000_000), Some(shown));
        }
        assert_eq!(s.path(), DisplayPath::RefreshGrid { interval: 1 });
    }

    #[test]
    fn low_latency_leads_by_the_measured_work_and_a_margin() {
        let mut s = schedule(Interval::Auto { at_least: 1 }, true);
        for f in 0..8u64 {
            s.frame_started(f, f * R);
            s.frame_timed(f, Some(f * R + 5_000_000), Some((f + 1) * R));
        }
        let margin = (R as f64 * MARGIN_SHARE) as u64;
        assert_eq!(s.start_at(8, true), Some(9 * R - 5_000_000 - margin));
        assert_eq!(s.start_at(8, false), Some(8 * R));
    }

    #[test]
    fn without_a_refresh_or_a_choice_nothing_is_scheduled() {
        let mut s = schedule(Interval::Off, true);
        s.frame_timed(0, None, Some(R));
        assert_eq!(s.path(), DisplayPath::Cpu);
        assert_eq!(s.target(1), PresentTarget::None);
        assert_eq!(s.start_at(1, false), None);
        let mut none = DisplaySchedule::new();
        none.set_timing(None, Interval::Fixed(2));
        assert_eq!(none.path(), DisplayPath::Cpu);
    }
}
