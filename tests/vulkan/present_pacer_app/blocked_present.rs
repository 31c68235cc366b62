//! A present that blocks in the driver, beside another thread's calls on other swapchains of
//! the same pacer behind a mutex (in steps, `vkpace::PacerCall`, as the pacing layer keeps one per device). The
//! present's frame fills a large buffer many times over (about 1.5 s of lavapipe's CPU "GPU",
//! measured on the spot: five times the 300 ms the case needs, so the case holds when the
//! machine's load drops after the measurement);
//! lavapipe's software WSI waits for the frame's rendering inside `vkQueuePresentKHR`, so the
//! driver's present blocks until then. (A frame waiting for a host-signalled timeline value
//! would block it too, but bookworm's validation layer holds its own lock through that wait.) Meanwhile another thread creates a swapchain on a third
//! surface, destroys it, and acquires from a second swapchain: none of them may wait for the
//! present (the application synchronizes only the present's queue and swapchains with it).

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{ensure, Context as _, Result};
use ash::vk;
use vkpace::PresentPacer;

use super::Shared;

use vkpace_demo::owned_loop::{
    create_pacer, create_swapchain, create_swapchain_of, swapchain_info_of,
};

use crate::common::{set_runtime_dir, VulkanContext};

/// At least how long the present must block for the case to show anything.
pub const PRESENT_BLOCKS_FOR: Duration = Duration::from_millis(300);
/// The frame's work: fills of a buffer of this size, as many as lavapipe makes in about
/// [`FRAME_WORK`] on this machine at this moment (measured just before the race), so the
/// present blocks long enough on a fast machine and not for many seconds on a busy one.
const FILL_BYTES: u64 = 64 << 20;
const FRAME_WORK: Duration = Duration::from_millis(1500);
/// The fills of the measuring submission, and the bounds of the frame's count.
const MEASURE_FILLS: u32 = 16;
const MAX_FILLS: u32 = 4096;
/// When the other thread's calls begin, after the present began.
const BESIDE_AFTER: Duration = Duration::from_millis(100);
/// The bound of the application's own waits.
const TIMEOUT_NS: u64 = 5_000_000_000;

/// How long each call took.
pub struct BesidePresent {
    /// The blocked present's result and duration.
    pub present: (vk::Result, Duration),
    /// The other thread's create, destroy and acquire, in that order.
    pub create: Duration,
    pub destroy: Duration,
    pub acquire: (vk::Result, Duration),
    /// The longest the other thread waited for the mutex in those calls (what vkpace decides:
    /// the calls' own durations are the driver's too).
    pub lock_wait: Duration,
    /// The pacer's calls down during the race: (with the mutex released, with it held).
    pub calls_down: (u64, u64),
}

/// Runs the case on a headless surface (plain lavapipe: its WSI blocks in the present).
pub fn calls_beside_a_blocked_present() -> Result<BesidePresent> {
    set_runtime_dir();
    let ctx = VulkanContext::new(
        vkpace_demo::vulkan_context::SurfaceSource::Headless,
        true,
        false,
    )?;
    let headless = ash::ext::headless_surface::Instance::new(&ctx.entry, &ctx.instance);
    let info = vk::HeadlessSurfaceCreateInfoEXT::default();
    // SAFETY: a valid instance with VK_EXT_headless_surface (the headless context's).
    let surfaces = unsafe {
        [
            headless.create_headless_surface(&info, None)?,
            headless.create_headless_surface(&info, None)?,
        ]
    };
    let mut pacer = create_pacer(&ctx, true)?;
    let sc1 = create_swapchain(&ctx, &mut pacer, vk::SwapchainKHR::null())?;
    let sc2 = create_swapchain_of(&ctx, &mut pacer, surfaces[0], vk::SwapchainKHR::null())?;
    let objects = Objects::new(&ctx)?;
    let before = pacer.stats();
    let shared: Shared = Mutex::new(Some(pacer));
    let outcome = race(&ctx, &shared, (sc1, sc2), surfaces[1], &objects);
    if let Err(e) = &outcome {
        eprintln!("the race: {e:#}");
    }
    // SAFETY: test teardown: whatever was submitted is waited for.
    unsafe { ctx.device.device_wait_idle() }?;
    let mut pacer = shared
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .context("the pacer")?;
    let after = pacer.stats();
    let calls_down = (
        after.calls_down_between_calls - before.calls_down_between_calls,
        after.calls_down_in_calls - before.calls_down_in_calls,
    );
    // SAFETY: nothing in use any more; the surfaces outlive their swapchains.
    unsafe {
        pacer.destroy_swapchain(sc1, None);
        pacer.destroy_swapchain(sc2, None);
        pacer.destroy()?;
        objects.destroy(&ctx.device);
        for s in surfaces {
            ctx.surface_fn.destroy_surface(s, None);
        }
    }
    let messages = ctx.messages.count();
    ctx.destroy();
    ensure!(messages == 0, "{messages} validation message(s)");
    outcome.map(|o| BesidePresent { calls_down, ..o })
}

/// The test's synchronization objects.
struct Objects {
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    acquired: vk::Semaphore,
    rendered: vk::Semaphore,
    fence: vk::Fence,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
}

impl Objects {
    fn new(ctx: &VulkanContext) -> Result<Self> {
        let d = &ctx.device;
        // SAFETY: plain objects of a valid device.
        unsafe {
            let pool = d.create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(ctx.queue_family),
                None,
            )?;
            let cmds = d.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )?;
            let buffer = d.create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(FILL_BYTES)
                    .usage(vk::BufferUsageFlags::TRANSFER_DST),
                None,
            )?;
            let needs = d.get_buffer_memory_requirements(buffer);
            let kind = (0..32u32)
                .find(|k| needs.memory_type_bits & (1 << k) != 0)
                .context("a memory type")?;
            let memory = d.allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(needs.size)
                    .memory_type_index(kind),
                None,
            )?;
            d.bind_buffer_memory(buffer, memory, 0)?;
            Ok(Self {
                pool,
                cmd: *cmds.first().context("a command buffer")?,
                acquired: d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None)?,
                rendered: d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None)?,
                fence: d.create_fence(&vk::FenceCreateInfo::default(), None)?,
                buffer,
                memory,
            })
        }
    }

    /// # Safety
    /// Nothing uses them any more.
    unsafe fn destroy(&self, d: &ash::Device) {
        // SAFETY: the caller's contract.
        unsafe {
            d.destroy_semaphore(self.acquired, None);
            d.destroy_semaphore(self.rendered, None);
            d.destroy_buffer(self.buffer, None);
            d.free_memory(self.memory, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
        }
    }
}

/// Acquires an image of `sc1` and submits its long "frame"; presents it on a second thread;
/// 100 ms in, creates a swapchain of `surface`, destroys it and acquires from `sc2` on this
/// one, timing each wait for the mutex.
fn race(
    ctx: &VulkanContext,
    shared: &Shared,
    (sc1, sc2): (vk::SwapchainKHR, vk::SwapchainKHR),
    surface: vk::SurfaceKHR,
    o: &Objects,
) -> Result<BesidePresent> {
    let with = super::locker(shared);
    let fills = fills_for_frame_work(ctx, o)?;
    let image = acquire_and_render(ctx, sc1, o, fills, with)?;
    let info = swapchain_info_of(ctx, surface, vk::SwapchainKHR::null())?;
    let start = Instant::now();
    std::thread::scope(|s| {
        let presenting = s.spawn(|| present_frame(ctx, (sc1, image), o, with, start));
        std::thread::sleep(BESIDE_AFTER);
        let waited = std::cell::Cell::new(Duration::ZERO);
        let timed_with = || {
            let t = Instant::now();
            let guard = shared.lock().unwrap_or_else(PoisonError::into_inner);
            waited.set(waited.get().max(t.elapsed()));
            guard
        };
        let beside = beside(ctx, (sc2, &info), o, timed_with);
        let present = presenting
            .join()
            .unwrap_or((vk::Result::ERROR_UNKNOWN, Duration::ZERO));
        let (create, destroy, acquire) = beside?;
        if acquire.0 == vk::Result::SUCCESS {
            // SAFETY: the acquire's fence, signalled once its image is free.
            unsafe { ctx.device.wait_for_fences(&[o.fence], true, TIMEOUT_NS) }?;
        }
        Ok(BesidePresent {
            present,
            create,
            destroy,
            acquire,
            lock_wait: waited.get(),
            calls_down: (0, 0),
        })
    })
}

/// How many fills take lavapipe about [`FRAME_WORK`]: [`MEASURE_FILLS`] submitted and
/// waited for, scaled. Measured twice, the second kept: the first touches the buffer's memory
/// for the first time (page faults, several times slower than the fills of the frame).
fn fills_for_frame_work(ctx: &VulkanContext, o: &Objects) -> Result<u32> {
    time_fills(ctx, o)?;
    let per_fill = time_fills(ctx, o)?.as_secs_f64() / f64::from(MEASURE_FILLS);
    let fills = (FRAME_WORK.as_secs_f64() / per_fill.max(1e-6)).ceil() as u32;
    Ok(fills.clamp(MEASURE_FILLS, MAX_FILLS))
}

/// How long [`MEASURE_FILLS`] fills took from their submission to their fence.
fn time_fills(ctx: &VulkanContext, o: &Objects) -> Result<Duration> {
    let d = &ctx.device;
    let t = Instant::now();
    // SAFETY: the command buffer is not in use (never submitted, or its pool reset below after
    // its fence was waited for); the fence is unsignalled and waited for before its reset.
    unsafe {
        d.begin_command_buffer(o.cmd, &vk::CommandBufferBeginInfo::default())?;
        record_fills(d, o, MEASURE_FILLS);
        d.end_command_buffer(o.cmd)?;
        let cmds = [o.cmd];
        let submit = vk::SubmitInfo::default().command_buffers(&cmds);
        d.queue_submit(ctx.queue, &[submit], o.fence)?;
        d.wait_for_fences(&[o.fence], true, TIMEOUT_NS)?;
        d.reset_fences(&[o.fence])?;
        d.reset_command_pool(o.pool, vk::CommandPoolResetFlags::empty())?;
    }
    Ok(t.elapsed())
}

/// Acquires an image of `sc1` through the pacer and submits its long frame of `fills` fills;
/// the image.
fn acquire_and_render<'s>(
    ctx: &VulkanContext,
    sc1: vk::SwapchainKHR,
    o: &Objects,
    fills: u32,
    with: impl Fn() -> super::Guard<'s>,
) -> Result<u32> {
    // SAFETY: a swapchain of the pacer's; an unsignalled semaphore nothing else uses.
    let call =
        unsafe { PresentPacer::acquire_call(sc1, TIMEOUT_NS, o.acquired, vk::Fence::null()) };
    let (image, _) = super::in_steps(call, with).finish().context("no pacer")??;
    // SAFETY: a swapchain of the pacer's, of this device.
    let images = unsafe {
        ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device).get_swapchain_images(sc1)
    }?;
    record_frame(ctx, o, *images.get(image as usize).context("image")?, fills)?;
    Ok(image)
}

/// The frame's present, on its own thread: its result and the time since `start`.
fn present_frame<'s>(
    ctx: &VulkanContext,
    (sc1, image): (vk::SwapchainKHR, u32),
    o: &Objects,
    with: impl Fn() -> super::Guard<'s>,
    start: Instant,
) -> (vk::Result, Duration) {
    let (swapchains, images, waits) = ([sc1], [image], [o.rendered]);
    let present = vk::PresentInfoKHR::default()
        .wait_semaphores(&waits)
        .swapchains(&swapchains)
        .image_indices(&images);
    // SAFETY: the frame's semaphore has its signal submitted; the image was acquired.
    let call = unsafe { PresentPacer::present_call(ctx.queue, &present) };
    let got = super::in_steps(call, with).finish();
    let code = match got {
        Some(Ok(_)) => vk::Result::SUCCESS,
        Some(Err(e)) => e,
        None => vk::Result::ERROR_INITIALIZATION_FAILED,
    };
    (code, start.elapsed())
}

/// Records `fills` fills of the buffer, each after the one before.
///
/// # Safety
/// `o.cmd` is recording.
unsafe fn record_fills(d: &ash::Device, o: &Objects, fills: u32) {
    for k in 0..fills {
        // SAFETY: the caller's contract; the buffer is the test's own.
        unsafe {
            d.cmd_fill_buffer(o.cmd, o.buffer, 0, vk::WHOLE_SIZE, k);
            let barrier = vk::MemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE);
            d.cmd_pipeline_barrier(
                o.cmd,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
        }
    }
}

/// The "frame": the buffer filled `fills` times, then the image's move to PRESENT_SRC.
fn record_frame(ctx: &VulkanContext, o: &Objects, image: vk::Image, fills: u32) -> Result<()> {
    let d = &ctx.device;
    // SAFETY: the command buffer is not in use (its pool was reset after the measuring
    // submission completed); the image was acquired.
    unsafe {
        d.begin_command_buffer(o.cmd, &vk::CommandBufferBeginInfo::default())?;
        record_fills(d, o, fills);
        let barrier = vk::ImageMemoryBarrier::default()
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
            .image(image)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                level_count: 1,
                layer_count: 1,
                ..Default::default()
            });
        d.cmd_pipeline_barrier(
            o.cmd,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[barrier],
        );
        d.end_command_buffer(o.cmd)?;
    }
    let waits = [o.acquired];
    let stages = [vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT];
    let (cmds, signals) = ([o.cmd], [o.rendered]);
    let submit = vk::SubmitInfo::default()
        .wait_semaphores(&waits)
        .wait_dst_stage_mask(&stages)
        .command_buffers(&cmds)
        .signal_semaphores(&signals);
    // SAFETY: the acquire's semaphore has its signal pending; the buffer is this frame's.
    unsafe { d.queue_submit(ctx.queue, &[submit], vk::Fence::null()) }?;
    Ok(())
}

/// The other thread's calls: a swapchain made of `info` and destroyed, an acquire from `sc2`;
/// how long each took.
fn beside<'s>(
    ctx: &VulkanContext,
    (sc2, info): (vk::SwapchainKHR, &vk::SwapchainCreateInfoKHR<'_>),
    o: &Objects,
    with: impl Fn() -> super::Guard<'s> + Copy,
) -> Result<(Duration, Duration, (vk::Result, Duration))> {
    let t = Instant::now();
    // SAFETY: a valid create info of the context's device and a surface without a swapchain.
    let call = unsafe { PresentPacer::create_call(info, None) };
    let sc3 = super::in_steps(call, with).finish().context("no pacer")??;
    let create = t.elapsed();
    let t = Instant::now();
    // SAFETY: never acquired from; its surface outlives it.
    let call = unsafe { PresentPacer::destroy_call(sc3, None) };
    super::in_steps(call, with).finish().context("no pacer")?;
    let destroy = t.elapsed();
    let t = Instant::now();
    // SAFETY: a swapchain of the pacer's no other thread uses; an unsignalled fence.
    let call = unsafe { PresentPacer::acquire_call(sc2, 0, vk::Semaphore::null(), o.fence) };
    let got = super::in_steps(call, with).finish();
    let acquire = t.elapsed();
    let code = match got {
        Some(Ok(_)) => vk::Result::SUCCESS,
        Some(Err(e)) => e,
        None => vk::Result::ERROR_INITIALIZATION_FAILED,
    };
    let _ = ctx;
    Ok((create, destroy, (code, acquire)))
}
