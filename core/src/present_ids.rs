//! Present ids for display feedback (`VK_KHR_present_id` + `VK_KHR_present_wait`): which id each
//! present carries and which presents' display is still awaited.
//!
//! Ids grow by one per present across swapchains too: ids must grow per swapchain
//! (`VUID-VkPresentIdKHR-presentIds-04999`), and one counter for all of them keeps that true
//! after a recreation. Once per frame the machine asks about the oldest awaited present with a
//! zero-timeout `vkWaitForPresentKHR` (low latency also waits for it, bounded, during its pacing
//! sleep: `machine::display_watch`); a retired swapchain is never asked
//! (`VUID-vkWaitForPresentKHR-swapchain-04997`).

use std::collections::VecDeque;

use super::error::Failure;
use super::vk_values::VkStatus;

/// Presents whose display is awaited at most; older ones are given up, so a display that stops
/// reporting cannot grow a queue.
const MAX_AWAITED: usize = 16;

/// What an answer about the oldest awaited present means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Shown {
    /// This frame was shown.
    Frame(u64),
    /// Not shown yet: ask again next frame.
    NotYet,
    /// The swapchain reports no more (out of date): nothing is awaited any more.
    Stopped,
}

/// Ids handed out and presents awaited.
#[derive(Debug)]
pub(crate) struct PresentIds<W> {
    /// Id of the next present (ids start at 1; 0 means "no id").
    next_id: u64,
    /// The swapchain the awaited presents went to.
    swapchain: Option<W>,
    /// (frame number, present id), oldest first.
    awaited: VecDeque<(u64, u64)>,
    /// A wait failed with an error that asking again would repeat (a layer or driver that
    /// offered present wait and does not keep it on this swapchain): nothing is awaited until
    /// the swapchain is retired, so the error is reported once per swapchain, not per frame.
    refused: bool,
}

impl<W: Copy + PartialEq> PresentIds<W> {
    pub(crate) fn new() -> Self {
        Self {
            next_id: 1,
            swapchain: None,
            awaited: VecDeque::with_capacity(MAX_AWAITED),
            refused: false,
        }
    }

    /// The id the next present carries.
    pub(crate) fn next_id(&self) -> u64 {
        self.next_id
    }

    /// A present of `frame` to `swapchain` carried [`Self::next_id`]; `awaited`: it returned a
    /// success code, so its display may be waited for (VUID-vkWaitForPresent2KHR-presentId-10817).
    /// The id is used up either way (a failed present's is not given again). Returns the frame
    /// given up to make room, if [`MAX_AWAITED`] were awaited.
    pub(crate) fn presented(&mut self, swapchain: W, frame: u64, awaited: bool) -> Option<u64> {
        let id = self.next_id;
        self.next_id += 1;
        if !awaited {
            return None;
        }
        self.await_display(swapchain, frame, id)
    }

    /// A present of `frame` to `swapchain` carried the application's own id `id` (which
    /// [`Self::skip_past`] was told of) and returned a success code: its display is awaited as
    /// that of one of vkpace's ids is. The application's ids name its presents in the
    /// swapchain's one id namespace, so a wait for one says when its present was shown.
    pub(crate) fn presented_with(&mut self, swapchain: W, frame: u64, id: u64) -> Option<u64> {
        self.await_display(swapchain, frame, id)
    }

    /// `frame`'s present to `swapchain`, id `id`, joins those awaited; returns the frame given
    /// up to make room, if [`MAX_AWAITED`] were awaited.
    fn await_display(&mut self, swapchain: W, frame: u64, id: u64) -> Option<u64> {
        if self.refused {
            return None;
        }
        if self.swapchain != Some(swapchain) {
            self.awaited.clear();
            self.swapchain = Some(swapchain);
        }
        let given_up = match self.awaited.len() == MAX_AWAITED {
            true => self.awaited.pop_front().map(|(f, _)| f),
            false => None,
        };
        self.awaited.push_back((frame, id));
        given_up
    }

    /// The application chained its own id `id` to a present (the second door passes it on):
    /// the ids vkpace adds later stay above it, as ids must grow per swapchain
    /// (`VUID-VkPresentIdKHR-presentIds-04999`).
    pub(crate) fn skip_past(&mut self, id: u64) {
        self.next_id = self.next_id.max(id.saturating_add(1));
    }

    /// The swapchain is being retired: its presents are not asked about any more.
    pub(crate) fn retired(&mut self) {
        self.awaited.clear();
        self.swapchain = None;
        // The next swapchain may keep what this one refused: it is asked once.
        self.refused = false;
    }

    /// The swapchain and id to ask about next, if any present is awaited.
    pub(crate) fn next_query(&self) -> Option<(W, u64)> {
        let (_, id) = self.awaited.front()?;
        Some((self.swapchain?, *id))
    }

    /// Present timing: the frame that made the present with id `id`; once its result is
    /// `done` (complete) it is no longer awaited (results come in any order, so only that one
    /// is taken; a partial result leaves it awaited).
    pub(crate) fn frame_of(&mut self, id: u64, done: bool) -> Option<u64> {
        let at = self.awaited.iter().position(|(_, i)| *i == id)?;
        if !done {
            return self.awaited.get(at).map(|(frame, _)| *frame);
        }
        self.awaited.remove(at).map(|(frame, _)| frame)
    }

    /// The answer (`vkWaitForPresentKHR`) about [`Self::next_query`].
    pub(crate) fn answer(&mut self, status: VkStatus) -> Result<Shown, Failure> {
        match status {
            // SUBOPTIMAL is a success code here: shown, on a swapchain due for recreation.
            VkStatus::SUCCESS | VkStatus::SUBOPTIMAL => Ok(self
                .awaited
                .pop_front()
                .map_or(Shown::Stopped, |(frame, _)| Shown::Frame(frame))),
            VkStatus::TIMEOUT => Ok(Shown::NotYet),
            // The swapchain reports no more: out of date, or its surface lost (the
            // application recreates or gives up on it; asking again would fail again).
            VkStatus::OUT_OF_DATE | VkStatus::SURFACE_LOST => {
                self.awaited.clear();
                Ok(Shown::Stopped)
            }
            VkStatus::DEVICE_LOST => Err(Failure::DeviceLost),
            // Any other error would come again at every ask: the display is no longer
            // awaited on this lineage, and the error is the caller's once.
            e => {
                self.awaited.clear();
                self.refused = true;
                Err(Failure::from_status("vkWaitForPresentKHR", e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_grow_by_one_per_present_even_when_it_failed() {
        let mut ids = PresentIds::new();
        ids.presented(1u64, 0, true);
        ids.presented(1, 1, false);
        ids.presented(1, 2, true);
        assert_eq!(ids.next_id(), 4);
        assert_eq!(ids.next_query(), Some((1, 1)));
        assert_eq!(ids.answer(VkStatus::SUCCESS), Ok(Shown::Frame(0)));
        assert_eq!(ids.next_query(), Some((1, 3)));
        assert_eq!(ids.answer(VkStatus::TIMEOUT), Ok(Shown::NotYet));
        assert_eq!(ids.next_query(), Some((1, 3)), "asked again");
    }

    #[test]
    fn a_new_or_retired_swapchain_is_never_asked_about_the_old_ones_presents() {
        let mut ids = PresentIds::new();
        ids.presented(1u64, 0, true);
        ids.presented(2, 1, true);
        assert_eq!(ids.next_query(), Some((2, 2)));
        ids.retired();
        assert_eq!(ids.next_query(), None);
    }

    #[test]
    fn out_of_date_ends_the_feedback_and_errors_are_typed() {
        let mut ids = PresentIds::new();
        for f in 0..3 {
            ids.presented(1u64, f, true);
        }
        assert_eq!(ids.answer(VkStatus::SUBOPTIMAL), Ok(Shown::Frame(0)));
        assert_eq!(ids.answer(VkStatus::OUT_OF_DATE), Ok(Shown::Stopped));
        assert_eq!(ids.next_query(), None);
        assert_eq!(ids.answer(VkStatus::DEVICE_LOST), Err(Failure::DeviceLost));
        ids.presented(1u64, 3, true);
        assert_eq!(ids.answer(VkStatus::SURFACE_LOST), Ok(Shown::Stopped));
        assert_eq!(ids.next_query(), None);
    }

    #[test]
    fn a_wait_that_fails_is_not_asked_again() {
        let mut ids = PresentIds::new();
        ids.presented(1u64, 0, true);
        assert!(ids.answer(VkStatus(-7)).is_err());
        assert_eq!(ids.next_query(), None);
        ids.presented(1, 1, true);
        assert_eq!(ids.next_query(), None, "a refused wait is not asked again");
        assert_eq!(ids.next_id(), 3, "ids still grow");
        ids.retired();
        ids.presented(2, 2, true);
        assert_eq!(
            ids.next_query(),
            Some((2, 3)),
            "the next swapchain is asked"
        );
    }

    #[test]
    fn a_display_that_stops_reporting_does_not_grow_the_queue() {
        let mut ids = PresentIds::new();
        for f in 0..100 {
            ids.presented(1u64, f, true);
        }
        assert_eq!(ids.awaited.len(), MAX_AWAITED);
        assert_eq!(
            ids.awaited.front().map(|a| a.0),
            Some(100 - MAX_AWAITED as u64)
        );
    }
}
