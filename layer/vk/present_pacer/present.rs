//! The present replacement as the steps of a [`super::PacerCall`]: the plan
//! ([`super::present_plan`]), the repair submission and the driver's present
//! ([`super::present_call`]), the report of both (below), then the display feedback and the
//! pacing of the lineage's next frame.

use ash::prelude::VkResult;
use ash::vk;

use super::present_call::Made;
pub(super) use super::present_call::Scratch;
use super::PresentPacer;
use crate::vk::display::DisplayFns;
use crate::vk::error::Result;
use crate::vk::present_chain::present_code;
use crate::vk::shell::status;
use vkpace_core::VkStatus;
use vkpace_core::{PresentOutcome, Serial, SubmitSignal};

impl PresentPacer {
    /// `vkQueuePresentKHR`, through the pacer. With repair on, an empty submission waits on
    /// the application's wait semaphores and signals a vkpace semaphore, and the present waits
    /// on that alone; present ids and a present fence are added where enabled and the
    /// application chained none. The application's structures are read, never written (its
    /// `pResults`, an output, receives each swapchain's result). Returns the driver's result
    /// unchanged, except a `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT` caused by the timing
    /// vkpace added, which the application never asked for: that swapchain's result reads
    /// success (its image not shown, the present's waits executed). Then the lineage's next
    /// frame is paced (the frames-in-flight gate and the frame limit's sleep come here,
    /// before the application reads its next input). The
    /// sleep happens inside this call: an engine that shares the pacer between threads behind
    /// a lock uses [`Self::present_call`] instead, whose steps sleep, and call the driver,
    /// with the lock released.
    ///
    /// With repair on, the application's wait semaphores are consumed by the repair
    /// submission even where the present then fails with `VK_ERROR_OUT_OF_HOST_MEMORY` or
    /// `VK_ERROR_OUT_OF_DEVICE_MEMORY` (which otherwise leave them untouched): do not wait on
    /// them again after such an error.
    ///
    /// # Safety
    ///
    /// As `vkQueuePresentKHR`. With repair on, the application's present semaphores must be
    /// signalled by work that waited on the image's acquire (its semaphore, or its fence on the
    /// host): that is what proves a repair semaphore free (docs/design.md, "The second door").
    pub unsafe fn queue_present(
        &mut self,
        queue: vk::Queue,
        info: &vk::PresentInfoKHR<'_>,
    ) -> VkResult<bool> {
        // SAFETY: the caller's contract.
        let call = unsafe { Self::present_call(queue, info) };
        // `None` only where the call had no pacer, and this one always has it.
        self.run(call)
            .finish()
            .unwrap_or(Err(vk::Result::ERROR_UNKNOWN))
    }

    /// The present's third step: the repair submission and the driver's result reported, the
    /// scratch arrays given back; the swapchain whose lineage's next frame is to be paced.
    /// `in_call`: made with the pacer borrowed (a plain method; a caller's lock around it was
    /// held through the calls down).
    pub(super) fn present_reported(
        &mut self,
        made: Made,
        in_call: bool,
    ) -> (VkResult<bool>, Option<vk::SwapchainKHR>) {
        let Made {
            result,
            submitted,
            timed,
            scratch,
        } = made;
        self.scratch = scratch;
        self.calls_down.count(in_call);
        if let Some((repair, got)) = submitted {
            self.repair_reported(repair, got);
        }
        let driver_said = status(present_code(result));
        let result = self.refused_for_timing(result, timed);
        let next = self.after_present(driver_said);
        (result, next)
    }

    /// The repair submission's result: its serial and fence tracked, or (where it failed) its
    /// semaphore handed back and its fence freed.
    fn repair_reported(&mut self, repair: super::present_call::Repair, got: VkResult<u64>) {
        self.unreported_repair = None;
        let at = match got {
            Ok(at) => at,
            Err(e) => {
                log::error!("vkpace: repair submission failed, present waited on the application's semaphores: {}", crate::vk::error::Error::vk("vkQueueSubmit", e));
                self.fences.pool.untake(repair.fence);
                self.machine.repair_failed();
                return;
            }
        };
        match self.machine.repair_submitted(at) {
            Ok(serial) => self
                .fences
                .pool
                .submitted(serial, SubmitSignal::Fence(repair.fence)),
            Err(e) => {
                // Submitted, so the semaphore has a signal pending and the application's
                // semaphores were waited on: nothing of the submission may be reused. Its
                // fence is destroyed at teardown; the semaphore is not reused (a leak,
                // logged: a machine error is a vkpace bug).
                log::error!("vkpace: the repair submission was made but not tracked ({e}); its semaphore is not reused");
                self.fences.pool.lost(repair.fence);
            }
        }
    }

    /// The proof submission of a bounded wait: an empty submission on the pacer's queue with a
    /// fence for its serial, made under the lock once no present is in flight (the machine
    /// says [`vkpace_core::BoundedWait::PresentInFlight`] until then).
    pub(super) fn submit_proof(&mut self) -> Result<Serial> {
        let fence = self.fences.take(&self.vk.device)?;
        let empty = [vk::SubmitInfo::default()];
        // SAFETY: an empty submission; the fence is unsignalled and unused. The queue: no
        // present of this pacer is in flight on it (the machine's PresentInFlight), and the
        // application's own submissions from another thread are its documented limit.
        let submitted = unsafe { self.vk.device.queue_submit(self.vk.queue, &empty, fence) };
        if let Err(e) = submitted {
            self.fences.pool.untake(fence);
            return Err(crate::vk::error::Error::vk("vkQueueSubmit", e));
        }
        match self.machine.proof_submitted() {
            Ok(serial) => {
                self.fences
                    .pool
                    .submitted(serial, SubmitSignal::Fence(fence));
                Ok(serial)
            }
            Err(e) => {
                self.fences.pool.lost(fence);
                Err(e.into())
            }
        }
    }

    /// Records the driver's results (the present's and each swapchain's), then looks (without
    /// blocking) at completions, present fences and the display; returns the swapchain whose
    /// lineage's next frame is to be paced (the first paced one, unless the present failed).
    fn after_present(&mut self, driver_said: VkStatus) -> Option<vk::SwapchainKHR> {
        let s = &mut self.scratch;
        s.statuses.clear();
        s.statuses.extend(s.results.iter().map(|&r| status(r)));
        let failed = |said| PresentOutcome::of(said) == PresentOutcome::Failed;
        let first = s
            .targets
            .iter()
            .map(|(w, _)| *w)
            .find(|w| self.machine.is_paced(*w));
        let now = self.now();
        match self
            .machine
            .present_returned(driver_said, &self.scratch.statuses, now)
        {
            // A present fence the machine does not wait for went to a swapchain whose present
            // failed: it may never signal.
            Ok(()) => {
                for &id in &self.scratch.fence_ids {
                    if !self.machine.pending_present_fences().any(|(i, _)| i == id) {
                        self.fences.pool.lose_present(id);
                    }
                }
            }
            Err(e) => log::error!("vkpace: present: {e}"),
        }
        self.drain_actions();
        if let Err(e) = self.look_around() {
            log::error!("vkpace: after a present: {e}");
        }
        first.filter(|_| !failed(driver_said))
    }

    /// Completions, present fences and the display, without blocking.
    fn look_around(&mut self) -> Result<()> {
        self.poll_completion()?;
        let mut signalled = false;
        // The oldest few: present fences of one swapchain on one queue signal in order.
        for _ in 0..4 {
            let Some((id, _)) = self.machine.pending_present_fences().next() else {
                break;
            };
            if !self.fences.present_signalled(&self.vk.device, id)? {
                break;
            }
            signalled |= self.machine.present_fence_signalled(id);
        }
        if signalled {
            self.drain_actions();
        }
        self.read_timings()?;
        // Only the swapchains of this present: the application synchronizes them for the
        // call, and vkWaitForPresentKHR's swapchain is externally synchronized.
        for k in 0..self.scratch.targets.len() {
            let w = self.scratch.targets[k].0;
            if let Some(id) = self.machine.display_query_of(w) {
                let answer = self.display_poll(w, id);
                let now = self.now();
                self.machine
                    .display_answer(w, answer, now)
                    .map_err(crate::vk::error::Error::from)?;
            }
        }
        Ok(())
    }

    /// The display feedback path of swapchain `w`, if it has one.
    pub(super) fn display_fns(&self, w: vk::SwapchainKHR) -> Option<&DisplayFns> {
        self.swapchains
            .iter()
            .find(|m| m.handle == w)
            .and_then(|m| m.display.as_ref())
    }

    /// Whether present `id` on `w` was shown by now (a zero-timeout wait), as the machine's
    /// status (a swapchain without a display path reports no more: out of date).
    fn display_poll(&self, w: vk::SwapchainKHR, id: u64) -> VkStatus {
        match self.display_fns(w) {
            // SAFETY: the machine asks only about a live swapchain's presents that returned a
            // success code (VUID-vkWaitForPresent2KHR-presentId-10817), made with the path's
            // create flags; the caller's call synchronizes `w`.
            Some(d) => status(unsafe { d.wait(w, id, 0) }),
            None => VkStatus::OUT_OF_DATE,
        }
    }
}
