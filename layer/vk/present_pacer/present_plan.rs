//! The present's first step, under the caller's lock: the application's structures read, the
//! machine's plan, the repair semaphore chosen (or made) and a fence taken for its submission,
//! the present ids, fences and timing vkpace adds filled into the scratch arrays, which then
//! leave the pacer with the plan ([`Planned`]) for the calls down made without it.

use ash::vk;

use super::call_state::Down;
use super::chain_walk;
use super::pause::{Pause, Paused};
use super::present_call::{slice, Planned, Repair};
use super::PresentPacer;
use crate::vk::error::{Result, VkContext};
use vkpace_core::{PresentMode, PresentPlan, PresentStep, RepairSemaphore};

impl PresentPacer {
    /// The present's first step: reports the wait the last step asked for (if any; `in_call`:
    /// made with the pacer borrowed), then plans. `deadline` bounds the waits of one present
    /// together.
    ///
    /// # Safety
    ///
    /// As [`Self::queue_present`].
    pub(super) unsafe fn present_step(
        &mut self,
        queue: vk::Queue,
        info: &vk::PresentInfoKHR<'_>,
        deadline: &mut Option<u64>,
        waited: Option<Paused>,
        in_call: bool,
    ) -> Down {
        if queue != self.vk.queue {
            if !std::mem::replace(&mut self.logged.other_queue, true) {
                log::warn!("vkpace: a present on a queue other than the pacer's is passed through unpaced (completion is per queue)");
            }
            self.machine.unpaced_call();
            return Down::Through;
        }
        if let Some(paused) = waited {
            match self.wait_reported(paused, in_call) {
                Ok(true) => {}
                Ok(false) => {
                    log::warn!(
                        "vkpace: no repair semaphore proven free in time: present passed through"
                    );
                    return Down::Through;
                }
                Err(e) => {
                    log::error!("vkpace: present not paced: {e}");
                    return Down::Through;
                }
            }
        }
        // SAFETY: the caller's contract: valid arrays of the given counts and a valid chain.
        let caller = unsafe { self.read_caller(info) };
        if caller.timings {
            self.timing_taken_over();
        }
        let deadline = *deadline.get_or_insert(self.now().saturating_add(self.timeout_ns()));
        match self.plan(caller, deadline) {
            Ok(down) => down,
            Err(e) => {
                log::error!("vkpace: present not paced: {e}");
                Down::Through
            }
        }
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
        s.caller_modes.clear();
        if let Some(modes) = caller.modes {
            // SAFETY: VkSwapchainPresentModeInfoKHR holds swapchainCount modes
            // (VUID-VkSwapchainPresentModeInfoKHR-swapchainCount-07760).
            s.caller_modes.extend_from_slice(unsafe { slice(modes, n) });
        }
        caller
    }

    /// The machine's plan, or the wait it asks for first (a repair semaphore proven free only
    /// by a submission still running, after frames in flight was lowered): the fence is lent
    /// out, the wait made without the pacer.
    fn plan(&mut self, caller: chain_walk::CallerChain, deadline: u64) -> Result<Down> {
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
                    return Ok(match paced {
                        true => self.planned(p),
                        false => Down::Through,
                    });
                }
                PresentStep::WaitFor(serial) => {
                    let now = self.now();
                    if let Some(wait) = self.lend_wait(serial, now, deadline.saturating_sub(now))? {
                        return Ok(Down::Pause(Pause::Gpu(wait)));
                    }
                }
            }
        }
    }

    /// The planned present: its repair semaphore and fence, and the structures vkpace adds,
    /// filled into the scratch arrays (one entry per swapchain), which leave the pacer with it.
    fn planned(&mut self, plan: PresentPlan<vk::Semaphore>) -> Down {
        let repair = self.repair_semaphore(plan);
        let mut s = std::mem::take(&mut self.scratch);
        let (now, fenced, mut timed) = (self.now(), plan.present_fences.is_some(), false);
        s.ids.clear();
        s.fences.clear();
        s.fence_ids.clear();
        s.timings.0.clear();
        for (k, &(w, _)) in s.targets.iter().enumerate() {
            let mode = s.caller_modes.get(k).map(|m| PresentMode(m.as_raw()));
            let target = self.machine.plan_target(w, mode, now);
            s.ids.push(target.id);
            if fenced {
                s.fences.push(self.present_fence(w, target.fence));
                s.fence_ids.extend(target.fence);
            }
            let timing = target.timing.and_then(|r| self.timing_info(w, &r));
            timed |= timing.is_some();
            s.timings.0.push(timing.unwrap_or_default());
        }
        Down::Present(Planned {
            repair,
            // The machine chose the structure (none where the application's ids are chained).
            ids: plan.present_ids,
            fences: fenced,
            timed,
            scratch: s,
        })
    }

    /// The repair's semaphore (reused or made) and a fence for its submission; `None` where
    /// there is no repair, or it failed (reported: the present waits on the application's
    /// semaphores).
    fn repair_semaphore(&mut self, plan: PresentPlan<vk::Semaphore>) -> Option<Repair> {
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
        match self.fences.take(&self.vk.device) {
            Ok(fence) => {
                self.unreported_repair = Some(fence);
                Some(Repair { semaphore, fence })
            }
            Err(e) => {
                log::error!("vkpace: repair submission's fence: {e}");
                self.machine.repair_failed();
                None
            }
        }
    }

    fn create_semaphore(&mut self) -> Result<vk::Semaphore> {
        // SAFETY: a plain binary semaphore on a valid device.
        let s = unsafe {
            self.vk
                .device
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
        }
        .during("vkCreateSemaphore")?;
        if let Err(e) = self.machine.semaphore_created(s) {
            // SAFETY: just made, never used.
            unsafe { self.vk.device.destroy_semaphore(s, None) };
            return Err(e.into());
        }
        Ok(s)
    }

    /// The present fence for `w`, where the machine planned one (`id`); null where not, or
    /// where none could be made (the machine told: the present goes without it).
    fn present_fence(&mut self, w: vk::SwapchainKHR, id: Option<u64>) -> vk::Fence {
        let Some(id) = id else {
            return vk::Fence::null();
        };
        match self.fences.take(&self.vk.device) {
            Ok(f) => {
                self.fences.pool.presented_as(id, f);
                f
            }
            Err(e) => {
                log::error!("vkpace: present fence: {e}");
                self.machine.present_fence_not_added(w);
                vk::Fence::null()
            }
        }
    }
}
