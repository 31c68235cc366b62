//! When the second door's frames were ready, from its own submissions. A lineage placed on the
//! refresh grid by a learned lead (`grid`, `display`, low latency) learns each frame's time from
//! its planned start to ready. Where the engine gives stage times, the ready time comes with
//! the present's results; where it does not (the application chains its own present ids, as
//! DXVK does, so vkpace asks for none: `timing.rs`), the repair submission stands for the frame:
//! it waits on the application's semaphores and so completes right after the frame's own work
//! (submissions complete in order, spec *Fence Signaling*), when the presentation engine could
//! take the image.
//!
//! The shell asks during the pause before the lineage's next frame, which follows the present
//! at once, and waits on that serial's own fence (not a later one's), bounded by the pause's
//! end:
//! - a wait that began before the fence signalled and ended because it did says when the frame
//!   was ready, within the thread's wake-up ([`PacerMachine::frame_ready`]);
//! - a fence seen signalled already (by the wait's first look, or by the completion poll just
//!   before) says "ready by now", at most a moment after the present: an upper bound, which can
//!   only lengthen the lead ([`PacerMachine::frame_ready_by`]);
//! - a wait that ran out says "not ready by now": a lower bound, learned as the frame's time
//!   ([`PacerMachine::frame_not_ready_by`]) so that slow frames are not left out of the lead.
//!
//! These times teach the lead only: they are not used to judge whether a frame made its
//! refresh (a late wake-up would make one that did look late).

use super::PacerMachine;
use crate::handle::Handle;
use crate::serial::Serial;

/// How a frame's ready time was seen.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Seen {
    Exact,
    ReadyBy,
    NotReadyBy,
}

impl<S: Handle, W: Handle> PacerMachine<S, W> {
    /// During a pause before the next frame of `swapchain`'s lineage: the serial of the frame
    /// presented just before, whose ready time its pacing wants and no stage time will give
    /// ([`super::SleepWatch::Ready`]). The shell waits on that serial's own fence (bounded by
    /// the pause's end) and reports what it saw with [`Self::frame_ready`],
    /// [`Self::frame_ready_by`] or [`Self::frame_not_ready_by`] (each ends the watch of that
    /// serial).
    #[must_use]
    pub(super) fn ready_watch(&self, swapchain: W) -> Option<Serial> {
        let c = self.lineage(swapchain)?;
        let (_, serial) = c.ready_unknown?;
        c.wants_ready_times().then_some(serial)
    }

    /// A wait on [`super::SleepWatch::Ready`]'s `serial` that began before it completed ended
    /// because it did, at `now`: its frame was ready then.
    pub fn frame_ready(&mut self, serial: Serial, now: u64) {
        self.ready_seen(serial, now, Seen::Exact);
    }

    /// [`super::SleepWatch::Ready`]'s `serial` was seen complete at `now` (a poll, or a wait that
    /// found it complete): its frame was ready by then. Nothing is learned from a serial not
    /// reported complete ([`Self::serial_completed`]).
    pub fn frame_ready_by(&mut self, serial: Serial, now: u64) {
        self.ready_seen(serial, now, Seen::ReadyBy);
    }

    /// A wait on [`super::SleepWatch::Ready`]'s `serial` ran out at `now`, the pause's end: its
    /// frame was not ready by then.
    pub fn frame_not_ready_by(&mut self, serial: Serial, now: u64) {
        self.ready_seen(serial, now, Seen::NotReadyBy);
    }

    /// A new present of `targets` begins: the lineages presented to forget the frame before's
    /// serial (a ready time learned later would be a frame late) and whether it asked for stage
    /// times (this present says anew).
    pub(super) fn forget_ready_watches(&mut self, targets: &[(W, u32)]) {
        for &(w, _) in targets {
            if let Some(c) = self.lineage_mut(w) {
                c.ready_unknown = None;
                c.stage_times = false;
            }
        }
    }

    fn ready_seen(&mut self, serial: Serial, now: u64, seen: Seen) {
        let complete = serial.is_complete(self.completed);
        for c in &mut self.chains {
            let Some((frame, _)) = c.ready_unknown.filter(|&(_, s)| s == serial) else {
                continue;
            };
            c.ready_unknown = None;
            // A serial stands for every lineage of its present: only those that learn from it.
            if !c.wants_ready_times() || (seen == Seen::ReadyBy && !complete) {
                continue;
            }
            c.pacing.frame_ready_by(frame, now);
            let counter = match seen {
                Seen::Exact => &mut self.stats.ready_times_watched,
                Seen::ReadyBy => &mut self.stats.ready_times_bounded,
                Seen::NotReadyBy => &mut self.stats.ready_times_not_by_pause_end,
            };
            *counter += 1;
        }
    }
}
