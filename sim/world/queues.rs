//! Other queues (a compute or transfer queue): each has a timeline of its own that its
//! submissions signal in order, at random moments. Frames may wait for their values on the GPU;
//! nothing else connects them to the presenting queue, so no completion there says anything of
//! theirs (completion is per queue).

use std::collections::VecDeque;

use super::{Check, World};

/// One other queue's ground truth.
#[derive(Debug, Clone)]
pub struct OtherQueue {
    /// The stream its timeline stands for.
    pub stream: u64,
    /// The value its timeline reached.
    pub reached: u64,
    /// The highest value a submission to it signals.
    pub submitted: u64,
    /// The highest value its producer promised to signal (submitted when asked, as a producer
    /// thread would in its own time).
    pub promised: u64,
    /// Submitted values not yet reached, with the ticks each still runs.
    pending: VecDeque<(u64, u32)>,
}

impl World {
    /// A new queue whose timeline stands for `stream`.
    pub fn add_queue(&mut self, stream: u64) {
        self.others.push(OtherQueue {
            stream,
            reached: 0,
            submitted: 0,
            promised: 0,
            pending: VecDeque::new(),
        });
    }

    /// The queue of `stream`.
    pub fn queue_of(&self, stream: u64) -> Option<&OtherQueue> {
        self.others.iter().find(|q| q.stream == stream)
    }

    /// A submission to `stream`'s queue that signals `value` on its timeline. The value must be
    /// above every value signalled or pending (VUID-VkSubmitInfo-pSignalSemaphores-03242).
    pub fn submit_other(&mut self, stream: u64, value: u64) -> Check {
        let delay = self.rng.below(self.faults.max_gpu_delay + 2);
        let q = self
            .others
            .iter_mut()
            .find(|q| q.stream == stream)
            .ok_or_else(|| format!("no queue for stream {stream}"))?;
        if value <= q.submitted {
            return Err(format!(
                "stream {stream}: signal {value} not above {} already submitted",
                q.submitted
            ));
        }
        q.submitted = value;
        q.pending.push_back((value, delay));
        Ok(())
    }

    /// `stream`'s producer promises `value`.
    pub fn promise_other(&mut self, stream: u64, value: u64) {
        if let Some(q) = self.others.iter_mut().find(|q| q.stream == stream) {
            q.promised = q.promised.max(value);
        }
    }

    /// Someone waits for the signal of `stream`'s `value`: its producer submits it now if it
    /// promised it. Returns the highest value submitted then.
    pub fn signal_promised(&mut self, stream: u64, value: u64) -> Result<u64, String> {
        let (submitted, promised) = self
            .queue_of(stream)
            .map_or((0, 0), |q| (q.submitted, q.promised));
        if submitted < value && value <= promised {
            self.submit_other(stream, value)?;
            return Ok(value);
        }
        Ok(submitted)
    }

    /// One step of every other queue: its oldest submission runs or completes.
    pub(super) fn others_tick(&mut self) {
        for q in &mut self.others {
            match q.pending.front_mut() {
                Some((_, remaining)) if *remaining > 0 => *remaining -= 1,
                Some(&mut (value, _)) => {
                    q.reached = value;
                    q.pending.pop_front();
                }
                None => {}
            }
        }
    }

    /// The value `stream`'s timeline reached and the highest value submitted to it; `None`
    /// for a stream the world has no timeline for.
    pub(super) fn timeline_of(&self, stream: u64) -> Option<(u64, u64)> {
        if stream != 0 && stream == self.own_stream {
            return Some((self.timeline, self.timeline.max(self.timeline_pending)));
        }
        self.queue_of(stream).map(|q| (q.reached, q.submitted))
    }

    /// Whether every `(stream, value)` wait is reached.
    pub(super) fn stream_waits_reached(&self, waits: &[(u64, u64)]) -> bool {
        waits
            .iter()
            .all(|&(s, v)| self.timeline_of(s).is_some_and(|(reached, _)| reached >= v))
    }

    /// VUID-vkQueuePresentKHR-pWaitSemaphores-03268: the submission that signals a present's
    /// semaphore may only wait for values whose signal was submitted already.
    pub(super) fn stream_waits_submitted(&self, waits: &[(u64, u64)]) -> Check {
        for &(s, v) in waits {
            let submitted = self.timeline_of(s).map_or(0, |(_, submitted)| submitted);
            if v > submitted {
                return Err(format!(
                    "a present depends on stream {s}'s value {v}, whose signal was not submitted (only {submitted}; VUID-vkQueuePresentKHR-pWaitSemaphores-03268)"
                ));
            }
        }
        Ok(())
    }
}
