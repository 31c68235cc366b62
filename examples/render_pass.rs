//! A classic render-pass renderer on vkpace: the swapchain image as color attachment (final
//! layout `PRESENT_SRC_KHR`) and a depth attachment; two overlapping rectangles at different
//! depths; what is sized to the swapchain rebuilt when it changes, without idling the device:
//!
//! - per frame slot ([`Frame::slot`]) a depth image and a command buffer: frames in flight
//!   overlap on the GPU and must not share them, and a slot's previous frame has completed;
//! - per (slot, swapchain image) a framebuffer; the depth images and framebuffers are
//!   [`RenderTargets`]: made on first use, retired on a new extent (depth) or swapchain
//!   (framebuffers), destroyed once the frames that used them completed; the render pass and
//!   pipeline depend only on the formats (viewport and scissor are dynamic), which vkpace keeps
//!   across recreations;
//! - a zero extent (minimized) acquires and renders nothing: the support loop asks again;
//! - teardown: a bounded wait for the last token, the swapchain, then the rest; no
//!   `vkDeviceWaitIdle` anywhere.
//!
//! ```text
//! cargo run --release --example render_pass           # a window, 120 frames
//! cargo run --release --example render_pass -- --headless --resize-every-frame --validation
//! ```
//! Flags: see `examples/support/mod.rs`. Each rectangle is the demo's full-screen triangle
//! (`shaders/scene.vert`) in its own viewport, whose depth range sets its depth.

mod support;

use std::time::Duration;

use anyhow::{ensure, Context as _, Result};
use ash::vk;
use support::vulkan::{self, Image};
use support::{pipeline, Args, Context, Renderer};
use vkpace::MAX_FRAMES_IN_FLIGHT;
use vkpace::{CompletionBackend, Frame, Rebuild, RenderTargets, Swapchain, SwapchainConfig};

/// `shaders/scene.vert` and `shaders/example_depth.frag`, compiled by build.rs.
const SHADERS: (&[u8], &[u8]) = (
    include_bytes!(concat!(env!("OUT_DIR"), "/scene.vert.spv")),
    include_bytes!(concat!(env!("OUT_DIR"), "/example_depth.frag.spv")),
);

struct RenderPassExample {
    device: ash::Device,
    memory: vk::PhysicalDeviceMemoryProperties,
    color_format: vk::Format,
    depth_format: vk::Format,
    render_pass: vk::RenderPass,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::CommandPool,
    /// One command buffer per frame slot.
    commands: Vec<vk::CommandBuffer>,
    /// Per slot, a depth image of the current extent.
    depth: RenderTargets<Image>,
    /// Per (slot, swapchain image), a framebuffer of the current swapchain.
    framebuffers: RenderTargets<vk::Framebuffer>,
}

impl Renderer for RenderPassExample {
    const NAME: &'static str = "render_pass";

    fn config(args: &Args) -> SwapchainConfig {
        let mut config = SwapchainConfig::default();
        config.completion = args.completion.unwrap_or(CompletionBackend::Fences);
        config
    }

    fn new(ctx: &Context, swapchain: &mut Swapchain, _args: &Args) -> Result<Self> {
        let device = ctx.device.clone();
        let color_format = swapchain
            .info()
            .format()
            .context("no swapchain (zero extent)")?;
        let depth_format = vulkan::depth_format(&ctx.instance, ctx.physical)?;
        let render_pass = render_pass(&device, color_format, depth_format)?;
        let (layout, pipeline) = pipeline::graphics_pipeline(&device, render_pass, SHADERS, true)?;
        let (pool, commands) =
            vulkan::command_buffers(&device, ctx.queue_family, MAX_FRAMES_IN_FLIGHT)?;
        Ok(Self {
            device,
            memory: ctx.memory,
            color_format,
            depth_format,
            render_pass,
            layout,
            pipeline,
            pool,
            commands,
            depth: RenderTargets::per_slot(Rebuild::OnExtent),
            framebuffers: RenderTargets::per_slot_and_image(),
        })
    }

    fn frame(&mut self, swapchain: &mut Swapchain, frame: Frame) -> Result<()> {
        // Destroy what the GPU has finished with; never blocks.
        let device = &self.device;
        // SAFETY: handed back once every submission that could use them has completed.
        let fb = |f| unsafe { device.destroy_framebuffer(f, None) };
        // SAFETY: as above.
        let depth = |d: Image| unsafe { d.destroy(device) };
        self.framebuffers.release_completed(swapchain, fb)?;
        self.depth.release_completed(swapchain, depth)?;
        ensure!(frame.format() == self.color_format, "the format changed");
        let framebuffer = self.framebuffer(swapchain, &frame)?;
        let cmd = self.record(&frame, framebuffer)?;
        let stage = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
        // SAFETY: `cmd` is recorded, of the queue's family, leaves the image in PRESENT_SRC_KHR
        // (the render pass's final layout), and is reused only when its slot comes back, after
        // this frame completed; what it uses is retired with a token at least this frame's.
        let submitted =
            unsafe { swapchain.submit(frame, vkpace::Submission::command_buffers(&[cmd], stage)) }?;
        swapchain.present(submitted)?;
        Ok(())
    }

    fn destroy(mut self, mut swapchain: Swapchain) -> Result<()> {
        // A bounded wait for the last frame (every earlier one with it), not vkDeviceWaitIdle:
        // then nothing of ours is in use. The swapchain's own teardown waits for its objects.
        let last = swapchain.last_submitted();
        swapchain.wait(last, Duration::from_secs(2))?;
        swapchain.destroy()?;
        let device = &self.device;
        // SAFETY: no submission uses them any more (waited for above).
        let fb = |f| unsafe { device.destroy_framebuffer(f, None) };
        // SAFETY: as above.
        let depth = |d: Image| unsafe { d.destroy(device) };
        self.framebuffers.release_all(fb);
        self.depth.release_all(depth);
        // SAFETY: as above.
        unsafe {
            device.destroy_command_pool(self.pool, None);
            device.destroy_pipeline(self.pipeline, None);
            device.destroy_pipeline_layout(self.layout, None);
            device.destroy_render_pass(self.render_pass, None);
        }
        Ok(())
    }
}

impl RenderPassExample {
    /// The framebuffer of the frame's image and its slot's depth image, each made on first use
    /// (by the slot's previous frame, which has completed, or now).
    fn framebuffer(&mut self, swapchain: &Swapchain, frame: &Frame) -> Result<vk::Framebuffer> {
        let (device, memory, format) = (&self.device, &self.memory, self.depth_format);
        let depth = self.depth.get_or_make(swapchain, frame, |f| {
            Image::depth(device, memory, format, f.extent())
        })?;
        let (render_pass, depth) = (self.render_pass, depth.view);
        let make = |f: &Frame| {
            let attachments = [f.image_view(), depth];
            let info = vk::FramebufferCreateInfo::default()
                .render_pass(render_pass)
                .attachments(&attachments)
                .width(f.extent().width)
                .height(f.extent().height)
                .layers(1);
            // SAFETY: the views are live and match the render pass's formats and the extent.
            unsafe { device.create_framebuffer(&info, None) }
        };
        Ok(*self.framebuffers.get_or_make(swapchain, frame, make)?)
    }

    /// Records the slot's command buffer: clear, then the near rectangle, then the far one
    /// (which the depth test hides where they overlap), moving a little each frame.
    fn record(&self, frame: &Frame, fb: vk::Framebuffer) -> Result<vk::CommandBuffer> {
        let (d, cmd) = (&self.device, self.commands[frame.slot()]);
        let area = vk::Rect2D::default().extent(frame.extent());
        let clear = [
            vk::ClearValue {
                color: vk::ClearColorValue {
                    float32: [0.02, 0.02, 0.05, 1.0],
                },
            },
            vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue::default().depth(1.0),
            },
        ];
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(self.render_pass)
            .framebuffer(fb)
            .render_area(area)
            .clear_values(&clear);
        let (w, h) = (area.extent.width as f32, area.extent.height as f32);
        let sway = (frame.number() as f32 * 0.05).sin() * 0.1;
        // SAFETY: the slot's previous frame completed, so its command buffer is not pending;
        // the render pass, framebuffer and pipeline are live.
        unsafe {
            vulkan::begin(d, cmd)?;
            d.cmd_begin_render_pass(cmd, &begin, vk::SubpassContents::INLINE);
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline);
            d.cmd_set_scissor(cmd, 0, &[area]);
            for (x, y, depth) in [(0.15, 0.15, 0.25), (0.35 + sway, 0.35, 0.75)] {
                let viewport = vk::Viewport {
                    x: x * w,
                    y: y * h,
                    width: w / 2.0,
                    height: h / 2.0,
                    min_depth: depth,
                    max_depth: depth,
                };
                d.cmd_set_viewport(cmd, 0, &[viewport]);
                d.cmd_draw(cmd, 3, 1, 0, 0);
            }
            d.cmd_end_render_pass(cmd);
            d.end_command_buffer(cmd)?;
        }
        Ok(cmd)
    }
}

/// A render pass with the swapchain image as color attachment (cleared, then left in
/// `PRESENT_SRC_KHR` for presenting) and a depth attachment (cleared, not stored).
fn render_pass(
    device: &ash::Device,
    color: vk::Format,
    depth: vk::Format,
) -> Result<vk::RenderPass> {
    use vk::{AccessFlags as Access, PipelineStageFlags as Stage};
    let attachment = |format, store, final_layout| {
        vk::AttachmentDescription::default()
            .format(format)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(store)
            .stencil_load_op(vk::AttachmentLoadOp::DONT_CARE)
            .stencil_store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(final_layout)
    };
    let depth_layout = vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    let present = vk::ImageLayout::PRESENT_SRC_KHR;
    let attachments = [
        attachment(color, vk::AttachmentStoreOp::STORE, present),
        attachment(depth, vk::AttachmentStoreOp::DONT_CARE, depth_layout),
    ];
    let color_ref = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let depth_ref = vk::AttachmentReference {
        attachment: 1,
        layout: depth_layout,
    };
    let subpass = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color_ref)
        .depth_stencil_attachment(&depth_ref)];
    // The color layout transition waits for the acquire semaphore, which vkpace's submission
    // waits on at COLOR_ATTACHMENT_OUTPUT; the depth clear for earlier depth tests on the queue
    // (by an earlier frame of the slot, complete by now, but the rule stays in the pass).
    let dependency = [vk::SubpassDependency::default()
        .src_subpass(vk::SUBPASS_EXTERNAL)
        .dst_subpass(0)
        .src_stage_mask(Stage::COLOR_ATTACHMENT_OUTPUT | Stage::LATE_FRAGMENT_TESTS)
        .dst_stage_mask(Stage::COLOR_ATTACHMENT_OUTPUT | Stage::EARLY_FRAGMENT_TESTS)
        .src_access_mask(Access::DEPTH_STENCIL_ATTACHMENT_WRITE)
        .dst_access_mask(Access::COLOR_ATTACHMENT_WRITE | Access::DEPTH_STENCIL_ATTACHMENT_WRITE)];
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpass)
        .dependencies(&dependency);
    // SAFETY: valid device; every pointer refers to locals alive for the call.
    Ok(unsafe { device.create_render_pass(&info, None) }?)
}

fn main() -> std::process::ExitCode {
    support::main::<RenderPassExample>()
}
