//! The same render loop through vkpace's `Swapchain`, in the configuration a
//! [`VkpaceVariant`] names.

use std::time::Instant;

use anyhow::{Context as _, Result};
use ash::vk;
use vkpace::{Acquired, Swapchain, SwapchainConfig, SwapchainCreateDesc};

use super::{nanos, Steps, VkpaceVariant, EXTENT, FRAMES_IN_FLIGHT};
use crate::driver_meter;
use crate::frame_history::FrameHistory;
use crate::renderer::{RenderTarget, Renderer};
use crate::vulkan_context::VulkanContext;

/// The same loop through vkpace.
pub(super) struct VkpaceLoop {
    swapchain: Option<Swapchain>,
    renderer: Option<Renderer>,
}

impl VkpaceLoop {
    /// `fns` are the context's instance and device tables (metered copies).
    pub(super) fn new(
        ctx: &VulkanContext,
        fns: &(ash::Instance, ash::Device),
        variant: VkpaceVariant,
    ) -> Result<Self> {
        if variant.maintenance1 && !ctx.maintenance1 || variant.gpu_timestamps && !ctx.gpu_timing {
            anyhow::bail!("{variant:?} asked for, but the device does not offer it");
        }
        let mut config = SwapchainConfig::default();
        config.pacing.frames_in_flight = FRAMES_IN_FLIGHT;
        config.extent = EXTENT;
        config.paths.swapchain_maintenance1 =
            ctx.maintenance1_names.filter(|_| variant.maintenance1);
        config.gpu_timestamps = variant.gpu_timestamps;
        if variant.timeline {
            config.completion = vkpace::CompletionBackend::TimelineSemaphore;
        }
        // SAFETY: the context's handles are valid and outlive the swapchain (destroyed in
        // `destroy`, before the context); the options are set only where the context
        // enabled them (checked above).
        let swapchain = unsafe {
            Swapchain::new(SwapchainCreateDesc {
                entry: &ctx.entry,
                instance: &fns.0,
                physical_device: ctx.physical,
                device: &fns.1,
                queue: ctx.queue,
                queue_family: ctx.queue_family,
                surface: ctx.surface,
                config,
            })
        }?;
        let format = swapchain.info().format().context("format")?;
        let renderer = ctx.renderer(format)?;
        Ok(Self {
            swapchain: Some(swapchain),
            renderer: Some(renderer),
        })
    }

    pub(super) fn frame(&mut self, t: f32, history: &FrameHistory) -> Result<Steps> {
        let (Some(sc), Some(r)) = (self.swapchain.as_mut(), self.renderer.as_mut()) else {
            anyhow::bail!("loop destroyed");
        };
        let meter = driver_meter::now();
        let t0 = Instant::now();
        let frame = match sc.acquire()? {
            Acquired::Frame(frame) => frame,
            _ => anyhow::bail!("a headless surface reported a zero extent"),
        };
        let t1 = Instant::now();
        let cmd = r.record(RenderTarget::of(sc, &frame), t, 0.0, history)?;
        let t2 = Instant::now();
        // SAFETY: `cmd` was recorded for this frame's free slot and outlives its submission.
        let submitted = unsafe {
            sc.submit(
                frame,
                vkpace::Submission::command_buffers(
                    &[cmd],
                    vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                ),
            )
        }?;
        sc.present(submitted)?;
        let t3 = Instant::now();
        Ok(Steps {
            wall_ns: nanos((t1 - t0) + (t3 - t2)),
            driver: driver_meter::now().since(meter),
        })
    }

    pub(super) fn destroy(&mut self) -> Result<()> {
        if let Some(sc) = self.swapchain.take() {
            sc.destroy()?;
        }
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
        Ok(())
    }
}
