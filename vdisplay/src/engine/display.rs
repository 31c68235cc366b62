//! The rules of one virtual display, with no Vulkan in sight: which queued present becomes
//! visible when, and when an image goes back to its swapchain. Time is an argument, so the
//! rules are unit-tested deterministically; the engine thread (`thread.rs`) drives them.
//!
//! Spec (VkPresentModeKHR): FIFO shows one queued image per vertical blank, in order; MAILBOX
//! keeps one pending image that a newer one replaces, shown at the next blank; IMMEDIATE shows
//! an image as soon as it is ready; FIFO_RELAXED behaves as FIFO, except that an image that
//! arrives after a blank at which the queue had nothing ready is shown at once. An image is
//! ready once its present's queue operations (the semaphore waits) completed. Target times
//! (VK_EXT_present_timing) hold a FIFO-mode request back until the blank at which it may be
//! visible.

use std::collections::VecDeque;

/// Missed blanks [`Display::pump`] replays at most (about a second at 120 Hz).
pub const MAX_CATCH_UP: u64 = 120;

/// Identifies one queued present within an engine.
pub type ReqId = u64;

/// The present mode a request was queued with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `VK_PRESENT_MODE_FIFO_KHR`.
    Fifo,
    /// `VK_PRESENT_MODE_FIFO_RELAXED_KHR`.
    FifoRelaxed,
    /// `VK_PRESENT_MODE_MAILBOX_KHR`.
    Mailbox,
    /// `VK_PRESENT_MODE_IMMEDIATE_KHR`.
    Immediate,
}

impl Mode {
    fn unqueued(self) -> bool {
        matches!(self, Mode::Mailbox | Mode::Immediate)
    }
}

/// When a FIFO-mode request may become visible (VkPresentTimingInfoEXT::targetTime).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// As soon as the mode allows.
    None,
    /// Not before this time (or the refresh nearest to it, if `nearest`).
    Absolute {
        /// The time, ns.
        at: u64,
        /// PRESENT_AT_NEAREST_REFRESH_CYCLE.
        nearest: bool,
    },
    /// Not before the previous image has been visible this long.
    Relative {
        /// The duration, ns.
        after: u64,
        /// PRESENT_AT_NEAREST_REFRESH_CYCLE.
        nearest: bool,
    },
}

/// A present waiting on the display.
#[derive(Clone, Copy, Debug)]
pub struct Pending {
    /// Its id.
    pub id: ReqId,
    /// Its present mode.
    pub mode: Mode,
    /// Its target time.
    pub target: Target,
    /// A rejected present (error result): never shown, its image freed once ready.
    pub discard: bool,
    /// When the engine may act on it: its queue operations completed (plus any injected engine
    /// delay). `None` until then.
    pub eligible_ns: Option<u64>,
}

/// What happened, for the engine to apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The request became visible at `at`.
    Shown {
        /// Which.
        id: ReqId,
        /// When (a refresh-grid time, or the time the engine acted, for immediate shows).
        at: u64,
    },
    /// The request will never be visible.
    Dropped {
        /// Which.
        id: ReqId,
        /// When that was decided.
        at: u64,
        /// True when a newer image replaced it (MAILBOX); false for a rejected present.
        replaced: bool,
    },
    /// The request's image goes back to the free set: its successor on the display is visible,
    /// or it was dropped after its queue operations completed.
    Freed {
        /// Which.
        id: ReqId,
    },
}

/// One virtual display: a refresh grid, a queue of presents and what is on screen.
#[derive(Debug)]
pub struct Display {
    /// Refresh period, ns.
    pub period_ns: u64,
    /// A time on the refresh grid (vertical blanks are `epoch + k * period`).
    pub epoch_ns: u64,
    queue: VecDeque<Pending>,
    on_screen: Option<(ReqId, u64)>,
    last_pumped_vblank: u64,
}

impl Display {
    /// An empty display whose grid passes through `epoch_ns`.
    pub fn new(period_ns: u64, epoch_ns: u64) -> Self {
        Self {
            period_ns: period_ns.max(1),
            epoch_ns,
            queue: VecDeque::new(),
            on_screen: None,
            last_pumped_vblank: epoch_ns,
        }
    }

    /// The last vertical blank at or before `t`.
    pub fn vblank_at_or_before(&self, t: u64) -> u64 {
        let since = t.saturating_sub(self.epoch_ns);
        self.epoch_ns + since / self.period_ns * self.period_ns
    }

    /// Queues a present (in `vkQueuePresentKHR` order).
    pub fn push(&mut self, p: Pending) {
        self.queue.push_back(p);
    }

    /// Records that a request's queue operations completed; it may be acted on from `eligible`.
    pub fn mark_ready(&mut self, id: ReqId, eligible_ns: u64) {
        if let Some(p) = self.queue.iter_mut().find(|p| p.id == id) {
            p.eligible_ns = Some(eligible_ns);
        }
    }

    /// Removes queued requests matching `pred` (their swapchain is gone) and blanks the screen
    /// if it shows one. Returns the removed ids (queued ones, then the on-screen one).
    pub fn remove_where(&mut self, mut pred: impl FnMut(ReqId) -> bool) -> Vec<ReqId> {
        let mut removed: Vec<ReqId> = self
            .queue
            .iter()
            .map(|p| p.id)
            .filter(|id| pred(*id))
            .collect();
        self.queue.retain(|p| !removed.contains(&p.id));
        if let Some((id, _)) = self.on_screen {
            if pred(id) {
                self.on_screen = None;
                removed.push(id);
            }
        }
        removed
    }

    /// When the display next needs attention after `now`: the next blank while something is
    /// queued, or an earlier time at which a delayed request becomes eligible.
    pub fn next_wakeup(&self, now: u64) -> Option<u64> {
        if self.queue.is_empty() {
            return None;
        }
        let next_blank = self.vblank_at_or_before(now) + self.period_ns;
        let eligible = self
            .queue
            .iter()
            .filter_map(|p| p.eligible_ns)
            .filter(|e| *e > now)
            .min();
        Some(eligible.map_or(next_blank, |e| e.min(next_blank)))
    }

    /// Applies the rules at time `now`, including the blank at or before `now` if it has not
    /// been processed yet. Appends what happened to `out`.
    ///
    /// Blanks the engine thread slept through (a loaded machine can keep it off the CPU for
    /// more than a refresh) are applied first, in order, each as of its own time: a display's
    /// scan-out does not run late because the thread that models it did, so a frame ready by
    /// a blank is shown at that blank whenever the thread gets to it. At most
    /// [`MAX_CATCH_UP`] are replayed; after a longer stall the display goes on from now.
    pub fn pump(&mut self, now: u64, out: &mut Vec<Event>) {
        let latest = self.vblank_at_or_before(now);
        let mut missed = self.last_pumped_vblank + self.period_ns;
        if latest.saturating_sub(missed) / self.period_ns > MAX_CATCH_UP {
            missed = latest;
        }
        while missed < latest && !self.queue.is_empty() {
            self.pump_at(missed, out);
            missed += self.period_ns;
        }
        self.pump_at(now, out);
    }

    /// [`Self::pump`] for one moment, with the blank at or before it.
    fn pump_at(&mut self, now: u64, out: &mut Vec<Event>) {
        let v = self.vblank_at_or_before(now);
        let blank = (v > self.last_pumped_vblank).then_some(v);
        if let Some(v) = blank {
            self.last_pumped_vblank = v;
        }
        let mut latched = false;
        while let Some(front) = self.queue.front().copied() {
            if !ready_by(&front, now) {
                break;
            }
            let act = if front.discard {
                Act::Drop { replaced: false }
            } else {
                self.decide(&front, now, blank, latched)
            };
            match act {
                Act::Wait => break,
                Act::Drop { replaced } => {
                    self.queue.pop_front();
                    out.push(Event::Dropped {
                        id: front.id,
                        at: now,
                        replaced,
                    });
                    out.push(Event::Freed { id: front.id });
                }
                Act::Show { at, latch } => {
                    self.queue.pop_front();
                    latched |= latch;
                    self.show(front.id, at, out);
                }
            }
        }
    }

    /// The fate of the ready front request.
    fn decide(&self, front: &Pending, now: u64, blank: Option<u64>, latched: bool) -> Act {
        let at_blank = blank.filter(|v| !latched && ready_by(front, *v));
        match front.mode {
            Mode::Immediate => Act::Show {
                at: now,
                latch: false,
            },
            Mode::Mailbox => {
                let replaced = self.queue.get(1).is_some_and(|next| {
                    next.mode.unqueued() && !next.discard && ready_by(next, now)
                });
                if replaced {
                    Act::Drop { replaced: true }
                } else if let Some(v) = at_blank {
                    Act::Show { at: v, latch: true }
                } else {
                    Act::Wait
                }
            }
            Mode::Fifo | Mode::FifoRelaxed => {
                if let Some(v) = at_blank.filter(|v| self.target_ok(front.target, *v)) {
                    Act::Show { at: v, latch: true }
                } else if front.mode == Mode::FifoRelaxed
                    && front.target == Target::None
                    && self.late(now)
                {
                    Act::Show {
                        at: now,
                        latch: false,
                    }
                } else {
                    Act::Wait
                }
            }
        }
    }

    fn show(&mut self, id: ReqId, at: u64, out: &mut Vec<Event>) {
        out.push(Event::Shown { id, at });
        if let Some((old, _)) = self.on_screen.replace((id, at)) {
            out.push(Event::Freed { id: old });
        }
    }

    fn shown_at(&self) -> u64 {
        self.on_screen.map_or(0, |(_, at)| at)
    }

    /// FIFO_RELAXED's condition: a blank passed since the current image was shown, and nothing
    /// was latched at it.
    fn late(&self, now: u64) -> bool {
        self.on_screen
            .is_some_and(|(_, at)| at < self.vblank_at_or_before(now))
    }

    fn target_ok(&self, target: Target, v: u64) -> bool {
        let half = self.period_ns / 2;
        let (goal, nearest) = match target {
            Target::None => return true,
            Target::Absolute { at, nearest } => (at, nearest),
            Target::Relative { after, nearest } => (self.shown_at().saturating_add(after), nearest),
        };
        if nearest {
            v + half >= goal
        } else {
            v >= goal
        }
    }
}

enum Act {
    Wait,
    Drop { replaced: bool },
    Show { at: u64, latch: bool },
}

fn ready_by(p: &Pending, t: u64) -> bool {
    p.eligible_ns.is_some_and(|e| e <= t)
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u64 = 1000;

    fn pending(id: ReqId, mode: Mode, ready: Option<u64>) -> Pending {
        Pending {
            id,
            mode,
            target: Target::None,
            discard: false,
            eligible_ns: ready,
        }
    }

    fn run(d: &mut Display, now: u64) -> Vec<Event> {
        let mut out = Vec::new();
        d.pump(now, &mut out);
        out
    }

    #[test]
    fn fifo_shows_one_image_per_blank_and_frees_the_predecessor() {
        let mut d = Display::new(P, 0);
        for id in 1..=3 {
            d.push(pending(id, Mode::Fifo, Some(10)));
        }
        assert_eq!(run(&mut d, 500), vec![]);
        assert_eq!(run(&mut d, 1001), vec![Event::Shown { id: 1, at: 1000 }]);
        assert_eq!(run(&mut d, 1500), vec![]);
        assert_eq!(
            run(&mut d, 2003),
            vec![Event::Shown { id: 2, at: 2000 }, Event::Freed { id: 1 }]
        );
        assert_eq!(d.next_wakeup(2003), Some(3000));
    }

    #[test]
    fn blanks_the_engine_slept_through_are_applied_in_order() {
        let mut d = Display::new(P, 0);
        d.push(pending(1, Mode::Fifo, Some(10)));
        d.push(pending(2, Mode::Fifo, Some(20)));
        d.push(pending(3, Mode::Fifo, Some(2500)));
        // The thread wakes at 3.2 periods: frames 1 and 2 were ready for the blanks at 1000
        // and 2000, frame 3 for the one at 3000.
        assert_eq!(
            run(&mut d, 3200),
            vec![
                Event::Shown { id: 1, at: 1000 },
                Event::Shown { id: 2, at: 2000 },
                Event::Freed { id: 1 },
                Event::Shown { id: 3, at: 3000 },
                Event::Freed { id: 2 },
            ]
        );
    }

    #[test]
    fn fifo_waits_for_an_unready_front_and_never_shows_before_ready() {
        let mut d = Display::new(P, 0);
        d.push(pending(1, Mode::Fifo, None));
        assert_eq!(run(&mut d, 1001), vec![]);
        d.mark_ready(1, 1200);
        assert_eq!(run(&mut d, 1300), vec![]);
        assert_eq!(run(&mut d, 2001), vec![Event::Shown { id: 1, at: 2000 }]);
    }

    #[test]
    fn mailbox_replaces_the_pending_image() {
        let mut d = Display::new(P, 0);
        d.push(pending(1, Mode::Mailbox, Some(100)));
        d.push(pending(2, Mode::Mailbox, Some(200)));
        d.push(pending(3, Mode::Mailbox, Some(300)));
        let ev = run(&mut d, 400);
        assert_eq!(
            ev,
            vec![
                Event::Dropped {
                    id: 1,
                    at: 400,
                    replaced: true
                },
                Event::Freed { id: 1 },
                Event::Dropped {
                    id: 2,
                    at: 400,
                    replaced: true
                },
                Event::Freed { id: 2 },
            ]
        );
        assert_eq!(run(&mut d, 1000), vec![Event::Shown { id: 3, at: 1000 }]);
    }

    #[test]
    fn immediate_shows_at_once() {
        let mut d = Display::new(P, 0);
        d.push(pending(1, Mode::Immediate, Some(120)));
        d.push(pending(2, Mode::Immediate, Some(130)));
        assert_eq!(
            run(&mut d, 140),
            vec![
                Event::Shown { id: 1, at: 140 },
                Event::Shown { id: 2, at: 140 },
                Event::Freed { id: 1 }
            ]
        );
    }

    #[test]
    fn fifo_relaxed_shows_a_late_image_at_once() {
        let mut d = Display::new(P, 0);
        d.push(pending(1, Mode::FifoRelaxed, Some(10)));
        assert_eq!(run(&mut d, 1000), vec![Event::Shown { id: 1, at: 1000 }]);
        // Nothing ready at the blank at 2000: the next image is late and goes up at once.
        assert_eq!(run(&mut d, 2000), vec![]);
        d.push(pending(2, Mode::FifoRelaxed, Some(2300)));
        assert_eq!(
            run(&mut d, 2310),
            vec![Event::Shown { id: 2, at: 2310 }, Event::Freed { id: 1 }]
        );
        // On time: waits for the blank like FIFO.
        d.push(pending(3, Mode::FifoRelaxed, Some(2500)));
        assert_eq!(run(&mut d, 2600), vec![]);
    }

    #[test]
    fn absolute_and_relative_targets_hold_fifo_back() {
        let mut d = Display::new(P, 0);
        let mut p = pending(1, Mode::Fifo, Some(10));
        p.target = Target::Absolute {
            at: 2500,
            nearest: false,
        };
        d.push(p);
        assert_eq!(run(&mut d, 1000), vec![]);
        assert_eq!(run(&mut d, 2000), vec![]);
        assert_eq!(run(&mut d, 3000), vec![Event::Shown { id: 1, at: 3000 }]);
        let mut q = pending(2, Mode::Fifo, Some(3010));
        q.target = Target::Relative {
            after: 2 * P,
            nearest: true,
        };
        d.push(q);
        assert_eq!(run(&mut d, 4000), vec![]);
        assert_eq!(
            run(&mut d, 5000),
            vec![Event::Shown { id: 2, at: 5000 }, Event::Freed { id: 1 }]
        );
        let mut r = pending(3, Mode::Fifo, Some(5010));
        r.target = Target::Absolute {
            at: 6400,
            nearest: true,
        };
        d.push(r);
        assert_eq!(
            run(&mut d, 6000),
            vec![Event::Shown { id: 3, at: 6000 }, Event::Freed { id: 2 }]
        );
    }

    #[test]
    fn rejected_presents_are_dropped_once_ready_and_removal_blanks_the_screen() {
        let mut d = Display::new(P, 0);
        let mut p = pending(1, Mode::Fifo, None);
        p.discard = true;
        d.push(p);
        d.push(pending(2, Mode::Fifo, Some(5)));
        assert_eq!(run(&mut d, 50), vec![]);
        d.mark_ready(1, 60);
        assert_eq!(
            run(&mut d, 1000),
            vec![
                Event::Dropped {
                    id: 1,
                    at: 1000,
                    replaced: false
                },
                Event::Freed { id: 1 },
                Event::Shown { id: 2, at: 1000 }
            ]
        );
        assert_eq!(d.remove_where(|id| id == 2), vec![2]);
        assert_eq!(d.next_wakeup(1000), None);
    }
}
