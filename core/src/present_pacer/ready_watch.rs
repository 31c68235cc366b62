//! When the second door's frames were ready, from its own submissions. A lineage placed on the
//! refresh grid by a learned lead (`grid`, `display`, low latency) learns each frame's time from
//! its planned start to ready. Where the engine gives stage times, the ready time comes with
//! the present's results; where it does not (the application chains its own present ids, as
//! DXVK does, so vkpace asks for none: `timing.rs`), the repair submission stands for the frame:
//! it waits on the application's semaphores and so completes right after the frame's own work
//! (submissions complete in order, spec *Fence Signaling*).
//!
//! The shell asks during the pause before the lineage's next frame, which follows the present
//! at once: a fence already signalled then says "ready by now", at most a moment after the
//! present (an upper bound, which can only lengthen the lead); otherwise the shell waits for it,
//! bounded by the pause's end, and a wait that began before the frame finished and ended
//! because it did says when it finished, within the thread's wake-up.

use super::PacerMachine;
use crate::serial::Serial;

impl<S, W> PacerMachine<S, W>
where
    S: Copy + PartialEq + std::fmt::Debug,
    W: Copy + PartialEq + std::fmt::Debug,
{
    /// During a pause before the next frame of `swapchain`'s lineage: the serial of its newest
    /// frame whose ready time its pacing wants and no stage time will give. The shell waits for
    /// it (bounded by the pause's end) and reports with [`Self::frame_ready`], or, where the
    /// serial is seen complete already, [`Self::frame_ready_by`].
    #[must_use]
    pub fn ready_watch(&self, swapchain: W) -> Option<Serial> {
        let i = self.find(swapchain)?;
        let c = self.chains.iter().find(|c| c.id == self.live[i].chain)?;
        let (_, serial) = c.ready_unknown?;
        (c.pacing.wants_ready_times() && !c.stage_times).then_some(serial)
    }

    /// A wait for [`Self::ready_watch`]'s `serial` that began before it completed ended because
    /// it did, at `now`: its frame was ready then.
    pub fn frame_ready(&mut self, serial: Serial, now: u64) {
        self.ready_known(serial, now, true);
    }

    /// [`Self::ready_watch`]'s `serial` was seen complete at `now` (a poll, or a wait that
    /// found it complete): its frame was ready by then.
    pub fn frame_ready_by(&mut self, serial: Serial, now: u64) {
        self.ready_known(serial, now, false);
    }

    fn ready_known(&mut self, serial: Serial, now: u64, exact: bool) {
        for c in &mut self.chains {
            let Some((frame, _)) = c.ready_unknown.filter(|&(_, s)| s == serial) else {
                continue;
            };
            c.ready_unknown = None;
            match exact {
                true => c.pacing.frame_ready(frame, now),
                false => c.pacing.frame_ready_by(frame, now),
            }
            self.stats.ready_times_watched += u64::from(exact);
            self.stats.ready_times_bounded += u64::from(!exact);
        }
    }
}
