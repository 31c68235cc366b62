//! When a frame started now will most likely be on screen: the moving pattern is placed by that
//! time rather than by the CPU clock, so evenly paced frames move it by even steps and uneven
//! pacing shows as visible stutter.
//!
//! The estimate: frame start + the smoothed time from a frame's start to its present returning
//! (how long the frame takes to reach the presentation engine) + half a smoothed frame interval
//! (the average wait for the next refresh). Smoothing is exponential with a short memory so the
//! estimate follows load changes within a few dozen frames.

/// Weight of the newest sample.
const ALPHA: f64 = 0.1;

/// Smoothed latency and interval, in seconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct DisplayTimeEstimate {
    latency_s: Option<f64>,
    interval_s: Option<f64>,
}

fn smooth(old: Option<f64>, new: f64) -> Option<f64> {
    Some(old.map_or(new, |o| o + ALPHA * (new - o)))
}

impl DisplayTimeEstimate {
    /// Feeds one finished frame: start-to-present-return and the interval since the previous
    /// frame start (None for the first frame).
    pub fn observe(&mut self, latency_s: f64, interval_s: Option<f64>) {
        self.latency_s = smooth(self.latency_s, latency_s);
        if let Some(i) = interval_s {
            self.interval_s = smooth(self.interval_s, i);
        }
    }

    /// Expected display time of a frame starting at `start_s` (same clock).
    pub fn display_time(&self, start_s: f64) -> f64 {
        start_s + self.latency_s.unwrap_or(0.0) + 0.5 * self.interval_s.unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steady_frames_give_evenly_spaced_display_times() {
        let mut e = DisplayTimeEstimate::default();
        assert_eq!(e.display_time(1.0), 1.0);
        for _ in 0..200 {
            e.observe(0.030, Some(0.016));
        }
        let d0 = e.display_time(10.0);
        let d1 = e.display_time(10.016);
        assert!((d0 - (10.0 + 0.030 + 0.008)).abs() < 1e-9, "{d0}");
        assert!((d1 - d0 - 0.016).abs() < 1e-9);
    }

    #[test]
    fn follows_a_load_change() {
        let mut e = DisplayTimeEstimate::default();
        for _ in 0..100 {
            e.observe(0.010, Some(0.010));
        }
        for _ in 0..60 {
            e.observe(0.050, Some(0.010));
        }
        let lead = e.display_time(0.0) - 0.005;
        assert!((lead - 0.050).abs() < 0.001, "{lead}");
    }
}
