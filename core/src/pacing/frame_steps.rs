//! A frame's start, restart and acquire, as both doors tell them: the telemetry records the
//! time and the pacing learns from it, in one call each so that the two machines
//! (`machine/acquire.rs`, `present_pacer/frames.rs`) cannot tell one and forget the other.

use super::Pacing;
use crate::telemetry::Telemetry;

impl Pacing {
    /// A frame begins at `now`: the telemetry numbers it, the pacing takes its start (the
    /// frame limiter's slot, the schedule's planned start). Returns its number.
    pub(crate) fn begin_frame(&mut self, telemetry: &mut Telemetry, now: u64) -> u64 {
        let frame = telemetry.begin(now);
        self.frame_started(frame, now);
        frame
    }

    /// Frame `frame` starts again at `now`, after an acquire that got no image in time.
    pub(crate) fn restart_frame(&mut self, telemetry: &mut Telemetry, frame: u64, now: u64) {
        telemetry.restart(frame, now);
        self.frame_restarted(frame, now);
    }

    /// Frame `frame`'s image was acquired at `now`.
    pub(crate) fn acquired(&mut self, telemetry: &mut Telemetry, frame: u64, now: u64) {
        telemetry.acquired(frame, now);
        self.frame_acquired(frame, now);
    }
}
