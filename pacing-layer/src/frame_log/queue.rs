//! The frame log's hand-over from the device's lock to its writer: under the lock, the frames
//! newly settled are copied into a bounded queue ([`Settle::take`], no I/O, no allocation);
//! after it, whoever holds the writer drains the queue to the file. The queue is filled in
//! present order under the device's lock and drained by one writer at a time, so lines stay
//! in order.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use vkpace::FrameTimes;

/// Frames presented after one before it is written without a display time.
pub const SETTLE_FRAMES: u64 = 8;

/// Frames the queue holds (about 8 s at 60 fps): a writer slower than that loses frames
/// (counted) rather than the device's lock waiting for it.
pub const QUEUE_FRAMES: usize = 512;

/// Which of the telemetry's frames are settled and not yet taken; kept under the device's lock.
#[derive(Debug, Default)]
pub struct Settle {
    /// The newest frame taken.
    taken: Option<u64>,
}

impl Settle {
    /// Hands `give` the frames of `recent` (the telemetry, oldest first) that are settled (a
    /// display time came back, or [`SETTLE_FRAMES`] later frames were presented) and not yet
    /// taken, in order.
    pub fn take(
        &mut self,
        mut recent: impl DoubleEndedIterator<Item = FrameTimes>,
        mut give: impl FnMut(FrameTimes),
    ) {
        let Some(newest) = recent.next_back() else {
            return;
        };
        for f in recent.chain(std::iter::once(newest)) {
            if self.taken.is_some_and(|t| f.frame <= t) {
                continue;
            }
            if f.displayed.is_none() && f.frame + SETTLE_FRAMES > newest.frame {
                break;
            }
            self.taken = Some(f.frame);
            give(f);
        }
    }
}

/// Frames settled and not yet written.
#[derive(Default)]
pub struct LogQueue {
    frames: Mutex<VecDeque<FrameTimes>>,
    lost: AtomicU64,
}

impl LogQueue {
    /// An empty queue, its room made now.
    pub fn new() -> Self {
        let q = Self::default();
        lock(&q.frames).reserve(QUEUE_FRAMES);
        q
    }

    /// Queues `f` (under the device's lock: a copy, no allocation); a full queue loses it.
    pub fn push(&self, f: FrameTimes) {
        let mut q = lock(&self.frames);
        if q.len() < QUEUE_FRAMES {
            q.push_back(f);
        } else {
            self.lost.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The oldest frame queued.
    pub fn pop(&self) -> Option<FrameTimes> {
        lock(&self.frames).pop_front()
    }

    /// Frames lost to a full queue.
    pub fn lost(&self) -> u64 {
        self.lost.load(Ordering::Relaxed)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
