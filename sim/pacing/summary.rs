//! The figures a run is judged by: latency, frame rate and the steadiness of display
//! intervals, after a warm-up.

use super::FrameRecord;

/// The figures the benchmark reports for one run, measured after a warm-up second.
#[derive(Debug, Clone, Copy)]
pub struct Summary {
    pub latency_ms_p50: f64,
    pub latency_ms_p99: f64,
    pub fps: f64,
    pub interval_ms_stddev: f64,
    /// CPU frame start to the frame reaching the screen (shown frames only): with FIFO the
    /// latency a user sees, which `latency_ms_*` (to GPU end) leaves out.
    pub display_latency_ms_p50: f64,
}

pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// Summarizes frames whose CPU start lies in [from_ms, to_ms).
pub fn summarize(frames: &[FrameRecord], from_ms: f64, to_ms: f64) -> Summary {
    let window: Vec<&FrameRecord> = frames
        .iter()
        .filter(|f| f.cpu_start >= from_ms && f.cpu_start < to_ms)
        .collect();
    let mut lat: Vec<f64> = window.iter().map(|f| f.latency()).collect();
    lat.sort_by(f64::total_cmp);
    let shown: Vec<f64> = window.iter().filter_map(|f| f.display).collect();
    let mut to_display: Vec<f64> = window
        .iter()
        .filter_map(|f| f.display.map(|d| d - f.cpu_start))
        .collect();
    to_display.sort_by(f64::total_cmp);
    let intervals: Vec<f64> = shown.windows(2).map(|w| w[1] - w[0]).collect();
    let fps = if shown.len() > 1 {
        (shown.len() - 1) as f64 / ((shown[shown.len() - 1] - shown[0]) / 1e3)
    } else {
        0.0
    };
    let mean = intervals.iter().sum::<f64>() / intervals.len().max(1) as f64;
    let var =
        intervals.iter().map(|i| (i - mean).powi(2)).sum::<f64>() / intervals.len().max(1) as f64;
    Summary {
        latency_ms_p50: percentile(&lat, 50.0),
        latency_ms_p99: percentile(&lat, 99.0),
        fps,
        interval_ms_stddev: var.sqrt(),
        display_latency_ms_p50: percentile(&to_display, 50.0),
    }
}
