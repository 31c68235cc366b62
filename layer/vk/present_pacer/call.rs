//! A swapchain call of the second door in three steps, for a pacer shared between threads
//! behind the caller's lock (a drop-in layer's one pacer per device, an engine that acquires
//! and presents from several threads): [`PacerCall::plan`] under the lock, the calls down
//! ([`CallsDown::make`]) with the lock released, [`PacerCall::report`] under the lock again,
//! until the plan has nothing more to do. The plain methods ([`PresentPacer::queue_present`]
//! and the others) run the same steps in one call: only who holds the pacer between them
//! differs. The steps themselves are `call_steps.rs`, the values between them `call_state.rs`.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ash::prelude::VkResult;
use ash::vk;

use super::call_state::{Down, Made, Op, Outcome, Stage};
use super::{Driver, PresentPacer};

/// Numbers pacers and calls apart, so that a step given another pacer's or another call's
/// value is refused rather than mixed up (a fence given back to the wrong pool).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A fresh number for a pacer or a call.
pub(super) fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// One call of [`PresentPacer`] (a present, an acquire, a swapchain's creation or destruction)
/// carried out in steps, so that a caller sharing the pacer behind a lock makes every call that
/// may block (the driver's present, acquire, creation and destruction, the repair submission,
/// the frame limit's sleep, the frames-in-flight gate's bounded GPU wait) with the lock
/// released, and another thread's call of the pacer is not held up by it.
///
/// Made by [`PresentPacer::present_call`], [`PresentPacer::acquire_call`],
/// [`PresentPacer::acquire2_call`], [`PresentPacer::create_call`] or
/// [`PresentPacer::destroy_call`]; `T` is the plain method's result. Each round is three steps:
/// [`Self::plan`] on the pacer (under the lock), then [`CallsDown::make`] (needs no pacer; it
/// borrows the call, so the call outlives it), then [`Self::report`] (under the lock again).
/// When `plan` answers `None` the call is over: [`Self::finish`] gives the driver's result, or
/// `None` where the driver's command was never made because the caller had no pacer when it
/// was due (it then calls the driver itself). The driver's result is kept from the moment the
/// command returns, so a report that never comes (the pacer gone, a panic under the lock) does
/// not lose it.
///
/// The calls down are made without the lock because the application externally synchronizes
/// a command's queue, swapchains, semaphores and fences for the whole call (the spec's host
/// synchronization lists for `vkQueuePresentKHR`, `vkAcquireNextImageKHR`,
/// `vkCreateSwapchainKHR` and `vkDestroySwapchainKHR`): no other thread's call of the pacer
/// submits to that queue (a destruction's proof submission waits until no present is in
/// flight) or uses those swapchains, and what a plan takes out of the pacer's pools (a repair
/// semaphore, its fence, present fences) is seen by no one else until its report. Between two
/// rounds another thread may use the pacer: the machine is asked again in each plan (a frame
/// another thread began meanwhile is not paced twice). A GPU wait is on a fence the pacer lends
/// out: it is not reset, reused or destroyed until the wait is reported (`vkResetFences` needs
/// its fences externally synchronized; `vkWaitForFences` does not).
///
/// # Example
///
/// ```no_run
/// # use ash::vk;
/// use std::sync::Mutex;
/// use vkpace::PresentPacer;
/// # fn present(shared: &Mutex<Option<PresentPacer>>, queue: vk::Queue,
/// #     info: &vk::PresentInfoKHR<'_>, driver: impl Fn() -> vk::Result) -> vk::Result {
/// // SAFETY: as vkQueuePresentKHR's valid usage, until the call is finished.
/// let mut call = unsafe { PresentPacer::present_call(queue, info) };
/// loop {
///     // The guard is dropped at the end of this statement: the lock is held for the plan only.
///     let planned = shared.lock().unwrap().as_mut().and_then(|p| call.plan(p));
///     let Some(down) = planned else { break };
///     let made = down.make(); // sleeps, waits or calls the driver without the lock
///     call.report(shared.lock().unwrap().as_mut(), made);
/// }
/// match call.finish() {
///     Some(Ok(false)) => vk::Result::SUCCESS,
///     Some(Ok(true)) => vk::Result::SUBOPTIMAL_KHR,
///     Some(Err(e)) => e,
///     None => driver(), // no pacer: the present as the application made it
/// }
/// # }
/// ```
///
/// # Leaks
///
/// Run the steps to the end. A [`CallsDown`] dropped without being made, or a [`CallsMade`]
/// not reported to the call's pacer, keeps what its plan took out of the pacer (a repair
/// semaphore and its fence, present fences, a lent fence) out of use until
/// [`PresentPacer::destroy`], which frees them once everything is proven idle (the present
/// fences of a present never made never signal: they stay alive, and `destroy` returns
/// [`crate::Error::Timeout`]). For a present, the pacer also keeps waiting for its report until
/// then: every later present passes through unpaced (logged), and each destruction's bounded
/// wait waits its whole bound for it.
pub struct PacerCall<'a, T> {
    pub(super) op: Op<'a>,
    pub(super) stage: Stage,
    /// This call's number, carried by its calls down and their report.
    pub(super) id: u64,
    /// The pacer of its first plan; every later step must be on the same one.
    pub(super) pacer: Option<u64>,
    /// Run by a plain method: the calls down are made with the pacer borrowed (counted in
    /// [`crate::PresentPacerStats`] as made in calls).
    pub(super) in_call: bool,
    /// The driver's result, once its call was made.
    pub(super) outcome: Option<Outcome>,
    pub(super) output: PhantomData<fn() -> T>,
}

/// The calls down of one step of a [`PacerCall`], made with no pacer (and the caller's lock
/// released): a sleep, a bounded GPU wait on a fence the pacer lent out, or the driver's
/// command with what the plan added. Borrows its call (and so the call's arguments), which
/// keeps the driver's result.
#[must_use = "a plan's calls down hold what it took out of the pacer: make them and report"]
pub struct CallsDown<'c> {
    pub(super) call: u64,
    /// The handles of the pacer it was planned on.
    pub(super) vk: Arc<Driver>,
    pub(super) op: Op<'c>,
    pub(super) down: Down,
    /// Where the driver's result goes once its command returns.
    pub(super) outcome: &'c mut Option<Outcome>,
}

/// What [`CallsDown::make`] did, for [`PacerCall::report`].
#[must_use = "report it to the call: it gives the pacer back what the plan took out"]
pub struct CallsMade {
    pub(super) call: u64,
    pub(super) made: Made,
}

impl<'a, T> PacerCall<'a, T> {
    pub(super) fn new(op: Op<'a>) -> Self {
        Self {
            op,
            stage: Stage::Start,
            id: next_id(),
            pacer: None,
            in_call: false,
            outcome: None,
            output: PhantomData,
        }
    }

    /// The first step of a round, under the caller's lock: asks the pacer what to do next.
    /// `None`: the call is over ([`Self::finish`]). A pacer other than the one of the call's
    /// first plan is refused (logged): the call ends.
    pub fn plan(&mut self, pacer: &mut PresentPacer) -> Option<CallsDown<'_>> {
        if *self.pacer.get_or_insert(pacer.id) != pacer.id {
            log::error!("vkpace: a PacerCall was planned on a second pacer; it ends here");
            self.stage = Stage::Done;
            return None;
        }
        let down = pacer.plan_step(self)?;
        Some(CallsDown {
            call: self.id,
            vk: Arc::clone(&pacer.vk),
            op: self.op,
            down,
            outcome: &mut self.outcome,
        })
    }

    /// The third step of a round, under the caller's lock again: what the calls down did,
    /// told to the pacer. `None`: the caller has no pacer any more: the call ends (the driver's
    /// result, if its command was made, is kept for [`Self::finish`]). What another call made
    /// is refused (logged).
    pub fn report(&mut self, pacer: Option<&mut PresentPacer>, made: CallsMade) {
        if made.call != self.id {
            log::error!("vkpace: a PacerCall was given another call's report; ignored");
            return;
        }
        match pacer {
            Some(p) if self.pacer == Some(p.id) => p.report_step(self, made.made),
            Some(_) => {
                log::error!("vkpace: a PacerCall was reported to a second pacer; it ends here");
                self.stage = Stage::Done;
            }
            // The pacer went away between the steps: the call ends with the driver's result
            // it has (kept by `CallsDown::make`).
            None => self.stage = Stage::Done,
        }
    }
}

impl CallsDown<'_> {
    /// The second step: sleeps, waits or calls the driver, with no pacer; the driver's result
    /// is kept in the call at once.
    pub fn make(self) -> CallsMade {
        // SAFETY: the call's maker (`PresentPacer::present_call` and the others) promised its
        // arguments valid and synchronized until the call is finished or dropped, and this
        // borrows the call, so the call is neither; the plan filled this from them on the
        // call's pacer.
        let made = unsafe { self.down.make(self.op, &self.vk) };
        if let Some(outcome) = made.outcome() {
            *self.outcome = Some(outcome);
        }
        CallsMade {
            call: self.call,
            made,
        }
    }
}

impl PacerCall<'_, VkResult<bool>> {
    /// The present's result: the driver's, as [`PresentPacer::queue_present`] returns it;
    /// `None` where nothing was presented (no pacer when the driver's command was due).
    pub fn finish(self) -> Option<VkResult<bool>> {
        match self.outcome? {
            Outcome::Presented(r) => Some(r),
            _ => None,
        }
    }
}

impl PacerCall<'_, VkResult<(u32, bool)>> {
    /// The acquire's result: the driver's image index and whether it is suboptimal; `None`
    /// where nothing was acquired (no pacer when the driver's command was due).
    pub fn finish(self) -> Option<VkResult<(u32, bool)>> {
        match self.outcome? {
            Outcome::Acquired(r) => Some(r),
            _ => None,
        }
    }
}

impl PacerCall<'_, VkResult<vk::SwapchainKHR>> {
    /// The creation's result: the driver's new swapchain; `None` where nothing was made (no
    /// pacer at the first step).
    pub fn finish(self) -> Option<VkResult<vk::SwapchainKHR>> {
        match self.outcome? {
            Outcome::Created(r) => Some(r),
            _ => None,
        }
    }
}

impl PacerCall<'_, ()> {
    /// `Some` where the pacer took the destruction over (destroyed now, or deferred until the
    /// swapchain is provably idle); `None` where there was no pacer at the first step (the
    /// caller destroys it through the driver).
    pub fn finish(self) -> Option<()> {
        match self.outcome? {
            Outcome::Destroyed => Some(()),
            _ => None,
        }
    }
}

impl PresentPacer {
    /// [`Self::queue_present`] as a [`PacerCall`]: the present planned in one step, the repair
    /// submission and the driver's present made in the next, then the pacing of the lineage's
    /// next frame (the frame limit's sleep, the frames-in-flight gate's bounded GPU wait), each
    /// pause a step of its own.
    ///
    /// # Safety
    ///
    /// As [`Self::queue_present`], until the call is finished or dropped (the application
    /// synchronizes the queue, the swapchains and the wait semaphores for that long).
    pub unsafe fn present_call<'a>(
        queue: vk::Queue,
        info: &'a vk::PresentInfoKHR<'_>,
    ) -> PacerCall<'a, VkResult<bool>> {
        PacerCall::new(Op::Present { queue, info })
    }

    /// [`Self::acquire_next_image`] as a [`PacerCall`]: the pacing first, each pause a step,
    /// then the driver's acquire, made without the pacer (it blocks until an image is free, up
    /// to `timeout`: under the caller's lock every other thread's call would wait as long).
    /// The pacer learns of the image in the report, before the caller can present it.
    ///
    /// # Safety
    ///
    /// As [`Self::acquire_next_image`], until the call is finished or dropped (the application
    /// synchronizes the swapchain, the semaphore and the fence for that long).
    pub unsafe fn acquire_call(
        swapchain: vk::SwapchainKHR,
        timeout: u64,
        semaphore: vk::Semaphore,
        fence: vk::Fence,
    ) -> PacerCall<'static, VkResult<(u32, bool)>> {
        PacerCall::new(Op::Acquire {
            swapchain,
            timeout,
            semaphore,
            fence,
        })
    }

    /// [`Self::acquire_next_image2`] as a [`PacerCall`], as [`Self::acquire_call`].
    ///
    /// # Safety
    ///
    /// As [`Self::acquire_next_image2`], until the call is finished or dropped.
    pub unsafe fn acquire2_call<'a>(
        info: &'a vk::AcquireNextImageInfoKHR<'_>,
    ) -> PacerCall<'a, VkResult<(u32, bool)>> {
        PacerCall::new(Op::Acquire2 { info })
    }

    /// [`Self::create_swapchain`] as a [`PacerCall`]: the pacer's handles go with the plan's
    /// calls down (shared, not borrowed); the display paths' surface queries, the driver's
    /// `vkCreateSwapchainKHR` and the present timing set-up are the calls down; the new
    /// swapchain is recorded in the report, before the application can use its handle.
    ///
    /// # Safety
    ///
    /// As [`Self::create_swapchain`], until the call is finished or dropped (the application
    /// synchronizes the surface and `oldSwapchain` for that long).
    pub unsafe fn create_call<'a>(
        info: &'a vk::SwapchainCreateInfoKHR<'_>,
        allocator: Option<&'a vk::AllocationCallbacks<'_>>,
    ) -> PacerCall<'a, VkResult<vk::SwapchainKHR>> {
        PacerCall::new(Op::Create { info, allocator })
    }

    /// [`Self::destroy_swapchain`] as a [`PacerCall`]: the machine asked in the first plan; its
    /// bounded waits (the swapchain's present fences, the proof submission's serial) are steps,
    /// on fences the pacer lends out; the driver's `vkDestroySwapchainKHR` of every swapchain
    /// found idle is the last call down, after the pacer forgot it. The proof submission (an
    /// empty `vkQueueSubmit` on the pacer's queue) is made in a plan, once no present of this
    /// pacer is in flight on another thread.
    ///
    /// # Safety
    ///
    /// As [`Self::destroy_swapchain`], until the call is finished or dropped.
    pub unsafe fn destroy_call<'a>(
        swapchain: vk::SwapchainKHR,
        allocator: Option<&'a vk::AllocationCallbacks<'_>>,
    ) -> PacerCall<'a, ()> {
        PacerCall::new(Op::Destroy {
            swapchain,
            allocator,
        })
    }

    /// Runs `call`'s steps to the end on this pacer (the plain methods).
    pub(super) fn run<'a, T>(&mut self, mut call: PacerCall<'a, T>) -> PacerCall<'a, T> {
        call.in_call = true;
        while let Some(down) = call.plan(self) {
            let made = down.make();
            call.report(Some(self), made);
        }
        call
    }
}

impl<T> std::fmt::Debug for PacerCall<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PacerCall")
            .field("id", &self.id)
            .field("in_call", &self.in_call)
            .field("finished", &matches!(self.stage, Stage::Done))
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for CallsDown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallsDown")
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for CallsMade {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallsMade")
            .field("call", &self.call)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn destroy_call() -> PacerCall<'static, ()> {
        PacerCall::new(Op::Destroy {
            swapchain: vk::SwapchainKHR::null(),
            allocator: None,
        })
    }

    /// A report is taken only by the call that planned it: another call's is ignored (the call
    /// goes on), so the pacer's objects a report returns cannot land in the wrong call; its own
    /// report, with the pacer gone, ends it.
    #[test]
    fn a_report_of_another_call_is_ignored() {
        let (mut call, other) = (destroy_call(), destroy_call());
        let made = |id| CallsMade {
            call: id,
            made: Made::Destroyed { swapchains: false },
        };
        call.report(None, made(other.id));
        assert!(
            matches!(call.stage, Stage::Start),
            "another call's report was taken"
        );
        call.report(None, made(call.id));
        assert!(
            matches!(call.stage, Stage::Done),
            "its own report was not taken"
        );
    }
}
