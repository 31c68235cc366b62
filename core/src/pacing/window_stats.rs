//! A fixed window of recent durations with order statistics, without allocation: robust
//! predictions (a median, a high percentile) that one outlier frame does not swing.

/// Samples kept: about half a second at 60 fps, so a load change is learned within a second.
pub const WINDOW: usize = 32;

/// The last `N` samples (32 unless said; at most 65,535), nanoseconds, kept as `u32`:
/// durations beyond about 4.29 s saturate, far beyond any frame time a prediction is made from.
#[derive(Debug, Clone)]
pub struct WindowStats<const N: usize = WINDOW> {
    next: u16,
    len: u16,
    samples: [u32; N],
}

impl<const N: usize> Default for WindowStats<N> {
    fn default() -> Self {
        Self {
            next: 0,
            len: 0,
            samples: [0; N],
        }
    }
}

impl<const N: usize> WindowStats<N> {
    /// Adds a sample, replacing the oldest once full.
    pub fn push(&mut self, value: u64) {
        let next = usize::from(self.next) % N;
        if let Some(slot) = self.samples.get_mut(next) {
            *slot = u32::try_from(value).unwrap_or(u32::MAX);
        }
        // Both stay below N (at most 65,535), so the casts are lossless.
        self.next = ((next + 1) % N) as u16;
        self.len = (usize::from(self.len) + 1).min(N) as u16;
    }

    /// Samples held.
    #[must_use]
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.len = 0;
        self.next = 0;
    }

    /// The nearest-rank percentile `p` (0..=100) of the held samples, None when empty.
    #[must_use]
    pub fn percentile(&self, p: u32) -> Option<u64> {
        let len = self.len();
        if len == 0 {
            return None;
        }
        let mut sorted = [0u32; N];
        let held = &mut sorted[..len];
        held.copy_from_slice(&self.samples[..len]);
        held.sort_unstable();
        let rank = (p.min(100) as usize * len).div_ceil(100).max(1);
        held.get(rank - 1).copied().map(u64::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_known_window() {
        let mut w: WindowStats = WindowStats::default();
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
    fn samples_beyond_u32_nanoseconds_saturate() {
        let mut w: WindowStats = WindowStats::default();
        w.push(10_000_000_000); // 10 s
        w.push(3);
        assert_eq!(w.percentile(100), Some(u64::from(u32::MAX)));
        assert_eq!(w.percentile(0), Some(3));
        assert_eq!(w.len(), 2);
    }

    #[test]
    fn old_samples_leave_the_window() {
        let mut w: WindowStats = WindowStats::default();
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
