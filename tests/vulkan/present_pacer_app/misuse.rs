//! A call in steps given to the wrong pacer: two pacers of one device, an acquire planned and
//! made with the first and reported to the second. The report is refused (logged): the second
//! pacer records nothing, and the call keeps the driver's result (kept when the driver's
//! acquire returned, before any report).

use anyhow::{ensure, Context as _, Result};
use ash::vk;
use vkpace::{PresentPacer, PresentPacerStats};
use vkpace_demo::owned_loop::{create_pacer, create_swapchain};

use crate::common::{set_runtime_dir, SurfaceSource, VulkanContext};

/// What the case saw: the driver's acquire as the call finished, and the second pacer's
/// counters after the refused report.
pub struct Misuse {
    pub acquired: ash::prelude::VkResult<(u32, bool)>,
    pub other: PresentPacerStats,
    pub first: PresentPacerStats,
}

/// Runs the case on a headless surface; no validation message.
pub fn reported_to_another_pacer() -> Result<Misuse> {
    set_runtime_dir();
    let ctx = VulkanContext::new(SurfaceSource::Headless, true, false)?;
    let (mut first, mut other) = (create_pacer(&ctx, true)?, create_pacer(&ctx, true)?);
    let sc = create_swapchain(&ctx, &mut first, vk::SwapchainKHR::null())?;
    // SAFETY: a plain fence of the context's device.
    let fence = unsafe {
        ctx.device
            .create_fence(&vk::FenceCreateInfo::default(), None)
    }?;
    // SAFETY: a swapchain of the first pacer's, not used elsewhere; an unsignalled fence.
    let mut call =
        unsafe { PresentPacer::acquire_call(sc, 1_000_000_000, vk::Semaphore::null(), fence) };
    let down = call
        .plan(&mut first)
        .context("the acquire was not planned")?;
    let made = down.make();
    call.report(Some(&mut other), made);
    ensure!(
        call.plan(&mut first).is_none(),
        "the call went on after a refused report"
    );
    let acquired = call.finish().context("the driver's result was lost")?;
    let (first_stats, other_stats) = (first.stats(), other.stats());
    // SAFETY: the fence of the acquire above.
    unsafe { ctx.device.wait_for_fences(&[fence], true, 1_000_000_000) }?;
    // SAFETY: the acquired image is not used; the surface outlives it; then no call is in
    // progress on either pacer.
    unsafe {
        first.destroy_swapchain(sc, None);
        first.destroy()?;
        other.destroy()?;
        ctx.device.destroy_fence(fence, None);
    }
    let messages = ctx.messages.count();
    ctx.destroy();
    ensure!(messages == 0, "{messages} validation message(s)");
    Ok(Misuse {
        acquired,
        other: other_stats,
        first: first_stats,
    })
}
