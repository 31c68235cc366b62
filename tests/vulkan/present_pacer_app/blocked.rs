//! Two swapchains of one device through one pacer behind a mutex (in steps, `vkpace::PacerCall`), as the pacing
//! layer keeps one per device: on one thread an acquire that waits (every image of its
//! swapchain held, over the virtual display, whose acquire blocks until an image is free), on
//! another an acquire from the other swapchain. The waiting acquire must not hold the mutex.
//! (Acquire and present of one swapchain never overlap: the application synchronizes the
//! swapchain of both.)

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use vkpace::PresentPacer;

use super::Shared;

use vkpace_demo::owned_loop::{create_pacer, create_swapchain, create_swapchain_of};

use crate::common::{set_runtime_dir, SurfaceSource, VulkanContext};

/// What the two acquires got, and how long each took.
pub struct Beside {
    /// The acquire from the swapchain whose images are all held (2 s bound).
    pub blocked: (vk::Result, Duration),
    /// The other swapchain's acquire, begun 100 ms into the first.
    pub other: (vk::Result, Duration),
}

/// The waiting acquire's bound: long enough that a lock held through it shows.
const BLOCKED_TIMEOUT_NS: u64 = 2_000_000_000;
const MAX_IMAGES: usize = 8;

/// Holds every image of one swapchain, acquires from it once more on a second thread, and 100
/// ms later acquires from a second swapchain (another surface) on this one. Acquires signal
/// fences (waited for), never semaphores; images are left acquired when the swapchains go.
pub fn acquire_beside_a_blocked_one() -> Result<Beside> {
    set_runtime_dir();
    let ctx = VulkanContext::new(SurfaceSource::Headless, true, false)?;
    let headless = ash::ext::headless_surface::Instance::new(&ctx.entry, &ctx.instance);
    // SAFETY: a valid instance with VK_EXT_headless_surface (the headless context's).
    let surface2 = unsafe {
        headless.create_headless_surface(&vk::HeadlessSurfaceCreateInfoEXT::default(), None)
    }?;
    let mut pacer = create_pacer(&ctx, true)?;
    let sc1 = create_swapchain(&ctx, &mut pacer, vk::SwapchainKHR::null())?;
    let sc2 = create_swapchain_of(&ctx, &mut pacer, surface2, vk::SwapchainKHR::null())?;
    let shared: Shared = Mutex::new(Some(pacer));
    let fences = (0..MAX_IMAGES + 2)
        // SAFETY: a valid device.
        .map(|_| unsafe {
            ctx.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let outcome = race(&ctx, &shared, (sc1, sc2), &fences);
    // SAFETY: test teardown: the fences' acquires are done or never happened.
    unsafe { ctx.device.device_wait_idle() }?;
    let mut pacer = shared
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .context("the pacer")?;
    // SAFETY: no image in use; the surfaces outlive their swapchains; then no call in progress.
    unsafe {
        pacer.destroy_swapchain(sc1, None);
        pacer.destroy_swapchain(sc2, None);
        pacer.destroy()?;
        fences
            .iter()
            .for_each(|&f| ctx.device.destroy_fence(f, None));
        ctx.surface_fn.destroy_surface(surface2, None);
    }
    let messages = ctx.messages.count();
    ctx.destroy();
    ensure!(messages == 0, "{messages} validation message(s)");
    outcome
}

fn race(
    ctx: &VulkanContext,
    shared: &Shared,
    (sc1, sc2): (vk::SwapchainKHR, vk::SwapchainKHR),
    fences: &[vk::Fence],
) -> Result<Beside> {
    let (held, rest) = fences.split_at(MAX_IMAGES);
    let count = hold_all(ctx, shared, sc1, held)?;
    ensure!(count >= 1, "no image of the first swapchain held");
    let timed = |sc, timeout, fence| {
        let start = Instant::now();
        let got = acquire(shared, sc, timeout, fence);
        let code = got.map_or_else(|e| e, |_| vk::Result::SUCCESS);
        (code, start.elapsed())
    };
    let (blocked, other) = std::thread::scope(|s| {
        let first = s.spawn(|| timed(sc1, BLOCKED_TIMEOUT_NS, rest[0]));
        std::thread::sleep(Duration::from_millis(100));
        let other = timed(sc2, BLOCKED_TIMEOUT_NS, rest[1]);
        let blocked = first
            .join()
            .unwrap_or((vk::Result::ERROR_UNKNOWN, Duration::ZERO));
        (blocked, other)
    });
    for (code, fence) in [(blocked.0, rest[0]), (other.0, rest[1])] {
        if code == vk::Result::SUCCESS {
            // SAFETY: the acquire's fence, signalled once the image is free.
            unsafe {
                ctx.device
                    .wait_for_fences(&[fence], true, BLOCKED_TIMEOUT_NS)
            }?;
        }
    }
    Ok(Beside { blocked, other })
}

/// Acquires from `sc` with timeout 0 until none is free, each with its own fence (waited for);
/// the number held.
fn hold_all(
    ctx: &VulkanContext,
    shared: &Shared,
    sc: vk::SwapchainKHR,
    fences: &[vk::Fence],
) -> Result<usize> {
    for (held, &fence) in fences.iter().enumerate() {
        match acquire(shared, sc, 0, fence) {
            // SAFETY: the acquire's fence.
            Ok(_) => unsafe {
                ctx.device
                    .wait_for_fences(&[fence], true, BLOCKED_TIMEOUT_NS)
            }?,
            Err(vk::Result::NOT_READY) | Err(vk::Result::TIMEOUT) => return Ok(held),
            Err(e) => bail!("acquire: {e}"),
        }
    }
    bail!("more images than {} fences", fences.len())
}

fn acquire(
    shared: &Shared,
    sc: vk::SwapchainKHR,
    timeout: u64,
    fence: vk::Fence,
) -> ash::prelude::VkResult<(u32, bool)> {
    let with = super::locker(shared);
    // SAFETY: a swapchain of the pacer's, not used by another thread meanwhile; an unsignalled
    // fence nothing else uses.
    let call = unsafe { PresentPacer::acquire_call(sc, timeout, vk::Semaphore::null(), fence) };
    super::in_steps(call, with)
        .finish()
        .unwrap_or(Err(vk::Result::ERROR_INITIALIZATION_FAILED))
}
