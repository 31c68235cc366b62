//! The frame limiter and the display anchor its grid follows, as one value: a limit always has
//! both (the anchor only follows exact display times while [`super::Pacing`] says the display
//! may have a grid), and no limit has neither.

use super::display_anchor::{DisplayAnchor, Follow};
use super::frame_limiter::{FrameLimit, FrameLimiter};

/// A frame limit kept by the CPU, with the display's clock its grid may follow.
#[derive(Debug, Clone)]
pub(super) struct AnchoredLimiter {
    limiter: FrameLimiter,
    anchor: DisplayAnchor,
}

impl AnchoredLimiter {
    pub(super) fn new(limit: FrameLimit) -> Self {
        Self {
            limiter: FrameLimiter::new(limit),
            anchor: DisplayAnchor::new(limit.period_ns()),
        }
    }

    pub(super) fn limit(&self) -> FrameLimit {
        self.limiter.limit()
    }

    /// The next frame's deadline on the grid, if any.
    pub(super) fn deadline(&self) -> Option<u64> {
        self.limiter.deadline()
    }

    pub(super) fn anchor(&self) -> &DisplayAnchor {
        &self.anchor
    }

    /// The grid keeps its own clock until the display's is learned again.
    pub(super) fn reset_anchor(&mut self) {
        self.anchor.reset();
        self.limiter.follow_display(Follow::default());
    }

    /// Frame `id` began at `now`: it takes its slot on the grid, which the anchor measures the
    /// frame's way to the display from (a grid the limiter re-anchored after a stall is placed
    /// again).
    pub(super) fn frame_started(&mut self, id: u64, now: u64) {
        self.limiter.frame_started(now);
        if let Some(slot) = self.limiter.started_slot() {
            if self.limiter.reanchored() {
                self.anchor.grid_reanchored();
            }
            self.anchor.frame_started(id, slot);
        }
    }

    pub(super) fn frame_presented(&mut self, id: u64, now: u64) {
        self.anchor.frame_presented(id, now);
    }

    /// Frame `id` was ready for the display at `at`: the lead covers the time to then.
    pub(super) fn frame_ready(&mut self, id: u64, at: u64) {
        self.anchor.frame_ready(id, at);
    }

    /// Frame `id` was shown at exactly `at`: the grid follows what the anchor learned.
    pub(super) fn frame_shown(&mut self, id: u64, at: u64) {
        self.limiter.follow_display(self.anchor.frame_shown(id, at));
    }
}
