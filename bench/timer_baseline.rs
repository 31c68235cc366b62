//! The machine's own timer floor, measured in the same run as the limiter: the limiter's own
//! deadline grid (`vkpace_core::FrameLimiter`) and the very wait the shell uses
//! (`vkpace::sleep_until`) at 60 Hz, with no Vulkan and no other pacing code. Whatever
//! jitter this shows (the OS or hypervisor descheduling the thread) the limiter cannot do
//! better than.
//!
//! It also records how late each frame started past its deadline and replays those same
//! stalls on a plain grid that catches up at once (the limiter before its gradual catch-up):
//! the two figures differ only in how the stalls were paid back.

use std::time::{Duration, Instant};

use vkpace_core::{FrameLimit, FrameLimiter};

use crate::real_driver::Intervals;
use crate::sim::percentile;

/// One run of the floor: the limiter as run, and its stalls replayed on a plain grid.
#[derive(Debug, Clone, Copy)]
pub struct Floor {
    pub limiter: Intervals,
    pub plain_grid: Intervals,
}

/// `frames` intervals of the limiter's grid, and the same run replayed on a plain grid.
pub fn run(frames: u64, fps: f64) -> anyhow::Result<Floor> {
    let limit = FrameLimit::fps(fps)?;
    let mut limiter = FrameLimiter::new(limit);
    let epoch = Instant::now();
    let nanos = |t: Instant| u64::try_from(t.duration_since(epoch).as_nanos()).unwrap_or(u64::MAX);
    let mut starts = Vec::with_capacity(frames as usize + 1);
    let mut lateness = Vec::with_capacity(frames as usize + 1);
    for _ in 0..=frames {
        let deadline = limiter.deadline();
        if let Some(d) = deadline {
            vkpace::sleep_until(epoch + Duration::from_nanos(d));
        }
        let now = nanos(Instant::now());
        lateness.push(deadline.map_or(0, |d| now.saturating_sub(d)));
        starts.push(now);
        limiter.frame_started(now);
    }
    let first = starts.first().copied().unwrap_or(0);
    Ok(Floor {
        limiter: intervals(&starts),
        plain_grid: intervals(&plain_grid(first, &lateness, limit.period_ns())),
    })
}

/// Frame starts on a grid that catches up at once: each frame starts its lateness after
/// its slot, the next slot is one period later (re-anchored only past one period late).
pub fn plain_grid(first: u64, lateness: &[u64], period: u64) -> Vec<u64> {
    let mut next: Option<u64> = None;
    let mut starts = Vec::with_capacity(lateness.len());
    for &late in lateness {
        let now = next.map_or(first, |d| d + late);
        starts.push(now);
        let slot = match next {
            Some(d) if now <= d + period => d,
            _ => now,
        };
        next = Some(slot + period);
    }
    starts
}

/// The statistics the demo reports, of the intervals between `starts` (ns).
fn intervals(starts: &[u64]) -> Intervals {
    let ms: Vec<f64> = starts
        .windows(2)
        .map(|w| (w[1] - w[0]) as f64 / 1e6)
        .collect();
    let n = ms.len().max(1) as f64;
    let mean = ms.iter().sum::<f64>() / n;
    let sd = (ms.iter().map(|i| (i - mean).powi(2)).sum::<f64>() / n).sqrt();
    let mut sorted = ms.clone();
    sorted.sort_by(f64::total_cmp);
    Intervals {
        mean,
        stddev: sd,
        p99: percentile(&sorted, 99.0),
        fps: 1e3 / mean,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stall_costs_the_plain_grid_twice_and_the_limiter_about_once() {
        let period = 16_666_667;
        let mut late = vec![0u64; 601];
        late[100] = 2_000_000;
        let grid = plain_grid(0, &late, period);
        // The plain grid follows the long interval with an equally short one.
        assert_eq!(grid[100] - grid[99], period + 2_000_000);
        assert_eq!(grid[101] - grid[100], period - 2_000_000);
        let mut limiter = FrameLimiter::new(FrameLimit::fps(60.0).unwrap());
        let mut starts = Vec::new();
        for &l in &late {
            let now = limiter.deadline().map_or(0, |d| d + l);
            starts.push(now);
            limiter.frame_started(now);
        }
        let (g, l) = (intervals(&grid), intervals(&starts));
        assert!((g.mean - l.mean).abs() < 1e-6, "both drift-free");
        let ratio = (l.stddev / g.stddev).powi(2);
        assert!((0.5..0.6).contains(&ratio), "variance ratio {ratio}");
    }
}
