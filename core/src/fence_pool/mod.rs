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
//!
//! Both doors use this one pool: door 1's machine holds it, door 2's shells (the Vulkan layer
//! and the simulator's) hold one beside their machine. Door 2 also waits without its pacer's
//! lock, so a fence can be lent out to such a wait (`loans.rs`).

mod loans;

use std::collections::VecDeque;

use super::completion::SubmitSignal;
use super::serial::Serial;

/// What a fence stood for, once seen signalled.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Signalled {
    /// The submission with this serial completed.
    Submission(Serial),
    /// The present with this present-fence id no longer needs its semaphore.
    Present(u64),
}

/// Counters of the fences a pool was given.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FenceCounts {
    /// Fences created (given to [`FencePool::created`]).
    pub created: u64,
    /// Fences not yet drained for destruction.
    pub alive: usize,
    /// The most alive at once.
    pub max_alive: usize,
}

/// Free, submitted, present, lost, lent and parked fences: which fence stands for which
/// submission serial or present, and when one may be reset, reused or destroyed. Pure
/// bookkeeping, generic over the fence handle: the shell creates, looks at, waits on, resets and
/// destroys the fences it names.
///
/// ```
/// use vkpace_core::{FencePool, Serial, Signalled, SubmitSignal};
/// let mut pool = FencePool::new();
/// pool.created(7u32); // the shell made fence 7
/// let fence = pool.take().ok_or("no free fence")?;
/// pool.submitted(Serial(1), SubmitSignal::Fence(fence));
/// // Another thread waits on it without the caller's lock: it is lent.
/// assert_eq!(pool.lend(Serial(1)), Some(7));
/// // Meanwhile a look sees it signalled: it leaves the pending list, but is not reset yet.
/// assert_eq!(pool.signalled(7), Some(Signalled::Submission(Serial(1))));
/// assert_eq!(pool.recycle(7), None, "parked: another thread may still be waiting on it");
/// // The loan is back: now the shell resets it and gives it back to the free ones.
/// assert_eq!(pool.give_back(7), Some(7));
/// pool.untake(7);
/// assert_eq!(pool.free_count(), 1);
/// # Ok::<(), &'static str>(())
/// ```
#[derive(Debug)]
pub struct FencePool<F> {
    /// Unsignalled with nothing pending (reset after they signalled).
    free: Vec<F>,
    /// Submissions not yet seen complete and what each signals, oldest first.
    submitted: VecDeque<(Serial, SubmitSignal<F>)>,
    /// Present fences not yet seen signalled, with their ids.
    presents: Vec<(u64, F)>,
    /// Fences of failed presents (never waited on) and of submissions nothing tracks:
    /// destroyed at teardown.
    lost: Vec<F>,
    /// Fences lent to a wait carried out without the pool's owner, once per loan.
    lent: Vec<F>,
    /// Fences seen signalled while lent: reset and freed once every loan is back.
    parked: Vec<F>,
    next_present_id: u64,
    counts: FenceCounts,
}

impl<F: std::fmt::Debug> FencePool<F> {
    /// Its lines of the state dump: pending submission and present fences. Submissions up to
    /// `completed` are complete (a later one's fence was seen signalled) but keep their fences
    /// until each is seen signalled itself and reset: they are listed apart, as nothing waits
    /// for them.
    pub fn dump(&self, out: &mut std::fmt::Formatter<'_>, completed: Serial) -> std::fmt::Result {
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
            "\n  fences: {} free, {} lost, {} lent, {} parked, {} alive",
            self.free.len(),
            self.lost.len(),
            self.lent.len(),
            self.parked.len(),
            self.counts.alive
        )
    }
}

impl<F: Copy + PartialEq> Default for FencePool<F> {
    fn default() -> Self {
        Self::new()
    }
}

impl<F: Copy + PartialEq> FencePool<F> {
    /// An empty pool.
    #[must_use]
    pub fn new() -> Self {
        Self {
            free: Vec::with_capacity(16),
            submitted: VecDeque::with_capacity(16),
            presents: Vec::with_capacity(16),
            lost: Vec::new(),
            lent: Vec::new(),
            parked: Vec::new(),
            next_present_id: 1,
            counts: FenceCounts::default(),
        }
    }

    /// A newly created fence joins the free ones.
    pub fn created(&mut self, fence: F) {
        self.free.push(fence);
        self.counts.created += 1;
        self.counts.alive += 1;
        self.counts.max_alive = self.counts.max_alive.max(self.counts.alive);
    }

    /// How many fences are free.
    pub fn free_count(&self) -> usize {
        self.free.len()
    }

    /// A free fence, taken out of the pool (give it back with [`Self::untake`] if unused).
    pub fn take(&mut self) -> Option<F> {
        self.free.pop()
    }

    /// The free fence [`Self::take`] would give, left in the pool (a request names it; it is
    /// taken with [`Self::take_this`] once the request succeeded).
    pub fn peek(&self) -> Option<F> {
        self.free.last().copied()
    }

    /// Takes `fence` out of the free ones.
    pub fn take_this(&mut self, fence: F) {
        if let Some(i) = self.free.iter().position(|f| *f == fence) {
            self.free.swap_remove(i);
        }
    }

    /// A taken fence that was never submitted goes back.
    pub fn untake(&mut self, fence: F) {
        self.free.push(fence);
    }

    /// The submission numbered `serial` was made, signalling `signal` (a fence taken from
    /// the pool, or a timeline value).
    pub fn submitted(&mut self, serial: Serial, signal: SubmitSignal<F>) {
        self.submitted.push_back((serial, signal));
    }

    /// `fence` was given to a present; returns the id the core tracks it by.
    pub fn presented(&mut self, fence: F) -> u64 {
        let id = self.next_present_id;
        self.next_present_id += 1;
        self.presents.push((id, fence));
        id
    }

    /// `fence` was given to a present as present fence `id`, an id its owner chose (door 2's
    /// machine names present fences in its plan, before the present). A pool takes its ids
    /// one way only: from [`Self::presented`] or from its owner, never both.
    pub fn presented_as(&mut self, id: u64, fence: F) {
        self.presents.push((id, fence));
    }

    /// `fence` went to a present that failed (it may never signal) or to a submission nothing
    /// tracks: never waited on, never reused, destroyed at teardown.
    pub fn lost(&mut self, fence: F) {
        self.lost.push(fence);
    }

    /// Present fence `id` went to a present that failed: it may never signal.
    pub fn lose_present(&mut self, id: u64) {
        if let Some(at) = self.presents.iter().position(|(i, _)| *i == id) {
            let (_, f) = self.presents.swap_remove(at);
            self.lost.push(f);
        }
    }

    /// The oldest submission not yet seen complete.
    pub fn oldest_submitted(&self) -> Option<(Serial, SubmitSignal<F>)> {
        self.submitted.front().copied()
    }

    /// The newest submission not yet seen complete.
    pub fn newest_submitted(&self) -> Option<(Serial, SubmitSignal<F>)> {
        self.submitted.back().copied()
    }

    /// A pending signal that proves `serial` complete: the first at or after it.
    pub fn signal_for(&self, serial: Serial) -> Option<SubmitSignal<F>> {
        self.submitted
            .iter()
            .find(|(s, _)| *s >= serial)
            .map(|&(_, f)| f)
    }

    /// The timeline was read at `value`: every pending submission whose value it reached
    /// leaves the list. Returns the newest of them.
    pub fn timeline_reached(&mut self, value: u64) -> Option<Serial> {
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
    pub fn present_fence(&self, i: usize) -> Option<F> {
        self.presents.get(i).map(|&(_, f)| f)
    }

    /// The fence of present-fence id `id`, if still pending.
    pub fn present_fence_by_id(&self, id: u64) -> Option<F> {
        self.presents
            .iter()
            .find(|(p, _)| *p == id)
            .map(|&(_, f)| f)
    }

    /// `fence` was seen signalled: it leaves the pending lists (the caller resets it, then
    /// gives it back with [`Self::untake`]; a caller that lends fences asks
    /// [`Self::recycle`] first). `None` for a fence the pool was not waiting on.
    pub fn signalled(&mut self, fence: F) -> Option<Signalled> {
        let ours = SubmitSignal::Fence(fence);
        if let Some(i) = self.submitted.iter().position(|(_, f)| *f == ours) {
            let (serial, _) = self.submitted.remove(i)?;
            return Some(Signalled::Submission(serial));
        }
        let i = self.presents.iter().position(|(_, f)| *f == fence)?;
        let (id, _) = self.presents.swap_remove(i);
        Some(Signalled::Present(id))
    }

    /// Fences the pool holds now, in every list: free, pending submissions' (not timeline
    /// values), present fences, lost and parked (a loan names a fence of one of those). A
    /// shell that counts the fences it made and destroyed can check none fell out.
    #[must_use]
    pub fn held(&self) -> usize {
        let pending = self.submitted.iter().filter(|(_, s)| s.fence().is_some());
        self.free.len()
            + pending.count()
            + self.presents.len()
            + self.lost.len()
            + self.parked.len()
    }

    /// Counters since creation.
    pub fn counts(&self) -> FenceCounts {
        self.counts
    }

    /// Removes every fence for destruction. Call only once none can be signalled any more and
    /// no loan is out (`VUID-vkDestroyFence-fence-01120`; a wait on a destroyed fence is a
    /// use after free).
    pub fn drain_all(&mut self) -> Vec<F> {
        let mut all: Vec<F> = self.free.drain(..).collect();
        all.extend(self.submitted.drain(..).filter_map(|(_, f)| f.fence()));
        all.extend(self.presents.drain(..).map(|(_, f)| f));
        all.append(&mut self.lost);
        all.append(&mut self.parked);
        self.lent.clear();
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
