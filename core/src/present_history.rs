//! Per-image present-semaphore history.
//!
//! Without `VK_EXT_swapchain_maintenance1` nothing reports when the presentation engine has
//! finished waiting on a present's semaphore, and the semaphore may not be signalled again or
//! destroyed before that (`VUID-vkQueueSubmit-pSignalSemaphores-00067`: a signalled semaphore
//! "must be unsignaled"; `VUID-vkDestroySemaphore-semaphore-01137`). The proof we use (seed 004,
//! generalized in GUIDE section 2): the presentation engine hands image *i* back, signalling a
//! later acquire's semaphore, only after it has processed the previous present of *i*, including
//! its wait. So once a submission that waited on a *later* acquire of image *i* has completed,
//! every earlier present semaphore of *i* is free.
//!
//! With the CPU at most N frames ahead, at most N presents of an image are unproven or proven
//! by an incomplete submission when a new present semaphore is needed, so a history N+1 deep
//! always has a free oldest entry. The depth cap also bounds an image that is never acquired
//! again: its history simply stays as it is until its swapchain retires.

use std::collections::VecDeque;

use super::serial::Serial;

/// How many presents each image's history holds at `frames_in_flight` N: N+1 (seed 004), both
/// doors'.
pub(crate) fn history_depth(frames_in_flight: usize) -> usize {
    frames_in_flight + 1
}

/// How many free present semaphores a machine keeps at `frames_in_flight` (more are
/// destroyed), both doors': enough for a new swapchain's first N+1 frames twice over, so a
/// resize storm does not create and destroy semaphores every frame.
pub(crate) fn pool_cap(frames_in_flight: usize) -> usize {
    2 * history_depth(frames_in_flight)
}

/// One past present of an image.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PresentRecord<S> {
    /// The semaphore the present waited on.
    pub semaphore: S,
    /// The serial of a submission that waited on a later acquire of the same image: once it is
    /// complete the present's wait has been consumed.
    pub proven_by: Option<Serial>,
    /// The present failed in a way that may leave its wait never executed (for example
    /// `VK_ERROR_OUT_OF_HOST_MEMORY`): never signal this semaphore again, destroy it when free.
    pub poisoned: bool,
    /// With `VK_EXT_swapchain_maintenance1`: the id of the present fence
    /// (`VkSwapchainPresentFenceInfoEXT`) that signals once the engine no longer needs the
    /// semaphore; `None` once it signalled or when the present had no fence.
    pub present_fence: Option<u64>,
}

impl<S> PresentRecord<S> {
    /// Whether the present's wait is provably consumed.
    #[must_use]
    pub fn is_free(&self, completed: Serial) -> bool {
        if cfg!(vkpace_mutation = "weak_reuse") {
            // Deliberately wrong (`scripts/mutation-check`): trusts a proof before it has completed.
            return self.proven_by.is_some();
        }
        self.proven_by.is_some_and(|s| s.is_complete(completed))
    }
}

/// What to do for the next present semaphore of an image.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum PresentSemaphoreChoice<S> {
    /// Reuse this semaphore: the present that waited on it provably consumed the wait (the
    /// image's oldest record, or one of the pool of freed ones).
    Reuse(S),
    /// Create a new semaphore (the history has room, or is full with its oldest record
    /// unproven, and the pool is empty).
    Create,
    /// The history is full and its oldest entry is not yet provably free: wait for this serial
    /// and ask again. Never happens while N stays fixed; can after N is lowered at run time.
    WaitFor(Serial),
}

/// The present history of one swapchain image.
#[derive(Debug, Clone)]
pub struct ImageHistory<S> {
    /// Oldest first; at most N+1 records.
    records: VecDeque<PresentRecord<S>>,
}

impl<S: std::fmt::Debug> ImageHistory<S> {
    /// One line for the state dump: each present semaphore, oldest first, and what proves its
    /// wait consumed.
    pub(crate) fn dump(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.records.is_empty() {
            return write!(out, "no presents");
        }
        for (i, r) in self.records.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(out, "{sep}{:?}", r.semaphore)?;
            match (r.proven_by, r.present_fence) {
                // A present fence that signalled leaves the record proven by "nothing".
                (Some(Serial::NONE), _) => write!(out, " free")?,
                (Some(s), _) => write!(out, " proven by {s}")?,
                (None, Some(id)) => write!(out, " present fence {id}")?,
                (None, None) => write!(out, " unproven")?,
            }
            if r.poisoned {
                write!(out, " (poisoned)")?;
            }
        }
        Ok(())
    }
}

impl<S: Copy> ImageHistory<S> {
    /// An empty history with room for `depth` records.
    pub fn with_depth(depth: usize) -> Self {
        Self {
            records: VecDeque::with_capacity(depth),
        }
    }

    /// Number of records (present semaphores this image holds).
    #[must_use]
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// A submission with `serial` waited on a new acquire of this image: it proves every earlier
    /// present of the image. Returns whether any record was newly proven.
    pub fn prove_previous(&mut self, serial: Serial) -> bool {
        let mut any = false;
        for r in self.records.iter_mut().filter(|r| r.proven_by.is_none()) {
            r.proven_by = Some(serial);
            any = true;
        }
        any
    }

    /// Picks the semaphore for the next present of this image. A reused or poisoned-and-free
    /// oldest record is removed; a poisoned one is returned through `destroy`. Where no record
    /// serves and none must be waited for, a semaphore of `pool` (unsignalled, nothing pending:
    /// both doors' pool of freed ones) is reused before one is made.
    pub fn choose(
        &mut self,
        depth: usize,
        completed: Serial,
        pool: &mut Vec<S>,
        mut destroy: impl FnMut(S),
    ) -> PresentSemaphoreChoice<S> {
        while let Some(oldest) = self.records.front().copied() {
            if oldest.is_free(completed) {
                self.records.pop_front();
                if oldest.poisoned {
                    destroy(oldest.semaphore);
                    continue;
                }
                return PresentSemaphoreChoice::Reuse(oldest.semaphore);
            }
            // Full, the oldest not free: wait for its proof. An unproven one (only the newest
            // record can be, under pacing: depth 1 or a broken call order) cannot be waited for.
            if let Some(s) = oldest.proven_by.filter(|_| self.records.len() >= depth) {
                return PresentSemaphoreChoice::WaitFor(s);
            }
            break;
        }
        pool.pop().map_or(
            PresentSemaphoreChoice::Create,
            PresentSemaphoreChoice::Reuse,
        )
    }

    /// Records a present that waited on `semaphore`, with its present fence if it had one.
    pub fn push(&mut self, semaphore: S, poisoned: bool, present_fence: Option<u64>) {
        self.records.push_back(PresentRecord {
            semaphore,
            proven_by: None,
            poisoned,
            present_fence,
        });
    }

    /// The present fence `id` signalled: its present's wait has executed and the engine holds
    /// its own reference (`VkSwapchainPresentFenceInfoEXT`), so the semaphore is free now.
    /// Returns whether a record had that fence.
    pub fn present_fence_signalled(&mut self, id: u64) -> bool {
        for r in self.records.iter_mut() {
            if r.present_fence == Some(id) {
                r.present_fence = None;
                r.proven_by = Some(Serial::NONE);
                return true;
            }
        }
        false
    }

    /// Iterates over the records, oldest first.
    pub fn records(&self) -> impl Iterator<Item = &PresentRecord<S>> {
        self.records.iter()
    }

    /// Removes every record, yielding its semaphore and whether it is poisoned.
    pub fn drain(&mut self) -> impl Iterator<Item = PresentRecord<S>> + '_ {
        self.records.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oldest_reused_once_a_later_acquire_completes() {
        let mut h = ImageHistory::with_depth(3);
        assert_eq!(
            h.choose(3, Serial::NONE, &mut Vec::new(), |_| {}),
            PresentSemaphoreChoice::Create
        );
        h.push(1u32, false, None);
        // Not proven: a new one is created.
        assert_eq!(
            h.choose(3, Serial(9), &mut Vec::new(), |_| {}),
            PresentSemaphoreChoice::Create
        );
        assert!(h.prove_previous(Serial(4)));
        h.push(2, false, None);
        assert_eq!(
            h.choose(3, Serial(3), &mut Vec::new(), |_| {}),
            PresentSemaphoreChoice::Create
        );
        assert!(h.prove_previous(Serial(5)));
        h.push(3, false, None);
        assert_eq!(
            h.choose(3, Serial(3), &mut Vec::new(), |_| {}),
            PresentSemaphoreChoice::WaitFor(Serial(4))
        );
        assert_eq!(
            h.choose(3, Serial(4), &mut Vec::new(), |_| {}),
            PresentSemaphoreChoice::Reuse(1)
        );
        assert_eq!(h.len(), 2);
    }

    #[test]
    fn poisoned_records_are_destroyed_not_reused() {
        let mut h = ImageHistory::with_depth(3);
        h.push(1u32, true, None);
        h.prove_previous(Serial(1));
        let mut destroyed = vec![];
        assert_eq!(
            h.choose(3, Serial(1), &mut Vec::new(), |s| destroyed.push(s)),
            PresentSemaphoreChoice::Create
        );
        assert_eq!(destroyed, vec![1]);
        assert_eq!(h.len(), 0);
    }
}
