//! The run report: the JSON file of `--report` and the one-line summary.

use std::fmt::Write as _;

/// Percentiles of a sample in milliseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct Percentiles {
    pub p50: f64,
    pub p99: f64,
    pub max: f64,
}

impl Percentiles {
    /// Nearest-rank percentiles of `samples` (milliseconds). Empty gives zeros.
    pub fn of(samples: &[f64]) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let rank = |p: f64| s[((p * s.len() as f64).ceil() as usize).clamp(1, s.len()) - 1];
        Self {
            p50: rank(0.50),
            p99: rank(0.99),
            max: s[s.len() - 1],
        }
    }
}

/// Everything the report states.
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub frames: u64,
    pub validation_messages: u64,
    pub present_mode: String,
    pub frames_in_flight: usize,
    pub swapchain_images: u32,
    pub swapchains_created: u64,
    pub old_swapchains_max_pending: usize,
    pub semaphores_created: u64,
    pub semaphores_max_alive: usize,
    pub fences_created: u64,
    pub fences_max_alive: usize,
    pub frame_time_ms: Percentiles,
    pub cpu_wait_ms: Percentiles,
    pub allocations_per_frame_steady: f64,
    /// Of those, the ones made on the frame code's thread (the rest: other threads).
    pub frame_thread_allocations_per_frame_steady: f64,
    /// Of those, the ones the frame code made (the rest: the window system's event handling
    /// between frames).
    pub frame_code_allocations_per_frame_steady: f64,
    /// Of those, the ones made inside vkpace's acquire, submit and present.
    pub vkpace_allocations_per_frame_steady: f64,
    /// "maintenance1" or "legacy".
    pub path: String,
    pub present_mode_switches: u64,
    /// Not in the JSON; shown in the summary line.
    pub present_mode_recreations: u64,
    /// Not in the JSON (its fields are fixed); shown in the summary line.
    pub distinct_images_acquired: u32,
    /// Not in the JSON; shown in the summary line.
    pub fallback_waits: u64,
    /// Window only: time spent hidden (zero size, covered, minimized), nothing rendered.
    pub hidden_ms: f64,
    /// Window only: how many times the window became hidden.
    pub hidden_episodes: u64,
    /// "frames" or "low-latency".
    pub policy: String,
    pub fps_limit: Option<f64>,
    /// CPU frame start to the frame's GPU end (timestamp queries calibrated to the CPU clock),
    /// or to its fence seen signalled (an upper bound) where the device lacks
    /// VK_EXT_calibrated_timestamps; `latency_source` says which.
    pub latency_ms: Percentiles,
    /// "gpu-timestamps" or "fence-observed".
    pub latency_source: &'static str,
    /// GPU end minus GPU start per frame (zeros without timestamps).
    pub gpu_ms: Percentiles,
    /// Between consecutive CPU frame starts (after the pacing wait).
    pub interval_ms: IntervalStats,
    /// Frames per second over the run's frame starts.
    pub fps: f64,
    /// How vkpace learns when frames are shown: "present-wait2" where the device offers
    /// VK_KHR_present_id2/present_wait2 and the surface supports them, "present-wait" where it
    /// offers VK_KHR_present_wait, otherwise "none" (lavapipe).
    pub display_feedback: &'static str,
    /// Which names of swapchain maintenance1 are in use: "KHR", "EXT" or "none".
    pub maintenance1_names: &'static str,
    /// What backs vkpace's completion tokens: "timeline" or "fences".
    pub completion: &'static str,
    /// How frames were submitted: "batches+producer" (two batches of one vkQueueSubmit2, the
    /// first waiting for a producer thread's host timeline) or "single" (one vkQueueSubmit).
    pub submission: &'static str,
    /// "run" (its frames, the window closed, Esc) or "signal" (Ctrl-C, SIGTERM).
    pub ended_by: &'static str,
    /// Where the frames went: "x11", "wayland", "headless" or "virtual display".
    pub window_system: &'static str,
    /// Acquires that got no image within vkpace's bound (`Acquired::NotReady`) and skipped.
    pub not_ready_skips: u64,
    /// Images taken back from FIFO swapchains before their retirement (vkpace's drain).
    pub images_drained_before_retire: u64,
    /// Display times vkpace learnt exactly by waiting for a present in a pacing sleep.
    pub display_times_watched: u64,
    /// The display's interval for the frame limit as the limiter's grid followed it (ns; 0:
    /// it followed no display).
    pub anchored_period_ns: u64,
    /// Frames shown a refresh early or late that moved the limiter's grid.
    pub anchor_moves: u64,
    /// The renderer's framebuffer and depth sets made (one per swapchain generation drawn).
    pub render_target_sets_made: u64,
    /// Of those, the sets destroyed while running, once proven unused.
    pub render_target_sets_retired: u64,
    /// Present timing: the path and what the presentation engine reported.
    pub present_timing: crate::present_timing_report::PresentTimingReport,
}

/// Mean, standard deviation and 99th percentile of intervals (ms).
#[derive(Debug, Clone, Copy, Default)]
pub struct IntervalStats {
    pub mean: f64,
    pub stddev: f64,
    pub p99: f64,
}

impl IntervalStats {
    pub fn of(samples: &[f64]) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        let n = samples.len() as f64;
        let mean = samples.iter().sum::<f64>() / n;
        let var = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
        Self {
            mean,
            stddev: var.sqrt(),
            p99: Percentiles::of(samples).p99,
        }
    }
}

impl Report {
    /// The JSON document: the fields issue 2 fixes, then those later issues add.
    pub fn to_json(&self) -> String {
        let mut j = String::new();
        self.write_json_counts_and_times(&mut j);
        self.write_json_pacing_and_presentation(&mut j);
        j
    }

    /// The JSON's opening and its first fields: object counts, frame and wait times,
    /// allocations, path.
    fn write_json_counts_and_times(&self, j: &mut String) {
        let _ = write!(
            j,
            "{{\n  \"frames\": {},\n  \"validation_messages\": {},\n  \"present_mode\": \"{}\",\n  \
             \"frames_in_flight\": {},\n  \"swapchain_images\": {},\n  \"swapchains_created\": {},\n  \
             \"old_swapchains_max_pending\": {},\n  \"semaphores_created\": {},\n  \
             \"semaphores_max_alive\": {},\n  \"fences_created\": {},\n  \"fences_max_alive\": {},\n  \
             \"frame_time_ms\": {{\"p50\": {:.4}, \"p99\": {:.4}, \"max\": {:.4}}},\n  \
             \"cpu_wait_ms\": {{\"p50\": {:.4}, \"p99\": {:.4}}},\n  \
             \"allocations_per_frame_steady\": {:.4},\n  \"frame_thread_allocations_per_frame_steady\": {:.4},\n  \"frame_code_allocations_per_frame_steady\": {:.4},\n  \"vkpace_allocations_per_frame_steady\": {:.4},\n  \"path\": \"{}\",\n  ",
            self.frames,
            self.validation_messages,
            self.present_mode,
            self.frames_in_flight,
            self.swapchain_images,
            self.swapchains_created,
            self.old_swapchains_max_pending,
            self.semaphores_created,
            self.semaphores_max_alive,
            self.fences_created,
            self.fences_max_alive,
            self.frame_time_ms.p50,
            self.frame_time_ms.p99,
            self.frame_time_ms.max,
            self.cpu_wait_ms.p50,
            self.cpu_wait_ms.p99,
            self.allocations_per_frame_steady,
            self.frame_thread_allocations_per_frame_steady,
            self.frame_code_allocations_per_frame_steady,
            self.vkpace_allocations_per_frame_steady,
            self.path,
        );
    }

    /// The JSON's remaining fields (pacing, latency, intervals, presentation, present timing)
    /// and its close.
    fn write_json_pacing_and_presentation(&self, j: &mut String) {
        let _ = write!(
            j,
            "\"present_mode_switches\": {},\n  \"hidden_ms\": {:.1},\n  \"hidden_episodes\": {},\n  \
             \"policy\": \"{}\",\n  \"fps_limit\": {},\n  \
             \"latency_ms\": {{\"p50\": {:.4}, \"p99\": {:.4}}},\n  \
             \"interval_ms\": {{\"mean\": {:.4}, \"stddev\": {:.4}, \"p99\": {:.4}}},\n  \
             \"fps\": {:.3},\n  \"latency_source\": \"{}\",\n  \
             \"gpu_ms\": {{\"p50\": {:.4}, \"p99\": {:.4}}},\n  \"display_feedback\": \"{}\",\n  \"maintenance1_names\": \"{}\",\n  \
             \"completion\": \"{}\",\n  \"submission\": \"{}\",\n  \"ended_by\": \"{}\",\n  \
             \"window_system\": \"{}\",\n  \"not_ready_skips\": {},\n  \"images_drained_before_retire\": {},\n  \"display_times_watched\": {},\n  \
             \"anchored_period_ns\": {},\n  \"anchor_moves\": {},\n  \
             \"render_target_sets\": {{\"made\": {}, \"retired\": {}}},\n  \"present_timing\": {}\n}}\n",
            self.present_mode_switches,
            self.hidden_ms,
            self.hidden_episodes,
            self.policy,
            self.fps_limit.map_or("null".to_string(), |f| format!("{f}")),
            self.latency_ms.p50,
            self.latency_ms.p99,
            self.interval_ms.mean,
            self.interval_ms.stddev,
            self.interval_ms.p99,
            self.fps,
            self.latency_source,
            self.gpu_ms.p50,
            self.gpu_ms.p99,
            self.display_feedback,
            self.maintenance1_names,
            self.completion,
            self.submission,
            self.ended_by,
            self.window_system,
            self.not_ready_skips,
            self.images_drained_before_retire,
            self.display_times_watched,
            self.anchored_period_ns,
            self.anchor_moves,
            self.render_target_sets_made,
            self.render_target_sets_retired,
            self.present_timing.to_json(),
        );
    }

    /// The one-line summary printed at the end of every run.
    pub fn summary(&self) -> String {
        format!(
            "vkpace: {} frames on {}, {} path, {} present ({} switches, {} by recreation), {} in flight, {} images ({} distinct acquired), \
             {} swapchains (max {} retired pending, {} fallback waits), {} semaphores created \
             (max {} alive), {} fences (max {} alive), frame p50 {:.2} ms p99 {:.2} ms, \
             cpu wait p50 {:.2} ms, {:.2} allocations/frame, {} validation messages, policy {}{}, \
             interval mean {:.3} ms sd {:.3} ms p99 {:.3} ms, latency p50 {:.2} ms, \
             {} framebuffer sets ({} retired), ended by {}",
            self.frames,
            self.window_system,
            self.path,
            self.present_mode,
            self.present_mode_switches,
            self.present_mode_recreations,
            self.frames_in_flight,
            self.swapchain_images,
            self.distinct_images_acquired,
            self.swapchains_created,
            self.old_swapchains_max_pending,
            self.fallback_waits,
            self.semaphores_created,
            self.semaphores_max_alive,
            self.fences_created,
            self.fences_max_alive,
            self.frame_time_ms.p50,
            self.frame_time_ms.p99,
            self.cpu_wait_ms.p50,
            self.allocations_per_frame_steady,
            self.validation_messages,
            self.policy,
            self.fps_limit.map_or(String::new(), |f| format!(" limited to {f} fps")),
            self.interval_ms.mean,
            self.interval_ms.stddev,
            self.interval_ms.p99,
            self.latency_ms.p50,
            self.render_target_sets_made,
            self.render_target_sets_retired,
            self.ended_by,
        )
    }
}
