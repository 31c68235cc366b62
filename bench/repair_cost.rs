//! The second door's repair cost: CPU time of `PresentPacer::queue_present` with
//! present-semaphore repair on and off. Two applications that own their swapchains (each on
//! its own headless device, no validation, the textbook loop with two frames' semaphores) run
//! in one thread with their frames alternating one by one; the thread CPU time of each present
//! call is added to its pacer's total, so whatever the machine does hits both alike and the
//! ratio is the repair's (one extra empty `vkQueueSubmit` and its fence, the semaphore's
//! bookkeeping).

use std::time::Duration;

use anyhow::{Context as _, Result};
use ash::vk;

use crate::cpu_time::thread_cpu;
use crate::vulkan_context::{SurfaceSource, VulkanContext};

/// Frames before the measurement starts (swapchain creation, first use).
const WARMUP: u64 = 30;
/// The applications' own frames in flight (their per-frame objects).
const SLOTS: usize = 2;
const TIMEOUT_NS: u64 = 2_000_000_000;

/// One interleaved run: mean CPU microseconds per present call with repair on and off.
#[derive(Debug, Clone, Copy)]
pub struct RepairCost {
    pub on_us: f64,
    pub off_us: f64,
}

impl RepairCost {
    pub fn ratio(&self) -> f64 {
        self.on_us / self.off_us.max(f64::MIN_POSITIVE)
    }
}

/// `reps` interleaved runs of `frames` measured frames each.
pub fn measure(frames: u64, reps: usize) -> Result<Vec<RepairCost>> {
    (0..reps).map(|_| one_run(frames)).collect()
}

fn one_run(frames: u64) -> Result<RepairCost> {
    let mut on = App::new(true)?;
    let mut off = App::new(false)?;
    let (mut on_cpu, mut off_cpu) = (Duration::ZERO, Duration::ZERO);
    for k in 0..WARMUP + frames {
        let a = on.frame(k)?;
        let b = off.frame(k)?;
        if k >= WARMUP {
            on_cpu += a;
            off_cpu += b;
        }
    }
    on.destroy()?;
    off.destroy()?;
    let per = |d: Duration| d.as_secs_f64() * 1e6 / frames as f64;
    Ok(RepairCost {
        on_us: per(on_cpu),
        off_us: per(off_cpu),
    })
}

/// An application owning its swapchain, through a pacer.
struct App {
    ctx: VulkanContext,
    pacer: vkpace::PresentPacer,
    swapchain: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    pool: vk::CommandPool,
    cmds: Vec<vk::CommandBuffer>,
    acquired: Vec<vk::Semaphore>,
    rendered: Vec<vk::Semaphore>,
    done: Vec<vk::Fence>,
}

impl App {
    fn new(repair: bool) -> Result<Self> {
        let ctx = VulkanContext::new(SurfaceSource::Headless, false, false)?;
        let mut config = vkpace::PresentPacerConfig::default();
        ctx.support.apply(&mut config);
        config.swapchain_maintenance1 = None;
        config.repair_present_semaphores = repair;
        let desc = vkpace::PresentPacerDesc {
            entry: &ctx.entry,
            instance: &ctx.instance,
            physical_device: ctx.physical,
            device: &ctx.device,
            queue: ctx.queue,
            queue_family: ctx.queue_family,
            config,
        };
        // SAFETY: the context's handles are valid and outlive the pacer.
        let mut pacer = unsafe { vkpace::PresentPacer::new(desc) }?;
        let swapchain = create_swapchain(&ctx, &mut pacer)?;
        let swapchain_fn = ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device);
        // SAFETY: a swapchain of this device.
        let images = unsafe { swapchain_fn.get_swapchain_images(swapchain) }?;
        let d = &ctx.device;
        // SAFETY: plain object creation on a valid device.
        let (pool, cmds, acquired, rendered, done) = unsafe {
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
            let acquired = (0..SLOTS).map(|_| sem()).collect::<Result<Vec<_>, _>>()?;
            let rendered = (0..SLOTS).map(|_| sem()).collect::<Result<Vec<_>, _>>()?;
            let done = (0..SLOTS)
                .map(|_| d.create_fence(&signalled, None))
                .collect::<Result<Vec<_>, _>>()?;
            (pool, cmds, acquired, rendered, done)
        };
        Ok(Self {
            ctx,
            pacer,
            swapchain,
            images,
            pool,
            cmds,
            acquired,
            rendered,
            done,
        })
    }

    /// One frame of the textbook loop; returns the present call's thread CPU time.
    fn frame(&mut self, k: u64) -> Result<Duration> {
        let (d, i) = (&self.ctx.device, (k as usize) % SLOTS);
        // SAFETY: the textbook loop: the slot's fence guards its command buffer and semaphores.
        unsafe {
            d.wait_for_fences(&[self.done[i]], true, TIMEOUT_NS)?;
            d.reset_fences(&[self.done[i]])?;
            let (image, _) = self.pacer.acquire_next_image(
                self.swapchain,
                TIMEOUT_NS,
                self.acquired[i],
                vk::Fence::null(),
            )?;
            let target = *self.images.get(image as usize).context("image index")?;
            record(d, self.cmds[i], target)?;
            let waits = [self.acquired[i]];
            let stages = [vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT];
            let (cmds, signals) = ([self.cmds[i]], [self.rendered[i]]);
            let submit = vk::SubmitInfo::default()
                .wait_semaphores(&waits)
                .wait_dst_stage_mask(&stages)
                .command_buffers(&cmds)
                .signal_semaphores(&signals);
            d.queue_submit(self.ctx.queue, &[submit], self.done[i])?;
            let (swapchains, indices) = ([self.swapchain], [image]);
            let present = vk::PresentInfoKHR::default()
                .wait_semaphores(&signals)
                .swapchains(&swapchains)
                .image_indices(&indices);
            let before = thread_cpu();
            self.pacer.queue_present(self.ctx.queue, &present)?;
            Ok(thread_cpu().saturating_sub(before))
        }
    }

    fn destroy(mut self) -> Result<()> {
        let d = &self.ctx.device;
        // SAFETY: waits for the application's own submissions, then destroys its objects
        // and (through the pacer) the swapchain.
        unsafe {
            d.wait_for_fences(&self.done, true, TIMEOUT_NS)?;
            self.pacer.destroy_swapchain(self.swapchain, None);
            self.swapchain = vk::SwapchainKHR::null();
            for s in self.acquired.iter().chain(&self.rendered) {
                d.destroy_semaphore(*s, None);
            }
            for f in &self.done {
                d.destroy_fence(*f, None);
            }
            d.destroy_command_pool(self.pool, None);
            self.pacer.destroy()?;
        }
        self.ctx.destroy();
        Ok(())
    }
}

fn create_swapchain(
    ctx: &VulkanContext,
    pacer: &mut vkpace::PresentPacer,
) -> Result<vk::SwapchainKHR> {
    // SAFETY: the context's handles are valid.
    let (caps, formats) = unsafe {
        (
            ctx.surface_fn
                .get_physical_device_surface_capabilities(ctx.physical, ctx.surface)?,
            ctx.surface_fn
                .get_physical_device_surface_formats(ctx.physical, ctx.surface)?,
        )
    };
    let format = formats.first().context("no surface format")?;
    let info = vk::SwapchainCreateInfoKHR::default()
        .surface(ctx.surface)
        .min_image_count(caps.min_image_count.max(3))
        .image_format(format.format)
        .image_color_space(format.color_space)
        .image_extent(vk::Extent2D {
            width: 64,
            height: 64,
        })
        .image_array_layers(1)
        .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
        .pre_transform(caps.current_transform)
        .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
        .present_mode(vk::PresentModeKHR::FIFO)
        .clipped(true);
    // SAFETY: a valid create info for the context's device and surface.
    Ok(unsafe { pacer.create_swapchain(&info, None) }?)
}

/// The frame's "rendering": the image's move to PRESENT_SRC.
fn record(d: &ash::Device, cmd: vk::CommandBuffer, image: vk::Image) -> Result<()> {
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

/// The report's section: each run's figures and the medians.
pub fn markdown(runs: &[RepairCost]) -> String {
    let mut rows = String::new();
    for (i, r) in runs.iter().enumerate() {
        rows.push_str(&format!(
            "| run {} | {:.1} | {:.1} | {:.2} |\n",
            i + 1,
            r.on_us,
            r.off_us,
            r.ratio()
        ));
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let on = median(runs.iter().map(|r| r.on_us).collect());
    let off = median(runs.iter().map(|r| r.off_us).collect());
    let ratio = median(runs.iter().map(RepairCost::ratio).collect());
    format!(
        "| present pacer: CPU per present (us) | repair on | repair off | on / off |\n|---|---|---|---|\n{rows}| median | {on:.1} | {off:.1} | {ratio:.2} |\n"
    )
}

/// The JSON section.
pub fn json(runs: &[RepairCost]) -> String {
    let items: Vec<String> = runs
        .iter()
        .map(|r| {
            format!(
                "{{\"repair_on_us\": {:.3}, \"repair_off_us\": {:.3}, \"ratio\": {:.4}}}",
                r.on_us,
                r.off_us,
                r.ratio()
            )
        })
        .collect();
    format!("{{\n  \"repair_cost\": [{}]\n}}\n", items.join(", "))
}
