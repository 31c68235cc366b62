//! `vkQueuePresentKHR`: returns without waiting for rendering. It submits a marker (an empty
//! batch with a fence of the layer's) and hands the rest to the engine's submitter
//! (`engine/submitter.rs`): once the marker signals, the images are ready; the submitter then
//! submits the batch that waits on the present semaphores (the spec's "queue operations") and
//! the maintenance1 present fences right after it, so they signal once the waits were consumed,
//! i.e. once the engine holds its own reference (Spec: VkSwapchainPresentFenceInfoEXT).

use std::sync::Arc;

use ash::vk;
use vkpace_registry::{self as r, PresentTimingInfoFlagsEXT};

use crate::clock::now_ns;
use crate::device::Device;
use crate::engine::display::Target;
use crate::engine::{Job, Request};
use crate::faults::Injected;
use crate::swapchain::{self, ImageState, Status, Swapchain};
use crate::timing;
use vkpace_layer_plumbing::chain::{self, Splice};

/// The per-swapchain arrays of a present's extension structures.
#[derive(Default)]
struct PresentExt<'a> {
    ids: Option<&'a [u64]>,
    fences: Option<&'a [vk::Fence]>,
    modes: Option<&'a [vk::PresentModeKHR]>,
    timings: Option<&'a [r::PresentTimingInfoEXT<'a>]>,
}

/// A `(count, pointer)` array as a slice, if the pointer is set.
///
/// # Safety
/// `ptr` must be null or valid for `count` elements for `'a`.
unsafe fn slice<'a, T>(ptr: *const T, count: u32) -> Option<&'a [T]> {
    // SAFETY: caller's contract.
    (!ptr.is_null()).then(|| unsafe { std::slice::from_raw_parts(ptr, count as usize) })
}

impl<'a> PresentExt<'a> {
    /// Reads the structures of a `VkPresentInfoKHR` chain (VK_KHR_present_id and
    /// VK_KHR_present_id2 share one id namespace; id2 wins if both are given).
    ///
    /// # Safety
    /// `p_next` must be a valid chain living for `'a`.
    unsafe fn parse(p_next: *const std::ffi::c_void) -> Self {
        // SAFETY: (all finds and slices) the chain is valid; each array has the structure's
        // swapchain count (VUIDs ...-swapchainCount-*).
        unsafe {
            let id1 = chain::find::<vk::PresentIdKHR>(p_next)
                .and_then(|s| slice(s.p_present_ids, s.swapchain_count));
            let id2 = chain::find::<r::PresentId2KHR>(p_next)
                .and_then(|s| slice(s.p_present_ids, s.swapchain_count));
            Self {
                ids: id2.or(id1),
                fences: chain::find::<vk::SwapchainPresentFenceInfoEXT>(p_next)
                    .and_then(|s| slice(s.p_fences, s.swapchain_count)),
                modes: chain::find::<vk::SwapchainPresentModeInfoEXT>(p_next)
                    .and_then(|s| slice(s.p_present_modes, s.swapchain_count)),
                timings: chain::find::<r::PresentTimingsInfoEXT>(p_next)
                    .and_then(|s| slice(s.p_timing_infos, s.swapchain_count)),
            }
        }
    }
}

/// `vkQueuePresentKHR`.
///
/// # Safety
/// Valid arguments of the command.
pub unsafe fn queue_present(queue: vk::Queue, info: *const vk::PresentInfoKHR<'_>) -> vk::Result {
    // SAFETY: valid queue.
    let Some(dev) = (unsafe { Device::of(queue) }) else {
        return vk::Result::ERROR_DEVICE_LOST;
    };
    // SAFETY: valid present info with arrays of `swapchain_count` elements.
    let (pi, chains, indices) = unsafe {
        let pi = &*info;
        (
            pi,
            slice(pi.p_swapchains, pi.swapchain_count).unwrap_or(&[]),
            slice(pi.p_image_indices, pi.swapchain_count).unwrap_or(&[]),
        )
    };
    let scs: Vec<Option<Arc<Swapchain>>> = chains.iter().map(|s| swapchain::lookup(*s)).collect();
    if scs.iter().all(Option::is_none) {
        // SAFETY: the caller's contract; only driver swapchains.
        return unsafe { present_to_driver(&dev, queue, pi) };
    }
    if scs.iter().any(Option::is_none) {
        eprintln!("vdisplay: a present mixing virtual and driver swapchains is not supported");
        return vk::Result::ERROR_UNKNOWN;
    }
    // SAFETY: the chain is valid for this call.
    let ext = unsafe { PresentExt::parse(pi.p_next) };
    let now = now_ns();
    let mut requests: Vec<Request> = scs
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, sc)| plan(&dev, queue, sc, indices[i], &ext, i, now))
        .collect();
    // SAFETY: the semaphores are the application's, valid for this present.
    let sems = unsafe { slice(pi.p_wait_semaphores, pi.wait_semaphore_count) }.unwrap_or(&[]);
    let marker = match submit_marker(&dev, queue) {
        Ok(f) => f,
        Err(e) => {
            for r in &requests {
                r.sc.state().images[r.image as usize] = ImageState::Acquired;
            }
            return e;
        }
    };
    let mut job = job(queue, marker, sems, &mut requests, &ext, now);
    crate::elide::filter(&dev, &mut job.semaphores);
    let results: Vec<vk::Result> = requests.iter().map(|r| r.result).collect();
    let ids = dev.engine.enqueue(requests);
    dev.engine.submit(Job { ids, ..job });
    if !pi.p_results.is_null() {
        // SAFETY: `p_results` has `swapchain_count` elements.
        unsafe { std::ptr::copy_nonoverlapping(results.as_ptr(), pi.p_results, results.len()) };
    }
    overall(&results)
}

/// A present of driver swapchains only: down the chain, with the structures of the layer's
/// extensions the driver lacks unlinked for the call (the application's chain is relinked when
/// the splice is dropped, after it).
///
/// # Safety
/// Valid arguments of `vkQueuePresentKHR` naming only the driver's swapchains.
unsafe fn present_to_driver(
    dev: &Device,
    queue: vk::Queue,
    pi: &vk::PresentInfoKHR<'_>,
) -> vk::Result {
    let _q = dev.lock_queues();
    let mut down = *pi;
    // SAFETY: `down` heads the application's valid chain, alive for this call; the splice
    // writes the `pNext` of the structures above an unlinked one and restores them when
    // dropped, after the call below (under the queue lock). The spec makes no promise that a
    // caller's chain is writable or unshared (a chain in read-only memory, or one another
    // thread presents at once outside this lock, would fault or race): a test layer's
    // compromise, only taken where the driver lacks an extension vdisplay adds (none is
    // unlinked elsewhere: `driver_lacks` is empty).
    let _splice = unsafe {
        Splice::unlink(
            (&mut down as *mut vk::PresentInfoKHR).cast(),
            &dev.driver_lacks,
        )
    };
    // SAFETY: only driver swapchains: down the chain, without what the driver lacks.
    unsafe { (dev.swapchain_fp.queue_present_khr)(queue, &down) }
}

/// The combined result (Spec: vkQueuePresentKHR, "if multiple swapchains are presented").
fn overall(results: &[vk::Result]) -> vk::Result {
    let order = [
        vk::Result::ERROR_SURFACE_LOST_KHR,
        vk::Result::ERROR_OUT_OF_DATE_KHR,
        r::ERROR_PRESENT_TIMING_QUEUE_FULL_EXT,
        vk::Result::SUBOPTIMAL_KHR,
    ];
    order
        .into_iter()
        .find(|o| results.contains(o))
        .unwrap_or(vk::Result::SUCCESS)
}

/// Decides one swapchain's part of a present: its result, mode, id, target, timing slot.
fn plan(
    dev: &Device,
    queue: vk::Queue,
    sc: Arc<Swapchain>,
    image: u32,
    ext: &PresentExt<'_>,
    i: usize,
    now: u64,
) -> Request {
    let mut st = sc.state();
    st.presents += 1;
    let seq = st.presents;
    if let Some(s) = st.images.get_mut(image as usize) {
        *s = ImageState::Queued;
    }
    if let Some(m) = ext
        .modes
        .map(|m| m[i])
        .filter(|m| sc.info.modes.contains(m))
    {
        st.mode = m;
    }
    let present_id = ext.ids.map_or(0, |ids| ids[i]);
    let (result, target) = timed_result(&sc, &mut st, ext, i, seq, present_id);
    if result.as_raw() >= 0 {
        st.queued_id = st.queued_id.max(present_id);
    }
    let mode = st.mode;
    let acquired_ns = st
        .acquired_ns
        .get(image as usize)
        .copied()
        .filter(|&t| t > 0);
    drop(st);
    sc.surface.note_present();
    let readback = result.as_raw() >= 0
        && sc.readback.is_some()
        && seq.is_multiple_of(dev.settings.readback_every)
        && dev.family_of(queue) == Some(dev.default_family);
    Request {
        sc,
        image,
        seq,
        present_id,
        mode,
        target,
        acquired_ns,
        queued_ns: now,
        ready_ns: None,
        result,
        batch: vk::Fence::null(),
        consumed: false,
        free_pending: false,
        capture_pending: false,
        late_fence: None,
        readback,
        shown: false,
    }
}

/// The result of one swapchain's present and its target: [`result_of`], then its present-timing
/// request (which may find the timing queue full).
fn timed_result(
    sc: &Swapchain,
    st: &mut crate::swapchain::State,
    ext: &PresentExt<'_>,
    i: usize,
    seq: u64,
    present_id: u64,
) -> (vk::Result, Target) {
    let mut result = result_of(sc, st);
    let mut target = Target::None;
    if let Some(t) = ext.timings.map(|t| t[i]).filter(|_| result.as_raw() >= 0) {
        target = target_of(&t, timing::Domains::of(&sc.surface.settings));
        if !reserve_timing(st, seq, present_id, &t) {
            result = r::ERROR_PRESENT_TIMING_QUEUE_FULL_EXT;
        }
    }
    (result, target)
}

/// The result of one swapchain's present: the surface's standing, then the injected faults
/// (an injected OUT_OF_DATE sticks).
fn result_of(sc: &Swapchain, st: &mut crate::swapchain::State) -> vk::Result {
    match (sc.status(st), sc.faults.draw()) {
        (Status::Lost, _) => vk::Result::ERROR_SURFACE_LOST_KHR,
        (Status::OutOfDate, _) => vk::Result::ERROR_OUT_OF_DATE_KHR,
        (_, Injected::OutOfDate) => {
            st.out_of_date = true;
            vk::Result::ERROR_OUT_OF_DATE_KHR
        }
        (Status::Suboptimal, _) | (_, Injected::Suboptimal) => vk::Result::SUBOPTIMAL_KHR,
        (Status::Ok, Injected::None) => vk::Result::SUCCESS,
    }
}

/// Reserves a results-queue slot for a present that asks for stage timings; false if the queue
/// is full or was never sized (Spec: VkPresentTimingInfoEXT, "presentation fails and returns
/// VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT").
fn reserve_timing(
    st: &mut crate::swapchain::State,
    seq: u64,
    present_id: u64,
    t: &r::PresentTimingInfoEXT<'_>,
) -> bool {
    let stages = t.present_stage_queries;
    let entry = timing::Entry {
        seq,
        present_id,
        target_time: t.target_time,
        stages,
        domain_id: t.time_domain_id,
        times: [0; 4],
        complete: false,
    };
    stages.is_empty() || st.timing.reserve(entry)
}

/// The engine's target for a VkPresentTimingInfoEXT: an absolute time given in a local domain
/// with `timing_domains = local` is shifted back to CLOCK_MONOTONIC, the engine's clock; a
/// relative one is a duration and stays.
fn target_of(t: &r::PresentTimingInfoEXT<'_>, domains: timing::Domains) -> Target {
    let nearest = t
        .flags
        .contains(PresentTimingInfoFlagsEXT::PRESENT_AT_NEAREST_REFRESH_CYCLE);
    if t.target_time == 0 {
        Target::None
    } else if t
        .flags
        .contains(PresentTimingInfoFlagsEXT::PRESENT_AT_RELATIVE_TIME)
    {
        Target::Relative {
            after: t.target_time,
            nearest,
        }
    } else {
        Target::Absolute {
            at: domains.to_monotonic(t.target_time, t.time_domain_id),
            nearest,
        }
    }
}

/// Submits the marker: an empty batch whose fence signals after all earlier work on the queue.
fn submit_marker(dev: &Device, queue: vk::Queue) -> Result<vk::Fence, vk::Result> {
    let fence = dev.take_fence()?;
    let _q = dev.lock_queues();
    // SAFETY: an empty submission with the layer's unsignaled fence, under the queue lock.
    unsafe { dev.fp.queue_submit(queue, &[], fence) }.inspect_err(|_| dev.recycle_fence(fence))?;
    Ok(fence)
}

/// The submitter's job for this present, made at `now` (its ids are filled in by the caller).
/// Present fences the fence faults hold back are recorded in the requests instead. The
/// modelled GPU draws one delay per present: its swapchains' images are one submission's work.
fn job(
    queue: vk::Queue,
    marker: vk::Fence,
    sems: &[vk::Semaphore],
    requests: &mut [Request],
    ext: &PresentExt<'_>,
    now: u64,
) -> Job {
    let cmds = requests
        .iter()
        .filter(|r| r.readback)
        .filter_map(|r| r.sc.readback.as_ref().map(|rb| rb.command_buffer(r.image)))
        .collect();
    let mut app_fences = Vec::new();
    for (i, r) in requests.iter_mut().enumerate() {
        let Some(f) = ext.fences.map(|f| f[i]).filter(|f| *f != vk::Fence::null()) else {
            continue;
        };
        if r.sc.faults.fence_never() {
            continue;
        }
        if r.sc.surface.settings.fault_present_fence_late_ms > 0.0 {
            r.late_fence = Some((queue, f));
        } else {
            app_fences.push(f);
        }
    }
    Job {
        queue,
        marker,
        semaphores: sems.to_vec(),
        cmds,
        app_fences,
        ids: Vec::new(),
        not_before_ns: now.saturating_add(requests.first().map_or(0, |r| r.sc.gpu.draw_ns())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::Domains;

    fn info(
        target_time: u64,
        id: u64,
        flags: PresentTimingInfoFlagsEXT,
    ) -> r::PresentTimingInfoEXT<'static> {
        r::PresentTimingInfoEXT {
            target_time,
            time_domain_id: id,
            flags,
            ..Default::default()
        }
    }

    #[test]
    fn absolute_targets_in_local_domains_are_shifted_back() {
        let none = PresentTimingInfoFlagsEXT::empty();
        let rel = PresentTimingInfoFlagsEXT::PRESENT_AT_RELATIVE_TIME;
        let near = PresentTimingInfoFlagsEXT::PRESENT_AT_NEAREST_REFRESH_CYCLE;
        let local = Domains::local(1_000);
        let abs = |at, nearest| Target::Absolute { at, nearest };
        // Monotonic: every domain is CLOCK_MONOTONIC.
        for id in [1, 2, 3, 9] {
            assert_eq!(
                target_of(&info(5_000, id, none), Domains::MONOTONIC),
                abs(5_000, false)
            );
        }
        // Local: ids 1 and 2 run 1000 ns ahead; an unknown id (3) falls back to id 2.
        for id in [1, 2, 3] {
            assert_eq!(target_of(&info(5_000, id, near), local), abs(4_000, true));
        }
        // Before the domain's epoch: in the past.
        assert_eq!(target_of(&info(500, 2, none), local), abs(0, false));
        // Relative targets are durations; 0 is no target.
        assert_eq!(
            target_of(&info(5_000, 2, rel), local),
            Target::Relative {
                after: 5_000,
                nearest: false
            }
        );
        assert_eq!(target_of(&info(0, 2, none), local), Target::None);
    }
}
