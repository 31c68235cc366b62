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
    /// vkpace saw the frame shown (or replaced, in mailbox mode) by the presentation engine:
    /// only with [`super::SwapchainConfig::present_wait`]; at most about a frame late, since
    /// it is polled once per frame.
    pub displayed: Option<Duration>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Entry {
    times: FrameTimes,
    serial: Option<Serial>,
    /// The frame slot whose timestamp queries the submission wrote.
    timed_slot: Option<usize>,
}

/// The ring. Frames are numbered by how many began before them (`begun` counts them all);
/// frame `k` lives at `k % TELEMETRY_FRAMES` while it is among the newest `TELEMETRY_FRAMES`.
#[derive(Debug, Clone)]
pub(crate) struct Telemetry {
    entries: Box<[Entry; TELEMETRY_FRAMES]>,
    begun: u64,
    /// Every frame before this one is complete or will never be presented: completion
    /// looks only from here on, so a frame costs O(1) however large the ring (a scan of the
    /// whole ring every frame touched about 40 KiB, the largest part of vkpace's CPU time).
    open_from: u64,
}

impl Default for Telemetry {
    fn default() -> Self {
        Self {
            entries: Box::new([Entry::default(); TELEMETRY_FRAMES]),
            begun: 0,
            open_from: 0,
        }
    }
}

/// Where frame number `k` lives in the ring.
fn index(k: u64) -> usize {
    // The remainder is below TELEMETRY_FRAMES, so the cast is lossless.
    (k % TELEMETRY_FRAMES as u64) as usize
}

impl Telemetry {
    /// The oldest frame still held.
    fn oldest(&self) -> u64 {
        self.begun.saturating_sub(TELEMETRY_FRAMES as u64)
    }

    fn newest_mut(&mut self) -> Option<&mut Entry> {
        let k = self.begun.checked_sub(1)?;
        self.entries.get_mut(index(k))
    }

    /// A new frame began at `at`.
    pub(crate) fn begin(&mut self, frame: u64, at: Duration) {
        self.entries[index(self.begun)] = Entry {
            times: FrameTimes {
                frame,
                cpu_start: at,
                ..FrameTimes::default()
            },
            serial: None,
            timed_slot: None,
        };
        self.begun += 1;
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

    /// Frame number `frame` was seen shown at `at`. Frames shown are recent: only the last
    /// few entries are looked at.
    pub(crate) fn displayed(&mut self, frame: u64, at: Duration) {
        let oldest = self.oldest();
        let mut k = self.begun;
        while k > oldest && self.begun - k < 32 {
            k -= 1;
            let e = &mut self.entries[index(k)];
            if e.times.frame == frame {
                e.times.displayed.get_or_insert(at);
                return;
            }
        }
    }

    /// Whether the newest frame's submission time is recorded already.
    pub(crate) fn submission_recorded(&self) -> bool {
        self.begun
            .checked_sub(1)
            .is_some_and(|k| self.entries[index(k)].times.submitted.is_some())
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
    ///
    /// Frames are presented in the order they began and serials grow with each present, so
    /// the frames still open form a run from `open_from` whose serials increase: the walk
    /// stops at the first frame not yet complete. A frame that began but was never presented
    /// (only the newest can still be) is passed over once a newer frame began.
    pub(crate) fn completed(
        &mut self,
        done: Serial,
        at: Duration,
        mut each: impl FnMut(&mut FrameTimes, Option<usize>),
    ) {
        let mut k = self.open_from.max(self.oldest());
        while k < self.begun {
            let newest = k + 1 == self.begun;
            let e = &mut self.entries[index(k)];
            match e.serial {
                _ if e.times.completion_observed.is_some() => {}
                None if newest => break,
                None => {}
                Some(s) if s <= done => {
                    e.times.completion_observed = Some(at);
                    each(&mut e.times, e.timed_slot);
                }
                Some(_) => break,
            }
            k += 1;
        }
        self.open_from = k;
    }

    /// The recorded frames, oldest first.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &FrameTimes> + ExactSizeIterator {
        let oldest = self.oldest();
        // At most TELEMETRY_FRAMES, so the cast is lossless.
        let len = (self.begun - oldest) as usize;
        (0..len).map(move |i| &self.entries[index(oldest + i as u64)].times)
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
    fn the_submission_is_recorded_once_per_frame() {
        let mut t = Telemetry::default();
        assert!(!t.submission_recorded());
        t.begin(0, ms(0));
        assert!(!t.submission_recorded());
        assert!(t.submitted(ms(1)));
        assert!(t.submission_recorded());
        t.begin(1, ms(2));
        assert!(!t.submission_recorded());
    }

    #[test]
    fn a_frame_never_presented_does_not_hold_back_later_completions() {
        let mut t = Telemetry::default();
        t.begin(0, ms(0));
        t.presented(Serial(1), ms(1));
        t.begin(1, ms(2)); // skipped: never presented
        t.begin(2, ms(3));
        t.presented(Serial(2), ms(4));
        t.begin(3, ms(5));
        t.presented(Serial(3), ms(6));
        let mut seen = Vec::new();
        t.completed(Serial(1), ms(7), |f, _| seen.push(f.frame));
        assert_eq!(seen, vec![0]);
        // The newest frame is open until presented; the later serial is not complete yet.
        t.completed(Serial(2), ms(8), |f, _| seen.push(f.frame));
        assert_eq!(seen, vec![0, 2]);
        t.begin(4, ms(9));
        t.completed(Serial(3), ms(10), |f, _| seen.push(f.frame));
        assert_eq!(seen, vec![0, 2, 3]);
        // Frame 4 has no serial yet: it completes once presented and its serial is done.
        t.presented(Serial(4), ms(11));
        t.completed(Serial(4), ms(12), |f, _| seen.push(f.frame));
        assert_eq!(seen, vec![0, 2, 3, 4]);
        let observed: Vec<Option<Duration>> = t.iter().map(|f| f.completion_observed).collect();
        assert_eq!(
            observed,
            vec![Some(ms(7)), None, Some(ms(8)), Some(ms(10)), Some(ms(12))]
        );
    }

    #[test]
    fn completion_keeps_up_when_the_ring_wraps() {
        let mut t = Telemetry::default();
        let mut seen = 0;
        for f in 0..(3 * TELEMETRY_FRAMES as u64) {
            t.begin(f, ms(f));
            t.presented(Serial(f + 1), ms(f));
            if f % 100 == 99 {
                t.completed(Serial(f + 1), ms(f), |_, _| seen += 1);
            }
        }
        // Completions every 100 frames up to frame 699, each finding its 100 frames in the ring.
        assert_eq!(seen, 700);
        let open: Vec<u64> = t
            .iter()
            .filter(|x| x.completion_observed.is_none())
            .map(|x| x.frame)
            .collect();
        assert_eq!(open, (700..3 * TELEMETRY_FRAMES as u64).collect::<Vec<_>>());
    }

    #[test]
    fn display_times_land_on_their_frame() {
        let mut t = Telemetry::default();
        for f in 0..40u64 {
            t.begin(f, ms(f));
        }
        t.displayed(38, ms(50));
        t.displayed(38, ms(60)); // the first sighting stays
        t.displayed(2, ms(70)); // too old to be looked for: ignored
        t.displayed(99, ms(80)); // unknown: ignored
        let shown: Vec<(u64, Duration)> = t
            .iter()
            .filter_map(|f| f.displayed.map(|d| (f.frame, d)))
            .collect();
        assert_eq!(shown, vec![(38, ms(50))]);
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
