//! The machine's own timer floor, measured in the same run as the limiter: the very wait the
//! limiter uses ([`vkpace::vk::sleep_until`]) on a 60 Hz deadline grid, with no Vulkan and no
//! pacing code. Whatever jitter this shows (the OS or hypervisor descheduling the thread) the
//! limiter cannot do better than.

use std::time::{Duration, Instant};

use crate::real_driver::Intervals;
use crate::sim::percentile;

/// `frames` intervals of the grid; the statistics the demo reports for its limited run.
pub fn run(frames: u64, fps: f64) -> Intervals {
    let period = Duration::from_secs_f64(1.0 / fps);
    let start = Instant::now() + period;
    let mut last = None;
    let mut intervals = Vec::with_capacity(frames as usize);
    for k in 0..=frames {
        let deadline = start + period.mul_f64(k as f64);
        vkpace::vk::sleep_until(deadline);
        let now = Instant::now();
        if let Some(prev) = last {
            intervals.push(now.duration_since(prev).as_secs_f64() * 1e3);
        }
        last = Some(now);
    }
    let n = intervals.len().max(1) as f64;
    let mean = intervals.iter().sum::<f64>() / n;
    let sd = (intervals.iter().map(|i| (i - mean).powi(2)).sum::<f64>() / n).sqrt();
    let mut sorted = intervals.clone();
    sorted.sort_by(f64::total_cmp);
    Intervals {
        mean,
        stddev: sd,
        p99: percentile(&sorted, 99.0),
        fps: 1e3 / mean,
    }
}
