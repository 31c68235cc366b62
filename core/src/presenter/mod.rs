//! The presenter: the bookkeeping of vkpace's semaphores and swapchains. It composes the
//! frames-in-flight gate, the acquire ring, the per-image present histories and the retire
//! queue, and says which semaphore may be reused and which swapchain destroyed. The frame
//! machine ([`super::FrameMachine`]) drives it; its unit tests below drive it directly.

mod acquire;
mod present;
mod retire;

use std::collections::VecDeque;

use super::acquire_semaphores::AcquireSemaphores;
use super::error::CoreError;
use super::pacer::{FramePacer, MAX_FRAMES_IN_FLIGHT};
use super::pacing::PacingSettings;
use super::present_history::{history_depth, pool_cap, PresentSemaphoreChoice};
use super::retire_queue::{RetireQueue, Retired};
use super::serial::Serial;
use super::swapchain_state::SwapchainState;
use crate::handle::Handle;
use crate::vk_values::VkStatus;

/// A destruction the shell must carry out, the one kind both doors' machines give: door 1's
/// through [`crate::FrameMachine`]'s requests, door 2's from
/// [`crate::PacerMachine::poll_action`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum DestroyAction<S, W> {
    /// Destroy this semaphore: nothing will signal or wait on it again, and the core dropped
    /// it.
    DestroySemaphore(S),
    /// Destroy this swapchain: retired (door 1) or destroyed by the application (door 2), and
    /// now provably idle. Door 1's shell also destroys what it made for it (image views);
    /// door 2's passes the allocation callbacks the application gave for it.
    DestroySwapchain(W),
}

/// Whether the next frame may begin.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum FrameGate {
    /// Go on.
    Ready,
    /// Wait until this serial completes (report it with [`Presenter::serial_completed`]).
    WaitFor(Serial),
}

/// How a `vkQueuePresentKHR` ended, as far as its semaphore wait is concerned.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PresentOutcome {
    /// `VK_SUCCESS`.
    Queued,
    /// `VK_SUBOPTIMAL_KHR`, `VK_ERROR_OUT_OF_DATE_KHR`, `VK_ERROR_SURFACE_LOST_KHR` or
    /// `VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT`: the spec says the queue operations,
    /// semaphore waits included, are still enqueued (*vkQueuePresentKHR*, "the set of queue
    /// operations are still considered to be enqueued"). Recreate next frame. Also
    /// `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`: not shown, its waits executed; the swapchain
    /// is fine (each door's machine keeps that one apart).
    QueuedStale,
    /// Any other error: the wait may never execute. The semaphore is destroyed, never reused.
    Failed,
}

impl PresentOutcome {
    /// What `vkQueuePresentKHR`'s `status` means for the present's semaphore waits: the one
    /// reading both doors' machines take.
    #[must_use]
    pub fn of(status: VkStatus) -> Self {
        match status {
            VkStatus::SUCCESS => Self::Queued,
            VkStatus::SUBOPTIMAL
            | VkStatus::OUT_OF_DATE
            | VkStatus::SURFACE_LOST
            | VkStatus::FULL_SCREEN_EXCLUSIVE_MODE_LOST
            | VkStatus::PRESENT_TIMING_QUEUE_FULL => Self::QueuedStale,
            _ => Self::Failed,
        }
    }

    /// Whether a present that returned `status` may have its display waited for: a success
    /// code, and not a failure (VUID-vkWaitForPresent2KHR-presentId-10817). Both doors'.
    #[must_use]
    pub fn may_show(status: VkStatus) -> bool {
        status.is_success() && Self::of(status) != Self::Failed
    }
}

/// The image and semaphores of the frame in progress.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FrameSemaphores<S> {
    /// The acquired image index.
    pub image: u32,
    /// Signalled by the acquire; the frame's submission waits on it.
    pub acquire: S,
    /// Signalled by the frame's submission; the present waits on it (once chosen).
    pub present: Option<S>,
    /// The serial of the frame's submission, once submitted.
    pub submitted: Option<Serial>,
    /// Per-frame resource slot in `0..MAX_FRAMES_IN_FLIGHT`: the last submission that used it
    /// has completed, so resources indexed by it (command buffers, uniform buffers) are free.
    /// Chosen by completion rather than frame number, so it stays right when N changes.
    pub slot: usize,
}

/// The sans-IO presentation bookkeeping, generic over semaphore (`S`) and swapchain (`W`)
/// handles.
#[derive(Debug)]
pub struct Presenter<S, W> {
    completed: Serial,
    last_submitted: Serial,
    frame: Option<FrameSemaphores<S>>,
    /// The serial of the last submission that used each resource slot.
    slots: [Serial; MAX_FRAMES_IN_FLIGHT],
    pacer: FramePacer,
    acquire: AcquireSemaphores<S>,
    current: Option<SwapchainState<S, W>>,
    actions: VecDeque<DestroyAction<S, W>>,
    retired: RetireQueue<S, W>,
    /// Present semaphores known unsignalled with nothing pending, shared across swapchains.
    pool: Vec<S>,
    /// Retired swapchains allowed to wait for proof before [`Presenter::retired_over_cap`]
    /// asks for the bounded fallback wait (`PacingSettings::max_retired_swapchains`).
    max_retired: usize,
    /// The most retired swapchains pending at once.
    pub(crate) retired_max_pending: usize,
    /// Times the retired-swapchain cap forced the fallback wait.
    pub(crate) fallback_waits: u64,
}

impl<S: std::fmt::Debug, W: std::fmt::Debug> Presenter<S, W> {
    /// Its lines of the state dump.
    pub(crate) fn dump(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            out,
            "  frames in flight {}, {} pending; slots last used by {}",
            self.pacer.frames_in_flight(),
            self.pacer.frames_pending(self.completed),
            self.slots.map(|s| s.to_string()).join(" ")
        )?;
        if let Some(f) = &self.frame {
            let submitted = f
                .submitted
                .map_or("not submitted".into(), |s| s.to_string());
            writeln!(
                out,
                "  frame in progress: image {}, slot {}, acquire semaphore {:?}, present semaphore {:?}, {submitted}",
                f.image, f.slot, f.acquire, f.present
            )?;
        }
        write!(out, "  acquire semaphores: ")?;
        self.acquire.dump(out)?;
        writeln!(out, "\n  free present semaphores: {}", self.pool.len())?;
        match &self.current {
            Some(c) => c.dump(out, "  ")?,
            None => writeln!(out, "  no swapchain")?,
        }
        self.retired.dump(out)
    }
}

impl<S: Handle, W: Handle> Presenter<S, W> {
    /// A presenter with no swapchain yet, for `settings`' frames in flight and retired cap.
    pub fn new(settings: &PacingSettings) -> Result<Self, CoreError> {
        let pacer = FramePacer::new(settings.frames_in_flight)?;
        let max_retired = settings.max_retired_swapchains.max(1);
        Ok(Self {
            pacer,
            max_retired,
            completed: Serial::NONE,
            last_submitted: Serial::NONE,
            acquire: AcquireSemaphores::with_capacity(MAX_FRAMES_IN_FLIGHT + max_retired + 2),
            current: None,
            retired: RetireQueue::with_capacity(max_retired + 2),
            pool: Vec::with_capacity(pool_cap(MAX_FRAMES_IN_FLIGHT)),
            frame: None,
            slots: [Serial::NONE; MAX_FRAMES_IN_FLIGHT],
            actions: VecDeque::with_capacity(64),
            retired_max_pending: 0,
            fallback_waits: 0,
        })
    }

    fn depth(&self) -> usize {
        history_depth(self.pacer.frames_in_flight())
    }

    fn pool_cap(&self) -> usize {
        pool_cap(self.pacer.frames_in_flight())
    }

    // ----- inputs: configuration -------------------------------------------------------------

    /// Changes frames in flight (1..=3). Lowering it makes the next frame wait longer; the
    /// present histories keep working because their proofs are serials, not frame counts.
    pub fn set_frames_in_flight(&mut self, frames_in_flight: usize) -> Result<(), CoreError> {
        self.pacer.set_frames_in_flight(frames_in_flight)
    }

    // ----- inputs: swapchain lifetime ---------------------------------------------------------

    /// A new swapchain was created (with the current one, if any, as `oldSwapchain`): the old one
    /// is retired. Returns the acquire semaphore of an image that was acquired from the old
    /// swapchain but not presented; the shell must submit a batch waiting on it and report that
    /// with [`Presenter::consume_submitted`] (a pending signal must be waited on before the
    /// semaphore can be reused, `VUID-vkAcquireNextImageKHR-semaphore-01286`).
    pub fn swapchain_created(
        &mut self,
        handle: W,
        image_count: u32,
    ) -> Result<Option<S>, CoreError> {
        if image_count == 0 {
            return Err(CoreError::NoImages);
        }
        if self.frame.is_some_and(|f| f.submitted.is_some()) {
            return Err(CoreError::OutOfOrder(
                "swapchain recreated between frame_submitted and frame_presented",
            ));
        }
        let consume = self.release_held();
        if let Some(old) = self.current.take() {
            self.retired.retire(old, consume);
        }
        let depth = self.depth();
        self.current = Some(SwapchainState::new(handle, image_count, depth));
        self.retired_max_pending = self.retired_max_pending.max(self.retired.len());
        self.collect_retired();
        Ok(consume)
    }

    // ----- inputs: per frame ------------------------------------------------------------------

    // ----- outputs ----------------------------------------------------------------------------

    /// The next thing to carry out, if any. Poll until `None` after every input.
    pub fn poll_action(&mut self) -> Option<DestroyAction<S, W>> {
        self.actions.pop_front()
    }

    // ----- getters ----------------------------------------------------------------------------

    /// The highest completed serial reported.
    #[must_use]
    pub fn completed(&self) -> Serial {
        self.completed
    }

    /// Frames in flight N.
    #[must_use]
    pub fn frames_in_flight(&self) -> usize {
        self.pacer.frames_in_flight()
    }

    /// Submitted frames whose submission has not completed.
    #[must_use]
    pub fn frames_pending(&self) -> usize {
        self.pacer.frames_pending(self.completed)
    }

    /// Present fences of retired swapchains that have not signalled (what the maintenance1
    /// path's bounded fallback waits on).
    pub fn retired_present_fences(&self) -> impl Iterator<Item = u64> + '_ {
        self.retired.iter().flat_map(|r| {
            r.state
                .images
                .iter()
                .flat_map(|h| h.records().filter_map(|rec| rec.present_fence))
        })
    }

    /// Retired swapchains not yet destroyed.
    #[must_use]
    pub fn retired_pending(&self) -> usize {
        self.retired.len()
    }

    /// The deepest present history of any image of any live swapchain.
    #[must_use]
    pub fn deepest_history(&self) -> usize {
        let retired = self.retired.iter().map(|r| r.state.deepest_history());
        self.current
            .iter()
            .map(SwapchainState::deepest_history)
            .chain(retired)
            .max()
            .unwrap_or(0)
    }

    /// Semaphores the core holds: acquire ring, present histories (current and retired) and pool.
    #[must_use]
    pub fn semaphores_held(&self) -> usize {
        let present: usize = self
            .current
            .iter()
            .map(SwapchainState::present_semaphores)
            .chain(self.retired.iter().map(|r| r.state.present_semaphores()))
            .sum();
        let in_frame = self.frame.and_then(|f| f.present).map_or(0, |_| 1);
        self.acquire.len() + present + self.pool.len() + in_frame
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each code `vkQueuePresentKHR` returns, read once for both doors: the waits of a present
    /// that returned a code after which the spec has its queue operations "still considered to
    /// be enqueued" (and a full timing results queue: not shown, its waits executed) execute.
    #[test]
    fn every_present_code_is_read_once() {
        use PresentOutcome::{Failed, Queued, QueuedStale};
        let table = [
            (VkStatus::SUCCESS, Queued),
            (VkStatus::SUBOPTIMAL, QueuedStale),
            (VkStatus::OUT_OF_DATE, QueuedStale),
            (VkStatus::SURFACE_LOST, QueuedStale),
            (VkStatus::FULL_SCREEN_EXCLUSIVE_MODE_LOST, QueuedStale),
            (VkStatus::PRESENT_TIMING_QUEUE_FULL, QueuedStale),
            (VkStatus::DEVICE_LOST, Failed),
            (VkStatus::OUT_OF_HOST_MEMORY, Failed),
            (VkStatus::OUT_OF_DEVICE_MEMORY, Failed),
        ];
        for (status, outcome) in table {
            assert_eq!(PresentOutcome::of(status), outcome, "{status:?}");
        }
    }

    #[test]
    fn one_frame_through_the_presenter() -> Result<(), CoreError> {
        let mut p: Presenter<u32, &str> = Presenter::new(&PacingSettings::default())?;
        assert_eq!(p.swapchain_created("swapchain A", 3)?, None);
        assert_eq!(p.begin_frame(), FrameGate::Ready);
        assert_eq!(p.take_acquire_semaphore(), None);
        p.acquire_semaphore_created(10);
        p.image_acquired(10, 1)?;
        assert_eq!(
            p.choose_present_semaphore()?,
            PresentSemaphoreChoice::Create
        );
        p.present_semaphore_created(20)?;
        p.frame_submitted(Serial(1))?;
        p.frame_presented_with_fence(PresentOutcome::Queued, None)?;
        p.serial_completed(Serial(1))?;
        assert!(p.poll_action().is_none());
        assert_eq!(p.semaphores_held(), 2);
        assert_eq!(
            p.take_acquire_semaphore(),
            Some(10),
            "its waiting submission completed"
        );
        Ok(())
    }
}
