//! Pacing to the display's refresh grid with `VK_EXT_present_timing`: which refresh each frame
//! is meant for, what the present asks of the presentation engine, and when the CPU should
//! start the frame so that it is ready in time, and no earlier.
//!
//! A frame is given a *swap interval* of k refreshes: it is to stay on screen exactly k
//! refreshes. The present asks for that with a target time relative to the previous frame's
//! first pixel (`VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT`: "a relative time from
//! the previous presentation's FIRST_PIXEL_VISIBLE stage"), or, where the surface only takes
//! absolute times, the refresh the frame is meant for; both with
//! `PRESENT_AT_NEAREST_REFRESH_CYCLE`, which the spec recommends "when targeting the time of a
//! vertical blanking period".
//!
//! **A late frame moves the schedule; it is not caught up.** With either kind of target, a
//! frame shown late moves every frame after it by the refreshes it lost, so no frame after a
//! miss is shown for less than its interval (Swappy's "on time, not early"; DXVK's and
//! vkd3d-proton's limiters likewise restart their deadlines from a frame that fell behind
//! rather than run short frames to catch up). A relative target does this in the engine. With
//! absolute targets vkpace does it: each frame is meant for the refresh one interval after the
//! one the frame before it will take ([`DisplayPlan`]), and before it gives that target it
//! learns whether that frame made its refresh: it waits, bounded, for the frame to finish if
//! it has not by its refresh ([`DisplaySchedule::fate_wait`]; the pacing sleep before the next
//! frame usually covers that time already). A frame the CPU itself made late (submitted after
//! its refresh) is meant for the first refresh after its submission, and moves the schedule
//! the same way. vkpace offers no catch-up: a short frame is the judder this path removes.
//!
//! The schedule is anchored on the latest frame whose first-pixel time came back; the frames
//! after it are expected each on its refresh, one interval apart. The CPU starts a frame one
//! *lead* before its expected refresh ([`Lead`]): `k` refreshes for the display policy (where
//! frames take longer than that from start to ready, that time and half a refresh); for a frame
//! limit under frames in flight, also at least as many refreshes as frames in flight, the
//! slack FIFO's queue gives the CPU limiter; or, for `grid` and low latency, a lead learned
//! from the frames' own start-to-ready times ([`LeadEstimator`]: a high percentile and a
//! margin held at the aim's miss rate). Frames queued ahead push the
//! expected refresh of the next one back, so the start waits for them: a queue stuffed by
//! earlier frames drains by itself instead of adding latency for good.
//!
//! k comes from the frame limit when it falls on the grid (30 fps on 60 Hz: 2; within
//! [`GRID_TOLERANCE`]); the display policy raises it when frames miss their refresh
//! ([`MISSES_TO_RAISE`] in [`MISS_WINDOW`] shown frames) and lowers it again once a frame's CPU
//! and GPU times both fit [`LOWER_BELOW`] of one refresh fewer. Without a fixed refresh, or a
//! frame limit off the grid, the schedule stays inactive and the CPU limiter paces instead.

mod learning;

use super::display_plan::{refresh_after, DisplayPlan, Fate};
use super::lead_estimator::{LeadAim, LeadEstimator, LeadVerdict};
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

/// How long before its expected refresh a frame starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lead {
    /// Low latency: the lead learned for [`LeadAim::LowLatency`] (a frame interval before any
    /// frame's start-to-ready time is known).
    JustInTime,
    /// One frame interval (Swappy's), or where frames take longer than that from start to
    /// ready, that time and half a refresh: the most any lead is, and what
    /// [`Lead::Refreshes`] starts from.
    OneInterval,
    /// Frames in flight with a frame limit on the grid: as [`Lead::OneInterval`], and at least
    /// this many refreshes (the frames in flight). The swap interval is fixed here, so a miss
    /// can only be prevented by slack; this is the slack the CPU limiter gets from FIFO's
    /// queue with as many frames in flight, so the grid adds no misses to the limit.
    Refreshes(u32),
    /// The lead learned for [`LeadAim::Grid`], at most [`Lead::OneInterval`]'s; a refresh
    /// before any frame's start-to-ready time is known ([`crate::PacingPolicy::Grid`], and the
    /// display policy, where a frame that still misses raises the swap interval).
    Learned,
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
    /// When the grid meant it to start, if earlier than `start` (else `start`).
    planned: u64,
    submit: u64,
    /// Ready within the grid's and the low-latency lead (judged once its ready time came).
    in_time: [bool; 2],
}

/// Frames remembered between their start and their timing result.
const REMEMBERED: usize = 16;

/// Absolute targets: how long, in frame intervals, a present waits for the frame before it to
/// finish once that one missed its refresh (to learn which refresh it takes).
pub const LATE_WAIT_INTERVALS: u64 = 4;

/// The refresh-grid schedule of one swapchain object.
#[derive(Debug, Clone)]
pub struct DisplaySchedule {
    timing: Option<DisplayTiming>,
    choice: Interval,
    interval: u32,
    /// The frames presented on the grid, their refreshes and what is known of each.
    plan: DisplayPlan,
    /// The latest frame whose rendering finished (queue operations end), and when.
    last_ready: Option<(u64, u64)>,
    started: [Started; REMEMBERED],
    /// Planned start to ready of recent frames (the display policy's lead beyond an interval).
    work: WindowStats,
    /// The leads learned from the frames' start-to-ready times: `grid`'s and low latency's.
    leads: [LeadEstimator; 2],
    /// The larger of CPU and GPU time of recent frames (what lowering the interval needs).
    busy: WindowStats,
    shown_in_window: u32,
    misses: u32,
    /// Frames shown later than their refresh since the schedule began.
    missed_total: u64,
    /// Absolute targets: how much earlier than its refresh a frame is targeted, the display's
    /// steady offset learned from results (ns).
    target_lead: u64,
    /// Absolute targets: the last frame shown late though ready in time, and by how much.
    late_offset: Option<(u64, u64)>,
    /// The engine reports when a frame was ready before it is shown (partial results).
    engine_reports_ready: bool,
}

impl DisplaySchedule {
    pub(super) fn new() -> Self {
        Self {
            timing: None,
            choice: Interval::Off,
            interval: 1,
            plan: DisplayPlan::default(),
            last_ready: None,
            started: [Started::default(); REMEMBERED],
            work: WindowStats::default(),
            leads: [
                LeadEstimator::new(LeadAim::Grid),
                LeadEstimator::new(LeadAim::LowLatency),
            ],
            busy: WindowStats::default(),
            shown_in_window: 0,
            misses: 0,
            missed_total: 0,
            target_lead: 0,
            late_offset: None,
            engine_reports_ready: false,
        }
    }

    /// What the display reports (None: no present timing, or no fixed refresh).
    pub(super) fn set_timing(&mut self, timing: Option<DisplayTiming>, choice: Interval) {
        if timing != self.timing {
            self.plan.clear();
        }
        self.timing = timing.filter(|t| t.refresh_ns > 0);
        self.set_choice(choice);
    }

    /// A new swapchain: its first present ignores relative targets, and its frames are on a
    /// grid of their own, so the plan starts over.
    pub(super) fn swapchain_changed(&mut self) {
        self.plan.clear();
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

    fn relative(&self) -> bool {
        self.timing.is_some_and(|t| t.relative_targets)
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

    /// When frame `frame` is expected to be visible. With relative targets the engine spaces
    /// frames one interval from the previous first pixel: one interval apart from the latest
    /// known first pixel. With absolute targets: the frames presented since then, each on its
    /// refresh unless it was seen late (`display_plan.rs`), then one interval apart.
    #[must_use]
    pub fn expected(&self, frame: u64) -> Option<u64> {
        let period = self.frame_period()?;
        let refresh = self.refresh()?;
        if self.relative() {
            let (at_frame, shown) = self.plan.anchor()?;
            let ahead = frame.checked_sub(at_frame)?;
            return Some(shown.saturating_add(ahead.saturating_mul(period)));
        }
        // FIFO shows a frame at least a refresh after the one before.
        self.plan.predicted(frame, refresh, refresh, period)
    }

    /// The refresh `frame` was presented for (None: not presented on the grid).
    #[must_use]
    pub fn goal(&self, frame: u64) -> Option<u64> {
        self.plan.targeted(frame).map(|p| p.goal)
    }

    /// What the present of `frame`, at `now`, asks for. With absolute targets the refresh it is
    /// meant for is kept: its expected refresh, and never one before its submission (it cannot
    /// be ready earlier), so a frame the CPU made late moves the frames after it.
    pub(super) fn plan_present(&mut self, frame: u64, now: u64, stages: bool) -> PresentTarget {
        let (Some(timing), Some(period)) = (self.timing, self.frame_period()) else {
            return PresentTarget::None;
        };
        if timing.relative_targets {
            return PresentTarget::Relative(period);
        }
        if let Some(p) = self.plan.targeted(frame) {
            return PresentTarget::Absolute(p.given);
        }
        let (Some(expected), Some((_, phase))) = (self.expected(frame), self.plan.anchor()) else {
            // No phase yet: shown as soon as FIFO allows, and remembered, since the frames
            // targeted once the phase is known are placed after it.
            self.plan.add_untargeted(frame, now, stages);
            return PresentTarget::None;
        };
        let submitted = self.started(frame).map_or(now, |s| s.submit.min(now));
        let goal = expected.max(refresh_after(submitted, phase, timing.refresh_ns));
        let given = goal.saturating_sub(self.target_lead);
        self.plan.add(frame, goal, given, stages);
        PresentTarget::Absolute(given)
    }

    /// A present was refused (never shown): the frame takes no refresh.
    pub(super) fn present_refused(&mut self, frame: u64) {
        self.plan.remove(frame);
    }

    /// Every frame up to `frame` finished rendering; seen at `at`.
    pub(super) fn frames_complete(&mut self, frame: u64, at: u64) {
        self.plan.complete(frame, at);
    }

    /// `frame` finished rendering at `at` (an exact time, not when it was seen).
    pub(super) fn frame_ready(&mut self, frame: u64, at: u64) {
        self.plan.gpu_done(frame, at);
    }

    /// `frame` was ready for the presentation engine at about `at` (the shell's own
    /// submission after it completed then): learned from as the engine's ready time would be
    /// (the learned leads, the frames' durations), unless the engine's word came first; not
    /// judged against its refresh.
    pub(super) fn frame_ready_by(&mut self, frame: u64, at: u64) {
        self.learn_durations(frame, at);
    }

    /// Whether the schedule learns a lead from the frames' ready times (it is active).
    pub(super) fn learns_ready_times(&self) -> bool {
        self.refresh().is_some()
    }

    /// Every frame from `from` (None: every one not seen complete) was still rendering at
    /// `at`.
    pub(super) fn frames_pending(&mut self, from: Option<u64>, at: u64) {
        self.plan.pending(from, at);
    }

    /// Absolute targets: whether the next present (or the pacing sleep before the next frame)
    /// should first wait, until the returned time, for the newest presented frame to finish.
    /// The engine shows the next frame at the target vkpace gives, so vkpace must know whether
    /// the frame before it made its refresh, and if not, which one it takes. Where the engine
    /// reports when frames were ready (partial results), its word is waited for: until the
    /// frame's refresh while it is still rendering, then (the results read again after each
    /// wait) until the engine says, at most 4 frame intervals (`LATE_WAIT_INTERVALS`) past the
    /// refresh. Elsewhere vkpace's own sight decides: seen complete by its refresh, it made
    /// it; seen still rendering after it, it is waited for (as long) to learn when it finished.
    /// With relative targets the engine spaces frames itself: no wait. Returns `(frame,
    /// until)`: wait until then (answering with `Pacing::frames_complete` or
    /// `Pacing::frames_pending`) and ask again; a pacing sleep may wait for it too, until the
    /// earlier of `until` and its own end.
    #[must_use]
    pub fn fate_wait(&self, now: u64) -> Option<(u64, u64)> {
        if self.relative() {
            return None;
        }
        let period = self.frame_period()?;
        let n = self.plan.newest()?;
        if !n.targeted && self.plan.anchor().is_none() {
            // The next present has no target either: nothing to place after this frame yet.
            return None;
        }
        let (goal, refresh) = (n.goal, self.refresh()?);
        let bound = goal.saturating_add(period.saturating_mul(LATE_WAIT_INTERVALS));
        let until = match n.fate {
            _ if n.settled => return None,
            Fate::Shown(_) => return None,
            // The engine will say: while it renders, until its refresh; then until the engine
            // says, but not longer than a refresh after vkpace saw it done.
            _ if n.reported && self.engine_reports_ready => match n.seen_done {
                _ if now < goal => goal,
                Some(done) => bound.min(done.max(goal).saturating_add(refresh)),
                None => bound,
            },
            Fate::Unknown if now < goal => goal,
            Fate::Unknown | Fate::Late { done: None, .. } => bound,
            Fate::OnTime | Fate::Late { done: Some(_), .. } => return None,
        };
        let frame = n.frame;
        (until > now).then_some((frame, until))
    }

    /// Absolute targets: whether the newest presented frame's fate is still open (neither
    /// shown nor settled by the engine's word), so that the engine's results, read before the
    /// next present, may settle it. They are read even once [`Self::fate_wait`]'s bound has
    /// passed: a frame whose fate is unknown is taken as on time, and the next frame's target
    /// would then be a refresh early if it was late.
    #[must_use]
    pub fn fate_open(&self) -> bool {
        if self.relative() || self.refresh().is_none() {
            return false;
        }
        self.plan.newest().is_some_and(|n| {
            (n.targeted || self.plan.anchor().is_some())
                && !n.settled
                && !matches!(n.fate, Fate::Shown(_))
        })
    }

    /// Whether the engine reports when frames were ready before they are shown.
    #[must_use]
    pub fn engine_reports_ready(&self) -> bool {
        self.engine_reports_ready
    }

    /// When `frame` should start: its expected refresh less the lead (`Lead`); None while
    /// the schedule is inactive or has no anchor yet (the CPU limiter paces those frames).
    #[must_use]
    pub fn start_at(&self, frame: u64, lead: Lead) -> Option<u64> {
        let expected = self.expected(frame)?;
        let period = self.frame_period()?;
        let refresh = self.refresh()?;
        let lead = match lead {
            Lead::JustInTime => self.leads[1].lead(refresh).unwrap_or(period),
            Lead::OneInterval => self.interval_lead(period, refresh),
            Lead::Refreshes(n) => self
                .interval_lead(period, refresh)
                .max(refresh.saturating_mul(u64::from(n))),
            Lead::Learned => self.leads[0]
                .lead(refresh)
                .map_or(refresh, |l| l.min(self.interval_lead(period, refresh))),
        };
        Some(expected.saturating_sub(lead))
    }

    /// A frame interval ahead, or, where frames take longer than that from start to ready,
    /// that time and half a refresh: frames overlap, as with two in flight.
    fn interval_lead(&self, period: u64, refresh: u64) -> u64 {
        let slow = self
            .work
            .percentile(90)
            .map_or(0, |w| w.saturating_add(refresh / 2));
        period.max(slow)
    }

    /// Frame `frame` began its CPU work at `now`; `planned`: when the grid meant it to start
    /// (the learned leads count its time to ready from there, or from `now` if earlier).
    pub(super) fn frame_started(&mut self, frame: u64, now: u64, planned: Option<u64>) {
        let slot = &mut self.started[(frame % REMEMBERED as u64) as usize];
        *slot = Started {
            frame,
            start: now,
            planned: planned.map_or(now, |p| p.min(now)),
            submit: now,
            in_time: [false; 2],
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
mod tests;
