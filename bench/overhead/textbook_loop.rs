//! The textbook loop: raw ash, a fence and an acquire semaphore per frame in flight, a present
//! semaphore per image; the baseline every vkpace figure of the CPU guard is a ratio against.

use std::time::Instant;

use anyhow::{Context as _, Result};
use ash::vk;

use super::{nanos, Steps, EXTENT, FRAMES_IN_FLIGHT, TIMEOUT_NS};
use crate::driver_meter;
use crate::frame_history::FrameHistory;
use crate::renderer::{RenderTarget, Renderer};
use crate::textbook_objects::TextbookObjects;
use crate::vulkan_context::VulkanContext;

/// The textbook loop's objects.
pub(super) struct TextbookLoop {
    sc_fn: ash::khr::swapchain::Device,
    device: ash::Device,
    queue: vk::Queue,
    swapchain: vk::SwapchainKHR,
    format: vk::Format,
    objects: TextbookObjects,
    renderer: Option<Renderer>,
    frame: u64,
}

impl TextbookLoop {
    /// `fns` are the context's instance and device tables (metered copies).
    pub(super) fn new(ctx: &VulkanContext, fns: &(ash::Instance, ash::Device)) -> Result<Self> {
        let d = &fns.1;
        let sc_fn = ash::khr::swapchain::Device::new(&fns.0, d);
        // SAFETY: valid handles of the context.
        let caps = unsafe {
            ctx.surface_fn
                .get_physical_device_surface_capabilities(ctx.physical, ctx.surface)
        }?;
        // SAFETY: as above.
        let formats = unsafe {
            ctx.surface_fn
                .get_physical_device_surface_formats(ctx.physical, ctx.surface)
        }?;
        let format = formats
            .iter()
            .find(|f| f.format == vk::Format::B8G8R8A8_UNORM)
            .or(formats.first())
            .copied()
            .context("no surface format")?;
        let mut count = caps.min_image_count + 1;
        if caps.max_image_count > 0 {
            count = count.min(caps.max_image_count);
        }
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(ctx.surface)
            .min_image_count(count)
            .image_format(format.format)
            .image_color_space(format.color_space)
            .image_extent(EXTENT)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true);
        // SAFETY: the device enabled VK_KHR_swapchain; the surface supports these (queried).
        let swapchain = unsafe { sc_fn.create_swapchain(&info, None) }?;
        let mut l = Self {
            sc_fn,
            device: d.clone(),
            queue: ctx.queue,
            swapchain,
            format: format.format,
            objects: TextbookObjects::default(),
            renderer: None,
            frame: 0,
        };
        if let Err(e) = l.make_objects(ctx) {
            let _ = l.destroy();
            return Err(e);
        }
        Ok(l)
    }

    fn make_objects(&mut self, ctx: &VulkanContext) -> Result<()> {
        let d = &self.device;
        self.objects.create(
            d,
            &self.sc_fn,
            self.swapchain,
            self.format,
            FRAMES_IN_FLIGHT,
        )?;
        self.renderer = Some(Renderer::new(
            &ctx.instance,
            ctx.physical,
            d,
            ctx.queue_family,
            self.format,
            FRAMES_IN_FLIGHT,
        )?);
        Ok(())
    }

    pub(super) fn frame(&mut self, t: f32, history: &FrameHistory) -> Result<Steps> {
        let meter = driver_meter::now();
        let t0 = Instant::now();
        let d = &self.device;
        let slot = (self.frame % FRAMES_IN_FLIGHT as u64) as usize;
        self.frame += 1;
        let fence = self.objects.fences[slot];
        let acquire = self.objects.acquire_sems[slot];
        // SAFETY: the fence belongs to this device; the wait is bounded.
        unsafe { d.wait_for_fences(&[fence], true, TIMEOUT_NS) }?;
        // SAFETY: the acquire semaphore's last wait (the slot's previous submission) completed.
        let (index, _) = unsafe {
            self.sc_fn
                .acquire_next_image(self.swapchain, TIMEOUT_NS, acquire, vk::Fence::null())
        }?;
        // SAFETY: the fence is signalled and not in use.
        unsafe { d.reset_fences(&[fence]) }?;
        let i = index as usize;
        let target = RenderTarget {
            image: self.objects.images[i],
            image_view: self.objects.views[i],
            extent: EXTENT,
            slot,
            image_index: index,
            // One swapchain for the whole run, not vkpace's.
            frame: None,
        };
        let renderer = self.renderer.as_mut().context("renderer gone")?;
        let t1 = Instant::now();
        let cmd = renderer.record(target, t, 0.0, history)?;
        let t2 = Instant::now();
        let waits = [acquire];
        let stages = [vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT];
        let cmds = [cmd];
        let signals = [self.objects.present_sems[i]];
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .command_buffers(&cmds)
            .signal_semaphores(&signals);
        // SAFETY: the slot's fence is unsignalled; the command buffer's previous use completed.
        unsafe { d.queue_submit(self.queue, &[submit], fence) }?;
        let scs = [self.swapchain];
        let idx = [index];
        let present = vk::PresentInfoKHR::default()
            .wait_semaphores(&signals)
            .swapchains(&scs)
            .image_indices(&idx);
        // SAFETY: the image was acquired and its rendering submitted.
        unsafe { self.sc_fn.queue_present(self.queue, &present) }?;
        let t3 = Instant::now();
        Ok(Steps {
            wall_ns: nanos((t1 - t0) + (t3 - t2)),
            driver: driver_meter::now().since(meter),
        })
    }

    pub(super) fn destroy(&mut self) -> Result<()> {
        // SAFETY: benchmark teardown: wait for everything, then destroy in reverse order.
        unsafe { self.device.device_wait_idle() }?;
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
        let d = &self.device;
        // SAFETY: the device is idle; nothing below is in use; each handle is destroyed once
        // (the vectors are drained).
        unsafe {
            self.objects.destroy(d);
            self.sc_fn.destroy_swapchain(self.swapchain, None);
        }
        self.swapchain = vk::SwapchainKHR::null();
        Ok(())
    }
}
