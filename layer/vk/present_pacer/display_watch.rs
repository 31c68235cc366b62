//! The display watched during a pacing sleep, where the lineage's pacing wants exact display
//! times: a zero-timeout `vkWaitForPresentKHR` of the present the machine names and, if it was
//! not shown yet, a wait for it until the sleep's end. Why only such a wait gives an exact time: door 1's
//! `core::machine::display_watch`, which does the same in its sleep.
//!
//! Like every pause it runs without the pacer (and the caller's lock). The swapchain is the
//! one of the application's call that sleeps (a present, or an acquire), which the
//! application synchronizes for the call: the spec's host-synchronization list for
//! `vkWaitForPresentKHR` has "host access to swapchain must be externally synchronized", and
//! the application's call also keeps it alive and not retired (destroying it, or retiring it as
//! an `oldSwapchain`, needs the same external synchronization).

use std::time::Instant;

use ash::vk;

use super::PresentPacer;
use crate::vk::display::DisplayFns;
use crate::vk::error::Result;
use crate::vk::shell::status;
use vkpace_core::VkStatus;

/// A watch to carry out: present `id` on `swapchain`, until `until`.
pub(super) struct DisplayWatch {
    display: DisplayFns,
    swapchain: vk::SwapchainKHR,
    id: u64,
    until: Instant,
}

/// What a watch saw, to report.
pub(super) struct Watched {
    swapchain: vk::SwapchainKHR,
    status: VkStatus,
    /// The wait began while the present was not shown and ended because it was shown.
    exact: bool,
    at: Instant,
}

impl DisplayWatch {
    /// Polls, then waits until the sleep's end; sleeps out what is left of it if the present
    /// was not shown by then.
    pub(super) fn carry_out(self) -> Watched {
        // SUBOPTIMAL is a success code here: shown, on a swapchain due for recreation.
        let shown = |s: VkStatus| matches!(s, VkStatus::SUCCESS | VkStatus::SUBOPTIMAL);
        let polled = self.wait(0);
        if polled != VkStatus::TIMEOUT {
            if !shown(polled) {
                // An error (the surface lost, the device lost): the sleep is the pacing's,
                // and is kept; the error is the machine's to judge.
                crate::vk::sleep_until(self.until);
            }
            return self.watched(polled, false);
        }
        let left = self.until.saturating_duration_since(Instant::now());
        let waited = self.wait(crate::vk::clock::ns_of(left));
        if !shown(waited) {
            crate::vk::sleep_until(self.until);
        }
        self.watched(waited, shown(waited))
    }

    fn wait(&self, timeout_ns: u64) -> VkStatus {
        // SAFETY: the pacer asked only about a live, non-retired swapchain's present that
        // returned a success code (VUID-vkWaitForPresent2KHR-presentId-10817), made with the
        // path's create flags; the application's call synchronizes the swapchain and keeps it
        // so for the wait (module docs).
        status(unsafe { self.display.wait(self.swapchain, self.id, timeout_ns) })
    }

    fn watched(&self, status: VkStatus, exact: bool) -> Watched {
        Watched {
            swapchain: self.swapchain,
            status,
            exact,
            at: Instant::now(),
        }
    }
}

impl PresentPacer {
    /// The watch of present `id` (`vkpace_core::SleepWatch::Display`) for the sleep of
    /// `swapchain`'s lineage until `until`, if `swapchain` has a display path.
    pub(super) fn display_watch(
        &self,
        swapchain: vk::SwapchainKHR,
        id: u64,
        until: Instant,
    ) -> Option<DisplayWatch> {
        let display = *self.display_fns(swapchain)?;
        Some(DisplayWatch {
            display,
            swapchain,
            id,
            until,
        })
    }

    /// A watch carried out: what it saw, told to the machine (exact where it was).
    pub(super) fn display_watched(&mut self, w: Watched) -> Result<()> {
        let at = self.vk.clock.ns_at(w.at);
        let told = match w.exact {
            true => self.machine.display_watched(w.swapchain, w.status, at),
            false => self.machine.display_answer(w.swapchain, w.status, at),
        };
        Ok(told?)
    }
}
