//! How long before its refresh a frame placed on the grid starts (its *lead*), learned from
//! each frame's own start-to-ready time: the lead is a high percentile of the recent frames'
//! times (the aim's [`LeadAim::base`]) plus a margin that a stochastic approximation holds at
//! the aim's miss rate.
//!
//! What a user feels is the time from a frame being ready to it being shown: zero at the
//! physical limit, and the whole margin beyond the frame's own time otherwise. A lead of the
//! slowest recent frame plus half a refresh (what the grid used before) never misses on a
//! quiet machine but shows every frame about half a refresh after it is ready. Here the margin
//! is what the frames' spread needs: a frame that was not ready within its lead (its
//! start-to-ready time was longer, or the display showed it late though it was) widens it by
//! [`MARGIN_STEP_SHARE`] of a refresh; each frame that was ready in time narrows it by that
//! step times `p / (1 - p)`, `p` the aim's miss rate. The margin is in equilibrium where
//! misses come at rate `p` (Robbins-Monro: the expected step is zero there), so on a
//! stationary distribution of frame times the miss rate converges to the aim's. The base
//! percentile follows a slower frame time within a few frames (it is in the 97th percentile
//! of 64 after 2 frames, the 90th of 32 after 4); the margin then gives back what it took
//! during the step at the aim's slow rate, and the base a faster frame time once the slower
//! ones left its window (64 frames for `grid`, 32 for `low-latency`: a program's first frames,
//! slow while it compiles its pipelines, leave the base within seconds). The margin is slower
//! by design: each late frame's step takes `(1 - p) / p` frames in time to give back (about
//! 1,000 for `grid`, half a minute at 30 fps; 100 for `low-latency`), so a program whose first
//! frames missed keeps a wider `grid` margin for that long.
//!
//! The lead never places a frame's target before its submission: targets are given from the
//! schedule, and a frame submitted after its refresh is meant for the first one after its
//! submission (`DisplaySchedule::plan_present`).

use super::window_stats::WindowStats;

/// The frames whose start-to-ready times `grid`'s base percentile is of.
pub const LONG_WINDOW: usize = 64;
/// The step of the margin on a frame not ready within its lead, as a share of a refresh.
pub const MARGIN_STEP_SHARE: f64 = 1.0 / 16.0;
/// The margin before any frame was judged, as a share of a refresh: `grid`'s and
/// `low-latency`'s. `grid` starts at half a refresh, the margin its lead had before it was
/// learned, and gives it back slowly; a smaller start missed refreshes in the per-push test on
/// a loaded machine, and a margin that starts small also makes frames slower (a frame started
/// close to its refresh waits in the acquire for the image that refresh frees). The figures
/// are in docs/design.md and docs/layer.md.
pub const INITIAL_MARGIN_SHARES: [f64; 2] = [1.0 / 2.0, 1.0 / 8.0];
/// The smallest margin, as a share of a refresh (1 ms at 60 Hz): the pacing sleep's own
/// wake-up and the presentation engine's latch before its refresh.
pub const MIN_MARGIN_SHARE: f64 = 1.0 / 16.0;
/// The `grid` aim: no missed refresh; the margin narrows as if 1 frame in 1000 may miss, so a
/// margin that once covered a slow spell is given back over thousands of frames.
pub const GRID_MISS_RATE: f64 = 0.001;
/// The `low-latency` aim: at most 1 frame in 100 not ready for its refresh.
pub const LOW_LATENCY_MISS_RATE: f64 = 0.01;

/// How a frame's start-to-ready time compared with its lead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeadVerdict {
    /// No lead yet (the first frame).
    Unjudged,
    /// Ready within its lead.
    InTime,
    /// Ready later than its lead allowed.
    Late,
}

/// The miss rate a lead aims at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeadAim {
    /// Every frame on the grid: [`GRID_MISS_RATE`].
    Grid,
    /// The latest start that is still on time: [`LOW_LATENCY_MISS_RATE`].
    LowLatency,
}

impl LeadAim {
    /// The percentile of the recent start-to-ready times the margin is added to, and how many
    /// recent frames: `grid` the 97th of the last 64 (the second slowest: one slow frame,
    /// a hitch, does not set the lead; the margin covers what the base does not),
    /// `low-latency` the 90th of the last 32.
    #[must_use]
    pub fn base(self) -> (u32, usize) {
        match self {
            Self::Grid => (97, LONG_WINDOW),
            Self::LowLatency => (90, super::window_stats::WINDOW),
        }
    }

    /// The share of frames this aim lets miss their refresh.
    #[must_use]
    pub fn miss_rate(self) -> f64 {
        match self {
            Self::Grid => GRID_MISS_RATE,
            Self::LowLatency => LOW_LATENCY_MISS_RATE,
        }
    }
}

/// The lead of one aim, learned from the frames' start-to-ready times and the display's
/// verdicts.
#[derive(Debug, Clone)]
pub struct LeadEstimator {
    aim: LeadAim,
    long: WindowStats<LONG_WINDOW>,
    short: WindowStats,
    /// The base percentile of the frames learned so far (computed once per frame).
    base: Option<u64>,
    /// The margin beyond the base percentile, as a share of a refresh.
    margin_share: f64,
    /// Frames judged, and those not ready within their lead (for the figures and the tests).
    judged: u64,
    late: u64,
}

impl LeadEstimator {
    /// An estimator with no frame learned yet.
    #[must_use]
    pub fn new(aim: LeadAim) -> Self {
        Self {
            aim,
            long: WindowStats::default(),
            short: WindowStats::default(),
            base: None,
            margin_share: match aim {
                LeadAim::Grid => INITIAL_MARGIN_SHARES[0],
                LeadAim::LowLatency => INITIAL_MARGIN_SHARES[1],
            },
            judged: 0,
            late: 0,
        }
    }

    /// The lead on a display of `refresh_ns`: the base percentile of the recent frames'
    /// start-to-ready times and the margin; None before any frame's time is known.
    #[must_use]
    pub fn lead(&self, refresh_ns: u64) -> Option<u64> {
        Some(self.base?.saturating_add(self.margin_ns(refresh_ns)))
    }

    /// The margin on a display of `refresh_ns`, ns.
    #[must_use]
    pub fn margin_ns(&self, refresh_ns: u64) -> u64 {
        (refresh_ns as f64 * self.margin_share) as u64
    }

    /// A frame took `work_ns` from its start to ready: judged against the lead it had (a
    /// frame not ready within it widens the margin), then learned.
    pub fn frame_ready(&mut self, work_ns: u64, refresh_ns: u64) -> LeadVerdict {
        let verdict = match self.lead(refresh_ns) {
            None => LeadVerdict::Unjudged,
            Some(lead) if work_ns > lead => LeadVerdict::Late,
            Some(_) => LeadVerdict::InTime,
        };
        if verdict != LeadVerdict::Unjudged {
            self.judge(verdict == LeadVerdict::Late);
        }
        self.long.push(work_ns);
        self.short.push(work_ns);
        self.base = match self.aim.base() {
            (p, LONG_WINDOW) => self.long.percentile(p),
            (p, _) => self.short.percentile(p),
        };
        verdict
    }

    /// The display showed a frame later than its refresh though [`Self::frame_ready`] judged
    /// it [`LeadVerdict::InTime`] (what the start-to-ready time cannot see: the engine's latch, a
    /// wake-up that came late): it counts as late, and the margin takes back the narrowing
    /// step and widens as for a late frame.
    pub fn shown_late(&mut self) {
        let p = self.aim.miss_rate();
        self.late += 1;
        let step = MARGIN_STEP_SHARE * (1.0 + p / (1.0 - p));
        self.margin_share = (self.margin_share + step).clamp(MIN_MARGIN_SHARE, 1.0);
    }

    /// Frames not ready within their lead, and frames judged: `(late, judged)`.
    #[must_use]
    pub fn late_of_judged(&self) -> (u64, u64) {
        (self.late, self.judged)
    }

    /// One step of the margin: wider on a late frame, narrower on one in time.
    fn judge(&mut self, late: bool) {
        let p = self.aim.miss_rate();
        self.judged += 1;
        self.late += u64::from(late);
        let step = match late {
            true => MARGIN_STEP_SHARE,
            false => -MARGIN_STEP_SHARE * p / (1.0 - p),
        };
        self.margin_share = (self.margin_share + step).clamp(MIN_MARGIN_SHARE, 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: u64 = 16_666_667;

    /// A deterministic stream of frame times: `base` plus a spread drawn from a small LCG.
    fn times(seed: u64, base: u64, spread: u64) -> impl Iterator<Item = u64> {
        let mut x = seed;
        std::iter::from_fn(move || {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            Some(base + (x >> 33) % spread.max(1))
        })
    }

    #[test]
    fn no_lead_before_a_frame_is_known_then_the_base_and_the_margin() {
        let mut e = LeadEstimator::new(LeadAim::Grid);
        assert_eq!(e.lead(R), None);
        e.frame_ready(5_000_000, R);
        assert_eq!(
            e.lead(R),
            Some(5_000_000 + (R as f64 * INITIAL_MARGIN_SHARES[0]) as u64)
        );
    }

    /// A heavy tail: `base` plus an exponential spread of mean `mean` (from the same LCG).
    fn tailed(seed: u64, base: u64, mean: f64) -> impl Iterator<Item = u64> {
        times(seed, 0, 1 << 30).map(move |x| {
            let u = (x as f64 + 1.0) / f64::from(1u32 << 30);
            base + (-u.ln() * mean) as u64
        })
    }

    /// The share of `n` frames of `times` not ready within the lead of `aim`.
    fn late_rate(aim: LeadAim, times: impl Iterator<Item = u64>, n: usize) -> f64 {
        let mut e = LeadEstimator::new(aim);
        for w in times.take(n) {
            e.frame_ready(w, R);
        }
        let (late, judged) = e.late_of_judged();
        late as f64 / judged as f64
    }

    #[test]
    fn on_a_stationary_distribution_the_miss_rate_converges_to_the_aims() {
        // 4 ms and an exponential tail of mean 1 ms: neither base percentile covers the aim's
        // quantile, so the margin does.
        for aim in [LeadAim::Grid, LeadAim::LowLatency] {
            let rate = late_rate(aim, tailed(7, 4_000_000, 1e6), 60_000);
            let p = aim.miss_rate();
            assert!((rate - p).abs() < p * 0.5, "{aim:?}: {rate} late, aim {p}");
        }
    }

    #[test]
    fn where_the_base_and_the_smallest_margin_cover_the_spread_fewer_miss_than_the_aim() {
        // Uniform 4 to 10 ms: each base percentile and the smallest margin cover most of it.
        for aim in [LeadAim::Grid, LeadAim::LowLatency] {
            let rate = late_rate(aim, times(7, 4_000_000, 6_000_000), 60_000);
            assert!(rate <= aim.miss_rate(), "{aim:?}: {rate} late");
        }
    }

    #[test]
    fn a_slower_frame_time_is_followed_within_a_few_frames() {
        let mut e = LeadEstimator::new(LeadAim::Grid);
        for w in times(3, 5_000_000, 1_000_000).take(500) {
            e.frame_ready(w, R);
        }
        let late_before = e.late_of_judged().0;
        for w in times(4, 12_000_000, 1_000_000).take(40) {
            e.frame_ready(w, R);
        }
        let late = e.late_of_judged().0 - late_before;
        assert!(late <= 4, "{late} frames late after the step");
        assert!(e.lead(R).is_some_and(|l| l > 12_000_000));
    }

    #[test]
    fn a_display_miss_the_work_did_not_show_widens_the_margin() {
        let mut e = LeadEstimator::new(LeadAim::Grid);
        assert_eq!(e.frame_ready(5_000_000, R), LeadVerdict::Unjudged);
        assert_eq!(e.frame_ready(5_000_000, R), LeadVerdict::InTime);
        let before = e.margin_ns(R);
        e.shown_late();
        assert!(e.margin_ns(R) > before);
        assert_eq!(e.late_of_judged(), (1, 1));
    }
}
