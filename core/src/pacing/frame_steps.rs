//! A frame's start, restart, acquire and present, as both doors tell them: the telemetry
//! records the time and the pacing learns from it, in one call each so that the two machines
//! (`machine/acquire.rs` and `present.rs`, `present_pacer/frames.rs` and `feedback.rs`) cannot
//! tell one and forget the other.

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

    /// Frame `frame` was handed to the presentation engine at `now`: the telemetry records it,
    /// and where it may be shown (`shown`: its present returned a success code and was not
    /// refused) the pacing counts it queued for the display. `given_up`: a frame the display
    /// ids stopped awaiting to make room for it (`present_ids`), no longer counted queued. A
    /// frame counted queued that is never reported shown would keep low latency's plan a
    /// refresh late until the display's queue starts over.
    pub(crate) fn handed_over(
        &mut self,
        telemetry: &mut Telemetry,
        frame: u64,
        now: u64,
        shown: bool,
        given_up: Option<u64>,
    ) {
        telemetry.presented(frame, now);
        if shown {
            self.frame_presented(frame, now);
        }
        if let Some(f) = given_up {
            self.frame_displayed(f, now, false);
        }
    }
}
