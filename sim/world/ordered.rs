//! Submissions of an application that owns its swapchain, as the second door sees them: the
//! world's GPU runs one queue in submission order, so a binary semaphore a queued submission
//! waits on may be signalled again by a later submission (signal, wait, signal, in queue
//! order): that is how the textbook loop reuses its per-frame present semaphores once their
//! fence signalled, and how the door's repair submission consumes them. What no queue orders
//! is a present's wait: a semaphore a present may still wait on must not be signalled again
//! (`VUID-vkQueueSubmit-pSignalSemaphores-00067`, the bug the repair removes) nor waited on by
//! anyone else. The frame machine's own submissions keep the stricter checks of `gpu.rs`.

use vkpace_core::SubmitSignal;

use super::{Check, Fence, Sem, World};

impl World {
    /// `vkQueueSubmit` of one batch on the presenting queue, its binary semaphores judged in
    /// queue order (above). Returns the world's number of the submission; it completed once
    /// [`World::gpu_completed`] reaches it (the queue completes in order).
    pub fn submit_ordered(
        &mut self,
        waits: &[Sem],
        signals: &[Sem],
        fence: Option<Fence>,
        frame: bool,
    ) -> Result<u64, String> {
        for &s in waits {
            self.check_ordered_wait(s)?;
        }
        for &s in signals {
            self.check_ordered_signal(s)?;
        }
        if let Some(f) = fence {
            self.check_fence_free(f, "submit")?;
        }
        self.queue_batch(waits, &[], signals, fence.map(SubmitSignal::Fence), frame)
    }

    /// The signals of `s` neither consumed nor about to be by a queued submission's wait.
    fn unconsumed_signals(&mut self, s: Sem) -> Result<i64, String> {
        let t = self.sem(s)?;
        let queue_waits = t.pending_waits - t.present_waits;
        Ok(i64::from(t.signaled) + i64::from(t.pending_signals) - i64::from(queue_waits))
    }

    /// A new signal of `s` in queue order: no present may still wait on it, and every signal
    /// before it is consumed by a wait queued before it (`VUID-vkQueueSubmit-pSignalSemaphores-00067`).
    fn check_ordered_signal(&mut self, s: Sem) -> Check {
        let t = self.sem(s)?;
        if t.present_waits > 0 {
            return Err(format!(
                "submit signal: semaphore {s} signalled again while {} present(s) may still wait on it (VUID-vkQueueSubmit-pSignalSemaphores-00067)",
                t.present_waits
            ));
        }
        let unconsumed = self.unconsumed_signals(s)?;
        if unconsumed != 0 {
            return Err(format!(
                "submit signal: semaphore {s} signalled again with {unconsumed} signal(s) nobody waits on (VUID-vkQueueSubmit-pSignalSemaphores-00067)"
            ));
        }
        Ok(())
    }

    /// A new wait on `s` in queue order: exactly one signal is there for it to consume
    /// (`VUID-vkQueueSubmit-pWaitSemaphores-03238`), and no present waits on it.
    fn check_ordered_wait(&mut self, s: Sem) -> Check {
        let present_waits = self.sem(s)?.present_waits;
        let unconsumed = self.unconsumed_signals(s)?;
        if present_waits > 0 || unconsumed != 1 {
            return Err(format!(
                "submit waits on semaphore {s} with {unconsumed} signal(s) to consume and {present_waits} present wait(s) (VUID-vkQueueSubmit-pWaitSemaphores-03238)"
            ));
        }
        Ok(())
    }

    /// Whether a present may still wait on `s` (its wait is queued and not executed).
    pub fn present_may_wait_on(&self, s: Sem) -> bool {
        self.sems.get(&s).is_some_and(|t| t.present_waits > 0)
    }
}
