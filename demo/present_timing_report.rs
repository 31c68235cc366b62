//! The report's present timing section: which path paced the frames, and what the
//! presentation engine said of them (`VK_EXT_present_timing`), from vkpace's telemetry of the
//! last frames.

use vkpace::DisplayPath;
use vkpace::Swapchain;

use crate::report::Percentiles;

/// Present timing figures of one run.
#[derive(Debug, Clone, Default)]
pub struct PresentTimingReport {
    /// "relative" or "absolute" targets, "stages-only" (the surface takes no targets), or
    /// "none" (not in use: the CPU limiter paces).
    pub targets: &'static str,
    /// "refresh-grid" (target times every `swap_interval` refreshes) or "cpu".
    pub path: &'static str,
    /// Refreshes per frame on the grid (0 on the CPU path).
    pub swap_interval: u32,
    /// The display's refresh, ms (0 when unknown).
    pub refresh_ms: f64,
    /// Complete timing results read.
    pub results: u64,
    /// Presents refused with a full results queue.
    pub queue_full: u64,
    /// Frames shown later than the refresh they were meant for.
    pub refreshes_missed: u64,
    /// Of the last frames, those with a first-pixel time, and those also with a target.
    pub frames_shown: usize,
    pub frames_targeted: usize,
    /// CPU frame start to first pixel visible.
    pub display_latency_ms: Percentiles,
    /// First pixel visible minus the target (how far from its refresh a frame was shown).
    pub target_error_ms: Percentiles,
}

impl PresentTimingReport {
    /// The figures of `sc` now (before it is destroyed).
    pub fn of(sc: &Swapchain) -> Self {
        let stats = sc.stats();
        let in_use = sc.info().present_timing;
        let (path, swap_interval) = match sc.info().display_path {
            DisplayPath::RefreshGrid { interval } => ("refresh-grid", interval),
            _ => ("cpu", 0),
        };
        let mut latency = Vec::new();
        let mut error = Vec::new();
        for t in sc.telemetry() {
            let Some(shown) = t.displayed.filter(|_| in_use.is_some()) else {
                continue;
            };
            latency.push(ms(shown.saturating_sub(t.cpu_start)));
            if let Some(target) = t.target {
                error.push(ms(shown.saturating_sub(target)) - ms(target.saturating_sub(shown)));
            }
        }
        Self {
            targets: match in_use {
                None => "none",
                Some(u) if !u.targets => "stages-only",
                Some(u) if u.relative_targets => "relative",
                Some(_) => "absolute",
            },
            path,
            swap_interval,
            refresh_ms: in_use.map_or(0.0, |u| match u.refresh {
                vkpace::RefreshCycle::Fixed { duration_ns } => duration_ns as f64 / 1e6,
                _ => 0.0,
            }),
            results: stats.present_timing_results,
            queue_full: stats.timing_queue_full,
            refreshes_missed: stats.refreshes_missed,
            frames_shown: latency.len(),
            frames_targeted: error.len(),
            display_latency_ms: Percentiles::of(&latency),
            target_error_ms: Percentiles::of(&error),
        }
    }

    /// The JSON object.
    pub fn to_json(&self) -> String {
        format!(
            "{{\"targets\": \"{}\", \"path\": \"{}\", \"swap_interval\": {}, \"refresh_ms\": {:.4}, \
             \"results\": {}, \"queue_full\": {}, \"refreshes_missed\": {}, \"frames_shown\": {}, \
             \"frames_targeted\": {}, \"display_latency_ms\": {{\"p50\": {:.4}, \"p99\": {:.4}}}, \
             \"target_error_ms\": {{\"p50\": {:.4}, \"p99\": {:.4}}}}}",
            self.targets,
            self.path,
            self.swap_interval,
            self.refresh_ms,
            self.results,
            self.queue_full,
            self.refreshes_missed,
            self.frames_shown,
            self.frames_targeted,
            self.display_latency_ms.p50,
            self.display_latency_ms.p99,
            self.target_error_ms.p50,
            self.target_error_ms.p99,
        )
    }
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
