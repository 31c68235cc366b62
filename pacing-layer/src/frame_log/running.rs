//! Running statistics of intervals in bounded memory: mean and standard deviation by Welford's
//! update, the 99th percentile from a fixed histogram. A run of hours keeps the same few
//! kilobytes as a run of seconds (the summary used to keep every interval of the run).
//!
//! Precision: the mean, standard deviation and largest interval are exact (to `f64`); the
//! 99th percentile is the upper edge of its [`BIN_MS`] bin, never more than the largest
//! interval, so it is at most 0.1 ms above the true one. Intervals past the histogram
//! ([`BINS`] × [`BIN_MS`] = 500 ms) count in its last bin, whose edge is the largest interval.

/// The histogram's bin width, ms.
pub const BIN_MS: f64 = 0.1;
/// Bins: up to 500 ms.
pub const BINS: usize = 5000;

/// Mean, standard deviation and 99th percentile of what was added.
pub struct Running {
    n: u64,
    mean: f64,
    /// Sum of squared differences from the mean (Welford).
    m2: f64,
    max: f64,
    bins: Box<[u32]>,
}

/// What [`Running::spread`] gives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub mean: f64,
    pub sd: f64,
    pub p99: f64,
}

impl Running {
    /// Nothing added yet (the histogram is allocated here, once).
    pub fn new() -> Self {
        Self {
            n: 0,
            mean: 0.0,
            m2: 0.0,
            max: 0.0,
            bins: vec![0; BINS].into_boxed_slice(),
        }
    }

    /// Adds one interval, ms (no allocation).
    pub fn add(&mut self, ms: f64) {
        self.n += 1;
        let d = ms - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (ms - self.mean);
        self.max = self.max.max(ms);
        let bin = ((ms.max(0.0) / BIN_MS) as usize).min(BINS - 1);
        if let Some(b) = self.bins.get_mut(bin) {
            *b = b.saturating_add(1);
        }
    }

    /// The spread of what was added; None before anything was.
    pub fn spread(&self) -> Option<Spread> {
        if self.n == 0 {
            return None;
        }
        // The smallest interval with at least 99% of them at or below it.
        let wanted = (self.n as f64 * 0.99).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        let mut p99 = self.max;
        for (k, &count) in self.bins.iter().enumerate() {
            seen += u64::from(count);
            if seen >= wanted {
                // The last bin holds everything past the histogram: its edge is the largest.
                if k + 1 < BINS {
                    p99 = ((k + 1) as f64 * BIN_MS).min(self.max);
                }
                break;
            }
        }
        Some(Spread {
            mean: self.mean,
            sd: (self.m2 / self.n as f64).sqrt(),
            p99,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_sd_exact_and_p99_within_a_bin() {
        let mut r = Running::new();
        assert_eq!(r.spread(), None);
        for ms in [33.0, 33.0, 33.0, 51.0] {
            r.add(ms);
        }
        let s = r.spread().unwrap_or(Spread {
            mean: 0.0,
            sd: 0.0,
            p99: 0.0,
        });
        assert!(
            (s.mean - 37.5).abs() < 1e-9 && (s.sd - 7.794).abs() < 1e-3,
            "{s:?}"
        );
        assert_eq!(s.p99, 51.0, "the largest: never past it");
        // 1000 intervals of 16.67 ms and 5 of 40: the p99 is 16.67's bin's edge.
        let mut r = Running::new();
        (0..1000).for_each(|_| r.add(16.67));
        (0..5).for_each(|_| r.add(40.0));
        let p99 = r.spread().map_or(0.0, |s| s.p99);
        assert!((16.67..=16.67 + BIN_MS).contains(&p99), "{p99}");
        // Past the histogram: the largest.
        let mut r = Running::new();
        r.add(900.0);
        assert_eq!(r.spread().map(|s| s.p99), Some(900.0));
    }
}
