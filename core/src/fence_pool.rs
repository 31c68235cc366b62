//! The fences vkpace owns: which one stands for which submission serial or present, and which
//! are free. Pure bookkeeping, generic over the fence handle; the shell only creates, checks,
//! waits, resets and destroys fences when the machine asks.
//!
//! Submission fences complete in submission order on one queue: a fence signalled by
//! `vkQueueSubmit` has in its first synchronization scope "all commands that occur earlier in
//! submission order" (spec, *Fence Signaling*), so the oldest pending one is checked first and a
//! wait on serial `s` may wait on any pending fence at or after `s`. Present fences
//! (`VkSwapchainPresentFenceInfoEXT`) have no such order across swapchains: each is checked on
//! its own, and one that never signals holds up nothing but itself.
//!
//! With the timeline backend a tracked submission signals a timeline value instead of a fence
//! ([`SubmitSignal`]); the pending list keeps both kinds the same way, so every wait and check
//! is chosen by the same rules.

use std::collections::VecDeque;

use super::completion::SubmitSignal;
use super::serial::Serial;

/// What a fence stood for, once seen signalled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Signalled {
    /// The submission with this serial completed.
    Submission(Serial),
    /// The present with this present-fence id no longer needs its semaphore.
    Present(u64),
}

/// Counters of the fences vkpace made.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FenceCounts {
    pub(crate) created: u64,
    pub(crate) alive: usize,
    pub(crate) max_alive: usize,
}

/// Free, submitted and present fences.
#[derive(Debug)]
pub(crate) struct FencePool<F> {
    /// Unsignalled with nothing pending (reset after they signalled).
    free: Vec<F>,
    /// Submissions not yet seen complete and what each signals, oldest first.
    submitted: VecDeque<(Serial, SubmitSignal<F>)>,
    /// Present fences not yet seen signalled, with their ids.
    presents: Vec<(u64, F)>,
    /// Fences of failed presents: never waited on, destroyed at teardown.
    lost: Vec<F>,
    next_present_id: u64,
    counts: FenceCounts,
}

impl<F: std::fmt::Debug> FencePool<F> {
    /// Its lines of the state dump: pending submission and present fences. Submissions up to
    /// `completed` are complete (a later one's fence was seen signalled) but keep their fences
    /// until each is seen signalled itself and reset: they are listed apart, as nothing waits
    /// for them.
    pub(crate) fn dump(
        &self,
        out: &mut std::fmt::Formatter<'_>,
        completed: Serial,
    ) -> std::fmt::Result {
        let (done, pending): (Vec<_>, Vec<_>) =
            self.submitted.iter().partition(|(s, _)| *s <= completed);
        write!(out, "  submissions pending:")?;
        for (serial, signal) in &pending {
            write!(out, " {serial} ({signal})")?;
        }
        if pending.is_empty() {
            write!(out, " none")?;
        }
        if !done.is_empty() {
            write!(out, "\n  complete, fences not reset yet:")?;
            for (serial, signal) in &done {
                write!(out, " {serial} ({signal})")?;
            }
        }
        write!(out, "\n  present fences pending:")?;
        for (id, f) in &self.presents {
            write!(out, " {id} {f:?}")?;
        }
        if self.presents.is_empty() {
            write!(out, " none")?;
        }
        writeln!(
            out,
            "\n  fences: {} free, {} of failed presents, {} alive",
            self.free.len(),
            self.lost.len(),
            self.counts.alive
        )
    }
}

impl<F: Copy + PartialEq> FencePool<F> {
    pub(crate) fn new() -> Self {
        Self {
            free: Vec::with_capacity(16),
            submitted: VecDeque::with_capacity(16),
            presents: Vec::with_capacity(16),
            lost: Vec::new(),
            next_present_id: 1,
            counts: FenceCounts::default(),
        }
    }

    /// A newly created fence joins the free ones.
    pub(crate) fn created(&mut self, fence: F) {
        self.free.push(fence);
        self.counts.created += 1;
        self.counts.alive += 1;
        self.counts.max_alive = self.counts.max_alive.max(self.counts.alive);
    }

    /// How many fences are free.
    pub(crate) fn free_count(&self) -> usize {
        self.free.len()
    }

    /// A free fence, taken out of the pool (give it back with [`Self::untake`] if unused).
    pub(crate) fn take(&mut self) -> Option<F> {
        self.free.pop()
    }

    /// The free fence [`Self::take`] would give, left in the pool (a request names it; it is
    /// taken with [`Self::take_this`] once the request succeeded).
    pub(crate) fn peek(&self) -> Option<F> {
        self.free.last().copied()
    }

    /// Takes `fence` out of the free ones.
    pub(crate) fn take_this(&mut self, fence: F) {
        if let Some(i) = self.free.iter().position(|f| *f == fence) {
            self.free.swap_remove(i);
        }
    }

    /// A taken fence that was never submitted goes back.
    pub(crate) fn untake(&mut self, fence: F) {
        self.free.push(fence);
    }

    /// The submission numbered `serial` was made, signalling `signal` (a fence taken from
    /// the pool, or a timeline value).
    pub(crate) fn submitted(&mut self, serial: Serial, signal: SubmitSignal<F>) {
        self.submitted.push_back((serial, signal));
    }

    /// `fence` was given to a present; returns the id the core tracks it by.
    pub(crate) fn presented(&mut self, fence: F) -> u64 {
        let id = self.next_present_id;
        self.next_present_id += 1;
        self.presents.push((id, fence));
        id
    }

    /// `fence` went to a present that failed: it may never signal.
    pub(crate) fn lost(&mut self, fence: F) {
        self.lost.push(fence);
    }

    /// The oldest submission not yet seen complete.
    pub(crate) fn oldest_submitted(&self) -> Option<(Serial, SubmitSignal<F>)> {
        self.submitted.front().copied()
    }

    /// The newest submission not yet seen complete.
    pub(crate) fn newest_submitted(&self) -> Option<(Serial, SubmitSignal<F>)> {
        self.submitted.back().copied()
    }

    /// A pending signal that proves `serial` complete: the first at or after it.
    pub(crate) fn signal_for(&self, serial: Serial) -> Option<SubmitSignal<F>> {
        self.submitted
            .iter()
            .find(|(s, _)| *s >= serial)
            .map(|&(_, f)| f)
    }

    /// The timeline was read at `value`: every pending submission whose value it reached
    /// leaves the list. Returns the newest of them.
    pub(crate) fn timeline_reached(&mut self, value: u64) -> Option<Serial> {
        let mut newest = None;
        while let Some(&(serial, SubmitSignal::Timeline(v))) = self.submitted.front() {
            if v > value {
                break;
            }
            newest = Some(serial);
            self.submitted.pop_front();
        }
        newest
    }

    /// The `i`-th pending present fence.
    pub(crate) fn present_fence(&self, i: usize) -> Option<F> {
        self.presents.get(i).map(|&(_, f)| f)
    }

    /// The fence of present-fence id `id`, if still pending.
    pub(crate) fn present_fence_by_id(&self, id: u64) -> Option<F> {
        self.presents
            .iter()
            .find(|(p, _)| *p == id)
            .map(|&(_, f)| f)
    }

    /// `fence` was seen signalled: it leaves the pending lists (the caller resets it, then
    /// gives it back with [`Self::untake`]). `None` for a fence the pool was not waiting on.
    pub(crate) fn signalled(&mut self, fence: F) -> Option<Signalled> {
        let ours = SubmitSignal::Fence(fence);
        if let Some(i) = self.submitted.iter().position(|(_, f)| *f == ours) {
            let (serial, _) = self.submitted.remove(i)?;
            return Some(Signalled::Submission(serial));
        }
        let i = self.presents.iter().position(|(_, f)| *f == fence)?;
        let (id, _) = self.presents.swap_remove(i);
        Some(Signalled::Present(id))
    }

    /// Counters since creation.
    pub(crate) fn counts(&self) -> FenceCounts {
        self.counts
    }

    /// Removes every fence for destruction. Call only once none can be signalled any more.
    pub(crate) fn drain_all(&mut self) -> Vec<F> {
        let mut all: Vec<F> = self.free.drain(..).collect();
        all.extend(self.submitted.drain(..).filter_map(|(_, f)| f.fence()));
        all.extend(self.presents.drain(..).map(|(_, f)| f));
        all.append(&mut self.lost);
        self.counts.alive = 0;
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_use_the_first_fence_at_or_after_the_serial_and_signals_say_what_they_proved() {
        let mut pool = FencePool::new();
        for f in [1u32, 2, 3, 4] {
            pool.created(f);
        }
        let a = pool.take().unwrap_or(0);
        let b = pool.take().unwrap_or(0);
        pool.submitted(Serial(3), SubmitSignal::Fence(a));
        pool.submitted(Serial(7), SubmitSignal::Fence(b));
        assert_eq!(pool.signal_for(Serial(1)), Some(SubmitSignal::Fence(a)));
        assert_eq!(pool.signal_for(Serial(4)), Some(SubmitSignal::Fence(b)));
        assert_eq!(pool.signal_for(Serial(8)), None);
        let p = pool.take().unwrap_or(0);
        let id = pool.presented(p);
        assert_eq!(pool.signalled(p), Some(Signalled::Present(id)));
        assert_eq!(pool.signalled(b), Some(Signalled::Submission(Serial(7))));
        assert_eq!(pool.signalled(b), None, "seen once");
        assert_eq!(
            pool.oldest_submitted(),
            Some((Serial(3), SubmitSignal::Fence(a)))
        );
        assert_eq!(pool.counts().max_alive, 4);
        assert_eq!(pool.drain_all().len(), 2, "two taken and not given back");
    }

    #[test]
    fn one_timeline_read_completes_every_submission_up_to_the_value() {
        let mut pool: FencePool<u32> = FencePool::new();
        for v in [2u64, 3, 5] {
            pool.submitted(Serial(v), SubmitSignal::Timeline(v));
        }
        assert_eq!(pool.timeline_reached(1), None, "nothing reached");
        assert_eq!(pool.timeline_reached(4), Some(Serial(3)));
        assert_eq!(
            pool.oldest_submitted(),
            Some((Serial(5), SubmitSignal::Timeline(5)))
        );
        assert_eq!(pool.timeline_reached(9), Some(Serial(5)));
        assert_eq!(pool.oldest_submitted(), None);
        assert_eq!(
            pool.drain_all().len(),
            0,
            "a timeline value is no fence to destroy"
        );
    }
}
