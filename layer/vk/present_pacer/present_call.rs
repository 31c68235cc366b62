//! The present's second step, made without the pacer (the caller's lock released): the repair
//! submission and the driver's present, with what the first step planned. Why that is safe:
//! [`super::PacerCall`]'s doc.

use ash::prelude::VkResult;
use ash::vk;

use super::Driver;
use crate::vk::present_chain::PresentChain;
use vkpace_core::PresentIdStructure;

/// The repair's semaphore and the fence of its submission, both taken from the pacer.
#[derive(Copy, Clone, Debug)]
pub(super) struct Repair {
    pub(super) semaphore: vk::Semaphore,
    pub(super) fence: vk::Fence,
}

/// What the results array holds before the driver writes it: no `VkResult` has this value.
const UNWRITTEN: vk::Result = vk::Result::from_raw(i32::MIN);

/// A present planned under the lock: what the calls down need, and the scratch arrays (moved
/// out of the pacer, given back with the report).
pub(super) struct Planned {
    pub(super) repair: Option<Repair>,
    pub(super) ids: PresentIdStructure,
    /// Present fences added (one per swapchain in `scratch.fences`).
    pub(super) fences: bool,
    /// Present timing added (`scratch.timings`).
    pub(super) timed: bool,
    pub(super) scratch: Scratch,
}

/// A present made: the driver's result and what the report needs.
pub(super) struct Made {
    pub(super) result: VkResult<bool>,
    /// The repair submission's result: the time it was made, or the driver's error.
    pub(super) submitted: Option<(Repair, VkResult<u64>)>,
    pub(super) timed: bool,
    pub(super) scratch: Scratch,
}

impl Planned {
    /// The repair submission (if any), then the driver's present with vkpace's structures in
    /// front of the application's chain.
    ///
    /// # Safety
    ///
    /// `info` is the application's valid `VkPresentInfoKHR` the plan was made from, on the
    /// pacer's queue, and `driver` is that pacer's.
    pub(super) unsafe fn make(mut self, info: &vk::PresentInfoKHR<'_>, driver: &Driver) -> Made {
        // SAFETY: the caller's contract.
        let waits = unsafe { slice(info.p_wait_semaphores, info.wait_semaphore_count) };
        let submitted = self.repair.map(|r| (r, self.submit(driver, waits, r)));
        let repaired = submitted
            .as_ref()
            .filter(|(_, got)| got.is_ok())
            .map(|(r, _)| [r.semaphore]);
        // SAFETY: the caller's contract; a repair semaphore given has a signal pending.
        let result = unsafe { self.present(driver, info, repaired.as_ref().map(|s| &s[..])) };
        // SAFETY: the caller's contract: `pResults`, if given, holds `swapchainCount` results.
        unsafe { self.tell_results(info) };
        self.scratch.timings.0.clear();
        Made {
            result,
            submitted,
            timed: self.timed,
            scratch: self.scratch,
        }
    }

    /// The repair: an empty submission waiting on the application's semaphores (all commands),
    /// signalling the repair semaphore, with its fence; the time it was made.
    fn submit(&mut self, driver: &Driver, waits: &[vk::Semaphore], r: Repair) -> VkResult<u64> {
        let stages = &mut self.scratch.stages;
        stages.clear();
        stages.resize(waits.len(), vk::PipelineStageFlags::ALL_COMMANDS);
        let signals = [r.semaphore];
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(waits)
            .wait_dst_stage_mask(stages)
            .signal_semaphores(&signals);
        // SAFETY: the waits are the application's present semaphores, each with a signal
        // pending and no other wait (its contract for vkQueuePresentKHR,
        // VUID-vkQueuePresentKHR-pWaitSemaphores-03268, carried over to this submission); the
        // signal semaphore is unsignalled with nothing pending (the machine proved it free:
        // VUID-vkQueueSubmit-pSignalSemaphores-00067); the fence is unsignalled and unused; the
        // queue is the application's present queue, which it synchronizes for this call.
        let r = unsafe { driver.device.queue_submit(driver.queue, &[submit], r.fence) };
        r.map(|()| driver.clock.now_ns())
    }

    /// The driver's present, waiting on `repaired` if given (else on the application's
    /// semaphores), with the ids, fences and timing planned; each swapchain's result goes to
    /// `scratch.results`.
    ///
    /// # Safety
    ///
    /// As [`Self::make`]; `repaired`, if any, has a signal pending.
    unsafe fn present(
        &mut self,
        driver: &Driver,
        info: &vk::PresentInfoKHR<'_>,
        repaired: Option<&[vk::Semaphore]>,
    ) -> VkResult<bool> {
        let results = &mut self.scratch.results;
        results.clear();
        results.resize(info.swapchain_count as usize, UNWRITTEN);
        // A copy: the application's pNext chain follows vkpace's structures; its arrays are
        // read as they are, and its `pResults` is written after the call
        // ([`Self::tell_results`]).
        let mut ours = *info;
        ours.p_results = results.as_mut_ptr();
        let s = &self.scratch;
        if let Some(r) = repaired {
            ours = ours.wait_semaphores(r);
        }
        let chain = PresentChain {
            fences: self.fences.then_some(&s.fences[..]),
            id_structure: self.ids,
            ids: &s.ids,
            timings: self.timed.then_some(&s.timings.0[..]),
            modes: None,
        };
        // SAFETY: the caller's contract; vkpace's structures are valid for the device's
        // enabled extensions (the config's flags), none duplicates one the caller chained.
        let result = unsafe { chain.queue_present(&driver.swapchain_fn, driver.queue, ours) };
        // A swapchain the driver wrote no result for (an error before it got to it) has the
        // present's.
        let overall = crate::vk::present_chain::present_code(result);
        for r in self.scratch.results.iter_mut().filter(|r| **r == UNWRITTEN) {
            *r = overall;
        }
        result
    }

    /// The application's `pResults`, if it gave one: each swapchain's result as it sees it
    /// ([`super::timing::as_seen`]).
    ///
    /// # Safety
    ///
    /// `info` is the application's valid `VkPresentInfoKHR` the present was made from.
    unsafe fn tell_results(&self, info: &vk::PresentInfoKHR<'_>) {
        if info.p_results.is_null() {
            return;
        }
        let n = self
            .scratch
            .results
            .len()
            .min(info.swapchain_count as usize);
        for (k, &r) in self.scratch.results[..n].iter().enumerate() {
            // SAFETY: `pResults` holds `swapchainCount` results, an output the application
            // gave for this call (VUID-VkPresentInfoKHR-pResults-parameter).
            unsafe {
                info.p_results
                    .add(k)
                    .write(super::timing::as_seen(r, self.timed))
            };
        }
    }
}

/// Arrays a present fills, kept so a steady frame does not allocate (they leave the pacer
/// with the plan and come back with the report).
#[derive(Debug, Default)]
pub(super) struct Scratch {
    pub(super) targets: Vec<(vk::SwapchainKHR, u32)>,
    pub(super) caller_ids: Vec<u64>,
    pub(super) caller_modes: Vec<vk::PresentModeKHR>,
    pub(super) ids: Vec<u64>,
    pub(super) fences: Vec<vk::Fence>,
    /// The ids of the present fences the machine planned (one that could not be made too: no
    /// fence stands for it), to give up those it does not wait for after the present.
    pub(super) fence_ids: Vec<u64>,
    pub(super) stages: Vec<vk::PipelineStageFlags>,
    /// The driver's result for each swapchain (its `pResults`), and as the machine reads it.
    pub(super) results: Vec<vk::Result>,
    pub(super) statuses: Vec<vkpace_core::VkStatus>,
    pub(super) timings: super::timing::TimingInfos,
}

/// A slice of `n` items at `p` (empty for a null pointer or zero count).
///
/// # Safety
///
/// A non-null `p` points at `n` valid items that outlive the use.
pub(super) unsafe fn slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if p.is_null() || n == 0 {
        return &[];
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(p, n as usize) }
}
