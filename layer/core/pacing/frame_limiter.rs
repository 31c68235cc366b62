//! A frame-rate limit on a fixed deadline grid: deadline k+1 = deadline k + period, never
//! "now + period", so rounding and wake-up lateness do not accumulate into drift. A frame that
//! starts more than one period late re-anchors the grid instead of bursting to catch up.

use crate::core::CoreError;

/// A frame rate limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameLimit {
    period_ns: u64,
}

impl FrameLimit {
    /// A limit of `fps` frames per second (1 to 10,000).
    ///
    /// ```
    /// use vkpace::core::FrameLimit;
    /// let limit = FrameLimit::fps(60.0)?;
    /// assert_eq!(limit.period_ns(), 16_666_667);
    /// assert!(FrameLimit::fps(0.0).is_err());
    /// # Ok::<(), vkpace::core::CoreError>(())
    /// ```
    pub fn fps(fps: f64) -> Result<Self, CoreError> {
        if !(1.0..=10_000.0).contains(&fps) {
            return Err(CoreError::InvalidFrameLimit(format!("{fps}")));
        }
        Ok(Self {
            period_ns: (1e9 / fps).round() as u64,
        })
    }

    /// The frame period in nanoseconds.
    #[must_use]
    pub fn period_ns(&self) -> u64 {
        self.period_ns
    }
}

/// The limiter's deadline grid.
#[derive(Debug, Clone)]
pub struct FrameLimiter {
    limit: FrameLimit,
    next: Option<u64>,
}

impl FrameLimiter {
    /// A limiter with no deadline yet (the first frame starts at once).
    #[must_use]
    pub fn new(limit: FrameLimit) -> Self {
        Self { limit, next: None }
    }

    /// The limit it keeps.
    #[must_use]
    pub fn limit(&self) -> FrameLimit {
        self.limit
    }

    /// The earliest start of the next frame.
    #[must_use]
    pub fn deadline(&self) -> Option<u64> {
        self.next
    }

    /// A frame began at `now`: the next deadline is one period after this frame's slot.
    pub fn frame_started(&mut self, now: u64) {
        let period = self.limit.period_ns;
        let slot = match self.next {
            Some(d) if now <= d.saturating_add(period) => d,
            _ => now,
        };
        self.next = Some(slot.saturating_add(period));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadlines_stay_on_the_grid_despite_late_wakeups() {
        let limit = FrameLimit::fps(100.0).unwrap();
        let mut l = FrameLimiter::new(limit);
        assert_eq!(l.deadline(), None);
        l.frame_started(1_000);
        for k in 1..1000u64 {
            let d = l.deadline().unwrap();
            assert_eq!(d, 1_000 + k * 10_000_000);
            // Wake up a little late every time: no drift.
            l.frame_started(d + 150_000);
        }
    }

    #[test]
    fn a_long_stall_reanchors_instead_of_bursting() {
        let mut l = FrameLimiter::new(FrameLimit::fps(100.0).unwrap());
        l.frame_started(0);
        l.frame_started(95_000_000);
        assert_eq!(l.deadline(), Some(105_000_000));
    }

    #[test]
    fn bad_rates_are_refused() {
        for bad in [0.0, -5.0, f64::NAN, f64::INFINITY, 20_000.0] {
            assert!(FrameLimit::fps(bad).is_err(), "{bad}");
        }
    }
}
