//! A frame's display time, as both doors take it: the telemetry records it, the pacing learns
//! from it (low latency plans, the frame limiter's grid follows the display), and what it moved
//! in that grid is counted the same in both doors' statistics (`anchor_moves`,
//! `anchored_period_ns`).

use super::Pacing;
use crate::telemetry::Telemetry;

/// What one display time changed in the frame limiter's grid that follows the display.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AnchorNews {
    /// Frames shown a refresh early or late that moved the grid (0 or 1).
    pub(crate) moves: u64,
    /// The display's interval for the frame limit the grid follows, once learned.
    pub(crate) period_ns: Option<u64>,
}

impl Pacing {
    /// Frame `frame` was shown at `at` (`exact`: a wait that began before it was shown ended
    /// because it was; otherwise only "shown by then"): recorded and learned from.
    pub(crate) fn frame_shown(
        &mut self,
        telemetry: &mut Telemetry,
        frame: u64,
        at: u64,
        exact: bool,
    ) -> AnchorNews {
        let slips = |p: &Pacing| p.display_anchor().map_or(0, |a| a.slips());
        let before = slips(self);
        telemetry.displayed(frame, at);
        self.frame_displayed(frame, at, exact);
        AnchorNews {
            moves: slips(self).saturating_sub(before),
            period_ns: self.display_anchor().and_then(|a| a.period_ns()),
        }
    }
}
