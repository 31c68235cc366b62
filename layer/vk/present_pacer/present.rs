//! The present replacement: the repair submission, the new `VkPresentInfoKHR` (vkpace's
//! structures in front of the application's chain, vkpace's wait semaphore array), the
//! driver's present, and what its result means; then the display feedback and the pacing of
//! the lineage's next frame.

use ash::prelude::VkResult;
use ash::vk;

use super::id_structure::IdStructure;
use super::pause::Borrowed;
use super::{chain_walk, PresentPacer};
use crate::vk::error::{Result, VkContext};
use crate::vk::shell::status;
use vkpace_core::VkStatus;
use vkpace_core::{PresentOutcome, PresentPlan, PresentStep, RepairSemaphore, Serial};
use vkpace_registry::{PresentId2KHR, PresentTimingsInfoEXT};

/// Arrays a present fills, kept so a steady frame does not allocate.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    pub(super) targets: Vec<(vk::SwapchainKHR, u32)>,
    caller_ids: Vec<u64>,
    ids: Vec<u64>,
    fences: Vec<vk::Fence>,
    stages: Vec<vk::PipelineStageFlags>,
    timings: super::timing::TimingInfos,
}

impl PresentPacer {
    /// `vkQueuePresentKHR`, through the pacer. With repair on, an empty submission waits on
    /// the application's wait semaphores and signals a vkpace semaphore, and the present waits
    /// on that alone; present ids and a present fence are added where enabled and the
    /// application chained none. The application's structures are read, never written (its
    /// `pResults`, an output, receives the driver's results). Returns the driver's result
    /// unchanged; then the lineage's next frame is paced (the frames-in-flight gate and the
    /// frame limit's sleep come here, before the application reads its next input). The
    /// sleep happens inside this call: an engine that shares the pacer between threads behind
    /// a lock uses [`Self::queue_present_shared`] instead, which sleeps with the lock released.
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
        let _borrowed = Borrowed::enter();
        // SAFETY: the caller's contract.
        let (result, next) = unsafe { self.present_unpaced(queue, info) };
        if let Some(w) = next {
            self.pace_logged(w);
        }
        result
    }

    /// The present without the pacing of the next frame: the driver's result, and the
    /// swapchain whose lineage's next frame is to be paced now, if any.
    ///
    /// # Safety
    ///
    /// As [`Self::queue_present`].
    pub(super) unsafe fn present_unpaced(
        &mut self,
        queue: vk::Queue,
        info: &vk::PresentInfoKHR<'_>,
    ) -> (VkResult<bool>, Option<vk::SwapchainKHR>) {
        if queue != self.queue {
            if !std::mem::replace(&mut self.logged.other_queue, true) {
                log::warn!("vkpace: a present on a queue other than the pacer's is passed through unpaced (completion is per queue)");
            }
            self.machine.unpaced_call();
            // SAFETY: the caller's contract.
            return (
                unsafe { self.swapchain_fn.queue_present(queue, info) },
                None,
            );
        }
        // SAFETY: the caller's contract: valid arrays of the given counts and a valid chain.
        let caller = unsafe { self.read_caller(info) };
        if caller.timings || caller.modes {
            self.timing_taken_over();
        }
        let plan = match self.plan(caller) {
            Ok(Some(plan)) => plan,
            Ok(None) => {
                // SAFETY: the caller's contract.
                return (
                    unsafe { self.swapchain_fn.queue_present(queue, info) },
                    None,
                );
            }
            Err(e) => {
                log::error!("vkpace: present not paced: {e}");
                // SAFETY: the caller's contract.
                return (
                    unsafe { self.swapchain_fn.queue_present(queue, info) },
                    None,
                );
            }
        };
        // SAFETY: as above.
        let waits = unsafe { slice(info.p_wait_semaphores, info.wait_semaphore_count) };
        let repair = self.repair(plan, waits);
        // SAFETY: the caller's contract, and the repair's semaphore has a signal pending.
        let (result, timed) = unsafe { self.present_with(info, plan, repair, caller) };
        let result = self.refused_for_timing(result, timed);
        let next = self.after_present(&result);
        (result, next)
    }

    /// Reads the application's swapchains, images and chain into the scratch arrays.
    ///
    /// # Safety
    ///
    /// `info` is valid (the caller's contract of `vkQueuePresentKHR`).
    unsafe fn read_caller(&mut self, info: &vk::PresentInfoKHR<'_>) -> chain_walk::CallerChain {
        let n = info.swapchain_count;
        // SAFETY: the caller's contract.
        let (swapchains, images) =
            unsafe { (slice(info.p_swapchains, n), slice(info.p_image_indices, n)) };
        let s = &mut self.scratch;
        s.targets.clear();
        s.targets
            .extend(swapchains.iter().copied().zip(images.iter().copied()));
        // SAFETY: the caller's contract.
        let caller = unsafe { chain_walk::read(info.p_next) };
        s.caller_ids.clear();
        if let Some(ids) = caller.ids.filter(|p| !p.is_null()) {
            // SAFETY: VkPresentIdKHR / VkPresentId2KHR hold swapchainCount ids.
            s.caller_ids.extend_from_slice(unsafe { slice(ids, n) });
        }
        caller
    }

    /// The machine's plan (waiting, bounded, where it asks); `None`: pass the present through.
    fn plan(
        &mut self,
        caller: chain_walk::CallerChain,
    ) -> Result<Option<PresentPlan<vk::Semaphore>>> {
        let deadline = self.now().saturating_add(self.timeout_ns());
        loop {
            let ids = caller.ids.map(|_| &self.scratch.caller_ids[..]);
            match self
                .machine
                .before_present(&self.scratch.targets, ids, caller.fences)?
            {
                PresentStep::Plan(p) => {
                    // No swapchain of this present is paced (the machine counted the call):
                    // the driver's present alone, with nothing to record after it.
                    let paced = self
                        .scratch
                        .targets
                        .iter()
                        .any(|(w, _)| self.machine.is_paced(*w));
                    return Ok(paced.then_some(p));
                }
                PresentStep::WaitFor(serial) => {
                    let left = deadline.saturating_sub(self.now());
                    if !self.fences.wait_serial(&self.device, serial, left)? {
                        log::warn!("vkpace: no repair semaphore proven free in time: present passed through");
                        return Ok(None);
                    }
                    self.machine.serial_completed(serial, self.now())?;
                }
            }
        }
    }

    /// The repair submission: returns the semaphore the present waits on, or `None` where
    /// there is no repair (or it failed, and the present waits on the application's).
    fn repair(
        &mut self,
        plan: PresentPlan<vk::Semaphore>,
        waits: &[vk::Semaphore],
    ) -> Option<vk::Semaphore> {
        let semaphore = match plan.repair? {
            RepairSemaphore::Reuse(s) => s,
            RepairSemaphore::Create => match self.create_semaphore() {
                Ok(s) => s,
                Err(e) => {
                    log::error!("vkpace: repair semaphore: {e}");
                    self.machine.repair_failed();
                    return None;
                }
            },
        };
        match self.submit_tracked(waits, Some(semaphore)) {
            Ok(_) => Some(semaphore),
            Err(e) => {
                log::error!("vkpace: repair submission failed, present waits on the application's semaphores: {e}");
                self.machine.repair_failed();
                None
            }
        }
    }

    fn create_semaphore(&mut self) -> Result<vk::Semaphore> {
        // SAFETY: a plain binary semaphore on a valid device.
        let s = unsafe {
            self.device
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
        }
        .during("vkCreateSemaphore")?;
        if let Err(e) = self.machine.semaphore_created(s) {
            // SAFETY: just made, never used.
            unsafe { self.device.destroy_semaphore(s, None) };
            return Err(e.into());
        }
        Ok(s)
    }

    /// An empty submission on the pacer's queue waiting on `waits` (all commands) and
    /// signalling `signal` if given, with a fence for its serial: a repair (with `signal`) or a
    /// proof submission (without). Returns the serial; `None` where the submission was made
    /// but the machine refused it (logged): it then stands, untracked.
    pub(super) fn submit_tracked(
        &mut self,
        waits: &[vk::Semaphore],
        signal: Option<vk::Semaphore>,
    ) -> Result<Option<Serial>> {
        let stages = &mut self.scratch.stages;
        stages.clear();
        stages.resize(waits.len(), vk::PipelineStageFlags::ALL_COMMANDS);
        let signals = [signal.unwrap_or_default()];
        let mut submit = vk::SubmitInfo::default()
            .wait_semaphores(waits)
            .wait_dst_stage_mask(stages);
        if signal.is_some() {
            submit = submit.signal_semaphores(&signals);
        }
        let fence = self.fences.take(&self.device)?;
        // SAFETY: the waits are the application's present semaphores, each with a signal
        // pending and no other wait (its contract for vkQueuePresentKHR,
        // VUID-vkQueuePresentKHR-pWaitSemaphores-03268, carried over to this submission); the
        // signal semaphore is unsignalled with nothing pending (the machine proved it free:
        // VUID-vkQueueSubmit-pSignalSemaphores-00067); the fence is unsignalled and unused.
        let submitted = unsafe { self.device.queue_submit(self.queue, &[submit], fence) };
        if let Err(e) = submitted {
            self.fences.untake(fence);
            return Err(crate::vk::error::Error::vk("vkQueueSubmit", e));
        }
        let serial = match signal {
            Some(_) => self.machine.repair_submitted(self.now()),
            None => Ok(self.machine.proof_submitted()),
        };
        match serial {
            Ok(serial) => {
                self.fences.submitted(serial, fence);
                Ok(Some(serial))
            }
            Err(e) => {
                // Submitted, so the semaphore has a signal pending and the application's
                // semaphores were waited on: the present must wait on `signal` now, and nothing
                // of the submission may be reused. Its fence is destroyed at teardown; the
                // semaphore is not reused (a leak, logged: a machine error is a vkpace bug).
                log::error!("vkpace: the repair submission was made but not tracked ({e}); its semaphore is not reused");
                self.fences.untracked(fence);
                Ok(None)
            }
        }
    }

    /// The driver's present with vkpace's structures in front of the application's chain;
    /// whether vkpace added present timing to it.
    ///
    /// # Safety
    ///
    /// `info` is valid; `repair`, if any, has a signal pending from the repair submission.
    unsafe fn present_with(
        &mut self,
        info: &vk::PresentInfoKHR<'_>,
        plan: PresentPlan<vk::Semaphore>,
        repair: Option<vk::Semaphore>,
        caller: chain_walk::CallerChain,
    ) -> (VkResult<bool>, bool) {
        let ids = match plan.present_ids && caller.ids.is_none() {
            true => self.id_structure_of_present(),
            false => IdStructure::None,
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        let fences = self.present_fences(&mut scratch, plan);
        let timed = self.present_timings(&scratch.targets, &mut scratch.timings);
        scratch.ids.clear();
        for &(w, _) in &scratch.targets {
            scratch.ids.push(self.machine.planned_present_id(w));
        }
        let repaired = repair.map(|s| [s]);
        // A copy: the application's pNext chain follows vkpace's structures; its arrays are
        // read as they are.
        let mut ours = *info;
        if let Some(s) = repaired.as_ref() {
            ours = ours.wait_semaphores(s);
        }
        let mut fence_info = vk::SwapchainPresentFenceInfoEXT::default().fences(&scratch.fences);
        if fences {
            // One fence (or null) per swapchain (VUID-VkSwapchainPresentFenceInfoEXT-swapchainCount-07757).
            ours = ours.push_next(&mut fence_info);
        }
        let mut id_info = vk::PresentIdKHR::default().present_ids(&scratch.ids);
        let mut id2_info = PresentId2KHR::default().present_ids(&scratch.ids);
        let mut timings = PresentTimingsInfoEXT::default().timing_infos(&scratch.timings.0);
        if timed {
            // One VkPresentTimingInfoEXT per swapchain
            // (VUID-VkPresentTimingsInfoEXT-swapchainCount-12233), zeroed (no target, no
            // stages) for a swapchain without vkpace's timing.
            ours = ours.push_next(&mut timings);
        }
        match ids {
            // Larger than any id given before to each swapchain (ids per lineage,
            // VUID-VkPresentId2KHR-presentIds-10819); 0 for a swapchain not paced or made for
            // the other structure.
            IdStructure::Id2 => ours = ours.push_next(&mut id2_info),
            // VUID-VkPresentIdKHR-presentIds-04999, as above.
            IdStructure::Id => ours = ours.push_next(&mut id_info),
            IdStructure::None => {}
        }
        // SAFETY: the caller's contract; vkpace's structures are valid for the device's
        // enabled extensions (the config's flags), none duplicates one the caller chained.
        let result = unsafe { self.swapchain_fn.queue_present(self.queue, &ours) };
        scratch.timings.0.clear();
        self.scratch = scratch;
        (result, timed)
    }

    /// Fills the present fences (one per swapchain, null for one not paced) where the plan
    /// adds them; whether it does.
    fn present_fences(&mut self, scratch: &mut Scratch, plan: PresentPlan<vk::Semaphore>) -> bool {
        scratch.fences.clear();
        if plan.present_fences.is_none() {
            return false;
        }
        for &(w, _) in &scratch.targets {
            let fence = match self.machine.planned_present_fence(w) {
                Some(id) => match self.fences.take(&self.device) {
                    Ok(f) => {
                        self.fences.presented(id, f);
                        f
                    }
                    Err(e) => {
                        log::error!("vkpace: present fence: {e}");
                        self.machine.present_fence_not_added(w);
                        vk::Fence::null()
                    }
                },
                None => vk::Fence::null(),
            };
            scratch.fences.push(fence);
        }
        true
    }
}

/// A slice of `n` items at `p` (empty for a null pointer or zero count).
///
/// # Safety
///
/// A non-null `p` points at `n` valid items that outlive the use.
unsafe fn slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if p.is_null() || n == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(p, n as usize) }
}

impl PresentPacer {
    /// Records the driver's result, then looks (without blocking) at completions, present
    /// fences and the display; returns the swapchain whose lineage's next frame is to be
    /// paced (the first paced one, unless the present failed).
    fn after_present(&mut self, result: &VkResult<bool>) -> Option<vk::SwapchainKHR> {
        let outcome = match result {
            Ok(false) => PresentOutcome::Queued,
            // The queue operations, semaphore waits included, are still enqueued
            // (vkQueuePresentKHR: SUBOPTIMAL, OUT_OF_DATE, SURFACE_LOST, and
            // FULL_SCREEN_EXCLUSIVE_MODE_LOST for an application using that extension).
            Ok(true)
            | Err(vk::Result::ERROR_OUT_OF_DATE_KHR)
            | Err(vk::Result::ERROR_SURFACE_LOST_KHR)
            | Err(vk::Result::ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT) => {
                PresentOutcome::QueuedStale
            }
            Err(_) => PresentOutcome::Failed,
        };
        if result.is_err() && outcome == PresentOutcome::QueuedStale {
            self.machine.present_returned_error_code();
        }
        if outcome == PresentOutcome::Failed {
            for &(w, _) in &self.scratch.targets {
                if let Some(id) = self.machine.planned_present_fence(w) {
                    self.fences.lose_present(id);
                }
            }
        }
        let first = self
            .scratch
            .targets
            .iter()
            .map(|(w, _)| *w)
            .find(|w| self.machine.is_paced(*w));
        if let Err(e) = self.machine.present_returned(outcome, self.now()) {
            log::error!("vkpace: present: {e}");
        }
        self.drain_actions();
        if let Err(e) = self.look_around() {
            log::error!("vkpace: after a present: {e}");
        }
        first.filter(|_| outcome != PresentOutcome::Failed)
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
            if !self.fences.present_signalled(&self.device, id, 0)? {
                break;
            }
            signalled |= self.machine.present_fence_signaled(id);
        }
        if signalled {
            self.drain_actions();
        }
        self.read_timings()?;
        if let Some((w, id)) = self.machine.display_query() {
            let display = self
                .swapchains
                .iter()
                .find(|m| m.handle == w)
                .and_then(|m| m.display.as_ref());
            let answer = match display {
                // SAFETY: the machine asks only about a live swapchain's presents that
                // returned a success code (VUID-vkWaitForPresent2KHR-presentId-10817), made
                // with the path's create flags.
                Some(d) => status(unsafe { d.wait(w, id, 0) }),
                None => VkStatus::OUT_OF_DATE,
            };
            let now = self.now();
            self.machine
                .display_answer(w, answer, now)
                .map_err(crate::vk::error::Error::from)?;
        }
        Ok(())
    }
}
