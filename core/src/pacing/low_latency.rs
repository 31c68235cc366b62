//! The low-latency policy: begin the next frame's CPU work as late as possible, so that its
//! submission reaches the GPU just as the GPU finishes the work queued before it. Input is then
//! sampled one GPU frame before it is rendered instead of N frames before, while the GPU stays
//! busy (the idea behind LatencyFleX and NVIDIA Reflex).
//!
//! Predictions use order statistics over the last frames ([`WindowStats`]): the GPU time is the
//! median, the CPU time a high percentile (starting late costs a GPU bubble, starting early only
//! a little latency), so one slow frame neither stalls nor rushes the next.
//!
//! The CPU time is the frame's work, from its image in hand to its submission: an acquire that
//! waits for the display to free an image is not work, and counted as work it started frames
//! earlier, so the next acquire waited again (on a FIFO virtual display, low latency then kept
//! the display's queue as full as frames in flight did).
//!
//! Where the display's timing is known exactly (present timing, or present ids watched during
//! the pacing sleep), the display can be the bottleneck (FIFO): the frame is then also timed to
//! finish just before the refresh it will be shown at, rather than to wait finished in the
//! present queue.

use super::window_stats::WindowStats;

/// Frames whose GPU end is not known yet that are remembered (beyond N frames in flight the
/// caller does not submit anyway).
const PENDING: usize = 8;

/// Headroom added to the prediction: the GPU should find the next submission already there.
const MARGIN_NS: u64 = 300_000;

/// Low-latency pacing state.
#[derive(Debug, Clone, Default)]
pub struct LowLatency {
    /// The start of the frame being built: (frame id, CPU start).
    started: Option<(u64, u64)>,
    /// The latest known GPU end.
    gpu_end: Option<u64>,
    pending_len: usize,
    /// Frames presented and not yet displayed (for the display bottleneck).
    presented_after_display: u64,
    /// Frames displayed after the one whose display time is known exactly.
    displayed_after_anchor: u64,
    /// The newest frame reported displayed, exactly or not (a later report of it or of an
    /// older one, e.g. a partial then a complete timing result, is not counted again).
    last_displayed: Option<u64>,
    /// Frames submitted whose GPU end is not known: (frame id, submit time).
    pending: [(u64, u64); PENDING],
    cpu: WindowStats,
    gpu: WindowStats,
    /// Display feedback: the last frame whose display time is known exactly (id, time), and
    /// the refresh interval learned from such times.
    displayed: Option<(u64, u64)>,
    refresh: WindowStats,
}

impl LowLatency {
    /// Forgets everything learned (a new policy run starts fresh).
    pub fn reset(&mut self) {
        *self = Self::default();
    }

    /// The display's queue starts over (a new swapchain, or the old one stopped reporting):
    /// frames presented before are no longer awaited, and the anchor's refresh grid may be gone.
    /// The refresh learned stays (the same display).
    pub fn display_restarted(&mut self) {
        self.displayed = None;
        self.last_displayed = None;
        self.presented_after_display = 0;
        self.displayed_after_anchor = 0;
    }

    /// When the GPU will have finished everything submitted so far, predicted; None until a
    /// GPU duration is known.
    fn gpu_free_at(&self) -> Option<u64> {
        let g = self.gpu.percentile(50)?;
        let mut end = self.gpu_end.unwrap_or(0);
        for &(_, submit) in &self.pending[..self.pending_len] {
            end = end.max(submit) + g;
        }
        Some(end)
    }

    /// When the display can next take a new frame, predicted from present-wait feedback, and
    /// the refresh interval.
    ///
    /// The refresh is the *smallest* recent spacing of displayed frames, not the typical one:
    /// frames are planned to be ready one refresh after the last shown, so a spacing learned
    /// from late frames would reproduce itself (a GPU-bound loop at 2 refreshes per frame
    /// slipped to 3 and stayed there). Late frames only make spacings larger.
    fn display_free_at(&self) -> Option<(u64, u64)> {
        let (_, shown) = self.displayed?;
        let period = self.refresh.percentile(0)?;
        let frames = 1 + self.displayed_after_anchor + self.presented_after_display;
        Some((shown + period * frames, period))
    }

    /// Whether display times are known well enough to plan with (an exact one, and the
    /// refresh from two).
    #[must_use]
    pub fn display_known(&self) -> bool {
        self.display_free_at().is_some()
    }

    /// The time the next frame should start its CPU work, or None to start at once.
    /// `display_queues`: the display takes every frame in order at its refresh (FIFO), so it
    /// can be the bottleneck (see [`super::Pacing::set_display_queues`]).
    #[must_use]
    pub fn start_at(&self, display_queues: bool) -> Option<u64> {
        let cpu = self.cpu.percentile(90)?;
        // The submission should arrive as the GPU finishes its queue (arriving a little late
        // costs a small GPU bubble, so the typical GPU time is the right prediction)...
        let mut submit_at = self.gpu_free_at()?.saturating_sub(MARGIN_NS);
        // ...and, where the display is the bottleneck, frames need not be ready long before
        // their refresh. Finishing late there costs a whole refresh, so the GPU time is
        // predicted high (95th percentile) and one frame is kept ready a refresh ahead: a
        // single slow frame (twice the usual time) then still makes its refresh.
        if let Some((display_free, period)) = self.display_free_at().filter(|_| display_queues) {
            let gpu_high = self.gpu.percentile(95)?;
            let ready_by = display_free.saturating_sub(period);
            submit_at = submit_at.max(ready_by.saturating_sub(gpu_high + MARGIN_NS));
        }
        Some(submit_at.saturating_sub(cpu))
    }

    /// Frame `id` began its CPU work at `now`.
    pub fn frame_started(&mut self, id: u64, now: u64) {
        self.started = Some((id, now));
    }

    /// Frame `id` was submitted at `now`.
    pub fn frame_submitted(&mut self, id: u64, now: u64) {
        if let Some((sid, start)) = self.started.take() {
            if sid == id {
                self.cpu.push(now.saturating_sub(start));
            }
        }
        if self.pending_len == PENDING {
            // More unreported frames than can be queued: drop the oldest prediction.
            self.pending.copy_within(1.., 0);
            self.pending_len -= 1;
        }
        self.pending[self.pending_len] = (id, now);
        self.pending_len += 1;
    }

    /// The GPU ran frame `id` from `start` to `end` (timestamps, or the best estimate).
    pub fn gpu_done(&mut self, id: u64, start: u64, end: u64) {
        self.gpu.push(end.saturating_sub(start));
        self.gpu_end = Some(self.gpu_end.map_or(end, |e| e.max(end)));
        let keep = self.pending[..self.pending_len]
            .iter()
            .filter(|(pid, _)| *pid > id)
            .count();
        let first = self.pending_len - keep;
        self.pending.copy_within(first..self.pending_len, 0);
        self.pending_len = keep;
    }

    /// Frame `id` was handed to the presentation engine.
    pub fn frame_presented(&mut self) {
        self.presented_after_display += 1;
    }

    /// Frame `id` was shown at `at` (`exact`), or by `at`.
    ///
    /// Only exact times are planned with. A time that is only a bound is late by however long
    /// the frame went unnoticed, which depends on when this loop looked: planning the next frame
    /// from it moves the loop later each frame until it misses refreshes (the module
    /// `machine::display_watch` has the story). Such a frame still counts as no longer queued.
    pub fn frame_displayed(&mut self, id: u64, at: u64, exact: bool) {
        if self.last_displayed.is_some_and(|last| id <= last) {
            return;
        }
        self.last_displayed = Some(id);
        self.presented_after_display = self.presented_after_display.saturating_sub(1);
        if !exact {
            self.displayed_after_anchor += 1;
            return;
        }
        if let Some((prev_id, prev_at)) = self.displayed {
            if id > prev_id && at > prev_at {
                // Per-frame spacing of consecutive displayed frames: the refresh interval
                // (or a multiple where frames were late; the minimum ignores those).
                self.refresh.push((at - prev_at) / (id - prev_id));
            }
        }
        self.displayed = Some((id, at));
        self.displayed_after_anchor = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn gpu_bound_starts_just_in_time() {
        let mut l = LowLatency::default();
        // CPU 2 ms, GPU 10 ms, one frame queued ending at 30 ms.
        for id in 0..10u64 {
            let t = id * 10 * MS;
            l.frame_started(id, t);
            l.frame_submitted(id, t + 2 * MS);
            l.gpu_done(id, t + 2 * MS, t + 12 * MS);
        }
        l.frame_started(10, 100 * MS);
        l.frame_submitted(10, 102 * MS);
        // GPU busy until 91 ms (last end) -> frame 10 predicted 102..112 ms.
        let at = l.start_at(true).unwrap();
        assert_eq!(at, 112 * MS - MARGIN_NS - 2 * MS);
    }

    #[test]
    fn nothing_known_means_start_now() {
        assert_eq!(LowLatency::default().start_at(true), None);
    }

    #[test]
    fn display_bottleneck_delays_the_start() {
        let mut l = LowLatency::default();
        for id in 0..10u64 {
            let t = id * 16 * MS;
            l.frame_started(id, t);
            l.frame_submitted(id, t + MS);
            l.gpu_done(id, t + MS, t + 5 * MS);
            l.frame_presented();
            l.frame_displayed(id, t + 16 * MS, true);
        }
        // Last shown at 160 ms, refresh 16 ms: next slot 176 ms, to be ready one refresh
        // ahead (160 ms); GPU 4 ms (every sample, so also its 95th percentile), CPU 1 ms.
        assert_eq!(l.start_at(true), Some(160 * MS - 4 * MS - MARGIN_NS - MS));
        // A display that does not queue frames (IMMEDIATE, MAILBOX) is never planned for: the
        // GPU's prediction alone decides (its last frame ended at 149 ms).
        assert_eq!(l.start_at(false), Some(149 * MS - MARGIN_NS - MS));
    }

    #[test]
    fn display_times_known_only_as_bounds_are_counted_but_not_planned_with() {
        let mut l = LowLatency::default();
        let refresh = 16 * MS;
        for id in 0..4u64 {
            l.frame_presented();
            l.frame_displayed(id, (id + 1) * refresh, true);
        }
        assert_eq!(l.display_free_at(), Some((5 * refresh, refresh)));
        // Frames 4 and 5 are seen shown only by a poll, late by the loop's own phase: they
        // leave the queue but do not become the anchor; frame 6 is still queued.
        for _ in 4..7u64 {
            l.frame_presented();
        }
        l.frame_displayed(4, 5 * refresh + 7 * MS, false);
        l.frame_displayed(5, 6 * refresh + 9 * MS, false);
        // Frame 3 shown at 64 ms, frames 4 and 5 after it, 6 queued: the next one at 128 ms.
        assert_eq!(l.display_free_at(), Some((8 * refresh, refresh)));
    }

    #[test]
    fn a_frame_reported_twice_counts_once_and_a_new_display_queue_starts_empty() {
        let mut l = LowLatency::default();
        let refresh = 16 * MS;
        for id in 0..3u64 {
            l.frame_presented();
            l.frame_displayed(id, (id + 1) * refresh, true);
        }
        l.frame_presented();
        l.frame_presented();
        // Frame 2 again (a complete result after a partial one), and an older frame: ignored.
        l.frame_displayed(2, 3 * refresh, true);
        l.frame_displayed(1, 2 * refresh, true);
        assert_eq!(l.display_free_at(), Some((6 * refresh, refresh)));
        // A new swapchain: the two queued frames will never be reported; nothing to plan from.
        l.display_restarted();
        assert_eq!(l.display_free_at(), None);
        l.frame_presented();
        l.frame_displayed(5, 10 * refresh, true);
        assert_eq!(l.display_free_at(), Some((11 * refresh, refresh)));
    }

    #[test]
    fn late_frames_do_not_become_the_refresh() {
        let mut l = LowLatency::default();
        // A GPU-bound loop shown every second refresh of a 60 Hz display (33.3 ms apart),
        // then more frames (most of the window) that slipped to every third refresh (50 ms).
        let refresh = 16_666_667;
        let mut at = 0;
        for id in 0..30u64 {
            at += if id <= 10 { 2 * refresh } else { 3 * refresh };
            l.frame_presented();
            l.frame_displayed(id, at, true);
        }
        // Planned from the smallest spacing, the loop can get back to every second refresh;
        // from the typical one it would keep the 50 ms it slipped to.
        assert_eq!(l.display_free_at(), Some((at + 2 * refresh, 2 * refresh)));
    }
}
