//! The pacer shared between threads behind a mutex, in steps (`vkpace::PacerCall`, as the
//! pacing layer keeps one per device), with a second thread beside the frames.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use anyhow::{ensure, Context as _, Result};
use ash::vk;
use vkpace::{FrameLimit, PresentPacer, PresentPacerStats, Setting};

use vkpace_demo::owned_loop::{create_pacer, create_swapchain, OwnedLoop};

use crate::common::{set_runtime_dir, SurfaceSource, VulkanContext};

/// What a run of a pacer shared behind a mutex saw.
pub struct SharedOutcome {
    pub stats: PresentPacerStats,
    /// Times the second thread got the mutex while a present call was in progress.
    pub locks_during_presents: u64,
    /// Times it got the mutex at all.
    pub locks: u64,
}

/// The bound of the application's own waits here.
const TIMEOUT_NS: u64 = 2_000_000_000;

/// `count` frames at `limit` through the pacer's calls in steps, the pacer behind a
/// mutex (as the pacing layer keeps one per device), while a second thread takes the mutex
/// about every millisecond and counts the times it got it while a present call (which ends
/// with the frame limit's sleep) was in progress. With `plain`, the presents are the plain
/// method called with the mutex held (what the layer did before; the control case).
pub fn run_shared(limit: FrameLimit, count: u32, plain: bool) -> Result<SharedOutcome> {
    set_runtime_dir();
    let ctx = VulkanContext::new(SurfaceSource::Headless, true, false)?;
    let mut pacer = create_pacer(&ctx, true)?;
    pacer.set(Setting::FrameLimit(Some(limit)))?;
    let app = OwnedLoop::new(&ctx)?;
    let sc = create_swapchain(&ctx, &mut pacer, vk::SwapchainKHR::null())?;
    let swapchain_fn = ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device);
    // SAFETY: a swapchain of this device.
    let images = unsafe { swapchain_fn.get_swapchain_images(sc) }?;
    let shared = Mutex::new(Some(pacer));
    let (presenting, done) = (AtomicBool::new(false), AtomicBool::new(false));
    let lock = || shared.lock().unwrap_or_else(PoisonError::into_inner);
    let acquire = |(): &mut (), semaphore| acquire(sc, semaphore, lock);
    let present = |(): &mut (), info: &vk::PresentInfoKHR<'_>| {
        presenting.store(true, Ordering::SeqCst);
        let r = match plain {
            true => lock().as_mut().map(|p| {
                // SAFETY: the textbook loop's present, its semaphore signalled by the submit.
                unsafe { p.queue_present(ctx.queue, info) }
            }),
            false => {
                // SAFETY: as above.
                let call = unsafe { PresentPacer::present_call(ctx.queue, info) };
                super::in_steps(call, lock).finish()
            }
        };
        presenting.store(false, Ordering::SeqCst);
        r.unwrap_or(Err(vk::Result::ERROR_INITIALIZATION_FAILED))
    };
    let (frames, (locks, locks_during_presents)) = std::thread::scope(|s| {
        let other = s.spawn(|| take_turns(&shared, &presenting, &done));
        let frames = (0..count as usize)
            .try_for_each(|k| app.frame_through(&ctx, &mut (), (sc, &images), k, acquire, present));
        done.store(true, Ordering::SeqCst);
        (frames, other.join().unwrap_or_default())
    });
    frames?;
    let pacer = shared.into_inner().unwrap_or_else(PoisonError::into_inner);
    let stats = teardown(ctx, app, pacer.context("the pacer")?, sc)?;
    Ok(SharedOutcome {
        stats,
        locks_during_presents,
        locks,
    })
}

/// The second thread: takes the mutex about every millisecond until `done`; returns the times
/// it got it, and those while `presenting` was set.
fn take_turns(
    shared: &Mutex<Option<PresentPacer>>,
    presenting: &AtomicBool,
    done: &AtomicBool,
) -> (u64, u64) {
    let (mut locks, mut during) = (0u64, 0u64);
    while !done.load(Ordering::SeqCst) {
        let guard = shared.lock().unwrap_or_else(PoisonError::into_inner);
        locks += 1;
        during += u64::from(presenting.load(Ordering::SeqCst));
        drop(guard);
        std::thread::sleep(Duration::from_millis(1));
    }
    (locks, during)
}

/// Destroys the run's objects; the pacer's counters, and no validation message.
fn teardown(
    ctx: VulkanContext,
    app: OwnedLoop,
    mut pacer: PresentPacer,
    sc: vk::SwapchainKHR,
) -> Result<PresentPacerStats> {
    app.wait_idle_slots(&ctx)?;
    // SAFETY: no image held; the surface outlives it; then no call in progress.
    unsafe { pacer.destroy_swapchain(sc, None) };
    let stats = pacer.stats();
    // SAFETY: as above.
    unsafe { pacer.destroy() }?;
    app.destroy(&ctx.device);
    let messages = ctx.messages.count();
    ctx.destroy();
    ensure!(messages == 0, "{messages} validation message(s)");
    Ok(stats)
}

/// The textbook loop's acquire through the shared pacer.
fn acquire<'s>(
    sc: vk::SwapchainKHR,
    semaphore: vk::Semaphore,
    with: impl Fn() -> super::Guard<'s>,
) -> ash::prelude::VkResult<(u32, bool)> {
    // SAFETY: the textbook loop's acquire (OwnedLoop's contract).
    let call = unsafe { PresentPacer::acquire_call(sc, TIMEOUT_NS, semaphore, vk::Fence::null()) };
    super::in_steps(call, with)
        .finish()
        .unwrap_or(Err(vk::Result::ERROR_INITIALIZATION_FAILED))
}
