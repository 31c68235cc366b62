//! What the display schedule learns from each frame's timing once it is known: how long frames
//! take to be ready, the display's steady offset from the targets (absolute targets), whether a
//! frame missed its refresh, and from the misses the swap interval the display policy keeps.

use super::*;

impl DisplaySchedule {
    /// The presentation engine reported frame `frame`: rendering finished at `ready`
    /// (`QUEUE_OPERATIONS_END`), first pixel visible at `shown`. Results may come out of
    /// order; older ones than the anchor only teach durations.
    pub(in crate::pacing) fn frame_timed(
        &mut self,
        frame: u64,
        ready: Option<u64>,
        shown: Option<u64>,
    ) {
        if let Some(ready) = ready {
            // A partial result and the complete one carry the same time: learned once.
            self.learn_durations(frame, ready);
            self.plan.engine_ready(frame, ready);
            // A result with the ready time before the first pixel: the engine reports partial
            // results, so its word on readiness can be waited for (`fate_wait`).
            self.engine_reports_ready |= shown.is_none();
        }
        let Some(shown) = shown else {
            return;
        };
        let newer = self.plan.anchor().is_none_or(|(f, _)| f < frame);
        let expected = self.expected(frame);
        let planned = self.plan.targeted(frame);
        let before = frame.checked_sub(1).and_then(|f| self.plan.shown_at(f));
        self.plan
            .shown(frame, shown, self.timing.map_or(1, |t| t.refresh_ns));
        if !newer {
            return;
        }
        if let (Some(p), false) = (planned, self.relative()) {
            // Ready by its target: its completion time, or seen complete by its refresh.
            let in_time = ready.map_or(p.fate == Fate::OnTime, |r| r <= p.given);
            self.learn_offset(frame, p.goal, in_time, before, shown);
        }
        self.judge(frame, planned.map(|p| p.goal).or(expected), shown);
    }

    /// Start-to-ready and busy times of `frame`, ready at `ready`; once per frame (the first
    /// word on its readiness, whoever gives it), and only for a frame newer than the last
    /// learned (results may come out of order).
    pub(super) fn learn_durations(&mut self, frame: u64, ready: u64) {
        if self.last_ready.is_some_and(|(f, _)| f >= frame) {
            return;
        }
        if let Some(s) = self.started(frame) {
            // Both from when the grid meant the frame to start: a pacing sleep's late wake-up
            // is part of what a lead must cover.
            let work = ready.saturating_sub(s.planned);
            self.work.push(work);
            self.learn_lead(frame, work);
            let gpu_from = match self.last_ready {
                Some((f, at)) if f + 1 == frame => at.max(s.submit),
                _ => s.submit,
            };
            let cpu = s.submit.saturating_sub(s.start);
            self.busy.push(cpu.max(ready.saturating_sub(gpu_from)));
        }
        self.last_ready = Some((frame, ready));
    }

    /// Absolute targets: two frames in a row that were ready by their targets, not held back by
    /// the frame before (shown at least a refresh before their refresh), and still shown later
    /// than their refresh by the same amount show the display's own offset (it shows frames
    /// that long after their targets): later targets are given that much earlier, so frames
    /// keep their interval. One such frame is not enough (an engine that was itself late once
    /// would otherwise have the next frames targeted early, and shown short). A frame shown
    /// early takes back as much of that lead. A frame not ready in time teaches nothing here:
    /// it missed.
    pub(super) fn learn_offset(
        &mut self,
        frame: u64,
        goal: u64,
        in_time: bool,
        before: Option<u64>,
        shown: u64,
    ) {
        let Some(refresh) = self.refresh() else {
            return;
        };
        let free = before.is_some_and(|b| b.saturating_add(refresh) <= goal);
        let offset = shown.saturating_sub(goal);
        if shown.saturating_add(refresh / 2) < goal {
            self.target_lead = self.target_lead.saturating_sub(goal - shown);
        } else if offset > refresh / 2 && in_time && free {
            let steady = self
                .late_offset
                .is_some_and(|(f, o)| f + 1 == frame && o.abs_diff(offset) <= refresh / 2);
            if steady {
                self.target_lead = self.target_lead.saturating_add(offset);
                self.late_offset = None;
            } else {
                self.late_offset = Some((frame, offset));
            }
            return;
        }
        self.late_offset = None;
    }

    /// Frame `frame` took `work` from its planned start to ready: each learned lead judges it, and
    /// the frame remembers which it was ready within (for the display's verdict).
    fn learn_lead(&mut self, frame: u64, work: u64) {
        // Only frames the schedule paced: before it is active the frames-in-flight gate or the
        // CPU limiter start them, and their times say nothing of a lead.
        let Some(refresh) = self.refresh() else {
            return;
        };
        let verdicts = self.leads.each_mut().map(|l| l.frame_ready(work, refresh));
        let slot = &mut self.started[(frame % REMEMBERED as u64) as usize];
        if slot.frame == frame {
            slot.in_time = verdicts.map(|v| v == LeadVerdict::InTime);
        }
    }

    /// Counts a miss when `shown` is later than half a refresh after `expected`, and lets the
    /// display policy move the swap interval. A frame shown late though it was ready within a
    /// learned lead widens that lead's margin (what its start-to-ready time did not show).
    pub(super) fn judge(&mut self, frame: u64, expected: Option<u64>, shown: u64) {
        let Some(refresh) = self.refresh() else {
            return;
        };
        let missed = expected.is_some_and(|e| shown > e.saturating_add(refresh / 2));
        self.missed_total += u64::from(missed);
        if let Some(s) = self.started(frame).filter(|_| missed) {
            for (lead, in_time) in self.leads.iter_mut().zip(s.in_time) {
                if in_time {
                    lead.shown_late();
                }
            }
        }
        let Interval::Auto { at_least } = self.choice else {
            return;
        };
        self.misses += u32::from(missed);
        self.shown_in_window += 1;
        if self.misses >= MISSES_TO_RAISE && self.interval < MAX_SWAP_INTERVAL {
            self.interval += 1;
            self.restart_window();
        } else if self.shown_in_window >= MISS_WINDOW {
            if self.interval > at_least && self.fits(self.interval - 1, refresh) {
                self.interval -= 1;
            }
            self.restart_window();
        }
    }

    /// Whether recent frames' CPU and GPU times fit `interval` refreshes with room to spare.
    pub(super) fn fits(&self, interval: u32, refresh: u64) -> bool {
        let room = (refresh * u64::from(interval)) as f64 * LOWER_BELOW;
        self.busy.len() >= MISS_WINDOW as usize
            && self.busy.percentile(90).is_some_and(|b| (b as f64) < room)
    }

    pub(super) fn restart_window(&mut self) {
        self.misses = 0;
        self.shown_in_window = 0;
        self.busy.clear();
    }
}
