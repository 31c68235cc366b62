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
    /// The display's fixed refresh, ms; `None` where it has no fixed grid.
    pub refresh_ms: Option<f64>,
    /// Why there is no fixed grid (`None` where there is one, or present timing is not in use).
    pub no_grid: Option<String>,
    /// Complete timing results read.
    pub results: u64,
    /// Of those, results whose stage times were in a time domain vkpace cannot map.
    pub unmapped_results: u64,
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
            refresh_ms: in_use.and_then(|u| match u.refresh {
                vkpace::RefreshCycle::Fixed { duration_ns } => Some(duration_ns as f64 / 1e6),
                _ => None,
            }),
            no_grid: in_use.and_then(no_grid_reason),
            results: stats.present_timing_results,
            unmapped_results: stats.timing_results_unmapped,
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
            "{{\"targets\": \"{}\", \"path\": \"{}\", \"swap_interval\": {}, \"refresh_ms\": {}, \
             \"no_grid\": {}, \"results\": {}, \"unmapped_results\": {}, \"queue_full\": {}, \"refreshes_missed\": {}, \"frames_shown\": {}, \
             \"frames_targeted\": {}, \"display_latency_ms\": {{\"p50\": {:.4}, \"p99\": {:.4}}}, \
             \"target_error_ms\": {{\"p50\": {:.4}, \"p99\": {:.4}}}}}",
            self.targets,
            self.path,
            self.swap_interval,
            self.refresh_ms
                .map_or_else(|| "null".to_string(), |r| format!("{r:.4}")),
            self.no_grid
                .as_ref()
                .map_or_else(|| "null".to_string(), |r| format!("\"{r}\"")),
            self.results,
            self.unmapped_results,
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

/// Why a swapchain's refresh is no fixed grid, from what it reported; `None` for a fixed one.
fn no_grid_reason(u: vkpace::PresentTimingInUse) -> Option<String> {
    let reported = u.refresh_reported.map_or_else(
        || "not reported yet".to_string(),
        |(d, i)| {
            format!(
                "refreshDuration {} ns, refreshInterval {} ns",
                shown_u64(d),
                shown_u64(i)
            )
        },
    );
    match u.refresh {
        vkpace::RefreshCycle::Fixed { .. } => None,
        vkpace::RefreshCycle::Variable { min_duration_ns } => Some(format!(
            "variable refresh, shortest cycle {:.4} ms: the CPU limiter paces",
            min_duration_ns as f64 / 1e6
        )),
        vkpace::RefreshCycle::Unknown => Some(format!(
            "no usable refresh ({reported}): the CPU limiter paces"
        )),
    }
}

/// `UINT64_MAX` by name.
fn shown_u64(v: u64) -> String {
    if v == u64::MAX {
        "UINT64_MAX".to_string()
    } else {
        v.to_string()
    }
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
