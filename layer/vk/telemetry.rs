//! Per-frame telemetry: when each recent frame passed each step, kept in a fixed ring (no
//! allocation per frame). Times are [`Duration`]s since the swapchain's creation
//! ([`super::Swapchain::telemetry_epoch`]), all on the CPU's monotonic clock.

use std::time::Duration;

use crate::core::Serial;

/// Frames the ring keeps.
pub const TELEMETRY_FRAMES: usize = 256;

/// One frame's timeline. A step not (yet) reached is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameTimes {
    /// Frame number (0 for the first frame of the swapchain object).
    pub frame: u64,
    /// The CPU may begin the frame's work: the pacing gate and policy let it go.
    pub cpu_start: Duration,
    /// `acquire` returned the image.
    pub acquired: Option<Duration>,
    /// The frame's submission was made (`submit`, or `present` when the renderer submitted).
    pub submitted: Option<Duration>,
    /// GPU start of the frame's work: a timestamp query mapped to the CPU clock. Measured
    /// only with [`super::SwapchainConfig::gpu_timestamps`] and submissions made through
    /// [`super::Swapchain::submit`]; otherwise `None`, and pacing estimates GPU time from
    /// `submitted` to `completion_observed` instead.
    pub gpu_start: Option<Duration>,
    /// See `gpu_start`.
    pub gpu_end: Option<Duration>,
    /// vkpace saw the frame's fence signalled (polled or waited).
    pub completion_observed: Option<Duration>,
    /// `vkQueuePresentKHR` returned.
    pub presented: Option<Duration>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    times: FrameTimes,
    serial: Option<Serial>,
    /// The frame slot whose timestamp queries the submission wrote.
    timed_slot: Option<usize>,
}

/// The ring.
#[derive(Debug, Clone)]
pub(crate) struct Telemetry {
    entries: Box<[Entry; TELEMETRY_FRAMES]>,
    len: usize,
    next: usize,
}

impl Default for Telemetry {
    fn default() -> Self {
        Self {
            entries: Box::new([Entry::default(); TELEMETRY_FRAMES]),
            len: 0,
            next: 0,
        }
    }
}

impl Telemetry {
    fn newest_mut(&mut self) -> Option<&mut Entry> {
        if self.len == 0 {
            return None;
        }
        let i = (self.next + TELEMETRY_FRAMES - 1) % TELEMETRY_FRAMES;
        self.entries.get_mut(i)
    }

    /// A new frame began at `at`.
    pub(crate) fn begin(&mut self, frame: u64, at: Duration) {
        self.entries[self.next] = Entry {
            times: FrameTimes {
                frame,
                cpu_start: at,
                ..FrameTimes::default()
            },
            serial: None,
            timed_slot: None,
        };
        self.next = (self.next + 1) % TELEMETRY_FRAMES;
        self.len = (self.len + 1).min(TELEMETRY_FRAMES);
    }

    pub(crate) fn acquired(&mut self, at: Duration) {
        if let Some(e) = self.newest_mut() {
            e.times.acquired.get_or_insert(at);
        }
    }

    /// Records the submission time unless already recorded; returns whether it was new.
    pub(crate) fn submitted(&mut self, at: Duration) -> bool {
        match self.newest_mut() {
            Some(e) if e.times.submitted.is_none() => {
                e.times.submitted = Some(at);
                true
            }
            _ => false,
        }
    }

    /// The frame's submission wrote the timestamp queries of `slot`.
    pub(crate) fn timed(&mut self, slot: usize) {
        if let Some(e) = self.newest_mut() {
            e.timed_slot = Some(slot);
        }
    }

    pub(crate) fn presented(&mut self, serial: Serial, at: Duration) {
        if let Some(e) = self.newest_mut() {
            e.serial = Some(serial);
            e.times.presented = Some(at);
        }
    }

    /// Every frame whose serial is at most `done` and not yet marked completes at `at`;
    /// `each` gets each newly completed frame's times (to fill in GPU times) and the slot whose
    /// timestamp queries it wrote.
    pub(crate) fn completed(
        &mut self,
        done: Serial,
        at: Duration,
        mut each: impl FnMut(&mut FrameTimes, Option<usize>),
    ) {
        let start = (self.next + TELEMETRY_FRAMES - self.len) % TELEMETRY_FRAMES;
        for k in 0..self.len {
            let e = &mut self.entries[(start + k) % TELEMETRY_FRAMES];
            if e.times.completion_observed.is_none() && e.serial.is_some_and(|s| s <= done) {
                e.times.completion_observed = Some(at);
                each(&mut e.times, e.timed_slot);
            }
        }
    }

    /// The recorded frames, oldest first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &FrameTimes> + ExactSizeIterator {
        let start = (self.next + TELEMETRY_FRAMES - self.len) % TELEMETRY_FRAMES;
        (0..self.len).map(move |k| &self.entries[(start + k) % TELEMETRY_FRAMES].times)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn completions_mark_every_frame_up_to_the_serial_once() {
        let mut t = Telemetry::default();
        let mut serial = Serial::NONE;
        for f in 0..3u64 {
            serial = serial.next();
            t.begin(f, ms(10 * f));
            t.acquired(ms(10 * f + 1));
            assert!(t.submitted(ms(10 * f + 2)));
            assert!(!t.submitted(ms(10 * f + 3)));
            t.presented(serial, ms(10 * f + 4));
        }
        let mut seen = Vec::new();
        t.completed(serial, ms(40), |f, slot| {
            seen.push((f.frame, f.submitted, f.completion_observed, slot));
            f.gpu_end = Some(ms(39));
        });
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[1], (1, Some(ms(12)), Some(ms(40)), None));
        seen.clear();
        t.completed(serial, ms(50), |f, slot| {
            seen.push((f.frame, f.submitted, f.completion_observed, slot))
        });
        assert!(seen.is_empty());
        assert!(t.iter().all(|f| f.gpu_end == Some(ms(39))));
        let frames: Vec<u64> = t.iter().map(|x| x.frame).collect();
        assert_eq!(frames, vec![0, 1, 2]);
    }

    #[test]
    fn the_ring_keeps_the_newest_frames() {
        let mut t = Telemetry::default();
        for f in 0..(TELEMETRY_FRAMES as u64 + 10) {
            t.begin(f, ms(f));
        }
        let first = t.iter().next().map(|x| x.frame);
        assert_eq!(first, Some(10));
        assert_eq!(t.iter().count(), TELEMETRY_FRAMES);
    }
}
