//! Fences lent to a wait carried out without the pool's owner, and parked until it is back.
//!
//! Door 2 waits on the GPU between runs of its caller's lock (the layer's device lock), so
//! another thread's call may look at the same fences meanwhile. `vkWaitForFences` does not
//! require its fences externally synchronized, but `vkResetFences` and `vkDestroyFence` do
//! ("Host access to each member of `pFences` must be externally synchronized"; and a fence
//! must not be destroyed while a wait on it is in progress): a fence seen signalled while lent
//! is parked, neither reset nor reused nor destroyed, until its last loan is given back.

use super::{FencePool, Serial, SubmitSignal};

impl<F: Copy + PartialEq> FencePool<F> {
    /// Lends the fence that proves `serial` (the first pending at or after it: submissions
    /// complete in order) to a wait carried out without the pool's owner; `None` where nothing
    /// is pending at or after it (it completed already). Give it back with
    /// [`Self::give_back`] once the wait returned. A pool that lends holds fences only: a
    /// timeline value pending at or after `serial` is no fence to lend, and is `None` too.
    pub fn lend(&mut self, serial: Serial) -> Option<F> {
        let f = self.signal_for(serial)?.fence()?;
        self.lent.push(f);
        Some(f)
    }

    /// Lends the fence of `serial`'s own submission (not a later one's, whose signal would say
    /// when that one completed), as [`Self::lend`]; `None` where it is not pending.
    pub fn lend_exact(&mut self, serial: Serial) -> Option<F> {
        let f = self
            .submitted
            .iter()
            .find(|(s, _)| *s == serial)
            .and_then(|&(_, signal)| signal.fence())?;
        // Deliberately wrong under `lend_exact_unmarked` (`scripts/mutation-check`): the loan
        // is not recorded, so a fence seen signalled meanwhile is reset under the wait.
        if !cfg!(vkpace_mutation = "lend_exact_unmarked") {
            self.lent.push(f);
        }
        Some(f)
    }

    /// Lends present fence `id`'s fence, as [`Self::lend`]; `None` where the pool holds no
    /// fence for it (never added, or seen signalled already).
    pub fn lend_present(&mut self, id: u64) -> Option<F> {
        let f = self.present_fence_by_id(id)?;
        self.lent.push(f);
        Some(f)
    }

    /// Whether `fence` is lent out now.
    #[must_use]
    pub fn is_lent(&self, fence: F) -> bool {
        self.lent.contains(&fence)
    }

    /// `fence` was seen signalled and left the pending lists ([`Self::signalled`]): the fence
    /// to reset now, then give back with [`Self::untake`]; `None` where it is lent, so it is
    /// parked and [`Self::give_back`] returns it once its last loan is back.
    pub fn recycle(&mut self, fence: F) -> Option<F> {
        // Deliberately wrong under `reset_lent` (`scripts/mutation-check`): a lent fence is
        // reset while another thread may be waiting on it.
        if self.is_lent(fence) && !cfg!(vkpace_mutation = "reset_lent") {
            self.parked.push(fence);
            return None;
        }
        Some(fence)
    }

    /// A loan of `fence` is back: the fence to reset now (then [`Self::untake`]) where it was
    /// parked and no other loan of it is out.
    pub fn give_back(&mut self, fence: F) -> Option<F> {
        if let Some(at) = self.lent.iter().position(|f| *f == fence) {
            self.lent.swap_remove(at);
        }
        if self.is_lent(fence) {
            return None;
        }
        let at = self.parked.iter().position(|f| *f == fence)?;
        Some(self.parked.swap_remove(at))
    }

    /// Every submission up to `serial` completed (a wait on a later one's fence saw it
    /// signalled): their fences leave the pending list. Returns those to reset now; lent ones
    /// are parked. Timeline values are simply dropped.
    pub fn complete_through(&mut self, serial: Serial) -> Vec<F> {
        let mut reset = Vec::new();
        while let Some(&(s, signal)) = self.submitted.front() {
            if s > serial {
                break;
            }
            self.submitted.pop_front();
            if let SubmitSignal::Fence(f) = signal {
                reset.extend(self.recycle(f));
            }
        }
        reset
    }
}

#[cfg(test)]
mod tests {
    use crate::fence_pool::{FencePool, Signalled};
    use crate::{Serial, SubmitSignal};

    fn pool_with_submissions(serials: &[u64]) -> FencePool<u32> {
        let mut pool = FencePool::new();
        for &s in serials {
            pool.submitted(Serial(s), SubmitSignal::Fence(s as u32 * 10));
        }
        pool
    }

    #[test]
    fn a_fence_seen_signalled_while_lent_is_reset_only_once_its_last_loan_is_back() {
        let mut pool = pool_with_submissions(&[1, 2]);
        assert_eq!(pool.lend(Serial(2)), Some(20));
        assert_eq!(pool.lend_exact(Serial(2)), Some(20), "a second loan");
        assert_eq!(pool.signalled(20), Some(Signalled::Submission(Serial(2))));
        assert_eq!(pool.recycle(20), None, "parked while lent");
        assert_eq!(pool.give_back(20), None, "one loan is still out");
        assert_eq!(pool.give_back(20), Some(20), "the last loan is back");
        assert_eq!(pool.give_back(20), None, "returned once");
    }

    #[test]
    fn a_loan_back_before_the_fence_was_seen_signalled_leaves_it_pending() {
        let mut pool = pool_with_submissions(&[1]);
        assert_eq!(pool.lend(Serial(1)), Some(10));
        assert_eq!(pool.give_back(10), None, "nothing parked");
        assert_eq!(pool.signalled(10), Some(Signalled::Submission(Serial(1))));
        assert_eq!(pool.recycle(10), Some(10), "not lent: reset at once");
    }

    #[test]
    fn lend_takes_the_first_fence_at_or_after_the_serial_and_lend_exact_only_its_own() {
        let mut pool = pool_with_submissions(&[3, 7]);
        assert_eq!(pool.lend(Serial(4)), Some(70));
        assert_eq!(pool.lend_exact(Serial(4)), None);
        assert_eq!(pool.lend(Serial(8)), None, "complete already");
        pool.presented_as(5, 99);
        assert_eq!(pool.lend_present(5), Some(99));
        assert_eq!(pool.lend_present(6), None);
    }

    #[test]
    fn completing_through_a_serial_resets_its_fences_and_parks_the_lent_ones() {
        let mut pool = pool_with_submissions(&[1, 2, 3]);
        assert_eq!(pool.lend_exact(Serial(1)), Some(10));
        assert_eq!(pool.complete_through(Serial(2)), vec![20]);
        assert_eq!(
            pool.oldest_submitted(),
            Some((Serial(3), SubmitSignal::Fence(30)))
        );
        assert_eq!(pool.give_back(10), Some(10));
        assert_eq!(pool.drain_all().len(), 1, "the pending one");
    }

    #[test]
    fn a_parked_fence_is_still_destroyed_at_teardown() {
        let mut pool = pool_with_submissions(&[1]);
        assert_eq!(pool.lend(Serial(1)), Some(10));
        assert_eq!(pool.complete_through(Serial(1)), Vec::<u32>::new());
        assert_eq!(pool.drain_all(), vec![10]);
    }
}
