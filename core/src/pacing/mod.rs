//! Pacing policies: when the next frame should begin its CPU work. Time is an argument
//! (nanoseconds on any monotonic clock), never read here, so the same decisions run in the
//! simulator and on Vulkan.
//!
//! The frames-in-flight gate ([`super::FramePacer`]) always applies first: no policy ever has
//! more than N frames queued. On top of it:
//! - [`PacingPolicy::FramesInFlight`]: start as soon as the gate opens (wgpu's
//!   `desired_maximum_frame_latency`, the textbook loop with N frames);
//! - [`PacingPolicy::LowLatency`]: start as late as still keeps the GPU (or display) busy;
//! - [`PacingPolicy::Grid`]: frames in flight, and on the refresh grid each frame started by a
//!   lead learned from the frames' own start-to-ready times;
//! - [`PacingPolicy::Display`]: with `VK_EXT_present_timing`, a swap interval on the display's
//!   refresh grid that the policy picks, and each frame started one interval before its refresh
//!   ([`DisplaySchedule`]);
//! - a [`FrameLimit`] composes with any of them: with present timing and a limit on the refresh
//!   grid, a target present time every k refreshes; otherwise never start before the next
//!   deadline of a fixed CPU grid, which follows the display's clock where exact display
//!   times come ([`DisplayAnchor`]).

mod anchored_limiter;
mod display_anchor;
mod display_answer;
mod display_plan;
mod display_refresh;
mod display_schedule;
mod frame_limiter;
mod frame_steps;
mod lead_estimator;
mod low_latency;
mod policy;
mod settings;
mod window_stats;

use anchored_limiter::AnchoredLimiter;
pub use display_anchor::{DisplayAnchor, Follow};
pub use display_refresh::DisplayRefresh;
pub use display_schedule::{
    interval_for_limit, DisplayPath, DisplaySchedule, DisplayTiming, Lead, PresentTarget,
};
pub use frame_limiter::{FrameLimit, FrameLimiter};
pub use lead_estimator::{
    LeadAim, LeadEstimator, LeadVerdict, GRID_MISS_RATE, LOW_LATENCY_MISS_RATE,
};
pub use low_latency::LowLatency;
pub use policy::PacingPolicy;
pub use settings::PacingSettings;

/// The pacing decisions of one swapchain (or one simulated loop).
///
/// ```
/// use vkpace_core::{FrameLimit, PacingPolicy};
/// use vkpace_core::Pacing;
/// let mut p = Pacing::new(PacingPolicy::FramesInFlight, Some(FrameLimit::fps(50.0)?));
/// assert_eq!(p.start_at(0), None); // the first frame starts at once
/// p.frame_started(0, 0);
/// p.frame_submitted(0, 1_000_000);
/// assert_eq!(p.start_at(1_000_000), Some(20_000_000)); // the next deadline of the 50 fps grid
/// # Ok::<(), vkpace_core::CoreError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Pacing {
    policy: PacingPolicy,
    display_queues: bool,
    /// The frame limit kept by the CPU, and the display's clock its grid may follow.
    limiter: Option<AnchoredLimiter>,
    low_latency: LowLatency,
    schedule: DisplaySchedule,
    /// What the display reports of its refresh.
    refresh: DisplayRefresh,
    /// The frame that starts next (one after the last started).
    next_frame: u64,
    /// The frames-in-flight gate's N (the lead of a frame limit on the refresh grid).
    frames_in_flight: u32,
}

impl Pacing {
    /// A policy and an optional frame limit.
    #[must_use]
    pub fn new(policy: PacingPolicy, limit: Option<FrameLimit>) -> Self {
        Self {
            policy,
            display_queues: true,
            limiter: limit.map(AnchoredLimiter::new),
            low_latency: LowLatency::default(),
            schedule: DisplaySchedule::new(),
            refresh: DisplayRefresh::Unreported,
            next_frame: 0,
            frames_in_flight: 2,
        }
    }

    /// The frames-in-flight gate's N (2 unless set): a frame limit paced on the refresh grid
    /// under [`PacingPolicy::FramesInFlight`] starts each frame at least N refreshes before
    /// its refresh (`Lead::Refreshes`).
    pub fn set_frames_in_flight(&mut self, frames_in_flight: usize) {
        self.frames_in_flight = u32::try_from(frames_in_flight).unwrap_or(u32::MAX);
    }

    /// The policy in use.
    #[must_use]
    pub fn policy(&self) -> PacingPolicy {
        self.policy
    }

    /// Switches policy at run time. The low-latency predictor learns only while it is the
    /// policy (what it learned under another policy may be stale). So a switch to it starts
    /// from scratch: the frames until one has finished on the GPU
    /// begin at once, as under frames in flight, and the prediction then sharpens over the
    /// next frames (a median of what is known so far).
    pub fn set_policy(&mut self, policy: PacingPolicy) {
        if policy != self.policy && policy == PacingPolicy::LowLatency {
            self.low_latency.reset();
        }
        self.policy = policy;
        self.schedule.set_choice(self.interval_choice());
    }

    /// What the display reports of its refresh ([`DisplayRefresh`]): frames are paced on its
    /// grid where presents can target it and the policy or the frame limit asks for it; the
    /// frame limiter anchors on exact display times only where the display may have a grid.
    pub fn set_display_refresh(&mut self, refresh: DisplayRefresh) {
        let anchored = self.anchors_on_display();
        self.refresh = refresh;
        self.schedule
            .set_timing(refresh.timing(), self.interval_choice());
        if anchored && !self.anchors_on_display() {
            // What the grid followed so far may be the limiter's own output.
            self.reset_anchor();
        }
    }

    /// A new swapchain: its first frame's refresh is not predictable from the old one's.
    pub fn swapchain_changed(&mut self) {
        self.schedule.swapchain_changed();
        self.reset_anchor();
    }

    /// The limiter's grid keeps its own clock until the display's is learned again.
    fn reset_anchor(&mut self) {
        if let Some(l) = self.limiter.as_mut() {
            l.reset_anchor();
        }
    }

    /// Who picks the swap interval: the frame limit where it falls on the refresh grid, the
    /// display policy on top of it. Off where the display does not queue frames: a target
    /// needs a FIFO mode (VUID-VkPresentTimingsInfoEXT-pSwapchains-12235), so both doors send
    /// none on MAILBOX or IMMEDIATE, and a schedule that planned for targets never sent would
    /// leave the frame limit to nobody.
    fn interval_choice(&self) -> display_schedule::Interval {
        use display_schedule::Interval;
        let Some(timing) = self.refresh.timing().filter(|_| self.display_queues) else {
            return Interval::Off;
        };
        let from_limit = match self.frame_limit() {
            Some(l) => match interval_for_limit(l.period_ns(), timing.refresh_ns) {
                Some(k) => Some(k),
                // Off the grid: the CPU limiter keeps the limit, no targets.
                None => return Interval::Off,
            },
            None => None,
        };
        match (self.policy, from_limit) {
            (PacingPolicy::Display, k) => Interval::Auto {
                at_least: k.unwrap_or(1),
            },
            // Low latency trades latency, never frame rate: a frame that misses its refresh
            // moves the schedule (and widens the lead), it does not double the interval.
            (PacingPolicy::LowLatency, k) => Interval::Fixed(k.unwrap_or(1)),
            (PacingPolicy::FramesInFlight | PacingPolicy::Grid, Some(k)) => Interval::Fixed(k),
            (PacingPolicy::FramesInFlight | PacingPolicy::Grid, None) => Interval::Off,
        }
    }

    /// The refresh-grid schedule (its path, misses and predictions).
    #[must_use]
    pub fn schedule(&self) -> &DisplaySchedule {
        &self.schedule
    }

    /// What the present of `frame`, made at `now`, asks the presentation engine for; `stages`:
    /// the present asks for stage times (so the engine will say when it was ready). The
    /// refresh the frame is meant for is kept (a second call for the same frame gives the same
    /// target); call it once the wait [`DisplaySchedule::fate_wait`] asks for is over.
    pub fn present_target(&mut self, frame: u64, now: u64, stages: bool) -> PresentTarget {
        self.schedule.plan_present(frame, now, stages)
    }

    /// The present of `frame` was refused (`VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`): it is
    /// never shown and takes no refresh.
    pub fn present_refused(&mut self, frame: u64) {
        self.schedule.present_refused(frame);
    }

    /// Every frame up to `frame` finished on the GPU; seen at `at` (they finished then or
    /// earlier).
    pub fn frames_complete(&mut self, frame: u64, at: u64) {
        self.schedule.frames_complete(frame, at);
    }

    /// Frame `frame` finished on the GPU at `at` (GPU timestamps): with absolute targets, if
    /// that is after its refresh it missed it, even where no wait saw it still running. (The
    /// learned lead does not take it as the frame's ready time: the engine may take the image
    /// later than its last timestamp, and its stage times say when.) A frame limit anchored on
    /// the display has no stage times: its lead covers the time to then.
    pub fn frame_ready(&mut self, frame: u64, at: u64) {
        self.schedule.frame_ready(frame, at);
        self.anchor_ready(frame, at);
    }

    /// Frame `frame` was ready for the presentation engine at about `at`, as a shell that gets
    /// no stage times saw it (its own submission after the frame completed then, or was seen
    /// complete or not yet complete then): the learned lead, or the lead of a frame limit
    /// anchored on the display, takes it as the frame's ready time. Not judged against the
    /// frame's refresh.
    pub fn frame_ready_by(&mut self, frame: u64, at: u64) {
        self.schedule.frame_ready_by(frame, at);
        self.anchor_ready(frame, at);
    }

    fn anchor_ready(&mut self, frame: u64, at: u64) {
        if self.anchors_on_display() {
            if let Some(l) = self.limiter.as_mut() {
                l.frame_ready(frame, at);
            }
        }
    }

    /// Whether [`Pacing::frame_ready_by`] teaches a lead now: frames are placed before their
    /// refresh by a lead learned from their ready times (`grid`, `display` and low-latency
    /// policies, with present-timing targets), or a frame limit anchored on the display places
    /// them. A shell that gets no stage times from the engine learns the ready times from its
    /// own submissions' completion instead.
    #[must_use]
    pub fn wants_ready_times(&self) -> bool {
        let learned = matches!(self.lead(), Lead::Learned | Lead::JustInTime)
            && self.schedule.learns_ready_times();
        learned || self.anchors_on_display()
    }

    /// Every frame not reported complete was still running on the GPU at `at` (the oldest
    /// submission not reported complete was seen pending).
    pub fn frames_pending(&mut self, at: u64) {
        self.schedule.frames_pending(None, at);
    }

    /// Frame `frame` (and so every later one) was still running on the GPU at `at`.
    pub fn frame_pending(&mut self, frame: u64, at: u64) {
        self.schedule.frames_pending(Some(frame), at);
    }

    /// The presentation engine's timing result for `frame`: rendering finished (queue
    /// operations end) at `ready`, first pixel visible at `shown`.
    pub fn frame_timed(&mut self, frame: u64, ready: Option<u64>, shown: Option<u64>) {
        self.schedule.frame_timed(frame, ready, shown);
        if let Some(at) = shown {
            self.frame_displayed(frame, at, true);
        }
    }

    /// Whether the low-latency predictor is learning (it is the policy).
    fn learning(&self) -> bool {
        self.policy == PacingPolicy::LowLatency
    }

    /// Whether [`Pacing::gpu_done`] uses what it is given (only the low-latency policy learns
    /// from GPU times): when it does not, a shell may skip measuring them; calling
    /// `gpu_done` anyway is harmless.
    #[must_use]
    pub fn wants_gpu_times(&self) -> bool {
        self.learning()
    }

    /// Whether [`Pacing::frame_displayed`] needs exact display times: low latency on a display
    /// that queues frames plans each frame for its refresh. A shell may then wait for the
    /// display during the pacing sleep (module `machine::display_watch`) rather than poll it.
    #[must_use]
    pub fn wants_display_times(&self) -> bool {
        (self.learning() || self.anchors_on_display()) && self.display_queues
    }

    /// Whether exact display times would anchor the frame limiter's grid: a limit kept by the
    /// CPU (no present-timing targets), on a display that queues frames and may have a fixed
    /// grid (not one that reports none: there, exact times are the limiter's own output).
    #[must_use]
    pub fn anchors_on_display(&self) -> bool {
        self.limiter.is_some()
            && self.display_queues
            && self.refresh.may_have_grid()
            && self.schedule.path() == DisplayPath::Cpu
    }

    /// What the frame limiter's grid learned of the display: its period once learned, and the
    /// frames shown a refresh early or late that moved it ([`DisplayAnchor`]).
    #[must_use]
    pub fn display_anchor(&self) -> Option<&DisplayAnchor> {
        self.limiter.as_ref().map(AnchoredLimiter::anchor)
    }

    /// Whether a shell should watch the display before a frame starts (not only during a
    /// pacing sleep): low latency, until it has display times to plan with.
    #[must_use]
    pub fn watches_before_start(&self) -> bool {
        self.learning() && !self.low_latency.display_known()
    }

    /// Whether the display takes every frame in order at its refresh (FIFO and FIFO_RELAXED;
    /// the default): only then can it be the bottleneck that low latency plans for with
    /// display times. MAILBOX replaces frames and IMMEDIATE shows them at once; planning for a
    /// refresh there only slows the loop down, and feeds on itself (later starts, wider display
    /// spacing, later starts; docs/performance.md has the figures).
    ///
    /// It decides the refresh grid too: frames are paced on it only where the display queues
    /// them (targets are taken only there).
    pub fn set_display_queues(&mut self, queues: bool) {
        self.display_queues = queues;
        self.schedule.set_choice(self.interval_choice());
    }

    /// Whether the display takes every frame in order at its refresh
    /// ([`Self::set_display_queues`]).
    #[must_use]
    pub fn display_queues(&self) -> bool {
        self.display_queues
    }

    /// The frame limit in use.
    #[must_use]
    pub fn frame_limit(&self) -> Option<FrameLimit> {
        self.limiter.as_ref().map(AnchoredLimiter::limit)
    }

    /// Sets or removes the frame limit (a new grid starts at the next frame).
    pub fn set_frame_limit(&mut self, limit: Option<FrameLimit>) {
        self.limiter = limit.map(AnchoredLimiter::new);
        self.schedule.set_choice(self.interval_choice());
    }

    /// When the next frame should begin, if later than `now`. Call once the frames-in-flight
    /// gate has opened; sleep until the returned time (the shell sleeps, then spins the last
    /// fraction for precision).
    #[must_use]
    pub fn start_at(&self, now: u64) -> Option<u64> {
        if let Some(at) = self.schedule.start_at(self.next_frame, self.lead()) {
            return Some(at).filter(|&t| t > now);
        }
        let limit = self.limiter.as_ref().and_then(AnchoredLimiter::deadline);
        let low = match self.policy {
            PacingPolicy::LowLatency => self.low_latency.start_at(self.display_queues),
            PacingPolicy::FramesInFlight | PacingPolicy::Display | PacingPolicy::Grid => None,
        };
        match (limit, low) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
        .filter(|&t| t > now)
    }

    /// How long before its refresh a frame on the grid starts, by policy.
    fn lead(&self) -> Lead {
        match self.policy {
            PacingPolicy::LowLatency => Lead::JustInTime,
            PacingPolicy::Display | PacingPolicy::Grid => Lead::Learned,
            PacingPolicy::FramesInFlight => Lead::Refreshes(self.frames_in_flight),
        }
    }

    /// Frame `id` began its CPU work at `now`. Where the grid planned its start, the learned
    /// leads count its time to ready from that plan: a wake-up from the pacing sleep that came
    /// late is part of what the lead must cover.
    pub fn frame_started(&mut self, id: u64, now: u64) {
        self.next_frame = id.saturating_add(1);
        let planned = self.schedule.start_at(id, self.lead());
        self.schedule.frame_started(id, now, planned);
        if let Some(l) = self.limiter.as_mut() {
            l.frame_started(id, now);
        }
        if self.learning() {
            self.low_latency.frame_started(id, now);
        }
    }

    /// Frame `id` starts again at `now` after an acquire that got no image in time: its CPU
    /// time counts from here for the schedule and the low-latency policy (the frame limiter
    /// already gave it its slot).
    pub fn frame_restarted(&mut self, id: u64, now: u64) {
        self.schedule.frame_started(id, now, None);
        if self.learning() {
            self.low_latency.frame_started(id, now);
        }
    }

    /// Frame `id`'s image was acquired at `now`: its CPU work begins (for low latency, which
    /// does not count the acquire's wait as work).
    pub fn frame_acquired(&mut self, id: u64, now: u64) {
        if self.learning() {
            self.low_latency.frame_started(id, now);
        }
    }

    /// Frame `id` was submitted at `now`.
    pub fn frame_submitted(&mut self, id: u64, now: u64) {
        self.schedule.frame_submitted(id, now);
        if self.learning() {
            self.low_latency.frame_submitted(id, now);
        }
    }

    /// The GPU ran frame `id` from `start` to `end`.
    pub fn gpu_done(&mut self, id: u64, start: u64, end: u64) {
        if self.learning() {
            self.low_latency.gpu_done(id, start, end);
        }
    }

    /// Frame `id` was handed to the presentation engine at `now`.
    pub fn frame_presented(&mut self, id: u64, now: u64) {
        if self.learning() {
            self.low_latency.frame_presented();
        }
        if let Some(l) = self.limiter.as_mut() {
            l.frame_presented(id, now);
        }
    }

    /// The display's queue starts over: a new swapchain, or the old one stopped reporting
    /// (frames presented before will never be reported shown).
    pub fn display_restarted(&mut self) {
        self.low_latency.display_restarted();
        self.reset_anchor();
    }

    /// Frame `id` reached the display at `at` (present timing, present ids, or a simulated
    /// display). `exact`: `at` is when it was shown; otherwise only that it was shown by then.
    pub fn frame_displayed(&mut self, id: u64, at: u64, exact: bool) {
        if self.learning() {
            self.low_latency.frame_displayed(id, at, exact);
        }
        if !exact || !self.anchors_on_display() {
            return;
        }
        if let Some(l) = self.limiter.as_mut() {
            l.frame_shown(id, at);
        }
    }
}

#[cfg(test)]
mod tests;
