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
    /// Relative targets count from the time the engine acted on the previous image (the
    /// `timing_relative_from = visible` setting) instead of the blank it was shown at.
    pub relative_from_visible: bool,
    queue: VecDeque<Pending>,
    /// The image on screen: its id, the time it was shown at, and the time the engine acted
    /// on it (the thread's clock when it latched it; later than a blank by its wake-up delay).
    on_screen: Option<(ReqId, u64, u64)>,
    last_pumped_vblank: u64,
    /// The time of the current [`Self::pump`] call: when the engine acts.
    acting_ns: u64,
}

impl Display {
    /// An empty display whose grid passes through `epoch_ns`.
    pub fn new(period_ns: u64, epoch_ns: u64) -> Self {
        Self {
            period_ns: period_ns.max(1),
            epoch_ns,
            relative_from_visible: false,
            queue: VecDeque::new(),
            on_screen: None,
            last_pumped_vblank: epoch_ns,
            acting_ns: epoch_ns,
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
        if let Some((id, _, _)) = self.on_screen {
            if pred(id) {
                self.on_screen = None;
                removed.push(id);
            }
        }
        removed
    }

    /// When the display next needs attention after `now`: nothing while its front request is
    /// not ready (the engine is woken when one becomes ready), else the next blank at which the
    /// front may be shown (for a FIFO target, the first blank the target allows), or an earlier
    /// time at which a delayed request becomes eligible. So a display whose period is a
    /// nanosecond (an engine with no refresh limit) sleeps until something can happen instead
    /// of waking every period.
    pub fn next_wakeup(&self, now: u64) -> Option<u64> {
        let front = self.queue.front()?;
        let eligible = self
            .queue
            .iter()
            .filter_map(|p| p.eligible_ns)
            .filter(|e| *e > now)
            .min();
        if !ready_by(front, now) {
            return eligible;
        }
        let mut next_blank = self.vblank_at_or_before(now) + self.period_ns;
        if matches!(front.mode, Mode::Fifo | Mode::FifoRelaxed) && !front.discard {
            if let Some(earliest) = self.earliest_visible(front.target) {
                next_blank = next_blank.max(self.vblank_at_or_after(earliest));
            }
        }
        Some(eligible.map_or(next_blank, |e| e.min(next_blank)))
    }

    /// The first blank at or after `t`.
    fn vblank_at_or_after(&self, t: u64) -> u64 {
        let v = self.vblank_at_or_before(t);
        if v >= t {
            v
        } else {
            v.saturating_add(self.period_ns)
        }
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
        self.acting_ns = now;
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
        let acted = self.acting_ns.max(at);
        if let Some((old, _, _)) = self.on_screen.replace((id, at, acted)) {
            out.push(Event::Freed { id: old });
        }
    }

    /// What a relative target counts from: the blank the current image was shown at, or with
    /// [`Self::relative_from_visible`] the time the engine acted on it.
    fn relative_base(&self) -> u64 {
        self.on_screen.map_or(0, |(_, at, acted)| {
            if self.relative_from_visible {
                acted
            } else {
                at
            }
        })
    }

    /// FIFO_RELAXED's condition: a blank passed since the current image was shown, and nothing
    /// was latched at it.
    fn late(&self, now: u64) -> bool {
        self.on_screen
            .is_some_and(|(_, at, _)| at < self.vblank_at_or_before(now))
    }

    fn target_ok(&self, target: Target, v: u64) -> bool {
        self.earliest_visible(target)
            .is_none_or(|earliest| v >= earliest)
    }

    /// The earliest blank time a target allows (`None`: no target). With
    /// PRESENT_AT_NEAREST_REFRESH_CYCLE a blank within half a period of the goal is taken.
    fn earliest_visible(&self, target: Target) -> Option<u64> {
        let (goal, nearest) = match target {
            Target::None => return None,
            Target::Absolute { at, nearest } => (at, nearest),
            Target::Relative { after, nearest } => {
                (self.relative_base().saturating_add(after), nearest)
            }
        };
        Some(if nearest {
            goal.saturating_sub(self.period_ns / 2)
        } else {
            goal
        })
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
mod tests;
