//! The presenter: the bookkeeping of vkpace's semaphores and swapchains. It composes the
//! frames-in-flight gate, the acquire ring, the per-image present histories and the retire
//! queue, and says which semaphore may be reused and which swapchain destroyed. The frame
//! machine ([`super::FrameMachine`]) drives it; its unit tests below drive it directly.

use std::collections::VecDeque;

use super::acquire_semaphores::AcquireSemaphores;
use super::error::CoreError;
use super::pacer::{FramePacer, MAX_FRAMES_IN_FLIGHT};
use super::present_history::PresentSemaphoreChoice;
use super::retire_queue::{RetireQueue, Retired};
use super::serial::Serial;
use super::swapchain_state::SwapchainState;

/// The most semaphores a [`crate::core::FrameMachine`] holds at once, for `frames_in_flight` N, swapchains of at
/// most `max_images` images and a retired cap C:
///
/// `(N + 1 + C + 1)` acquire semaphores (one per frame in flight, one being acquired, one per
/// retired swapchain whose held image is being consumed) `+ (C + 2) · max_images · (N + 1)`
/// present semaphores (every live swapchain's images, N+1 deep; C+1 retired plus the current)
/// `+ 2 · (N + 1)` pooled ones. In steady state (no recreation) only `(N + 1) + max_images · (N + 1)`
/// are reachable. The property tests check both at every step of every schedule.
#[must_use]
pub fn semaphore_bound(frames_in_flight: usize, max_images: usize, max_retired: usize) -> usize {
    let n1 = frames_in_flight + 1;
    (n1 + max_retired + 1) + (max_retired + 2) * max_images * n1 + 2 * n1
}

/// Settings of a [`Presenter`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PresenterConfig {
    /// Frames the CPU may queue ahead of the GPU, 1..=3. Default 2.
    pub frames_in_flight: usize,
    /// Retired swapchains allowed to wait for proof before [`Presenter::retired_over_cap`] asks
    /// for the bounded fallback wait. Default 5, as ANGLE (some drivers refuse a new swapchain
    /// past about 20 alive).
    pub max_retired_swapchains: usize,
}

impl Default for PresenterConfig {
    fn default() -> Self {
        Self {
            frames_in_flight: 2,
            max_retired_swapchains: 5,
        }
    }
}

/// Something the shell must carry out.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum Action<S, W> {
    /// Destroy this semaphore: it has no pending signal or wait, and the core dropped it.
    DestroySemaphore(S),
    /// Destroy this retired swapchain (and what the shell made for it, such as image views).
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
    /// `VK_SUBOPTIMAL_KHR`, `VK_ERROR_OUT_OF_DATE_KHR` or `VK_ERROR_SURFACE_LOST_KHR`: the spec
    /// says the queue operations, semaphore waits included, are still enqueued (*vkQueuePresentKHR*,
    /// "the set of queue operations are still considered to be enqueued"). Recreate next frame.
    QueuedStale,
    /// Any other error: the wait may never execute. The semaphore is destroyed, never reused.
    Failed,
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

/// Counters a shell reports (all since creation).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PresenterStats {
    /// The most retired swapchains pending at once.
    pub retired_max_pending: usize,
    /// Times the retired-swapchain cap forced the fallback wait.
    pub fallback_waits: u64,
    /// Semaphores the core handed back through [`Action::DestroySemaphore`].
    pub semaphores_destroyed: u64,
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
    actions: VecDeque<Action<S, W>>,
    retired: RetireQueue<S, W>,
    /// Present semaphores known unsignalled with nothing pending, shared across swapchains.
    pool: Vec<S>,
    max_retired: usize,
    stats: PresenterStats,
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

impl<S, W> Presenter<S, W>
where
    S: Copy + PartialEq + std::fmt::Debug,
    W: Copy + std::fmt::Debug,
{
    /// A presenter with no swapchain yet.
    pub fn new(config: PresenterConfig) -> Result<Self, CoreError> {
        let pacer = FramePacer::new(config.frames_in_flight)?;
        let max_retired = config.max_retired_swapchains.max(1);
        Ok(Self {
            pacer,
            max_retired,
            completed: Serial::NONE,
            last_submitted: Serial::NONE,
            acquire: AcquireSemaphores::with_capacity(MAX_FRAMES_IN_FLIGHT + max_retired + 2),
            current: None,
            retired: RetireQueue::with_capacity(max_retired + 2),
            pool: Vec::with_capacity(Self::pool_cap_for(MAX_FRAMES_IN_FLIGHT)),
            frame: None,
            slots: [Serial::NONE; MAX_FRAMES_IN_FLIGHT],
            actions: VecDeque::with_capacity(64),
            stats: PresenterStats::default(),
        })
    }

    /// Free present semaphores kept for the next swapchain: enough for its first N+1 frames
    /// twice over, so a resize storm does not create and destroy semaphores every frame.
    fn pool_cap_for(frames_in_flight: usize) -> usize {
        2 * (frames_in_flight + 1)
    }

    fn depth(&self) -> usize {
        self.pacer.frames_in_flight() + 1
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
        self.stats.retired_max_pending = self.stats.retired_max_pending.max(self.retired.len());
        self.collect_retired();
        Ok(consume)
    }

    /// A batch waiting on `semaphore` (returned by [`Presenter::swapchain_created`] or
    /// [`Presenter::release_held`]) was submitted with `serial`.
    pub fn consume_submitted(&mut self, semaphore: S, serial: Serial) -> Result<(), CoreError> {
        self.record_submission(serial)?;
        if !self.acquire.waited_by(semaphore, serial) {
            return Err(CoreError::OutOfOrder(
                "consume_submitted: unknown acquire semaphore",
            ));
        }
        if !self.retired.consume_submitted(semaphore, serial) {
            if let Some(cur) = self.current.as_mut() {
                cur.last_serial = cur.last_serial.max(serial);
            }
        }
        Ok(())
    }

    /// A submission that waits on nothing was made with `serial` (the proof submission of the
    /// bounded fallback and of teardown).
    pub fn empty_submitted(&mut self, serial: Serial) -> Result<(), CoreError> {
        self.record_submission(serial)
    }

    /// Gives up an acquired image that was not submitted: returns its acquire semaphore, which
    /// has a pending signal, for the shell to consume (see [`Presenter::consume_submitted`]). The
    /// present semaphore chosen for it, never signalled, goes back to the pool.
    pub fn release_held(&mut self) -> Option<S> {
        let frame = self.frame?;
        if frame.submitted.is_some() {
            return None;
        }
        self.frame = None;
        if let Some(p) = frame.present {
            self.recycle_present_semaphore(p, false);
        }
        Some(frame.acquire)
    }

    // ----- inputs: per frame ------------------------------------------------------------------

    /// Whether the next frame may begin (pacing: frame F waits for frame F-N's submission).
    pub fn begin_frame(&self) -> FrameGate {
        // Checked for a held image too: it passed the gate when its frame began, but N may have
        // been lowered since (with N unchanged no submission happened, so it passes again).
        if self.frame.is_some_and(|f| f.submitted.is_some()) {
            return FrameGate::Ready;
        }
        let needed = self.pacer.serial_to_wait();
        if needed.is_complete(self.completed) {
            FrameGate::Ready
        } else {
            FrameGate::WaitFor(needed)
        }
    }

    /// A free acquire semaphore, marked as handed to an acquire; `None` means create one and
    /// register it with [`Presenter::acquire_semaphore_created`].
    pub fn take_acquire_semaphore(&mut self) -> Option<S> {
        self.acquire.take(self.completed)
    }

    /// Registers a semaphore the shell created for an acquire.
    pub fn acquire_semaphore_created(&mut self, semaphore: S) {
        self.acquire.start_new(semaphore);
    }

    /// The acquire returned no image (error, timeout, not ready): nothing was signalled.
    pub fn acquire_failed(&mut self, semaphore: S) -> Result<(), CoreError> {
        if self.acquire.acquire_failed(semaphore) {
            Ok(())
        } else {
            Err(CoreError::OutOfOrder(
                "acquire_failed: unknown acquire semaphore",
            ))
        }
    }

    /// The acquire returned `image` and will signal `semaphore`.
    pub fn image_acquired(&mut self, semaphore: S, image: u32) -> Result<(), CoreError> {
        if self.frame.is_some() {
            return Err(CoreError::OutOfOrder(
                "image_acquired while a frame is in progress",
            ));
        }
        let count = self
            .current
            .as_ref()
            .ok_or(CoreError::NoSwapchain)?
            .images
            .len();
        if image as usize >= count {
            return Err(self.image_out_of_range(semaphore, image, count));
        }
        if !self.acquire.acquired(semaphore) {
            return Err(CoreError::OutOfOrder(
                "image_acquired: unknown acquire semaphore",
            ));
        }
        // After the pacing gate at most N - 1 <= 2 frames are pending, so one of the three
        // slots has completed.
        let completed = self.completed;
        let slot = self
            .slots
            .iter()
            .position(|s| s.is_complete(completed))
            .ok_or(CoreError::OutOfOrder(
                "image_acquired before begin_frame said Ready",
            ))?;
        self.frame = Some(FrameSemaphores {
            image,
            acquire: semaphore,
            present: None,
            submitted: None,
            slot,
        });
        Ok(())
    }

    /// An acquire returned an index past the image count. Out of line, so that the frame
    /// path's code stays small (see `vk::Swapchain`'s layout note).
    fn image_out_of_range(&mut self, semaphore: S, image: u32, count: usize) -> CoreError {
        // The semaphore will be signalled anyway; keep the ring consistent.
        self.acquire.acquired(semaphore);
        CoreError::ImageOutOfRange {
            index: image,
            count: u32::try_from(count).unwrap_or(u32::MAX),
        }
    }

    /// A poisoned present semaphore left an image's history: destroy it. Out of line, so that
    /// the frame path's code stays small.
    fn destroy_poisoned(actions: &mut VecDeque<Action<S, W>>, stats: &mut PresenterStats, s: S) {
        stats.semaphores_destroyed += 1;
        actions.push_back(Action::DestroySemaphore(s));
    }

    /// The frame in progress (acquired, maybe submitted), or an image held from a frame that
    /// was not submitted.
    #[must_use]
    pub fn frame(&self) -> Option<FrameSemaphores<S>> {
        self.frame
    }

    /// Picks the present semaphore of the frame in progress.
    pub fn choose_present_semaphore(&mut self) -> Result<PresentSemaphoreChoice<S>, CoreError> {
        let frame = self.frame.ok_or(CoreError::OutOfOrder(
            "choose_present_semaphore without an image",
        ))?;
        if let Some(p) = frame.present {
            return Ok(PresentSemaphoreChoice::Reuse(p));
        }
        let depth = self.depth();
        let completed = self.completed;
        let cur = self.current.as_mut().ok_or(CoreError::NoSwapchain)?;
        let history = &mut cur.images[frame.image as usize];
        let actions = &mut self.actions;
        let stats = &mut self.stats;
        let mut choice = history.choose(depth, completed, |s| {
            Self::destroy_poisoned(actions, stats, s);
        });
        if choice == PresentSemaphoreChoice::Create {
            if let Some(s) = self.pool.pop() {
                choice = PresentSemaphoreChoice::Reuse(s);
            }
        }
        if let PresentSemaphoreChoice::Reuse(s) = choice {
            if let Some(f) = self.frame.as_mut() {
                f.present = Some(s);
            }
        }
        Ok(choice)
    }

    /// Adds a new, unsignalled present semaphore to the free pool ahead of need (so a shell can
    /// create its semaphores before the frame loop). Returns it back when the pool is full.
    pub fn add_free_present_semaphore(&mut self, semaphore: S) -> Result<(), S> {
        if self.pool.len() < Self::pool_cap_for(self.pacer.frames_in_flight()) {
            self.pool.push(semaphore);
            Ok(())
        } else {
            Err(semaphore)
        }
    }

    /// How many free present semaphores the pool holds.
    #[must_use]
    pub fn free_present_semaphores(&self) -> usize {
        self.pool.len()
    }

    /// Registers a present semaphore the shell created after [`PresentSemaphoreChoice::Create`].
    pub fn present_semaphore_created(&mut self, semaphore: S) -> Result<(), CoreError> {
        match self.frame.as_mut() {
            Some(f) if f.present.is_none() => {
                f.present = Some(semaphore);
                Ok(())
            }
            _ => Err(CoreError::OutOfOrder(
                "present_semaphore_created without a choice",
            )),
        }
    }

    /// The frame's submission (waiting on its acquire semaphore, signalling its present
    /// semaphore) was made with `serial`.
    pub fn frame_submitted(&mut self, serial: Serial) -> Result<(), CoreError> {
        let frame = self
            .frame
            .ok_or(CoreError::OutOfOrder("frame_submitted without an image"))?;
        if frame.present.is_none() || frame.submitted.is_some() {
            return Err(CoreError::OutOfOrder(
                "frame_submitted needs a chosen present semaphore and no earlier submit",
            ));
        }
        self.record_submission(serial)?;
        self.acquire.waited_by(frame.acquire, serial);
        self.pacer.frame_submitted(serial);
        self.slots[frame.slot] = serial;
        let cur = self.current.as_mut().ok_or(CoreError::NoSwapchain)?;
        cur.last_serial = serial;
        // This submission waited on a new acquire of the image: it proves the image's earlier
        // presents, and (presents being processed in order) every present to older swapchains.
        if cur.images[frame.image as usize].prove_previous(serial) {
            self.retired.prove_all(serial);
        }
        if let Some(f) = self.frame.as_mut() {
            f.submitted = Some(serial);
        }
        Ok(())
    }

    /// The frame was handed to `vkQueuePresentKHR` with present fence `present_fence`
    /// (`VK_EXT_swapchain_maintenance1`); report it with [`Presenter::present_fence_signaled`].
    /// A failed present's fence is not relied on (it may never signal).
    pub fn frame_presented_with_fence(
        &mut self,
        outcome: PresentOutcome,
        present_fence: Option<u64>,
    ) -> Result<(), CoreError> {
        let frame = match self.frame {
            Some(f) if f.submitted.is_some() => f,
            _ => {
                return Err(CoreError::OutOfOrder(
                    "frame_presented before frame_submitted",
                ))
            }
        };
        let present = frame.present.ok_or(CoreError::OutOfOrder(
            "frame_presented without a present semaphore",
        ))?;
        let failed = outcome == PresentOutcome::Failed;
        let fence = present_fence.filter(|_| !failed);
        let cur = self.current.as_mut().ok_or(CoreError::NoSwapchain)?;
        cur.images[frame.image as usize].push(present, failed, fence);
        cur.presented = true;
        if fence.is_some() {
            cur.pending_present_fences += 1;
        } else {
            cur.unfenced_presents += 1;
        }
        self.frame = None;
        Ok(())
    }

    /// Present fence `id` signalled. Returns `false` for a fence the core does not rely on
    /// (that of a failed present). Destroys what that proves idle.
    pub fn present_fence_signaled(&mut self, id: u64) -> bool {
        let found = self
            .current
            .iter_mut()
            .chain(self.retired.iter_mut().map(|r| &mut r.state))
            .find_map(|state| {
                let hit = state
                    .images
                    .iter_mut()
                    .any(|h| h.present_fence_signaled(id));
                hit.then_some(state)
            });
        match found {
            Some(state) => {
                state.pending_present_fences = state.pending_present_fences.saturating_sub(1);
                self.collect_retired();
                true
            }
            None => false,
        }
    }

    /// Every submission up to `serial` has completed (a fence of `serial` signalled).
    pub fn serial_completed(&mut self, serial: Serial) -> Result<(), CoreError> {
        if serial > self.last_submitted {
            return Err(CoreError::CompletedUnsubmitted {
                given: serial,
                last: self.last_submitted,
            });
        }
        if serial > self.completed {
            self.completed = serial;
            self.collect_retired();
        }
        Ok(())
    }

    /// With more retired swapchains pending than the cap, the serial the shell must wait for,
    /// followed by the queue going idle (the bounded fallback), before calling
    /// [`Presenter::fallback_waited`].
    #[must_use]
    pub fn retired_over_cap(&self) -> Option<Serial> {
        (self.retired.len() > self.max_retired).then_some(self.last_submitted)
    }

    /// The shell waited for `serial` and for the presenting queue to go idle: every present
    /// queued so far has consumed its wait. Destroys what that proves idle.
    pub fn fallback_waited(&mut self, serial: Serial) -> Result<(), CoreError> {
        self.serial_completed(serial)?;
        self.stats.fallback_waits += 1;
        self.prove_everything_presented();
        self.collect_retired();
        Ok(())
    }

    /// At shutdown, after [`Presenter::release_held`], a wait for
    /// [`Presenter::last_submitted`] and the queue going idle: retires everything and emits the
    /// actions that destroy it. Returns an error if something still has a pending signal with no
    /// wait submitted (a held image that was not consumed), in which case nothing is released.
    pub fn shutdown_waited(&mut self) -> Result<(), CoreError> {
        if self.frame.is_some() {
            return Err(CoreError::OutOfOrder("shutdown with a frame in progress"));
        }
        let freeing = self
            .acquire
            .serial_freeing_all()
            .ok_or(CoreError::OutOfOrder(
                "shutdown with an unconsumed acquire semaphore",
            ))?;
        self.serial_completed(self.last_submitted.max(freeing).min(self.last_submitted))?;
        if let Some(cur) = self.current.take() {
            self.retired.retire(cur, None);
        }
        self.prove_everything_presented();
        self.collect_retired();
        let stats = &mut self.stats;
        for s in self.acquire.drain().chain(self.pool.drain(..)) {
            stats.semaphores_destroyed += 1;
            self.actions.push_back(Action::DestroySemaphore(s));
        }
        Ok(())
    }

    // ----- outputs ----------------------------------------------------------------------------

    /// The next thing to carry out, if any. Poll until `None` after every input.
    pub fn poll_action(&mut self) -> Option<Action<S, W>> {
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

    /// Counters since creation.
    #[must_use]
    pub fn stats(&self) -> PresenterStats {
        self.stats
    }

    // ----- internals --------------------------------------------------------------------------

    fn record_submission(&mut self, serial: Serial) -> Result<(), CoreError> {
        if serial <= self.last_submitted {
            return Err(CoreError::SerialNotIncreasing {
                given: serial,
                last: self.last_submitted,
            });
        }
        self.last_submitted = serial;
        Ok(())
    }

    fn recycle_present_semaphore(&mut self, semaphore: S, poisoned: bool) {
        if !poisoned && self.pool.len() < Self::pool_cap_for(self.pacer.frames_in_flight()) {
            self.pool.push(semaphore);
        } else {
            self.stats.semaphores_destroyed += 1;
            self.actions.push_back(Action::DestroySemaphore(semaphore));
        }
    }

    /// After a queue-idle wait every queued present has consumed its wait.
    fn prove_everything_presented(&mut self) {
        self.retired.prove_all(Serial::NONE);
        for r in self.retired.iter_mut() {
            for h in &mut r.state.images {
                h.prove_previous(Serial::NONE);
            }
        }
        if let Some(cur) = self.current.as_mut() {
            for h in &mut cur.images {
                h.prove_previous(Serial::NONE);
            }
        }
    }

    /// Destroys (as actions) the retired swapchains now provably idle and recycles their
    /// present semaphores.
    fn collect_retired(&mut self) {
        if self.retired.is_empty() {
            return;
        }
        let completed = self.completed;
        let mut released: Vec<Retired<S, W>> = Vec::new();
        self.retired.collect_idle(completed, |r| released.push(r));
        for mut r in released {
            self.actions
                .push_back(Action::DestroySwapchain(r.state.handle));
            let records: Vec<_> = r.state.images.iter_mut().flat_map(|h| h.drain()).collect();
            for rec in records {
                self.recycle_present_semaphore(rec.semaphore, rec.poisoned);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_frame_through_the_presenter() -> Result<(), CoreError> {
        let mut p: Presenter<u32, &str> = Presenter::new(PresenterConfig::default())?;
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
