//! Per-frame telemetry: when each recent frame passed each step, in a fixed ring (no allocation
//! per frame). Times are nanoseconds on the caller's clock (the shell's epoch), handed out as
//! [`Duration`]s since that epoch.

use std::time::Duration;

use super::serial::Serial;

/// Frames the ring keeps.
pub const TELEMETRY_FRAMES: usize = 256;

/// One frame's timeline. A step not (yet) reached is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameTimes {
    /// Frame number (0 for the first frame of the swapchain object).
    pub frame: u64,
    /// The CPU may begin the frame's work: the pacing gate and policy let it go.
    pub cpu_start: Duration,
    /// The acquire returned the image.
    pub acquired: Option<Duration>,
    /// The frame's last submission was made (or declared made by the renderer).
    pub submitted: Option<Duration>,
    /// GPU start of the frame's work, from timestamp queries mapped to the CPU clock; only
    /// with GPU timestamps on and the submission made by vkpace, else `None` (pacing then
    /// estimates GPU time from `submitted` to `completion_observed`).
    pub gpu_start: Option<Duration>,
    /// See `gpu_start`.
    pub gpu_end: Option<Duration>,
    /// vkpace saw the frame's fence signalled (polled or waited).
    pub completion_observed: Option<Duration>,
    /// `vkQueuePresentKHR` returned.
    pub presented: Option<Duration>,
    /// vkpace saw the frame shown (present wait; at most about a frame late, since it is polled
    /// once per frame). With present timing: its first pixel became visible
    /// (`VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_VISIBLE_BIT_EXT`), exactly.
    pub displayed: Option<Duration>,
    /// Present timing: the refresh the frame was meant for (its target present time, or for a
    /// relative target the refresh vkpace predicted from it).
    pub target: Option<Duration>,
    /// Present timing: the present's queue operations ended, so its rendering was done
    /// (`VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT`).
    pub rendered: Option<Duration>,
    /// Present timing: the presentation engine took the image off its queue
    /// (`VK_PRESENT_STAGE_REQUEST_DEQUEUED_BIT_EXT`).
    pub dequeued: Option<Duration>,
    /// Present timing: the first pixel left the display engine
    /// (`VK_PRESENT_STAGE_IMAGE_FIRST_PIXEL_OUT_BIT_EXT`).
    pub first_pixel_out: Option<Duration>,
}

/// The presentation engine's stage times of one present (present timing), on the machine's
/// clock; `None` where a stage was not reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresentStages {
    /// `QUEUE_OPERATIONS_END`: the present's semaphore waits completed.
    pub queue_operations_end: Option<u64>,
    /// `REQUEST_DEQUEUED`: the engine took the image off its queue.
    pub request_dequeued: Option<u64>,
    /// `IMAGE_FIRST_PIXEL_OUT`.
    pub first_pixel_out: Option<u64>,
    /// `IMAGE_FIRST_PIXEL_VISIBLE`.
    pub first_pixel_visible: Option<u64>,
}

impl PresentStages {
    /// Stage times (`None`: not reported), in stage order.
    #[must_use]
    pub fn new(
        queue_operations_end: Option<u64>,
        request_dequeued: Option<u64>,
        first_pixel_out: Option<u64>,
        first_pixel_visible: Option<u64>,
    ) -> Self {
        Self {
            queue_operations_end,
            request_dequeued,
            first_pixel_out,
            first_pixel_visible,
        }
    }
}

fn ns(at: u64) -> Duration {
    Duration::from_nanos(at)
}

/// One frame in the ring.
#[derive(Debug, Clone, Copy)]
struct Entry {
    times: FrameTimes,
    /// The frame's submission serial once submitted; [`Serial::NONE`] before.
    serial: Serial,
    /// The frame slot whose timestamp queries the submission wrote.
    timed_slot: Option<usize>,
}

impl Entry {
    /// Frame `frame`, begun at `at`, no other step reached.
    fn new(frame: u64, at: u64) -> Self {
        let times = FrameTimes {
            frame,
            cpu_start: ns(at),
            ..FrameTimes::default()
        };
        Self {
            times,
            serial: Serial::NONE,
            timed_slot: None,
        }
    }
}

/// A completed frame, as the completion walk reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Completed {
    pub(crate) frame: u64,
    /// When it was submitted (its start if the submission time is unknown).
    pub(crate) submitted: u64,
    pub(crate) timed_slot: Option<usize>,
}

/// The ring. Frames are numbered 0, 1, 2, ... in the order they begin; frame `k` lives at
/// `k % TELEMETRY_FRAMES` while it is among the newest `TELEMETRY_FRAMES`.
#[derive(Debug, Clone)]
pub(crate) struct Telemetry {
    entries: Vec<Entry>,
    /// Frames begun so far (the next frame's number).
    begun: u64,
    /// Every frame before this one is complete: completion looks only from here on, so a frame
    /// costs O(1) however large the ring.
    open_from: u64,
}

impl Telemetry {
    pub(crate) fn new() -> Self {
        Self {
            entries: vec![Entry::new(u64::MAX, 0); TELEMETRY_FRAMES],
            begun: 0,
            open_from: 0,
        }
    }

    fn entry(&mut self, frame: u64) -> Option<&mut Entry> {
        let i = (frame % TELEMETRY_FRAMES as u64) as usize;
        self.entries.get_mut(i).filter(|e| e.times.frame == frame)
    }

    /// The next frame begins its CPU work at `at`; returns its number.
    pub(crate) fn begin(&mut self, at: u64) -> u64 {
        let frame = self.begun;
        let i = (frame % TELEMETRY_FRAMES as u64) as usize;
        if let Some(e) = self.entries.get_mut(i) {
            *e = Entry::new(frame, at);
        }
        self.begun += 1;
        frame
    }

    /// `frame` begins its CPU work again at `at` (its previous acquire got no image in time).
    pub(crate) fn restart(&mut self, frame: u64, at: u64) {
        if let Some(e) = self.entry(frame) {
            e.times.cpu_start = ns(at);
        }
    }

    /// `frame`'s image was acquired at `at` (the first time counts).
    pub(crate) fn acquired(&mut self, frame: u64, at: u64) {
        if let Some(e) = self.entry(frame) {
            e.times.acquired.get_or_insert(ns(at));
        }
    }

    /// `frame` was submitted at `at` as `serial`, with timestamps in `timed_slot`.
    pub(crate) fn submitted(&mut self, frame: u64, at: u64, serial: Serial, timed: Option<usize>) {
        if let Some(e) = self.entry(frame) {
            e.times.submitted = Some(ns(at));
            e.serial = serial;
            e.timed_slot = timed;
        }
    }

    /// `frame` was presented at `at`.
    pub(crate) fn presented(&mut self, frame: u64, at: u64) {
        if let Some(e) = self.entry(frame) {
            e.times.presented = Some(ns(at));
        }
    }

    /// `frame` was seen shown at `at` (the first sighting counts).
    pub(crate) fn displayed(&mut self, frame: u64, at: u64) {
        if let Some(e) = self.entry(frame) {
            e.times.displayed.get_or_insert(ns(at));
        }
    }

    /// The present of `frame` was meant for the refresh at `at`.
    pub(crate) fn targeted(&mut self, frame: u64, at: u64) {
        if let Some(e) = self.entry(frame) {
            e.times.target = Some(ns(at));
        }
    }

    /// The presentation engine's stage times of `frame`'s present.
    pub(crate) fn stages(&mut self, frame: u64, stages: &PresentStages) {
        let Some(e) = self.entry(frame) else {
            return;
        };
        e.times.rendered = stages.queue_operations_end.map(ns);
        e.times.dequeued = stages.request_dequeued.map(ns);
        e.times.first_pixel_out = stages.first_pixel_out.map(ns);
        if let Some(at) = stages.first_pixel_visible {
            e.times.displayed = Some(ns(at));
        }
    }

    /// `frame` ran on the GPU from `start` to `end`.
    pub(crate) fn gpu_times(&mut self, frame: u64, start: u64, end: u64) {
        if let Some(e) = self.entry(frame) {
            e.times.gpu_start = Some(ns(start));
            e.times.gpu_end = Some(ns(end.max(start)));
        }
    }

    /// Every submitted frame whose serial is at most `done` and not yet seen complete gets
    /// `completion_observed = at` and is passed to `each`, oldest first. The walk stops at the
    /// first frame not yet submitted or not yet complete.
    pub(crate) fn completed(&mut self, done: Serial, at: u64, mut each: impl FnMut(Completed)) {
        let oldest = self.begun.saturating_sub(TELEMETRY_FRAMES as u64);
        let mut k = self.open_from.max(oldest);
        while k < self.begun {
            let Some(e) = self.entry(k) else { break };
            if e.serial == Serial::NONE || e.serial > done {
                break;
            }
            if e.times.completion_observed.is_none() {
                e.times.completion_observed = Some(ns(at));
                let submitted = e.times.submitted.unwrap_or(e.times.cpu_start);
                each(Completed {
                    frame: k,
                    // Made from a u64 of nanoseconds, so it fits.
                    submitted: u64::try_from(submitted.as_nanos()).unwrap_or(u64::MAX),
                    timed_slot: e.timed_slot,
                });
            }
            k += 1;
        }
        self.open_from = k;
    }

    /// The frames in the ring, oldest first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = FrameTimes> + '_ {
        let oldest = self.begun.saturating_sub(TELEMETRY_FRAMES as u64);
        (oldest..self.begun).filter_map(move |k| {
            let e = self.entries.get((k % TELEMETRY_FRAMES as u64) as usize)?;
            (e.times.frame == k).then_some(e.times)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn completions_mark_every_frame_up_to_the_serial_once_and_in_order() {
        let mut t = Telemetry::new();
        for f in 0..3u64 {
            assert_eq!(t.begin(10 * f * MS), f);
            t.acquired(f, (10 * f + 1) * MS);
            t.submitted(f, (10 * f + 2) * MS, Serial(f + 1), (f == 1).then_some(2));
            t.presented(f, (10 * f + 4) * MS);
        }
        let mut seen = Vec::new();
        t.completed(Serial(2), 40 * MS, |c| seen.push(c));
        assert_eq!(
            seen,
            vec![
                Completed {
                    frame: 0,
                    submitted: 2 * MS,
                    timed_slot: None
                },
                Completed {
                    frame: 1,
                    submitted: 12 * MS,
                    timed_slot: Some(2)
                }
            ]
        );
        seen.clear();
        t.completed(Serial(2), 50 * MS, |c| seen.push(c));
        assert!(seen.is_empty(), "seen once");
        t.completed(Serial(3), 60 * MS, |c| seen.push(c));
        assert_eq!(seen.len(), 1);
        let observed: Vec<_> = t.iter().map(|f| f.completion_observed).collect();
        assert_eq!(
            observed,
            vec![
                Some(Duration::from_millis(40)),
                Some(Duration::from_millis(40)),
                Some(Duration::from_millis(60))
            ]
        );
    }

    #[test]
    fn the_walk_stops_at_a_frame_not_yet_submitted() {
        let mut t = Telemetry::new();
        t.begin(0);
        t.begin(MS);
        t.submitted(1, MS, Serial(1), None);
        let mut seen = 0;
        t.completed(Serial(1), 2 * MS, |_| seen += 1);
        assert_eq!(seen, 0, "frame 0 is still being built");
        t.submitted(0, 2 * MS, Serial(2), None);
        t.completed(Serial(2), 3 * MS, |_| seen += 1);
        assert_eq!(seen, 2);
    }

    #[test]
    fn the_ring_keeps_the_newest_frames_and_late_reports_of_old_ones_are_ignored() {
        let mut t = Telemetry::new();
        for f in 0..(TELEMETRY_FRAMES as u64 + 10) {
            t.begin(f * MS);
            t.submitted(f, f * MS, Serial(f + 1), None);
        }
        t.displayed(3, 5);
        assert_eq!(t.iter().next().map(|x| x.frame), Some(10));
        assert_eq!(t.iter().count(), TELEMETRY_FRAMES);
        assert!(t.iter().all(|f| f.displayed.is_none()));
        let mut seen = 0;
        t.completed(Serial(u64::MAX), 0, |_| seen += 1);
        assert_eq!(seen, TELEMETRY_FRAMES, "only frames still in the ring");
    }
}
