//! When frames were shown, from present ids (`VK_KHR_present_wait`, or present_wait2).
//!
//! The completion round at the start of an acquire asks about the oldest awaited present with a
//! zero timeout. A "shown" from such a poll says only that the frame was shown *by now*, up to
//! one loop period earlier. That is enough for telemetry, not for planning: low latency plans
//! each frame to be ready one refresh after the last one shown, so a display time that is late
//! by the loop's own phase starts the next frame later, which polls later, which reads the
//! next display time later still, until a frame misses its refresh (docs/performance.md
//! has the figures).
//!
//! Low latency on a display that queues frames, and a frame limit kept by the CPU (whose grid
//! follows the display's clock: `pacing::DisplayAnchor`), therefore *watch* the display during
//! the pacing sleep: a zero-timeout poll first, and if that frame is not shown yet, a wait for it
//! bounded by the sleep's end. A wait that began while the frame was not shown and ended
//! because it was shown says when it was shown (within the thread's wake-up latency): only such
//! times reach the pacing as exact. One frame is caught per sleep, so without GPU timestamps
//! the rest of the sleep watches the oldest submission (`acquire.rs`, `sleep_until`). Until
//! low latency has display times to plan with it may not sleep at all (the acquire blocks
//! instead), so it then watches once before each frame starts ([`FIRST_WATCH_NS`]).

use super::request::Request;
use super::{Awaiting, FrameMachine};
use crate::error::CoreError;
use crate::handle::Handle;
use crate::present_ids::Shown;
use crate::vk_values::VkStatus;

/// Which question about a present id is awaited.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum PresentQuery {
    /// The completion round's poll.
    Round,
    /// A pacing sleep's poll before it watches this id.
    BeforeWatch(u64),
    /// A pacing sleep's bounded wait.
    Watch,
}

/// How long a watch before a frame's start may wait where low latency has no display time to
/// plan with yet: about a refresh of a slow display. The acquire that follows would mostly wait
/// for the same refresh (the display frees an image when it shows a new one).
const FIRST_WATCH_NS: u64 = 40_000_000;

/// Watches before a frame's start that may time out in a row before vkpace stops asking a
/// display that does not report (each costs up to [`FIRST_WATCH_NS`] once).
const FIRST_WATCH_TRIES: u32 = 8;

/// Where the watch of the display during the current frame's pacing sleep stands.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
enum WatchState {
    #[default]
    Idle,
    /// The answer just given found this id not shown.
    NotShown(u64),
    /// That answer was the last one before this poll: a wait starting now starts while the
    /// frame is still not shown.
    Fresh(u64),
    /// A watch saw a frame shown before this frame's start.
    Caught,
}

/// The display watch of one swapchain object.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct DisplayWatch {
    state: WatchState,
    /// Watches in a row that ended without the frame shown while low latency had no display
    /// time to plan with.
    first_timeouts: u32,
}

impl DisplayWatch {
    /// A new poll of the machine: a "not shown" is fresh for exactly the poll right after it.
    pub(super) fn poll_began(&mut self) {
        self.state = match self.state {
            WatchState::NotShown(id) => WatchState::Fresh(id),
            WatchState::Fresh(_) => WatchState::Idle,
            other => other,
        };
    }
}

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// During a pacing sleep until `until`: look at, then wait for, the oldest awaited present,
    /// where low latency plans for a queued display, or a frame limit's grid follows it
    /// (`pacing::DisplayAnchor`), and present timing does not give exact times already.
    pub(super) fn display_watch_step(&mut self, until: u64, now: u64) -> Option<Request<S, W, F>> {
        if !self.pacing.wants_display_times() || self.timing.is_some() || until <= now {
            return None;
        }
        let (swapchain, id) = self.display.as_ref()?.next_query()?;
        let (query, timeout_ns) = match self.watch.state {
            WatchState::Caught => return None,
            WatchState::Fresh(seen) if seen == id => (PresentQuery::Watch, until - now),
            _ => (PresentQuery::BeforeWatch(id), 0),
        };
        self.awaiting = Some(Awaiting::PresentId(query));
        Some(Request::PollPresentId {
            swapchain,
            id,
            timeout_ns,
        })
    }

    /// A frame about to start with no pacing sleep, where low latency has no display time to
    /// plan with yet (it learns them only in its sleeps, and does not sleep before it has
    /// some): watch the display once before the frame starts, bounded by [`FIRST_WATCH_NS`].
    /// A display that never answers in time is not asked this way again.
    pub(super) fn first_display_watch(&mut self, now: u64) -> Option<Request<S, W, F>> {
        if !self.pacing.watches_before_start() || self.watch.first_timeouts >= FIRST_WATCH_TRIES {
            return None;
        }
        self.display_watch_step(now.saturating_add(FIRST_WATCH_NS), now)
    }

    /// The frame being begun gets a watch of its own.
    pub(super) fn display_watch_reset(&mut self) {
        self.watch.state = WatchState::Idle;
    }

    /// The answer to [`Request::PollPresentId`]: `vkWaitForPresentKHR`'s (or
    /// `vkWaitForPresent2KHR`'s) result, and the time it returned.
    pub fn handle_present_id_status(
        &mut self,
        status: VkStatus,
        now: u64,
    ) -> Result<(), CoreError> {
        let query = self.answer("a present id status nobody asked for", |a| match a {
            Awaiting::PresentId(q) => Some(q),
            _ => None,
        })?;
        let Some(display) = self.display.as_mut() else {
            return Ok(());
        };
        match (display.answer(status), query) {
            (Ok(Shown::Frame(frame)), _) => {
                let exact = query == PresentQuery::Watch;
                let news = self
                    .pacing
                    .frame_shown(&mut self.telemetry, frame, now, exact);
                self.stats.anchor_moves += news.moves;
                if let Some(period) = news.period_ns {
                    self.stats.anchored_period_ns = period;
                }
                if exact {
                    self.stats.display_times_watched += 1;
                    self.watch.state = WatchState::Caught;
                    self.watch.first_timeouts = 0;
                }
            }
            (Ok(Shown::NotYet), PresentQuery::BeforeWatch(id)) => {
                self.watch.state = WatchState::NotShown(id);
            }
            (Ok(Shown::NotYet), PresentQuery::Watch) if self.pacing.watches_before_start() => {
                self.watch.first_timeouts += 1;
            }
            (Ok(Shown::Stopped), query) => {
                self.pacing.display_restarted();
                self.round.display_done |= query == PresentQuery::Round;
            }
            (Ok(Shown::NotYet), PresentQuery::Round) => self.round.display_done = true,
            (Ok(Shown::NotYet), _) => {}
            (Err(f), _) => self.failure = Some(f),
        }
        Ok(())
    }
}
