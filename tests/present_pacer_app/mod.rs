//! An application that owns its swapchain, paced through [`vkpace::PresentPacer`]: the
//! textbook loop with two frames' semaphores reused, a recreation every few frames with the old
//! swapchain destroyed right after, on a headless surface with validation failing a run on its
//! first message. Shared by the pacer's smoke tests (plain lavapipe, and over the virtual
//! display for display feedback).
#![allow(dead_code)]

use std::time::{Duration, Instant};

use anyhow::{ensure, Context as _, Result};
use ash::vk;
use vkpace::{
    FrameLimit, PresentPacer, PresentPacerConfig, PresentPacerDesc, PresentPacerStats, Setting,
};

use super::common::{set_runtime_dir, SurfaceSource, VulkanContext};

/// Frames presented per case.
pub const FRAMES: u32 = 50;
/// A recreation every this many frames (so 4 retired swapchains per case).
pub const RECREATE_EVERY: u32 = 12;
/// The application's own frames in flight (its per-frame objects).
const SLOTS: usize = 2;

/// The application's per-frame objects.
struct Slots {
    pool: vk::CommandPool,
    cmds: Vec<vk::CommandBuffer>,
    acquired: Vec<vk::Semaphore>,
    rendered: Vec<vk::Semaphore>,
    done: Vec<vk::Fence>,
}

impl Slots {
    fn new(ctx: &VulkanContext) -> Result<Self> {
        let d = &ctx.device;
        // SAFETY: plain object creation on a valid device.
        unsafe {
            let pool = d.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(ctx.queue_family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )?;
            let cmds = d.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(SLOTS as u32),
            )?;
            let sem = || d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None);
            let signalled = vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED);
            Ok(Self {
                pool,
                cmds,
                acquired: (0..SLOTS).map(|_| sem()).collect::<Result<_, _>>()?,
                rendered: (0..SLOTS).map(|_| sem()).collect::<Result<_, _>>()?,
                done: (0..SLOTS)
                    .map(|_| d.create_fence(&signalled, None))
                    .collect::<Result<_, _>>()?,
            })
        }
    }

    /// After the application's own wait for its fences.
    fn destroy(&self, d: &ash::Device) {
        // SAFETY: every submission using them completed (the caller waited for the fences).
        unsafe {
            for s in self.acquired.iter().chain(&self.rendered) {
                d.destroy_semaphore(*s, None);
            }
            for f in &self.done {
                d.destroy_fence(*f, None);
            }
            d.destroy_command_pool(self.pool, None);
        }
    }
}

/// A swapchain through the pacer, with `old` retired.
fn create(
    ctx: &VulkanContext,
    pacer: &mut PresentPacer,
    old: vk::SwapchainKHR,
) -> Result<vk::SwapchainKHR> {
    // SAFETY: the context's handles are valid.
    let caps = unsafe {
        ctx.surface_fn
            .get_physical_device_surface_capabilities(ctx.physical, ctx.surface)
    }?;
    // SAFETY: as above.
    let formats = unsafe {
        ctx.surface_fn
            .get_physical_device_surface_formats(ctx.physical, ctx.surface)
    }?;
    let format = formats.first().context("no surface format")?;
    // The surface's own extent where it has one (the virtual display's), else a small one.
    let extent = match caps.current_extent.width {
        u32::MAX => vk::Extent2D {
            width: 64,
            height: 64,
        },
        _ => caps.current_extent,
    };
    let info = vk::SwapchainCreateInfoKHR::default()
        .surface(ctx.surface)
        .min_image_count(caps.min_image_count.max(2))
        .image_format(format.format)
        .image_color_space(format.color_space)
        .image_extent(extent)
        .image_array_layers(1)
        .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
        .pre_transform(caps.current_transform)
        .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
        .present_mode(vk::PresentModeKHR::FIFO)
        .clipped(true)
        .old_swapchain(old);
    // SAFETY: a valid create info for the context's device and surface.
    Ok(unsafe { pacer.create_swapchain(&info, None) }?)
}

/// Records the image's move to PRESENT_SRC (the frame's "rendering").
fn record(d: &ash::Device, cmd: vk::CommandBuffer, image: vk::Image) -> Result<()> {
    let barrier = vk::ImageMemoryBarrier::default()
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
        .dst_access_mask(vk::AccessFlags::empty())
        .image(image)
        .subresource_range(vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            level_count: 1,
            layer_count: 1,
            ..Default::default()
        });
    // SAFETY: the command buffer is not pending (its slot's fence was waited on).
    unsafe {
        d.begin_command_buffer(cmd, &vk::CommandBufferBeginInfo::default())?;
        d.cmd_pipeline_barrier(
            cmd,
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[barrier],
        );
        d.end_command_buffer(cmd)?;
    }
    Ok(())
}

/// One frame of the textbook loop on slot `k % SLOTS`.
fn frame(
    ctx: &VulkanContext,
    pacer: &mut PresentPacer,
    s: &Slots,
    sc: vk::SwapchainKHR,
    images: &[vk::Image],
    k: usize,
) -> Result<()> {
    let (d, i) = (&ctx.device, k % SLOTS);
    // SAFETY: the textbook loop: the slot's fence guards its command buffer and semaphores.
    unsafe {
        d.wait_for_fences(&[s.done[i]], true, 2_000_000_000)?;
        d.reset_fences(&[s.done[i]])?;
        let (image, _) =
            pacer.acquire_next_image(sc, 2_000_000_000, s.acquired[i], vk::Fence::null())?;
        record(d, s.cmds[i], images[image as usize])?;
        let (waits, stages) = (
            [s.acquired[i]],
            [vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT],
        );
        let (cmds, signals) = ([s.cmds[i]], [s.rendered[i]]);
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .command_buffers(&cmds)
            .signal_semaphores(&signals);
        d.queue_submit(ctx.queue, &[submit], s.done[i])?;
        let (swapchains, indices) = ([sc], [image]);
        let present = vk::PresentInfoKHR::default()
            .wait_semaphores(&signals)
            .swapchains(&swapchains)
            .image_indices(&indices);
        pacer.queue_present(ctx.queue, &present)?;
    }
    Ok(())
}

/// A pacer for the context's device, with what it enabled.
fn pacer(ctx: &VulkanContext, maintenance1: bool) -> Result<PresentPacer> {
    let mut config = PresentPacerConfig::default();
    ctx.support.apply(&mut config);
    config.swapchain_maintenance1 = ctx.maintenance1_names.filter(|_| maintenance1);
    let desc = PresentPacerDesc {
        entry: &ctx.entry,
        instance: &ctx.instance,
        physical_device: ctx.physical,
        device: &ctx.device,
        queue: ctx.queue,
        queue_family: ctx.queue_family,
        config,
    };
    // SAFETY: the context's handles are valid and outlive the pacer.
    Ok(unsafe { PresentPacer::new(desc) }?)
}

/// The frames of a run, with their recreations; returns the last swapchain and the time from
/// the first present's return to the last's.
fn frames(
    ctx: &VulkanContext,
    pacer: &mut PresentPacer,
    slots: &Slots,
) -> Result<(vk::SwapchainKHR, Duration)> {
    let mut first = None;
    let mut elapsed = Duration::ZERO;
    let mut sc = create(ctx, pacer, vk::SwapchainKHR::null())?;
    let swapchain_fn = ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device);
    for k in 0..FRAMES {
        if k > 0 && k % RECREATE_EVERY == 0 {
            let old = sc;
            sc = create(ctx, pacer, old)?;
            // SAFETY: no image of `old` is held; its presents may be pending (the pacer waits).
            unsafe { pacer.destroy_swapchain(old, None) };
        }
        // SAFETY: a swapchain of this device.
        let images = unsafe { swapchain_fn.get_swapchain_images(sc) }?;
        frame(ctx, pacer, slots, sc, &images, k as usize)?;
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
}

/// One case: `FRAMES` frames with a recreation every `RECREATE_EVERY`, then teardown.
pub fn run(maintenance1: bool, limit: Option<FrameLimit>) -> Result<Outcome> {
    set_runtime_dir();
    let ctx = VulkanContext::new(SurfaceSource::Headless, true, maintenance1)?;
    ensure!(
        ctx.maintenance1 == maintenance1,
        "maintenance1 offered: {}",
        ctx.maintenance1
    );
    let mut pacer = pacer(&ctx, maintenance1)?;
    pacer.set(Setting::FrameLimit(limit))?;
    let slots = Slots::new(&ctx)?;
    let (sc, elapsed) = frames(&ctx, &mut pacer, &slots)?;
    // SAFETY: waits for the application's own submissions.
    unsafe { ctx.device.wait_for_fences(&slots.done, true, 2_000_000_000) }?;
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
    slots.destroy(&ctx.device);
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
    })
}
