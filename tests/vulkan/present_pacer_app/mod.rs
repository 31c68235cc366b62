//! An application that owns its swapchain, paced through [`vkpace::PresentPacer`]: the
//! textbook loop with two frames' semaphores reused, a recreation every few frames with the old
//! swapchain destroyed right after, on a headless surface with validation failing a run on its
//! first message. Shared by the pacer's smoke tests (plain lavapipe, and over the virtual
//! display for display feedback).

mod blocked;
mod blocked_present;
mod misuse;
mod shared;

use std::time::{Duration, Instant};

pub use blocked::acquire_beside_a_blocked_one;
pub use blocked_present::{calls_beside_a_blocked_present, PRESENT_BLOCKS_FOR};
pub use misuse::reported_to_another_pacer;
pub use shared::run_shared;

use anyhow::{ensure, Result};
use ash::vk;
use vkpace::{FrameLimit, PacerCall, PresentPacer, PresentPacerStats, Setting};

use vkpace_demo::owned_loop::{create_pacer, create_swapchain, swapchain_info_of, OwnedLoop};

use crate::common::{set_runtime_dir, SurfaceSource, VulkanContext};

/// A pacer shared between threads behind a mutex, as the pacing layer keeps one per device.
type Shared = std::sync::Mutex<Option<PresentPacer>>;

/// The shared pacer, locked.
type Guard<'s> = std::sync::MutexGuard<'s, Option<PresentPacer>>;

/// Locks the shared pacer (a poisoned mutex is used as it is): how [`in_steps`] reaches it.
fn locker<'s>(shared: &'s Shared) -> impl Fn() -> Guard<'s> + Copy + 's {
    move || {
        shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Runs `call`'s steps as the pacing layer does: each plan and report under the mutex
/// (`lock`), each step's calls down with the mutex released.
fn in_steps<'a, 's, T>(
    mut call: PacerCall<'a, T>,
    lock: impl Fn() -> Guard<'s>,
) -> PacerCall<'a, T> {
    loop {
        // The guard goes at the end of the statement: the plan alone is made under the mutex.
        let planned = lock().as_mut().and_then(|p| call.plan(p));
        let Some(down) = planned else {
            return call;
        };
        let made = down.make();
        call.report(lock().as_mut(), made);
    }
}

/// Frames presented per case.
pub const FRAMES: u32 = 50;
/// A recreation every this many frames (so 4 retired swapchains per case).
pub const RECREATE_EVERY: u32 = 12;

/// A swapchain of the context's surface in present mode `mode`, `old` retired.
fn create_swapchain_in(
    ctx: &VulkanContext,
    pacer: &mut PresentPacer,
    old: vk::SwapchainKHR,
    mode: vk::PresentModeKHR,
) -> Result<vk::SwapchainKHR> {
    if mode == vk::PresentModeKHR::FIFO {
        return create_swapchain(ctx, pacer, old);
    }
    let info = swapchain_info_of(ctx, ctx.surface, old)?.present_mode(mode);
    // SAFETY: a valid create info for the context's device and surface (the caller picks a
    // mode the surface offers).
    Ok(unsafe { pacer.create_swapchain(&info, None) }?)
}

/// The frames of a run in present mode `mode`, with their recreations; returns the last
/// swapchain and the time from the first present's return to the last's. Each present asks
/// for its swapchain's result (`pResults`), kept in `told`.
fn frames(
    ctx: &VulkanContext,
    pacer: &mut PresentPacer,
    app: &OwnedLoop,
    (count, recreate_every): (u32, u32),
    mode: vk::PresentModeKHR,
    told: &mut Vec<vk::Result>,
) -> Result<(vk::SwapchainKHR, Duration)> {
    let mut first = None;
    let mut elapsed = Duration::ZERO;
    let mut sc = create_swapchain_in(ctx, pacer, vk::SwapchainKHR::null(), mode)?;
    let swapchain_fn = ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device);
    for k in 0..count {
        if k > 0 && k % recreate_every == 0 {
            let old = sc;
            sc = create_swapchain_in(ctx, pacer, old, mode)?;
            // SAFETY: no image of `old` is held; its presents may be pending (the pacer waits).
            unsafe { pacer.destroy_swapchain(old, None) };
        }
        // SAFETY: a swapchain of this device.
        let images = unsafe { swapchain_fn.get_swapchain_images(sc) }?;
        app.frame(ctx, pacer, (sc, &images), k as usize, |pacer, info| {
            let mut result = [vk::Result::ERROR_UNKNOWN];
            let info = vk::PresentInfoKHR {
                p_results: result.as_mut_ptr(),
                ..*info
            };
            // SAFETY: the textbook loop's present, its semaphore signalled by the frame's
            // submit; `pResults` holds its one swapchain's result.
            let r = unsafe { pacer.queue_present(ctx.queue, &info) };
            told.extend(result);
            r
        })?;
        let first = *first.get_or_insert_with(Instant::now);
        elapsed = first.elapsed();
        ensure!(
            ctx.messages.count() == 0,
            "validation message at frame {k}:\n{pacer:?}"
        );
    }
    Ok((sc, elapsed))
}

/// What a run saw.
pub struct Outcome {
    pub stats: PresentPacerStats,
    /// From the first present's return to the last's.
    pub elapsed: Duration,
    /// Frames of the last swapchain's lineage whose display time came back.
    pub displayed: usize,
    /// Each present's result for its swapchain, as the application was told (`pResults`).
    pub told: Vec<vk::Result>,
}

/// One case: `FRAMES` frames with a recreation every `RECREATE_EVERY`, then teardown.
pub fn run(maintenance1: bool, limit: Option<FrameLimit>) -> Result<Outcome> {
    run_frames(maintenance1, limit, FRAMES, RECREATE_EVERY)
}

/// One case: `count` frames with a recreation every `recreate_every`, then teardown (FIFO).
pub fn run_frames(
    maintenance1: bool,
    limit: Option<FrameLimit>,
    count: u32,
    recreate_every: u32,
) -> Result<Outcome> {
    run_frames_in(
        vk::PresentModeKHR::FIFO,
        maintenance1,
        limit,
        (count, recreate_every),
    )
}

/// [`run_frames`] in present mode `mode`.
pub fn run_frames_in(
    mode: vk::PresentModeKHR,
    maintenance1: bool,
    limit: Option<FrameLimit>,
    (count, recreate_every): (u32, u32),
) -> Result<Outcome> {
    set_runtime_dir();
    let ctx = VulkanContext::new(SurfaceSource::Headless, true, maintenance1)?;
    ensure!(
        ctx.maintenance1 == maintenance1,
        "maintenance1 offered: {}",
        ctx.maintenance1
    );
    let mut pacer = create_pacer(&ctx, true)?;
    pacer.set(Setting::FrameLimit(limit))?;
    let app = OwnedLoop::new(&ctx)?;
    let mut told = Vec::new();
    let counts = (count, recreate_every);
    let (sc, elapsed) = frames(&ctx, &mut pacer, &app, counts, mode, &mut told)?;
    app.wait_idle_slots(&ctx)?;
    let displayed = pacer
        .telemetry(sc)
        .filter(|f| f.displayed.is_some())
        .count();
    // SAFETY: no image held; the surface outlives it.
    unsafe { pacer.destroy_swapchain(sc, None) };
    let stats = pacer.stats();
    let state = format!("{pacer:?}");
    // SAFETY: no call in progress.
    unsafe { pacer.destroy() }?;
    app.destroy(&ctx.device);
    let messages = ctx.messages.count();
    ctx.destroy();
    ensure!(
        messages == 0,
        "{messages} validation message(s) at teardown"
    );
    ensure!(
        stats.swapchains_destroyed == stats.swapchains_created,
        "every swapchain destroyed by destroy_swapchain's return:\n{state}"
    );
    Ok(Outcome {
        stats,
        elapsed,
        displayed,
        told,
    })
}
