//! Present timing (`VK_EXT_present_timing`) per present, as both doors use it: what each
//! present asks of the presentation engine, the swapchain's results queue it takes a slot of,
//! and what a result read back means for pacing and telemetry.
//!
//! Results queue: a present that asks for stage times takes a slot of the swapchain's results
//! queue until its complete result is read; with no slot free the present "fails and returns
//! `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`" and is not shown (`VkPresentTimingInfoEXT`). So
//! stage times are asked for only while a slot is free: a frame is never lost to a full queue,
//! it only goes without its timing result. Should the engine report the queue full anyway (it
//! has less room than it was sized to), that one present is not shown, but its waits still
//! executed ("the set of queue operations are still considered to be enqueued",
//! `vkQueuePresentKHR`): its semaphore is reused as usual and no recreation is needed. The
//! results outstanding are then taken as the queue's real size, so no later present is
//! refused. A new swapchain has a new, empty queue of the size asked for.

use crate::machine::PresentTimingRequest;
use crate::pacing::{Pacing, PresentTarget};
use crate::telemetry::{PresentStages, Telemetry};

/// One timing result, as the shell read it (`VkPastPresentationTimingEXT`), times on the
/// machine's clock.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TimingReport {
    /// The present's id.
    pub present_id: u64,
    /// Its stage times.
    pub stages: PresentStages,
    /// Every stage asked for has its final value (`reportComplete`): its queue slot is free.
    pub complete: bool,
    /// Stage times were reported in a time domain the shell has no calibration for, and were
    /// dropped (counted in the stats: `SwapchainStats::timing_results_unmapped`,
    /// `PresentPacerStats::timing_results_unmapped`).
    pub unmapped: bool,
}

impl TimingReport {
    /// A result for `present_id`.
    #[must_use]
    pub fn new(present_id: u64, stages: PresentStages, complete: bool) -> Self {
        Self {
            present_id,
            stages,
            complete,
            unmapped: false,
        }
    }

    /// When the frame was shown: first pixel visible, else the supported stage nearest to it
    /// ("Some implementations may not provide timing data for the
    /// IMAGE_FIRST_PIXEL_VISIBLE present stage. Applications should use the supported present
    /// stage nearest to it", `VkPresentTimingInfoEXT`).
    #[must_use]
    pub fn shown(&self) -> Option<u64> {
        let s = self.stages;
        s.first_pixel_visible
            .or(s.first_pixel_out)
            .or(s.request_dequeued)
    }
}

/// One swapchain's results queue as vkpace counts it.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TimingQueue {
    /// Results-queue slots of the swapchain.
    capacity: u32,
    /// Slots taken by presents whose complete result was not read yet.
    outstanding: u32,
    /// The present in flight asked for stage times.
    asking: bool,
}

/// What [`TimingQueue::taken`] found in one result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Taken {
    /// The result was complete (counted as a result read).
    pub(crate) complete: bool,
    /// Its stage times were dropped (a domain the shell could not map).
    pub(crate) unmapped: bool,
}

impl TimingQueue {
    /// A queue of `capacity` slots, all free.
    pub(crate) fn new(capacity: u32) -> Self {
        Self {
            capacity,
            outstanding: 0,
            asking: false,
        }
    }

    /// The request of `frame`'s present, made at `now`. `targets`: the present mode takes
    /// targets, which need FIFO or FIFO_RELAXED as "the swapchain's current present mode"
    /// (VUID-VkPresentTimingsInfoEXT-pSwapchains-12235); `stages`: stage times may be asked
    /// for (the present carries vkpace's ids, by which its result is named). The refresh the
    /// frame is meant for is kept in its telemetry.
    pub(crate) fn request(
        &mut self,
        pacing: &mut Pacing,
        telemetry: &mut Telemetry,
        frame: u64,
        now: u64,
        targets: bool,
        stages: bool,
    ) -> PresentTimingRequest {
        self.asking = stages && self.outstanding < self.capacity;
        let query_stages = self.asking;
        let target = match targets {
            true => pacing.present_target(frame, now, query_stages),
            false => PresentTarget::None,
        };
        if let Some(at) = pacing.schedule().goal(frame).filter(|_| targets) {
            telemetry.targeted(frame, at);
        }
        PresentTimingRequest {
            target,
            query_stages,
        }
    }

    /// After the present's result: `queued` (its waits execute) and `queue_full` (the engine
    /// refused it with `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`). A slot is taken if it asked
    /// and the engine took it.
    pub(crate) fn outcome(&mut self, queued: bool, queue_full: bool) {
        if queue_full {
            // May be 0 (an engine with no room at all): no more stage times until the next
            // swapchain, whose queue is sized again.
            self.capacity = self.outstanding;
        } else if queued && self.asking {
            self.outstanding += 1;
        }
        self.asking = false;
    }

    /// A new swapchain: a new, empty queue, of `slots` where given.
    pub(crate) fn restart(&mut self, slots: Option<u32>) {
        self.outstanding = 0;
        self.capacity = slots.unwrap_or(self.capacity);
    }

    /// A result read: a complete one frees its slot. `frame`: the frame that made the present
    /// (None: one vkpace no longer follows); its stage times go to the telemetry and the
    /// pacing.
    pub(crate) fn taken(
        &mut self,
        r: &TimingReport,
        frame: Option<u64>,
        telemetry: &mut Telemetry,
        pacing: &mut Pacing,
    ) -> Taken {
        if r.complete {
            self.outstanding = self.outstanding.saturating_sub(1);
        }
        if let Some(frame) = frame {
            telemetry.stages(frame, &r.stages);
            pacing.frame_timed(frame, r.stages.queue_operations_end, r.shown());
        }
        Taken {
            complete: r.complete,
            unmapped: r.complete && r.unmapped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_times_are_asked_only_while_a_slot_is_free() {
        let mut pacing = Pacing::new(crate::pacing::PacingPolicy::FramesInFlight, None);
        let mut telemetry = Telemetry::new();
        let mut q = TimingQueue::new(2);
        for frame in 0..2 {
            assert!(
                q.request(&mut pacing, &mut telemetry, frame, 0, true, true)
                    .query_stages
            );
            q.outcome(true, false);
        }
        assert!(
            !q.request(&mut pacing, &mut telemetry, 2, 0, true, true)
                .query_stages
        );
        q.outcome(true, false);
        let done = TimingReport::new(1, PresentStages::default(), true);
        let taken = q.taken(&done, None, &mut telemetry, &mut pacing);
        assert!(taken.complete && !taken.unmapped);
        assert!(
            q.request(&mut pacing, &mut telemetry, 3, 0, true, true)
                .query_stages
        );
        // A present named by the application's ids asks for none, with a slot free: its
        // result could not be told apart.
        assert!(
            !q.request(&mut pacing, &mut telemetry, 4, 0, true, false)
                .query_stages
        );
        q.outcome(true, false);
        assert!(
            q.request(&mut pacing, &mut telemetry, 5, 0, true, true)
                .query_stages
        );
    }

    #[test]
    fn a_full_queue_report_shrinks_the_queue_to_what_is_outstanding() {
        let mut pacing = Pacing::new(crate::pacing::PacingPolicy::FramesInFlight, None);
        let mut telemetry = Telemetry::new();
        let mut q = TimingQueue::new(8);
        assert!(
            q.request(&mut pacing, &mut telemetry, 0, 0, true, true)
                .query_stages
        );
        q.outcome(true, false);
        assert!(
            q.request(&mut pacing, &mut telemetry, 1, 0, true, true)
                .query_stages
        );
        q.outcome(true, true);
        assert!(
            !q.request(&mut pacing, &mut telemetry, 2, 0, true, true)
                .query_stages
        );
        q.outcome(true, false);
        q.restart(Some(8));
        assert!(
            q.request(&mut pacing, &mut telemetry, 3, 0, true, true)
                .query_stages
        );
    }

    #[test]
    fn shown_falls_back_to_the_nearest_stage_reported() {
        let stages = |out, dequeued| PresentStages::new(Some(1), dequeued, out, None);
        assert_eq!(
            TimingReport::new(1, stages(Some(5), Some(4)), true).shown(),
            Some(5)
        );
        assert_eq!(
            TimingReport::new(1, stages(None, Some(4)), true).shown(),
            Some(4)
        );
        assert_eq!(TimingReport::new(1, stages(None, None), true).shown(), None);
    }
}
