//! A fixed window of recent durations with order statistics, without allocation: robust
//! predictions (a median, a high percentile) that one outlier frame does not swing.

/// Samples kept: about half a second at 60 fps, so a load change is learned within a second.
pub const WINDOW: usize = 32;

/// The last [`WINDOW`] samples (nanoseconds).
#[derive(Debug, Clone)]
pub struct WindowStats {
    samples: [u64; WINDOW],
    next: usize,
    len: usize,
}

impl Default for WindowStats {
    fn default() -> Self {
        Self {
            samples: [0; WINDOW],
            next: 0,
            len: 0,
        }
    }
}

impl WindowStats {
    /// Adds a sample, replacing the oldest once full.
    pub fn push(&mut self, value: u64) {
        self.samples[self.next] = value;
        self.next = (self.next + 1) % WINDOW;
        self.len = (self.len + 1).min(WINDOW);
    }

    /// Samples held.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no sample was pushed yet.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.len = 0;
        self.next = 0;
    }

    /// The nearest-rank percentile `p` (0..=100) of the held samples, None when empty.
    #[must_use]
    pub fn percentile(&self, p: u32) -> Option<u64> {
        if self.len == 0 {
            return None;
        }
        let mut sorted = [0u64; WINDOW];
        let held = &mut sorted[..self.len];
        held.copy_from_slice(&self.samples[..self.len]);
        held.sort_unstable();
        let rank = (p.min(100) as usize * self.len).div_ceil(100).max(1);
        held.get(rank - 1).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_known_window() {
        let mut w = WindowStats::default();
        assert_eq!(w.percentile(50), None);
        for v in 1..=10u64 {
            w.push(v);
        }
        assert_eq!(w.percentile(50), Some(5));
        assert_eq!(w.percentile(90), Some(9));
        assert_eq!(w.percentile(100), Some(10));
        assert_eq!(w.percentile(0), Some(1));
    }

    #[test]
    fn old_samples_leave_the_window() {
        let mut w = WindowStats::default();
        for _ in 0..WINDOW {
            w.push(1_000);
        }
        for _ in 0..WINDOW {
            w.push(5);
        }
        assert_eq!(w.percentile(100), Some(5));
        assert_eq!(w.len(), WINDOW);
    }
}
