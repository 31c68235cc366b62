//! The figures of one run of an unmodified application over the virtual display, from the
//! display's own log (the neutral clock every contender is judged by): how evenly frames were
//! shown, how many intervals left the cap's grid, and how old a frame was when it was shown,
//! split where the frame became ready.
//!
//! The split: *start* is `acquired_ns`, when vdisplay's acquire of the image returned (to the
//! layer above it; the frame's start as far as the display can tell); *ready* is `ready_ns`,
//! when the frame's rendering was complete as vdisplay saw it (after the present reached
//! vdisplay; with `gpu_ms`, the modelled time); *shown* is `shown_ns`. Start to ready is the
//! frame itself, CPU and GPU, plus any wait a limiter puts between the acquire and the present
//! reaching vdisplay (MangoHud's `early` sleeps there, in its present before calling down);
//! ready to shown is the wait for the display: the queue and the refresh grid, and a limiter's
//! display target.

use anyhow::{ensure, Result};
use vkpace_demo::virtual_display::LoggedPresent;

use crate::pacing_vdisplay::{pct, sorted};

/// Presents left out at the start (the application's and the limiters' warm-up) and at the
/// end (the exit may tear the last ones down unseen).
pub const WARMUP: usize = 30;
pub const TAIL: usize = 3;

/// One run's figures over the presents after the warm-up and before the tail.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct LayerRun {
    /// Shown intervals measured.
    pub intervals: f64,
    /// Their standard deviation, ms.
    pub interval_sd_ms: f64,
    /// Their 99th percentile, ms.
    pub interval_p99_ms: f64,
    /// Intervals that were not the wanted number of refreshes, per 1000 intervals.
    pub off_grid_per_1000: f64,
    /// Acquire of the image to its frame shown, ms: median and 99th percentile.
    pub latency_p50_ms: f64,
    pub latency_p99_ms: f64,
    /// Shown frames per second.
    pub fps: f64,
    /// Acquire of the image to its frame ready (the frame's own time), ms: median and p99.
    pub frame_p50_ms: f64,
    pub frame_p99_ms: f64,
    /// Frame ready to shown (the wait for the display), ms: median and p99.
    pub wait_p50_ms: f64,
    pub wait_p99_ms: f64,
}

/// How many figures a run has.
const N: usize = 11;

impl LayerRun {
    /// Field names, in [`LayerRun::values`] order (the JSON's keys).
    pub const FIELDS: [&'static str; N] = [
        "intervals",
        "interval_sd_ms",
        "interval_p99_ms",
        "off_grid_per_1000",
        "latency_p50_ms",
        "latency_p99_ms",
        "fps",
        "start_to_ready_p50_ms",
        "start_to_ready_p99_ms",
        "ready_to_shown_p50_ms",
        "ready_to_shown_p99_ms",
    ];

    pub fn values(&self) -> [f64; N] {
        [
            self.intervals,
            self.interval_sd_ms,
            self.interval_p99_ms,
            self.off_grid_per_1000,
            self.latency_p50_ms,
            self.latency_p99_ms,
            self.fps,
            self.frame_p50_ms,
            self.frame_p99_ms,
            self.wait_p50_ms,
            self.wait_p99_ms,
        ]
    }

    fn from_values(v: [f64; N]) -> Self {
        Self {
            intervals: v[0],
            interval_sd_ms: v[1],
            interval_p99_ms: v[2],
            off_grid_per_1000: v[3],
            latency_p50_ms: v[4],
            latency_p99_ms: v[5],
            fps: v[6],
            frame_p50_ms: v[7],
            frame_p99_ms: v[8],
            wait_p50_ms: v[9],
            wait_p99_ms: v[10],
        }
    }

    /// Field by field medians of `runs`.
    pub fn median_of(runs: &[LayerRun]) -> Self {
        let mut out = [0.0; N];
        for (i, o) in out.iter_mut().enumerate() {
            *o =
                crate::real_driver::median(&runs.iter().map(|r| r.values()[i]).collect::<Vec<_>>());
        }
        Self::from_values(out)
    }

    /// The run as a JSON object.
    pub fn json(&self) -> String {
        let fields: Vec<String> = Self::FIELDS
            .iter()
            .zip(self.values())
            .map(|(k, v)| format!("\"{k}\": {v:.4}"))
            .collect();
        format!("{{{}}}", fields.join(", "))
    }
}

/// The figures of `log` (one swapchain's presents, in order) where each frame should stay up
/// `wanted` refreshes of `refresh_ns`. Intervals are counted in whole refreshes (the display
/// shows frames on its grid).
pub fn figures(log: &[LoggedPresent], wanted: u64, refresh_ns: u64) -> Result<LayerRun> {
    ensure!(
        log.len() > WARMUP + TAIL + 2,
        "{} presents logged: too few to judge",
        log.len()
    );
    let judged = &log[WARMUP..log.len() - TAIL];
    let shown: Vec<&LoggedPresent> = judged.iter().filter(|p| p.shown_ns.is_some()).collect();
    let at = |p: &LoggedPresent| p.shown_ns.unwrap_or(0);
    let intervals: Vec<u64> = shown
        .windows(2)
        .map(|w| at(w[1]).saturating_sub(at(w[0])))
        .collect();
    ensure!(intervals.len() >= 2, "fewer than 2 shown intervals");
    let off = intervals
        .iter()
        .filter(|&&i| (i + refresh_ns / 2) / refresh_ns != wanted)
        .count();
    let ms: Vec<f64> = intervals.iter().map(|&i| i as f64 / 1e6).collect();
    let mean = ms.iter().sum::<f64>() / ms.len() as f64;
    let sd = (ms.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / ms.len() as f64).sqrt();
    let latency = sorted(spans(&shown, |p| p.acquired_ns, |p| p.shown_ns));
    let frame = sorted(spans(&shown, |p| p.acquired_ns, |p| p.ready_ns));
    let wait = sorted(spans(&shown, |p| p.ready_ns, |p| p.shown_ns));
    ensure!(
        latency.len() * 2 >= shown.len() && frame.len() * 2 >= shown.len(),
        "the log has no acquire or ready time for most presents (a vdisplay older than \
         acquired_ns?)"
    );
    ensure!(!wait.is_empty(), "no shown present has a ready time");
    let ms = sorted(ms);
    let span_s = (at(shown[shown.len() - 1]) - at(shown[0])) as f64 / 1e9;
    Ok(LayerRun {
        intervals: intervals.len() as f64,
        interval_sd_ms: sd,
        interval_p99_ms: pct(&ms, 99.0),
        off_grid_per_1000: off as f64 * 1000.0 / intervals.len() as f64,
        latency_p50_ms: pct(&latency, 50.0),
        latency_p99_ms: pct(&latency, 99.0),
        fps: (shown.len() - 1) as f64 / span_s,
        frame_p50_ms: pct(&frame, 50.0),
        frame_p99_ms: pct(&frame, 99.0),
        wait_p50_ms: pct(&wait, 50.0),
        wait_p99_ms: pct(&wait, 99.0),
    })
}

/// `to - from` of each present that has both times, in ms.
fn spans(
    presents: &[&LoggedPresent],
    from: impl Fn(&LoggedPresent) -> Option<u64>,
    to: impl Fn(&LoggedPresent) -> Option<u64>,
) -> Vec<f64> {
    presents
        .iter()
        .filter_map(|p| Some(to(p)?.checked_sub(from(p)?)? as f64 / 1e6))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: u64 = 16_666_667;

    fn present(seq: u64, acquired_ns: u64, shown_ns: u64) -> LoggedPresent {
        LoggedPresent {
            swapchain: 1,
            seq,
            present_id: 0,
            image: seq % 4,
            acquired_ns: Some(acquired_ns),
            queued_ns: acquired_ns + 1_000_000,
            target_ns: None,
            relative_ns: None,
            ready_ns: Some(acquired_ns + 2_000_000),
            shown_ns: Some(shown_ns),
        }
    }

    /// 30 fps on 60 Hz, each frame shown 10 ms after its acquire, one frame a refresh late:
    /// its interval and the next are off the grid (3 then 1 refreshes).
    #[test]
    fn intervals_off_the_grid_and_latency_are_counted() -> Result<()> {
        let n = 200u64;
        let log: Vec<LoggedPresent> = (0..n)
            .map(|i| {
                let late = u64::from(i == 100) * R;
                let shown = 2 * i * R + late;
                present(i + 1, shown - 10_000_000 - late, shown)
            })
            .collect();
        let f = figures(&log, 2, R)?;
        let judged = (n as usize - WARMUP - TAIL - 1) as f64;
        assert_eq!(f.intervals, judged);
        assert!(
            (f.off_grid_per_1000 - 2000.0 / judged).abs() < 1e-9,
            "{f:?}"
        );
        assert!((f.latency_p50_ms - 10.0).abs() < 1e-3, "{f:?}");
        assert!((f.latency_p99_ms - 10.0).abs() < 1e-3, "{f:?}");
        // Ready 2 ms after the acquire: 2 ms of frame, 8 ms of waiting for the display.
        assert!((f.frame_p50_ms - 2.0).abs() < 1e-3, "{f:?}");
        assert!((f.wait_p50_ms - 8.0).abs() < 1e-3, "{f:?}");
        assert!((f.frame_p50_ms + f.wait_p50_ms - f.latency_p50_ms).abs() < 1e-3);
        assert!(f.interval_sd_ms > 0.0 && f.interval_p99_ms > 33.0, "{f:?}");
        assert!((f.fps - 30.0).abs() < 0.01, "{f:?}");
        Ok(())
    }

    #[test]
    fn every_interval_on_the_grid_has_no_spread() -> Result<()> {
        let log: Vec<LoggedPresent> = (0..100u64)
            .map(|i| present(i + 1, 2 * i * R, 2 * i * R + R))
            .collect();
        let f = figures(&log, 2, R)?;
        assert_eq!(f.off_grid_per_1000, 0.0);
        assert!(f.interval_sd_ms < 1e-6, "{f:?}");
        // The same log judged against one refresh per frame: every interval is off.
        assert_eq!(figures(&log, 1, R)?.off_grid_per_1000, 1000.0);
        Ok(())
    }
}
