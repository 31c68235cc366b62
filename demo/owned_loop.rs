//! The textbook loop of an application that owns its swapchain, paced through
//! `vkpace::PresentPacer` (the second door): two frames' command buffers, acquire and
//! render-finished semaphores and fences, the render-finished semaphore reused per frame (not per
//! image), its swapchain created and destroyed through the pacer. Shared by the pacer's smoke
//! tests (`tests/vulkan/present_pacer_app`) and the benchmark's repair cost (`bench/repair_cost.rs`),
//! so both run the same application.

use anyhow::{Context as _, Result};
use ash::prelude::VkResult;
use ash::vk;
use vkpace::{PresentPacer, PresentPacerConfig, PresentPacerDesc};

use crate::vulkan_context::VulkanContext;

/// The application's own frames in flight (its per-frame objects).
pub const SLOTS: usize = 2;
/// The bound of the application's own waits.
const TIMEOUT_NS: u64 = 2_000_000_000;

/// The application's per-frame objects.
pub struct OwnedLoop {
    pool: vk::CommandPool,
    cmds: Vec<vk::CommandBuffer>,
    acquired: Vec<vk::Semaphore>,
    rendered: Vec<vk::Semaphore>,
    done: Vec<vk::Fence>,
}

impl OwnedLoop {
    /// The per-frame objects on the context's device.
    pub fn new(ctx: &VulkanContext) -> Result<Self> {
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

    /// One frame of the textbook loop on slot `k % SLOTS`: wait for the slot's fence, acquire
    /// through the pacer, record, submit, and present with `present` (the pacer's
    /// `queue_present`, which a caller may time).
    pub fn frame(
        &self,
        ctx: &VulkanContext,
        pacer: &mut PresentPacer,
        swapchain: (vk::SwapchainKHR, &[vk::Image]),
        k: usize,
        present: impl FnOnce(&mut PresentPacer, &vk::PresentInfoKHR<'_>) -> VkResult<bool>,
    ) -> Result<()> {
        let acquire = |pacer: &mut PresentPacer, semaphore| {
            // SAFETY: the textbook loop's acquire, its semaphore unsignalled (the slot's fence
            // proved the submission that waited on it complete).
            unsafe {
                pacer.acquire_next_image(swapchain.0, TIMEOUT_NS, semaphore, vk::Fence::null())
            }
        };
        self.frame_through(ctx, pacer, swapchain, k, acquire, present)
    }

    /// [`Self::frame`] with the acquire made by `acquire` (given the slot's acquire
    /// semaphore) and the present by `present`, both with `door` (a pacer, or a lock a pacer
    /// is shared behind).
    pub fn frame_through<D: ?Sized>(
        &self,
        ctx: &VulkanContext,
        door: &mut D,
        swapchain: (vk::SwapchainKHR, &[vk::Image]),
        k: usize,
        acquire: impl FnOnce(&mut D, vk::Semaphore) -> VkResult<(u32, bool)>,
        present: impl FnOnce(&mut D, &vk::PresentInfoKHR<'_>) -> VkResult<bool>,
    ) -> Result<()> {
        let (d, i) = (&ctx.device, k % SLOTS);
        // SAFETY: the textbook loop: the slot's fence guards its command buffer and semaphores.
        unsafe {
            d.wait_for_fences(&[self.done[i]], true, TIMEOUT_NS)?;
            d.reset_fences(&[self.done[i]])?;
            let (image, _) = acquire(door, self.acquired[i])?;
            let target = *swapchain.1.get(image as usize).context("image index")?;
            record(d, self.cmds[i], target)?;
            let (waits, stages) = (
                [self.acquired[i]],
                [vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT],
            );
            let (cmds, signals) = ([self.cmds[i]], [self.rendered[i]]);
            let submit = vk::SubmitInfo::default()
                .wait_semaphores(&waits)
                .wait_dst_stage_mask(&stages)
                .command_buffers(&cmds)
                .signal_semaphores(&signals);
            d.queue_submit(ctx.queue, &[submit], self.done[i])?;
            let (swapchains, indices) = ([swapchain.0], [image]);
            let info = vk::PresentInfoKHR::default()
                .wait_semaphores(&signals)
                .swapchains(&swapchains)
                .image_indices(&indices);
            present(door, &info)?;
        }
        Ok(())
    }

    /// Waits (bounded) for the application's own submissions.
    pub fn wait_idle_slots(&self, ctx: &VulkanContext) -> Result<()> {
        // SAFETY: the fences are this device's.
        unsafe { ctx.device.wait_for_fences(&self.done, true, TIMEOUT_NS) }?;
        Ok(())
    }

    /// After [`Self::wait_idle_slots`].
    pub fn destroy(self, d: &ash::Device) {
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

/// A pacer for the context's device, with the paths the device enabled (`vkpace::Support::apply`:
/// maintenance1 only where the context enabled it) and present-semaphore repair on or off.
pub fn create_pacer(ctx: &VulkanContext, repair: bool) -> Result<PresentPacer> {
    let mut config = PresentPacerConfig::default();
    config.repair_present_semaphores = repair;
    create_pacer_with(ctx, config)
}

/// A pacer for the context's device with `config` and the paths the device enabled.
pub fn create_pacer_with(
    ctx: &VulkanContext,
    mut config: PresentPacerConfig,
) -> Result<PresentPacer> {
    ctx.support.apply(&mut config);
    let desc = PresentPacerDesc {
        entry: &ctx.entry,
        instance: &ctx.instance,
        physical_device: ctx.physical,
        device: &ctx.device,
        queue: ctx.queue,
        queue_family: ctx.queue_family,
        config,
    };
    // SAFETY: the context's handles are valid and outlive the pacer (the caller destroys the
    // pacer before the context).
    Ok(unsafe { PresentPacer::new(desc) }?)
}

/// A FIFO swapchain of the context's surface through the pacer, with `old` retired: the
/// surface's own extent where it has one (the virtual display's), else 64x64.
pub fn create_swapchain(
    ctx: &VulkanContext,
    pacer: &mut PresentPacer,
    old: vk::SwapchainKHR,
) -> Result<vk::SwapchainKHR> {
    create_swapchain_of(ctx, pacer, ctx.surface, old)
}

/// [`create_swapchain`] of another surface of the context's instance.
pub fn create_swapchain_of(
    ctx: &VulkanContext,
    pacer: &mut PresentPacer,
    surface: vk::SurfaceKHR,
    old: vk::SwapchainKHR,
) -> Result<vk::SwapchainKHR> {
    let info = swapchain_info_of(ctx, surface, old)?;
    // SAFETY: a valid create info for the context's device and surface.
    Ok(unsafe { pacer.create_swapchain(&info, None) }?)
}

/// The create info of [`create_swapchain_of`]: FIFO, the surface's first format, at least two
/// images.
pub fn swapchain_info_of(
    ctx: &VulkanContext,
    surface: vk::SurfaceKHR,
    old: vk::SwapchainKHR,
) -> Result<vk::SwapchainCreateInfoKHR<'static>> {
    // SAFETY: the context's handles are valid, `surface` one of its instance's.
    let (caps, formats) = unsafe {
        (
            ctx.surface_fn
                .get_physical_device_surface_capabilities(ctx.physical, surface)?,
            ctx.surface_fn
                .get_physical_device_surface_formats(ctx.physical, surface)?,
        )
    };
    let format = formats.first().context("no surface format")?;
    let extent = match caps.current_extent.width {
        u32::MAX => vk::Extent2D {
            width: 64,
            height: 64,
        },
        _ => caps.current_extent,
    };
    let info = vk::SwapchainCreateInfoKHR::default()
        .surface(surface)
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
    Ok(info)
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
