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

/// Nanoseconds since the epoch, or [`UNSET`] for a step not reached. The ring stores plain
/// integers rather than [`FrameTimes`] so that a frame's whole timeline fits one cache line.
pub(crate) type Nanos = u64;

/// A step not (yet) reached.
pub(crate) const UNSET: Nanos = u64::MAX;

/// One frame's timeline in the ring: exactly one 64-byte cache line, so that the steps of a
/// frame (begin, acquire, submit, present, completion) all write the same line. Between frames
/// the driver's rendering evicts vkpace's data from the caches, so the lines and pages a frame
/// touches are its cost (README, "Where vkpace's time goes": about 15 ns for a line on a page
/// of its own, nothing measurable for an adjacent one). The earlier ring of `FrameTimes` took
/// 168 bytes per frame, and in a cache simulation its completion walk alone touched about 9
/// lines per frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(64))]
pub(crate) struct Timeline {
    pub(crate) cpu_start: Nanos,
    pub(crate) acquired: Nanos,
    pub(crate) submitted: Nanos,
    pub(crate) gpu_start: Nanos,
    pub(crate) gpu_end: Nanos,
    pub(crate) completion_observed: Nanos,
    pub(crate) presented: Nanos,
    pub(crate) displayed: Nanos,
}

// The point of the type: one frame, one cache line.
const _: () = assert!(std::mem::size_of::<Timeline>() == 64);

impl Timeline {
    const BLANK: Self = Self {
        cpu_start: 0,
        acquired: UNSET,
        submitted: UNSET,
        gpu_start: UNSET,
        gpu_end: UNSET,
        completion_observed: UNSET,
        presented: UNSET,
        displayed: UNSET,
    };
}

/// What the completion walk reads of a frame, on the line after its timeline
/// ([`Entry`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Meta {
    frame: u64,
    /// The frame's submission, once presented; [`Serial::NONE`] before.
    serial: Serial,
    /// The frame slot whose timestamp queries the submission wrote, or [`NO_SLOT`].
    timed_slot: u8,
    /// Its completion was observed: the same fact as the timeline's `completion_observed`
    /// being set, kept here so that the walk passes finished frames without reading their
    /// timeline line.
    done: bool,
}

/// One frame in the ring: its timeline line, then its [`Meta`] on the next line. A frame
/// touches both, and the completion walk the previous frame's: kept together, they are on one
/// 4 KiB page. As two separate arrays (packed metas, a walk touching one line for several
/// frames) they were on two, and a data page costs about 15 ns a frame here while an adjacent
/// line costs nothing measurable (README, "Where vkpace's time goes").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(C, align(128))]
struct Entry {
    timeline: Timeline,
    meta: Meta,
}

// Two lines per frame, never straddling a page.
const _: () = assert!(std::mem::size_of::<Entry>() == 128);

const NO_SLOT: u8 = u8::MAX;

impl Meta {
    const BLANK: Self = Self {
        frame: 0,
        serial: Serial::NONE,
        timed_slot: NO_SLOT,
        done: false,
    };
}

fn duration(ns: Nanos) -> Option<Duration> {
    (ns != UNSET).then(|| Duration::from_nanos(ns))
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
            entries: Box::new(
                [Entry {
                    timeline: Timeline::BLANK,
                    meta: Meta::BLANK,
                }; TELEMETRY_FRAMES],
            ),
            begun: 0,
            open_from: 0,
        }
    }
}

/// Where frame number `k` lives in the ring.
#[inline(always)]
fn index(k: u64) -> usize {
    // The remainder is below TELEMETRY_FRAMES, so the cast is lossless.
    (k % TELEMETRY_FRAMES as u64) as usize
}

impl Telemetry {
    /// The oldest frame number still in the ring.
    #[inline(always)]
    fn oldest(&self) -> u64 {
        self.begun.saturating_sub(TELEMETRY_FRAMES as u64)
    }

    /// The newest frame's timeline, if any frame began.
    #[inline(always)]
    fn newest_mut(&mut self) -> Option<&mut Timeline> {
        let k = self.begun.checked_sub(1)?;
        self.entries.get_mut(index(k)).map(|e| &mut e.timeline)
    }

    /// Frame `frame` begins its CPU work at `at`.
    #[inline(always)]
    pub(crate) fn begin(&mut self, frame: u64, at: Nanos) {
        let i = index(self.begun);
        self.entries[i].timeline = Timeline {
            cpu_start: at,
            ..Timeline::BLANK
        };
        self.entries[i].meta = Meta {
            frame,
            ..Meta::BLANK
        };
        self.begun += 1;
    }

    /// The newest frame's image was acquired at `at` (the first time, for a held image).
    #[inline(always)]
    pub(crate) fn acquired(&mut self, at: Nanos) {
        if let Some(t) = self.newest_mut() {
            if t.acquired == UNSET {
                t.acquired = at;
            }
        }
    }

    /// The newest frame's submission happened at `at`. Returns whether this was news (the
    /// first report for the frame).
    #[inline(always)]
    pub(crate) fn submitted(&mut self, at: Nanos) -> bool {
        match self.newest_mut() {
            Some(t) if t.submitted == UNSET => {
                t.submitted = at;
                true
            }
            _ => false,
        }
    }

    /// Frame `frame` was seen displayed at `at`. Only the newest 32 frames are looked at: the
    /// display polls once per frame, so anything older is stale.
    pub(crate) fn displayed(&mut self, frame: u64, at: Nanos) {
        let oldest = self.oldest();
        let mut k = self.begun;
        while k > oldest && self.begun - k < 32 {
            k -= 1;
            let i = index(k);
            if self.entries[i].meta.frame == frame {
                let t = &mut self.entries[i].timeline;
                if t.displayed == UNSET {
                    t.displayed = at;
                }
                return;
            }
        }
    }

    /// Whether the newest frame's submission was already recorded.
    #[inline(always)]
    pub(crate) fn submission_recorded(&self) -> bool {
        self.begun
            .checked_sub(1)
            .is_some_and(|k| self.entries[index(k)].timeline.submitted != UNSET)
    }

    /// The newest frame's submission carries the timestamp queries of frame slot `slot`.
    pub(crate) fn timed(&mut self, slot: usize) {
        if let Some(k) = self.begun.checked_sub(1) {
            self.entries[index(k)].meta.timed_slot = u8::try_from(slot).unwrap_or(NO_SLOT);
        }
    }

    /// The newest frame was presented at `at`; its submission was `serial`.
    #[inline(always)]
    pub(crate) fn presented(&mut self, serial: Serial, at: Nanos) {
        if let Some(k) = self.begun.checked_sub(1) {
            let i = index(k);
            let e = &mut self.entries[i];
            e.meta.serial = serial;
            e.timeline.presented = at;
        }
    }

    /// Every presented frame whose serial is at most `done` and not yet seen complete gets
    /// `completion_observed = at`, and `each(frame, timeline, timed slot)` is called for it,
    /// oldest first. Frames not presented (skipped) are passed over; the newest one, still
    /// being built, stops the walk.
    #[inline(always)]
    pub(crate) fn completed(
        &mut self,
        done: Serial,
        at: Nanos,
        mut each: impl FnMut(u64, &mut Timeline, Option<usize>),
    ) {
        let mut k = self.open_from.max(self.oldest());
        while k < self.begun {
            let newest = k + 1 == self.begun;
            let i = index(k);
            let Entry {
                timeline: t,
                meta: m,
            } = &mut self.entries[i];
            if !m.done {
                if m.serial == Serial::NONE {
                    if newest {
                        break;
                    }
                } else if m.serial <= done {
                    m.done = true;
                    t.completion_observed = at;
                    let slot = (m.timed_slot != NO_SLOT).then_some(usize::from(m.timed_slot));
                    each(m.frame, t, slot);
                } else {
                    break;
                }
            }
            k += 1;
        }
        self.open_from = k;
    }

    /// The frames in the ring, oldest first.
    pub(crate) fn iter(
        &self,
    ) -> impl DoubleEndedIterator<Item = FrameTimes> + ExactSizeIterator + '_ {
        let oldest = self.oldest();
        // At most TELEMETRY_FRAMES, so the cast is lossless.
        let len = (self.begun - oldest) as usize;
        (0..len).map(move |i| {
            let k = index(oldest + i as u64);
            let Entry { timeline: t, meta } = &self.entries[k];
            FrameTimes {
                frame: meta.frame,
                cpu_start: Duration::from_nanos(t.cpu_start),
                acquired: duration(t.acquired),
                submitted: duration(t.submitted),
                gpu_start: duration(t.gpu_start),
                gpu_end: duration(t.gpu_end),
                completion_observed: duration(t.completion_observed),
                presented: duration(t.presented),
                displayed: duration(t.displayed),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Nanos {
        v * 1_000_000
    }

    fn d(v: u64) -> Duration {
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
        t.completed(serial, ms(40), |frame, f, slot| {
            seen.push((frame, f.submitted, f.completion_observed, slot));
            f.gpu_end = ms(39);
        });
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[1], (1, ms(12), ms(40), None));
        seen.clear();
        t.completed(serial, ms(50), |frame, f, slot| {
            seen.push((frame, f.submitted, f.completion_observed, slot))
        });
        assert!(seen.is_empty());
        assert!(t.iter().all(|f| f.gpu_end == Some(d(39))));
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
        t.completed(Serial(1), ms(7), |frame, _, _| seen.push(frame));
        assert_eq!(seen, vec![0]);
        // The newest frame is open until presented; the later serial is not complete yet.
        t.completed(Serial(2), ms(8), |frame, _, _| seen.push(frame));
        assert_eq!(seen, vec![0, 2]);
        t.begin(4, ms(9));
        t.completed(Serial(3), ms(10), |frame, _, _| seen.push(frame));
        assert_eq!(seen, vec![0, 2, 3]);
        // Frame 4 has no serial yet: it completes once presented and its serial is done.
        t.presented(Serial(4), ms(11));
        t.completed(Serial(4), ms(12), |frame, _, _| seen.push(frame));
        assert_eq!(seen, vec![0, 2, 3, 4]);
        let observed: Vec<Option<Duration>> = t.iter().map(|f| f.completion_observed).collect();
        assert_eq!(
            observed,
            vec![Some(d(7)), None, Some(d(8)), Some(d(10)), Some(d(12))]
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
                t.completed(Serial(f + 1), ms(f), |_, _, _| seen += 1);
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
        assert_eq!(shown, vec![(38, d(50))]);
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
