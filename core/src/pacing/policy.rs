//! The pacing policy: when frames begin beyond the frames-in-flight gate, the one choice both
//! doors' settings carry ([`super::PacingSettings::policy`]).

/// How frames are paced beyond the frames-in-flight gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PacingPolicy {
    /// Start each frame as soon as frame F-N completed.
    #[default]
    FramesInFlight,
    /// Start each frame just in time for the GPU, from recent CPU and GPU durations. On a
    /// display that queues frames (FIFO) with exact display times (present timing, or present
    /// ids watched during the pacing sleep), just in time for its refresh. With present timing
    /// the swap interval stays one refresh (or the frame limit's): a frame that misses its
    /// refresh is shown one refresh late and the frames after it move with it, but the frame
    /// rate is not halved to avoid that, as [`PacingPolicy::Display`] does. The second door
    /// (`PresentPacer`) learns a frame's CPU time (to its repair submission at the present) but
    /// never its GPU time (the application submits its own work): there this plans only on a
    /// FIFO display's grid with present timing (no frame limit, or one on the grid), by the
    /// lead learned from the frames' ready times, and is [`PacingPolicy::FramesInFlight`]
    /// elsewhere.
    LowLatency,
    /// With present timing (`VK_EXT_present_timing`), Swappy's display policy: each frame stays
    /// on screen a whole number of refreshes, the smallest the frames keep up with (raised when
    /// they miss, lowered when they fit again), so intervals never alternate short and long;
    /// the CPU starts each frame by the lead [`PacingPolicy::Grid`] learns (at most one
    /// interval before its refresh, as Swappy starts it). Without present timing it is
    /// [`PacingPolicy::FramesInFlight`].
    Display,
    /// Frames in flight, and on the refresh grid (present timing, with a frame limit that
    /// falls on it) each frame started in time for its refresh by a lead learned from the
    /// frames' own start-to-ready times (`LeadEstimator`, `LeadAim::Grid`): the 97th
    /// percentile of the last 64 and a margin that grows when a frame is not ready in time and
    /// shrinks slowly while none are late, never more than a frame interval. Where
    /// [`PacingPolicy::FramesInFlight`] starts a frame a whole frame interval (at least as many
    /// refreshes as frames in flight) before its refresh, the slack of FIFO's queue at that much
    /// latency, this keeps the frame limit's even intervals at the latency the frames' own
    /// times need; a frame slower than the lead misses its refresh (shown a refresh late, the
    /// frames after it move with it). It aims at no missed refresh (`GRID_MISS_RATE` is the
    /// rate its margin narrows for); [`PacingPolicy::LowLatency`] at a stated small miss rate
    /// (`LOW_LATENCY_MISS_RATE`) from the 90th percentile. Off the grid it is
    /// [`PacingPolicy::FramesInFlight`]. The pacing layer's `grid` mode.
    Grid,
}
