//! Acquire semaphores without a queue round trip.
//!
//! On a real presentation engine an acquire semaphore is signaled when the image is free; here
//! an image is free when `vkAcquireNextImageKHR` hands it out, so the signal carries no
//! dependency at all. Submitting it as a queue operation would still cost a whole frame on
//! lavapipe: its queue thread executes submissions in order, and a later `vkQueueSubmit` that
//! waits on that semaphore blocks the *calling* thread until the signal was executed, that is
//! until all work submitted before the acquire finished. That would serialize the textbook loop.
//!
//! So the layer records the semaphore as "owed a signal" instead, and removes the matching wait
//! from the next submission that waits on it (vkQueueSubmit, vkQueueSubmit2, the present batch):
//! a binary semaphore's signal followed by its wait, with nothing to order, is a no-op. The
//! application and the layers above see the normal acquire/wait pairing. Per-wait arrays in the
//! batch's chain (VkTimelineSemaphoreSubmitInfo, VkDeviceGroupSubmitInfo) are rewritten to
//! match. A destroyed semaphore is forgotten (`vkDestroySemaphore` is intercepted for that).

use std::sync::Mutex;

use ash::vk;
use ash::vk::Handle;

use crate::device::Device;
use vkpace_layer_plumbing::chain::{self, Splice};

/// Semaphores owed an acquire signal, per device.
#[derive(Default)]
pub struct Owed {
    set: Mutex<Vec<u64>>,
}

impl Owed {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<u64>> {
        self.set.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records that `s` is owed its acquire signal.
    pub fn add(&self, s: vk::Semaphore) {
        self.lock().push(s.as_raw());
    }

    /// Whether `s` is owed a signal; if so, its wait is being elided and it is no longer owed.
    pub fn take(&self, s: vk::Semaphore) -> bool {
        let mut set = self.lock();
        match set.iter().position(|x| *x == s.as_raw()) {
            Some(i) => {
                set.swap_remove(i);
                true
            }
            None => false,
        }
    }

    /// Whether any semaphore is owed (the fast path of every submission).
    pub fn any(&self) -> bool {
        !self.lock().is_empty()
    }

    /// Whether `s` is owed, without taking it.
    pub fn contains(&self, s: vk::Semaphore) -> bool {
        self.lock().contains(&s.as_raw())
    }
}

/// Removes owed semaphores from a present's wait list.
pub fn filter(dev: &Device, sems: &mut Vec<vk::Semaphore>) {
    if dev.owed.any() {
        sems.retain(|s| !dev.owed.take(*s));
    }
}

/// Rewritten `VkSubmitInfo`s, the storage they point at, and the chain edits to undo after the
/// call.
pub type Rewritten = (Vec<vk::SubmitInfo<'static>>, Vec<Box<Batch>>, Vec<Splice>);

/// A rewritten `VkSubmitInfo` and the storage it points at.
#[derive(Default)]
pub struct Batch {
    sems: Vec<vk::Semaphore>,
    stages: Vec<vk::PipelineStageFlags>,
    timeline: Option<(vk::TimelineSemaphoreSubmitInfo<'static>, Vec<u64>)>,
    group: Option<(vk::DeviceGroupSubmitInfo<'static>, Vec<u32>)>,
}

/// `vkQueueSubmit` batches with owed waits removed; `None` if nothing to remove. The returned
/// splices must stay alive until the submission was made.
///
/// # Safety
/// `submits` must be valid batches.
pub unsafe fn rewrite(dev: &Device, submits: &[vk::SubmitInfo<'_>]) -> Option<Rewritten> {
    if !dev.owed.any() {
        return None;
    }
    // SAFETY: caller's contract.
    let waits = |b: &vk::SubmitInfo| unsafe {
        std::slice::from_raw_parts(b.p_wait_semaphores, b.wait_semaphore_count as usize)
    };
    let hit = submits
        .iter()
        .any(|b| b.wait_semaphore_count > 0 && waits(b).iter().any(|s| dev.owed.contains(*s)));
    if !hit {
        return None;
    }
    let (mut out, mut storage, mut splices) = (Vec::new(), Vec::new(), Vec::new());
    for b in submits {
        let keep: Vec<bool> = if b.wait_semaphore_count == 0 {
            Vec::new()
        } else {
            waits(b).iter().map(|s| !dev.owed.take(*s)).collect()
        };
        // SAFETY: a valid `VkSubmitInfo` (same lifetime as the call).
        let mut copy: vk::SubmitInfo<'static> = unsafe { std::mem::transmute(*b) };
        if keep.iter().all(|k| *k) {
            out.push(copy);
            continue;
        }
        let mut batch = Box::<Batch>::default();
        // SAFETY: valid arrays of `wait_semaphore_count` elements.
        let stages = unsafe {
            std::slice::from_raw_parts(b.p_wait_dst_stage_mask, b.wait_semaphore_count as usize)
        };
        batch.sems = waits(b)
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(s, _)| *s)
            .collect();
        batch.stages = stages
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(s, _)| *s)
            .collect();
        copy.wait_semaphore_count = batch.sems.len() as u32;
        copy.p_wait_semaphores = batch.sems.as_ptr();
        copy.p_wait_dst_stage_mask = batch.stages.as_ptr();
        // SAFETY: `copy`'s chain is the application's valid chain.
        if let Some(s) = unsafe { fix_chain(&mut copy, &mut batch, &keep) } {
            splices.push(s);
        }
        out.push(copy);
        storage.push(batch);
    }
    Some((out, storage, splices))
}

/// Replaces the per-wait arrays of the batch's chain with filtered copies.
///
/// # Safety
/// `copy`'s chain must be valid and not read by others until the returned splice is dropped.
unsafe fn fix_chain(
    copy: &mut vk::SubmitInfo<'static>,
    batch: &mut Batch,
    keep: &[bool],
) -> Option<Splice> {
    // SAFETY: caller's contract.
    unsafe { copy_wait_arrays(copy, batch, keep) };
    if batch.timeline.is_none() && batch.group.is_none() {
        return None;
    }
    let types = [
        vk::StructureType::TIMELINE_SEMAPHORE_SUBMIT_INFO,
        vk::StructureType::DEVICE_GROUP_SUBMIT_INFO,
    ];
    // SAFETY: caller's contract; `copy` is ours.
    let splice = unsafe { Splice::unlink((copy as *mut vk::SubmitInfo).cast(), &types) };
    if let Some((t, values)) = batch.timeline.as_mut() {
        t.wait_semaphore_value_count = values.len() as u32;
        t.p_wait_semaphore_values = values.as_ptr();
        t.p_next = copy.p_next;
        copy.p_next = (t as *const vk::TimelineSemaphoreSubmitInfo).cast();
    }
    if let Some((g, values)) = batch.group.as_mut() {
        g.wait_semaphore_count = values.len() as u32;
        g.p_wait_semaphore_device_indices = values.as_ptr();
        g.p_next = copy.p_next;
        copy.p_next = (g as *const vk::DeviceGroupSubmitInfo).cast();
    }
    Some(splice)
}

/// Copies the chain's VkTimelineSemaphoreSubmitInfo / VkDeviceGroupSubmitInfo (if their wait
/// arrays match the batch) into `batch`, with only the kept waits' entries.
///
/// # Safety
/// `copy`'s chain must be valid.
unsafe fn copy_wait_arrays(copy: &vk::SubmitInfo<'static>, batch: &mut Batch, keep: &[bool]) {
    let pick = |v: &[u64]| {
        v.iter()
            .zip(keep)
            .filter(|(_, k)| **k)
            .map(|(x, _)| *x)
            .collect::<Vec<_>>()
    };
    // SAFETY: (both finds and slices) the chain is valid; arrays have the batch's wait count;
    // the copies only live for the submission call.
    unsafe {
        let timeline = chain::find::<vk::TimelineSemaphoreSubmitInfo>(copy.p_next);
        if let Some(t) = timeline.filter(|t| t.wait_semaphore_value_count as usize == keep.len()) {
            let values = pick(std::slice::from_raw_parts(
                t.p_wait_semaphore_values,
                keep.len(),
            ));
            let t = std::mem::transmute::<
                vk::TimelineSemaphoreSubmitInfo<'_>,
                vk::TimelineSemaphoreSubmitInfo<'static>,
            >(*t);
            batch.timeline = Some((t, values));
        }
        let group = chain::find::<vk::DeviceGroupSubmitInfo>(copy.p_next);
        if let Some(g) = group.filter(|g| g.wait_semaphore_count as usize == keep.len()) {
            let idx: Vec<u64> =
                std::slice::from_raw_parts(g.p_wait_semaphore_device_indices, keep.len())
                    .iter()
                    .map(|x| *x as u64)
                    .collect();
            let values = pick(&idx).into_iter().map(|x| x as u32).collect();
            let g = std::mem::transmute::<
                vk::DeviceGroupSubmitInfo<'_>,
                vk::DeviceGroupSubmitInfo<'static>,
            >(*g);
            batch.group = Some((g, values));
        }
    }
}

/// `vkQueueSubmit2` batches with owed waits removed (the waits carry their own values and
/// device indices, so nothing in the chain needs rewriting); `None` if nothing to remove.
///
/// # Safety
/// `submits` must be valid batches.
pub unsafe fn rewrite2(
    dev: &Device,
    submits: &[vk::SubmitInfo2<'_>],
) -> Option<(
    Vec<vk::SubmitInfo2<'static>>,
    Vec<Vec<vk::SemaphoreSubmitInfo<'static>>>,
)> {
    if !dev.owed.any() {
        return None;
    }
    // SAFETY: caller's contract.
    let waits = |b| unsafe { waits2(b) };
    let hit = submits.iter().any(|b| {
        b.wait_semaphore_info_count > 0 && waits(b).iter().any(|w| dev.owed.contains(w.semaphore))
    });
    if !hit {
        return None;
    }
    let mut storage = Vec::new();
    let mut out = Vec::new();
    for b in submits {
        // SAFETY: valid structures, used only for the duration of the call.
        let mut copy: vk::SubmitInfo2<'static> = unsafe { std::mem::transmute(*b) };
        if b.wait_semaphore_info_count > 0 {
            // SAFETY: as above.
            let kept: Vec<vk::SemaphoreSubmitInfo<'static>> = waits(b)
                .iter()
                .filter(|w| !dev.owed.take(w.semaphore))
                .map(|w| unsafe { std::mem::transmute(*w) })
                .collect();
            copy.wait_semaphore_info_count = kept.len() as u32;
            copy.p_wait_semaphore_infos = kept.as_ptr();
            storage.push(kept);
        }
        out.push(copy);
    }
    Some((out, storage))
}

/// The waits of a `VkSubmitInfo2`.
///
/// # Safety
/// `b` must be a valid batch.
unsafe fn waits2<'a>(b: &'a vk::SubmitInfo2<'_>) -> &'a [vk::SemaphoreSubmitInfo<'a>] {
    // SAFETY: caller's contract: the array has `wait_semaphore_info_count` elements.
    unsafe {
        std::slice::from_raw_parts(
            b.p_wait_semaphore_infos.cast(),
            b.wait_semaphore_info_count as usize,
        )
    }
}
