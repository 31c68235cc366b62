//! Load mode: the world as the pacing model runs it. Nothing is random: a frame's submission
//! runs on the GPU for the duration the renderer gave it, the GPU runs submissions back to
//! back in order, the engine consumes a present's wait as soon as its semaphore signalled, and
//! an acquire hands out only a free image (the shell waits for one first, as a driver that
//! blocks in `vkAcquireNextImageKHR` does). Time is event-driven, so a run of simulated
//! seconds costs only the frames in it, and every time is exact to the nanosecond.

use super::{Check, World};

/// Load mode's state.
#[derive(Debug, Clone, Default)]
pub struct LoadMode {
    /// The GPU duration of the next frame submission (ns), set by the renderer before it
    /// submits.
    pub next_frame_gpu_ns: u64,
    /// When the GPU finished its last submission.
    pub(super) gpu_idle_at: u64,
}

impl World {
    /// A world in load mode.
    pub fn with_loads(seed: u64) -> Self {
        let mut w = Self::new(seed, super::Faults::default());
        w.load = Some(LoadMode::default());
        w
    }

    /// Load mode: virtual time reaches `now`: every submission that ends by then completes at
    /// its end, every present whose semaphore signalled is consumed, and the display shows
    /// what it may before `now`.
    pub fn run_to(&mut self, now: u64) -> Check {
        self.consume_ready_presents()?;
        while let Some((start, end)) = self.head_times().filter(|&(_, end)| end <= now) {
            self.start_head(start)?;
            self.complete_head(end)?;
            if let Some(l) = self.load.as_mut() {
                l.gpu_idle_at = end;
            }
            self.consume_ready_presents()?;
        }
        self.advance_to(now);
        Ok(())
    }

    /// Consumes the waits of the presents at the head of the engine's queue whose semaphore
    /// signalled.
    fn consume_ready_presents(&mut self) -> Check {
        loop {
            let before = self.presents.len();
            self.consume_head_present()?;
            if self.presents.len() == before {
                return Ok(());
            }
        }
    }

    /// Load mode: the next moment after `now` at which something may change (a submission
    /// ends, the display reaches a refresh with a present queued); None: nothing will.
    pub fn next_event(&self, now: u64) -> Option<u64> {
        let gpu = self.head_times().map(|(_, end)| end.max(now + 1));
        let display = self.display.next_change(now);
        match (gpu, display) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}
