//! The frames handed to the display on the refresh grid, the refresh each one is meant for, and
//! what is known of whether it makes it: from that, when each one will be shown.
//!
//! A FIFO presentation engine shows a frame at the first refresh at or after three times: its
//! target (by the nearest-refresh rule), the refresh after the previous frame's, and the moment
//! its rendering finished. vkpace knows the first of them, the second by the same rule one
//! frame back, and bounds the third by what it saw of the frame's completion: seen complete by
//! its refresh, it is shown on time; seen still rendering after its refresh, or first seen
//! complete only after it, it is taken as shown at the first refresh after it was seen done (it
//! may have been shown earlier: the next frame is then shown long, never short). A frame
//! presented without a target (before the grid's phase was known) is remembered the same way,
//! meant for the first refresh after its present. [`DisplayPlan::predicted`] chains these from
//! the latest frame whose first pixel the engine reported, so a late frame moves every frame
//! after it by the refreshes it lost, the way a relative target moves them
//! (`VK_PRESENT_TIMING_INFO_PRESENT_AT_RELATIVE_TIME_BIT_EXT` counts "from the previous
//! presentation's FIRST_PIXEL_VISIBLE stage"): no frame is given a refresh that the frame
//! before it already took, so none is shown short.

/// Frames remembered between their present and their timing result.
pub(super) const PLANNED: usize = 16;

/// What is known of one frame's rendering against its refresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fate {
    /// Nothing seen yet that decides it: taken as on time.
    Unknown,
    /// Seen complete at or before its refresh.
    OnTime,
    /// Seen still rendering at `pending` (at or after its refresh); `done`: seen complete then
    /// (it finished at or before that).
    Late { pending: u64, done: Option<u64> },
    /// The engine reported its first pixel at this time.
    Shown(u64),
}

/// What is known of one planned frame.
#[derive(Debug, Clone, Copy)]
pub(super) struct Plan {
    pub(super) frame: u64,
    /// The refresh it is meant for; for a frame presented without a target, the time of its
    /// present (it is meant for the first refresh it can take, and is shown after it).
    pub(super) goal: u64,
    /// Its present carried a target (the refresh at `goal`).
    pub(super) targeted: bool,
    /// The target given to the engine (the goal less the engine's learned offset).
    pub(super) given: u64,
    pub(super) fate: Fate,
    /// The engine itself said when it was ready (or shown): nothing vkpace sees changes it.
    pub(super) settled: bool,
    /// Its present asked for stage times: the engine will say when it was ready.
    pub(super) reported: bool,
    /// When vkpace first saw it complete.
    pub(super) seen_done: Option<u64>,
}

/// The presented frames of one swapchain object with their refreshes.
#[derive(Debug, Clone, Default)]
pub(super) struct DisplayPlan {
    plans: [Option<Plan>; PLANNED],
    /// The latest frame whose first pixel is known, and when: the grid's phase.
    anchor: Option<(u64, u64)>,
    /// The newest frame planned.
    newest: Option<u64>,
    /// Every frame up to this one was seen complete.
    complete_through: Option<u64>,
}

/// The first refresh of the grid through `phase` (spaced `refresh`) strictly after `t`.
pub(super) fn refresh_after(t: u64, phase: u64, refresh: u64) -> u64 {
    if t < phase {
        return phase - (phase - t - 1) / refresh * refresh;
    }
    phase + ((t - phase) / refresh + 1) * refresh
}

/// The refresh nearest `t` (a time meant to be on the grid: one computed from an older anchor,
/// or a reported first pixel, may be a little off it).
fn nearest_refresh(t: u64, phase: u64, refresh: u64) -> u64 {
    refresh_after(t.saturating_sub(refresh / 2 + 1), phase, refresh)
}

/// The first refresh at or after `t`.
fn refresh_at_or_after(t: u64, phase: u64, refresh: u64) -> u64 {
    refresh_after(t.saturating_sub(1), phase, refresh)
}

impl DisplayPlan {
    /// A new swapchain: its frames are not on the old one's grid.
    pub(super) fn clear(&mut self) {
        *self = Self {
            complete_through: self.complete_through,
            ..Self::default()
        };
    }

    fn slot(frame: u64) -> usize {
        (frame % PLANNED as u64) as usize
    }

    fn plan(&self, frame: u64) -> Option<Plan> {
        self.plans[Self::slot(frame)].filter(|p| p.frame == frame)
    }

    fn plan_mut(&mut self, frame: u64) -> Option<&mut Plan> {
        self.plans[Self::slot(frame)]
            .as_mut()
            .filter(|p| p.frame == frame)
    }

    /// The latest frame whose first pixel is known, and when.
    pub(super) fn anchor(&self) -> Option<(u64, u64)> {
        self.anchor
    }

    /// The plan of `frame` if its present carried a target: its refresh, its target and its
    /// fate.
    pub(super) fn targeted(&self, frame: u64) -> Option<Plan> {
        self.plan(frame).filter(|p| p.targeted)
    }

    /// When `frame`'s first pixel was reported, if it was and is remembered.
    pub(super) fn shown_at(&self, frame: u64) -> Option<u64> {
        match (self.anchor, self.plan(frame).map(|p| p.fate)) {
            (_, Some(Fate::Shown(at))) => Some(at),
            (Some((f, at)), _) if f == frame => Some(at),
            _ => None,
        }
    }

    /// The newest frame planned and what is known of it.
    pub(super) fn newest(&self) -> Option<Plan> {
        self.plan(self.newest?)
    }

    /// `frame` is presented for the refresh at `goal`, with `given` as its target; `reported`:
    /// the present asked for stage times.
    pub(super) fn add(&mut self, frame: u64, goal: u64, given: u64, reported: bool) {
        self.insert(frame, goal, given, reported, true);
    }

    /// `frame` is presented at `now` without a target (before the grid's phase is known): FIFO
    /// shows it at the first refresh it can take. It is remembered all the same, since the
    /// frames planned after it are placed after it: if it is late, they move with it.
    pub(super) fn add_untargeted(&mut self, frame: u64, now: u64, reported: bool) {
        self.insert(frame, now, now, reported, false);
    }

    fn insert(&mut self, frame: u64, goal: u64, given: u64, reported: bool, targeted: bool) {
        let fate = if self.complete_through.is_some_and(|c| c >= frame) {
            Fate::OnTime
        } else {
            Fate::Unknown
        };
        self.plans[Self::slot(frame)] = Some(Plan {
            frame,
            goal,
            targeted,
            given,
            fate,
            settled: false,
            reported,
            seen_done: None,
        });
        self.newest = Some(self.newest.map_or(frame, |n| n.max(frame)));
    }

    /// `frame`'s present was refused (never shown): it takes no refresh.
    pub(super) fn remove(&mut self, frame: u64) {
        if self.plan(frame).is_some() {
            self.plans[Self::slot(frame)] = None;
        }
    }

    /// Every frame up to `frame` finished rendering; seen at `at`.
    pub(super) fn complete(&mut self, frame: u64, at: u64) {
        if self.complete_through.is_some_and(|c| c >= frame) {
            return;
        }
        let from = self.complete_through.map_or(0, |c| c + 1);
        self.complete_through = Some(frame);
        let first = from.max(frame.saturating_sub(PLANNED as u64 - 1));
        for f in first..=frame {
            if let Some(p) = self.plan_mut(f).filter(|p| !p.settled) {
                p.seen_done = Some(at);
                p.fate = match p.fate {
                    // First seen done after its refresh: it may have missed it.
                    Fate::Unknown if at > p.goal => Fate::Late {
                        pending: p.goal,
                        done: Some(at),
                    },
                    Fate::Unknown => Fate::OnTime,
                    Fate::Late { pending, .. } if at > p.goal => Fate::Late {
                        pending,
                        done: Some(at),
                    },
                    Fate::Late { .. } => Fate::OnTime,
                    other => other,
                };
            }
        }
    }

    /// The engine says `frame`'s queue operations ended (it was ready) at `at`
    /// (`VK_PRESENT_STAGE_QUEUE_OPERATIONS_END_BIT_EXT`): its fate is settled, whatever vkpace
    /// saw itself (a render thread sees completions late on a busy machine, and so may the
    /// engine: its word is the one that counts).
    pub(super) fn engine_ready(&mut self, frame: u64, at: u64) {
        if let Some(p) = self.plan_mut(frame) {
            p.settled = true;
            p.fate = match p.fate {
                Fate::Shown(s) => Fate::Shown(s),
                _ if at <= p.goal => Fate::OnTime,
                _ => Fate::Late {
                    pending: at - 1,
                    done: Some(at),
                },
            };
        }
    }

    /// The GPU finished `frame`'s work at `at` (a timestamp): it cannot have been ready
    /// earlier, so if that is after its refresh it is late. (Not the other way round: the
    /// semaphore the engine waits on may signal later than the last timestamp, as lavapipe's
    /// does on a busy machine.)
    pub(super) fn gpu_done(&mut self, frame: u64, at: u64) {
        if let Some(p) = self.plan_mut(frame).filter(|p| !p.settled && at > p.goal) {
            p.fate = match p.fate {
                Fate::Late { pending, done } => Fate::Late {
                    pending: pending.max(at - 1),
                    done,
                },
                Fate::Shown(s) => Fate::Shown(s),
                Fate::Unknown | Fate::OnTime => Fate::Late {
                    pending: at - 1,
                    done: None,
                },
            };
        }
    }

    /// Every frame from `from` (None: every frame not seen complete) was still rendering at
    /// `at`.
    pub(super) fn pending(&mut self, from: Option<u64>, at: u64) {
        let Some(newest) = self.newest else {
            return;
        };
        let done = self.complete_through.map_or(0, |c| c + 1);
        let from = from.map_or(done, |f| f.max(done));
        let first = from.max(newest.saturating_sub(PLANNED as u64 - 1));
        for f in first..=newest {
            if let Some(p) = self.plan_mut(f).filter(|p| !p.settled) {
                if at < p.goal {
                    continue;
                }
                p.fate = match p.fate {
                    Fate::Unknown => Fate::Late {
                        pending: at,
                        done: None,
                    },
                    Fate::Late { pending, done } => Fate::Late {
                        pending: pending.max(at),
                        done,
                    },
                    other => other,
                };
            }
        }
    }

    /// The engine reported `frame`'s first pixel at `shown`, on a grid of `refresh`; returns
    /// the refresh it was meant for and the target it was given, if it was planned. A newer
    /// first pixel becomes the grid's phase: the refreshes of the frames planned after it are
    /// snapped to it (computed from an older phase, they may be a few ns off it).
    pub(super) fn shown(&mut self, frame: u64, shown: u64, refresh: u64) -> Option<(u64, u64)> {
        if self.anchor.is_none_or(|(f, _)| f < frame) {
            self.anchor = Some((frame, shown));
            let later = |p: &&mut Plan| p.frame > frame && p.targeted;
            for p in self.plans.iter_mut().flatten().filter(later) {
                p.goal = nearest_refresh(p.goal, shown, refresh);
            }
        }
        let p = self.plan_mut(frame)?;
        p.fate = Fate::Shown(shown);
        p.settled = true;
        p.targeted.then_some((p.goal, p.given))
    }

    /// When `frame` is expected to be shown: the chain from the anchor through the frames
    /// planned since, each at the first refresh at or after its goal, `spacing` after the one
    /// before (one refresh in FIFO; a frame interval with relative targets) and, late, after
    /// it finished; frames not planned one `period` after the one before. None without an
    /// anchor (no phase for the grid) or for a frame before it.
    pub(super) fn predicted(
        &self,
        frame: u64,
        refresh: u64,
        spacing: u64,
        period: u64,
    ) -> Option<u64> {
        let (at_frame, phase) = self.anchor?;
        if frame <= at_frame {
            return (frame == at_frame).then_some(phase);
        }
        // Frames older than the ring have no plan: on the grid one period apart.
        let first = at_frame.max(frame.saturating_sub(PLANNED as u64));
        let mut shown = phase.saturating_add((first - at_frame).saturating_mul(period));
        for f in first + 1..=frame {
            shown = match self.plan(f) {
                Some(p) => Self::shown_after(p, shown.saturating_add(spacing), phase, refresh),
                None => shown.saturating_add(period),
            };
        }
        Some(shown)
    }

    /// When planned frame `p` is shown if it is not before `floor`.
    fn shown_after(p: Plan, floor: u64, phase: u64, refresh: u64) -> u64 {
        let on_grid = if p.targeted {
            nearest_refresh(p.goal.max(floor), phase, refresh)
        } else {
            // Not shown before its present: the first refresh at or after it, or the floor.
            refresh_at_or_after(p.goal.max(floor), phase, refresh)
        };
        if cfg!(vkpace_mutation = "late_frame_stays") && matches!(p.fate, Fate::Late { .. }) {
            // Deliberately wrong (`scripts/mutation-check`): a frame known late is taken as
            // shown on its refresh, so it does not move the frames after it.
            return on_grid;
        }
        match p.fate {
            Fate::Shown(at) => at,
            Fate::Unknown | Fate::OnTime => on_grid,
            Fate::Late {
                pending,
                done: None,
            } => on_grid.max(refresh_after(pending, phase, refresh)),
            // Finished by `done`: shown by the refresh at or after it (at worst one refresh
            // later than it was; never earlier, so the next frame is never short).
            Fate::Late {
                done: Some(done), ..
            } => on_grid.max(refresh_at_or_after(done, phase, refresh)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: u64 = 16_666_667;

    #[test]
    fn refreshes_after_a_time_on_both_sides_of_the_phase() {
        assert_eq!(refresh_after(10 * R, 10 * R, R), 11 * R);
        assert_eq!(refresh_after(10 * R + 1, 10 * R, R), 11 * R);
        assert_eq!(refresh_after(10 * R - 1, 10 * R, R), 10 * R);
        assert_eq!(refresh_after(8 * R, 10 * R, R), 9 * R);
        assert_eq!(refresh_at_or_after(10 * R, 10 * R, R), 10 * R);
        assert_eq!(refresh_at_or_after(9 * R + 1, 10 * R, R), 10 * R);
        assert_eq!(nearest_refresh(10 * R + 2, 8 * R, R), 10 * R);
        assert_eq!(nearest_refresh(10 * R - 2, 8 * R, R), 10 * R);
    }

    #[test]
    fn a_late_frame_moves_the_frames_after_it() {
        let mut p = DisplayPlan::default();
        p.shown(0, R, R);
        p.add(1, 3 * R, 3 * R, true);
        p.add(2, 5 * R, 5 * R, true);
        assert_eq!(p.predicted(2, R, R, 2 * R), Some(5 * R));
        // Frame 1 still rendering half a refresh after its refresh: at least one late.
        p.pending(None, 3 * R + R / 2);
        assert_eq!(p.predicted(1, R, R, 2 * R), Some(4 * R));
        // Done 1.2 refreshes late: shown at 5R, frame 2 (meant for 5R) a refresh after.
        p.complete(1, 4 * R + R / 5);
        assert_eq!(p.predicted(1, R, R, 2 * R), Some(5 * R));
        assert_eq!(p.predicted(2, R, R, 2 * R), Some(6 * R));
        assert_eq!(p.predicted(4, R, R, 2 * R), Some(10 * R));
    }

    #[test]
    fn complete_by_its_refresh_is_on_time_and_pending_before_it_says_nothing() {
        let mut p = DisplayPlan::default();
        p.shown(0, R, R);
        p.add(1, 3 * R, 3 * R, true);
        p.pending(None, 2 * R);
        p.complete(1, 3 * R);
        assert_eq!(p.newest().map(|n| n.fate), Some(Fate::OnTime));
        assert_eq!(p.predicted(1, R, R, 2 * R), Some(3 * R));
        // The engine's word settles it: ready after its refresh, so late after all.
        p.engine_ready(1, 3 * R + 1);
        assert_eq!(p.predicted(1, R, R, 2 * R), Some(4 * R));
    }

    #[test]
    fn first_seen_complete_after_its_refresh_it_may_have_missed_it() {
        let mut p = DisplayPlan::default();
        p.shown(0, R, R);
        p.add(1, 3 * R, 3 * R, true);
        // Nothing seen before its refresh; complete a little after it: it may have finished
        // just after, so the frames after it are placed as if it was shown a refresh late.
        p.complete(1, 3 * R + R / 10);
        assert_eq!(p.predicted(1, R, R, 2 * R), Some(4 * R));
        assert_eq!(p.predicted(2, R, R, 2 * R), Some(6 * R));
    }

    #[test]
    fn a_late_untargeted_frame_moves_the_first_targeted_one() {
        let mut p = DisplayPlan::default();
        // Frame 1 presented at 2R without a target, before frame 0's first pixel came back.
        p.add_untargeted(1, 2 * R, true);
        p.shown(0, R, R);
        assert_eq!(p.targeted(1).map(|p| p.goal), None);
        // On time it takes the refresh after frame 0's.
        assert_eq!(p.predicted(1, R, R, 2 * R), Some(2 * R));
        // The engine says it was ready at 4.5R: shown at 5R, and frame 2 one interval later.
        p.engine_ready(1, 4 * R + R / 2);
        assert_eq!(p.predicted(1, R, R, 2 * R), Some(5 * R));
        p.add(2, 7 * R, 7 * R, true);
        assert_eq!(p.predicted(2, R, R, 2 * R), Some(7 * R));
        // Its first pixel teaches nothing about a target it never had.
        assert_eq!(p.shown(1, 5 * R, R), None);
    }
}
