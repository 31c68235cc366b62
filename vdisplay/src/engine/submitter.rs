//! The submitter thread: turns a present into queue work off the application's thread.
//!
//! Why: lavapipe's `vkQueueSubmit` blocks the calling thread on a binary-semaphore wait until
//! the submission that signals it has been executed by its queue thread (Mesa's vk_queue
//! waits VK_SYNC_WAIT_PENDING, and a lavapipe sync only becomes pending once its submission
//! ran; transfers run right there). Submitting the batch that waits on the present semaphores
//! from `vkQueuePresentKHR` would therefore block the application until its frame rendered,
//! which is the very serialization this layer removes.
//!
//! So `vkQueuePresentKHR` only submits a *marker*: an empty batch (no waits, never blocks)
//! whose fence signals once all earlier work on the queue completed (Spec: a fence signal
//! operation's first scope includes all commands earlier in submission order), i.e. once the
//! frame's rendering, submitted before the present, is done; that is when the image is ready.
//! This thread waits for the marker, then submits the real batch (which now does not block):
//! it waits on the present semaphores (consuming them), runs the read-back copy, and signals a
//! fence the waiter watches; maintenance1 present fences follow it. A present semaphore
//! signaled on another queue is not covered by the marker; the batch then waits for it here,
//! on this thread, which is still correct.

use std::time::Duration;

use ash::vk;

use super::display::ReqId;
use super::lock;
use crate::clock::now_ns;
use crate::device::Device;
use crate::gpu_model;

/// One present's queue work.
pub struct Job {
    /// The queue the application presented on.
    pub queue: vk::Queue,
    /// The marker's fence.
    pub marker: vk::Fence,
    /// The present's wait semaphores.
    pub semaphores: Vec<vk::Semaphore>,
    /// Read-back copies to run in the batch.
    pub cmds: Vec<vk::CommandBuffer>,
    /// maintenance1 present fences to signal right after the batch.
    pub app_fences: Vec<vk::Fence>,
    /// The engine's requests of this present.
    pub ids: Vec<ReqId>,
    /// The modelled GPU's earliest ready time: the present call plus the drawn delay (the
    /// present call itself without a model, which the real ready time never precedes).
    pub not_before_ns: u64,
}

const SLICE: Duration = Duration::from_millis(100);

/// The thread's body.
pub fn run(dev: &Device) {
    let engine = &*dev.engine;
    // The ready time of the previous present: a queue completes its work in order.
    let mut last_ready = 0;
    loop {
        let job = {
            let mut s = lock(&engine.submit);
            while s.jobs.is_empty() && !s.shutdown {
                s = engine
                    .submit_wake
                    .wait(s)
                    .unwrap_or_else(|e| e.into_inner());
            }
            let Some(job) = s.jobs.pop_front() else {
                return;
            };
            s.busy = true;
            job
        };
        last_ready = run_job(dev, job, last_ready);
        lock(&engine.submit).busy = false;
        engine.submit_idle.notify_all();
    }
}

/// Waits for the job's marker, records when its images are ready (the modelled GPU's time, not
/// before `last_ready`) and submits its batch; returns the ready time. Present fences of a
/// present the model holds back are signalled by the engine at the modelled time instead,
/// since on a real GPU the present's waits end no sooner than its rendering.
fn run_job(dev: &Device, mut job: Job, last_ready: u64) -> u64 {
    loop {
        // SAFETY: the layer's fence, submitted by vkQueuePresentKHR.
        match unsafe {
            dev.fp
                .wait_for_fences(&[job.marker], true, SLICE.as_nanos() as u64)
        } {
            Err(vk::Result::TIMEOUT) => continue,
            Err(e) => eprintln!("vdisplay: waiting for a present marker failed: {e:?}"),
            Ok(()) => {}
        }
        break;
    }
    let real = now_ns();
    let ready = gpu_model::ready_at(real, job.not_before_ns, last_ready);
    dev.engine.mark_ready(dev, &job.ids, ready);
    dev.recycle_fence(job.marker);
    if ready > real && !job.app_fences.is_empty() {
        let fences = std::mem::take(&mut job.app_fences);
        dev.engine.signal_at(job.queue, fences, ready);
    }
    let fence = match dev.take_fence() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("vdisplay: no fence for a present batch: {e:?}");
            dev.engine.mark_consumed(dev, &job.ids);
            return ready;
        }
    };
    // SAFETY: the application's semaphores and fences from its present, our command buffers.
    match unsafe { submit_batch(dev, &job, fence) } {
        Ok(()) => dev.engine.batch_submitted(job.ids, fence),
        Err(e) => {
            eprintln!("vdisplay: submitting a present batch failed: {e:?}");
            dev.engine.mark_consumed(dev, &job.ids);
            dev.recycle_fence(fence);
        }
    }
    ready
}

/// Submits the batch and the present fences under the queue lock.
///
/// # Safety
/// The job's handles must be valid.
unsafe fn submit_batch(dev: &Device, job: &Job, fence: vk::Fence) -> Result<(), vk::Result> {
    let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; job.semaphores.len()];
    let batch = vk::SubmitInfo::default()
        .wait_semaphores(&job.semaphores)
        .wait_dst_stage_mask(&stages)
        .command_buffers(&job.cmds);
    let _q = dev.lock_queues();
    // SAFETY: caller's contract; the queue is held under the queue lock.
    unsafe {
        dev.fp
            .queue_submit(job.queue, std::slice::from_ref(&batch), fence)?
    };
    for f in &job.app_fences {
        // SAFETY: an empty submission signals the fence after all earlier work on the queue,
        // i.e. after the batch above (Spec: vkQueueSubmit, fence signal operation scope).
        unsafe { dev.fp.queue_submit(job.queue, &[], *f)? };
    }
    Ok(())
}
