//! The demo scene: a full-screen triangle whose fragment shader draws bars moving at constant
//! speed, the live frame graph and the HUD's text, through a render pass with a depth
//! attachment, as most renderers have one: its framebuffers and depth images are per-image and
//! size-dependent objects, rebuilt when the swapchain changes ([`RenderTargets`]).

use anyhow::{Context as _, Result};
use ash::vk;

use super::frame_history::FrameHistory;

mod pipeline_state;
mod readback;

use pipeline_state::create_pipeline;
use readback::record_readback;

/// What the renderer draws into: a vkpace frame's image, or any image (the benchmark's
/// textbook loop has its own swapchain).
#[derive(Debug)]
pub struct RenderTarget<'a> {
    pub image: vk::Image,
    pub image_view: vk::ImageView,
    pub extent: vk::Extent2D,
    /// The per-frame resource slot whose objects are free.
    pub slot: usize,
    /// The image's index in its swapchain (framebuffers are per image).
    pub image_index: u32,
    /// The vkpace frame and the swapchain that acquired it: the framebuffers and depth images
    /// follow the swapchain (`vkpace::RenderTargets`), and `image_view` may be a view of the
    /// frame's image the caller made, changed only with the swapchain. `None`: a swapchain
    /// without vkpace, never recreated; its framebuffers are kept until the renderer goes.
    pub frame: Option<(&'a mut vkpace::Swapchain, &'a vkpace::Frame)>,
}

impl<'a> RenderTarget<'a> {
    /// The target of a vkpace frame of `swapchain`.
    pub fn of(swapchain: &'a mut vkpace::Swapchain, frame: &'a vkpace::Frame) -> Self {
        Self {
            image: frame.image(),
            image_view: frame.image_view(),
            extent: frame.extent(),
            slot: frame.slot(),
            image_index: frame.image_index(),
            frame: Some((swapchain, frame)),
        }
    }
}
use super::graph_buffers::GraphBuffers;
use super::hud::HudText;
use super::render_targets::{RenderTargets, DEPTH_FORMAT};

const VERT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/scene.vert.spv"));
const FRAG: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/scene.frag.spv"));

/// Render pass and pipeline, one command buffer and one graph buffer per frame slot, and the
/// framebuffers and depth images.
pub struct Renderer {
    device: ash::Device,
    graph: Option<GraphBuffers>,
    targets: Option<RenderTargets>,
    render_pass: vk::RenderPass,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    pool: vk::CommandPool,
    commands: Vec<vk::CommandBuffer>,
}

fn shader(device: &ash::Device, bytes: &[u8]) -> Result<vk::ShaderModule> {
    let words = ash::util::read_spv(&mut std::io::Cursor::new(bytes))?;
    // SAFETY: valid SPIR-V produced by naga in build.rs.
    Ok(unsafe {
        device.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
    }?)
}

impl Renderer {
    /// Builds the render pass and pipeline for `format` and `slots` command and graph buffers.
    pub fn new(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        device: &ash::Device,
        queue_family: u32,
        format: vk::Format,
        slots: usize,
    ) -> Result<Self> {
        let graph = GraphBuffers::new(instance, physical, device, slots)?;
        let mut this = Self {
            device: device.clone(),
            graph: Some(graph),
            targets: None,
            render_pass: vk::RenderPass::null(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
            pool: vk::CommandPool::null(),
            commands: Vec::new(),
        };
        // On failure `destroy` frees what was made (null handles are ignored).
        match this.make_objects(instance, physical, queue_family, format, slots) {
            Ok(()) => Ok(this),
            Err(e) => {
                this.destroy();
                Err(e)
            }
        }
    }

    fn make_objects(
        &mut self,
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        queue_family: u32,
        format: vk::Format,
        slots: usize,
    ) -> Result<()> {
        let device = self.device.clone();
        self.targets = Some(RenderTargets::new(instance, physical, &device)?);
        self.render_pass = make_render_pass(&device, format)?;
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::FRAGMENT)
            .size(16)];
        let set_layouts = [self.graph.as_ref().context("no graph")?.set_layout()];
        // SAFETY: valid device; the create info references locals alive for the call.
        self.layout = unsafe {
            device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .push_constant_ranges(&ranges)
                    .set_layouts(&set_layouts),
                None,
            )
        }?;
        self.pipeline = make_pipeline(&device, self.layout, self.render_pass)?;
        // SAFETY: valid device and family.
        self.pool = unsafe {
            device.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(queue_family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )
        }?;
        // SAFETY: valid pool.
        self.commands = unsafe {
            device.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(self.pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(u32::try_from(slots)?),
            )
        }?;
        Ok(())
    }

    /// Framebuffer sets made so far (one per swapchain generation drawn) and retired
    /// (destroyed while running).
    pub fn target_sets(&self) -> (u64, u64) {
        self.targets
            .as_ref()
            .map_or((0, 0), |t| (t.sets_made, t.sets_retired))
    }

    /// Records the scene for `frame` into the slot's command buffer and returns it. The slot's
    /// previous submission has completed (vkpace's pacing guarantees it, see `Frame::slot`).
    /// Also destroys the framebuffers and depth images the GPU is done with: call it every
    /// frame (it never blocks).
    /// `time_s` places the moving pattern (the frame's expected display time); `history` is
    /// what the graph shows.
    pub fn record(
        &mut self,
        frame: RenderTarget<'_>,
        time_s: f32,
        gpu_load: f32,
        history: &FrameHistory,
    ) -> Result<vk::CommandBuffer> {
        let scene = Scene {
            time_s,
            gpu_load,
            history,
            hud: None,
            readback: None,
        };
        self.record_scene(frame, &scene)
    }

    /// As [`Renderer::record`], and when `readback` is given, also copies the rendered image
    /// into that buffer (tightly packed rows; the swapchain needs `TRANSFER_SRC` usage) before
    /// handing it to the presentation engine.
    pub fn record_with_readback(
        &mut self,
        frame: RenderTarget<'_>,
        time_s: f32,
        gpu_load: f32,
        history: &FrameHistory,
        readback: Option<vk::Buffer>,
    ) -> Result<vk::CommandBuffer> {
        let scene = Scene {
            time_s,
            gpu_load,
            history,
            hud: None,
            readback,
        };
        self.record_scene(frame, &scene)
    }

    /// Records `scene` for `frame` (see [`Renderer::record`]).
    pub fn record_scene(
        &mut self,
        mut frame: RenderTarget<'_>,
        scene: &Scene<'_>,
    ) -> Result<vk::CommandBuffer> {
        let cmd = self.commands[frame.slot % self.commands.len()];
        let set = self.graph.as_mut().context("renderer destroyed")?.write(
            frame.slot,
            scene.history,
            scene.hud,
        )?;
        let targets = self.targets.as_mut().context("renderer destroyed")?;
        let framebuffer = match frame.frame.take() {
            Some((sc, f)) => targets.framebuffer(sc, f, frame.image_view, self.render_pass)?,
            None => targets.fixed_framebuffer(&frame, self.render_pass)?,
        };
        let d = &self.device;
        // SAFETY: `cmd` is not pending (its slot's previous submission completed).
        unsafe {
            d.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())?;
            d.begin_command_buffer(
                cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )?;
        }
        self.draw(cmd, &frame, framebuffer, set, scene);
        finish_image(d, cmd, &frame, scene.readback);
        // SAFETY: recording began above.
        unsafe { d.end_command_buffer(cmd) }?;
        Ok(cmd)
    }

    /// The render pass: the scene's full-screen triangle at depth 0.5 over a cleared depth.
    fn draw(
        &self,
        cmd: vk::CommandBuffer,
        frame: &RenderTarget<'_>,
        framebuffer: vk::Framebuffer,
        set: vk::DescriptorSet,
        scene: &Scene<'_>,
    ) {
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: frame.extent,
        };
        let clear = [
            vk::ClearValue::default(),
            vk::ClearValue {
                depth_stencil: vk::ClearDepthStencilValue {
                    depth: 1.0,
                    stencil: 0,
                },
            },
        ];
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(self.render_pass)
            .framebuffer(framebuffer)
            .render_area(area)
            .clear_values(&clear);
        let viewport = vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: frame.extent.width as f32,
            height: frame.extent.height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let push: [f32; 4] = [
            scene.time_s,
            scene.gpu_load * 64.0,
            frame.extent.width as f32,
            frame.extent.height as f32,
        ];
        let mut push_bytes = [0u8; 16];
        for (i, v) in push.iter().enumerate() {
            push_bytes[i * 4..i * 4 + 4].copy_from_slice(&v.to_ne_bytes());
        }
        let d = &self.device;
        let fragment = vk::ShaderStageFlags::FRAGMENT;
        let graphics = vk::PipelineBindPoint::GRAPHICS;
        // SAFETY: `cmd` is recording; every handle is alive; the image is acquired and waited
        // on through the frame's semaphore (the render pass's external dependency).
        unsafe {
            d.cmd_begin_render_pass(cmd, &begin, vk::SubpassContents::INLINE);
            d.cmd_bind_pipeline(cmd, graphics, self.pipeline);
            d.cmd_bind_descriptor_sets(cmd, graphics, self.layout, 0, &[set], &[]);
            d.cmd_set_viewport(cmd, 0, &[viewport]);
            d.cmd_set_scissor(cmd, 0, &[area]);
            d.cmd_push_constants(cmd, self.layout, fragment, 0, &push_bytes);
            d.cmd_draw(cmd, 3, 1, 0, 0);
            d.cmd_end_render_pass(cmd);
        }
    }

    /// Destroys what it made. Call after the swapchain (which waits for its frames) is gone.
    pub fn destroy(mut self) {
        if let Some(graph) = self.graph.take() {
            graph.destroy();
        }
        if let Some(targets) = self.targets.take() {
            targets.destroy();
        }
        // SAFETY: no submission using these objects is pending (the swapchain's teardown waited
        // for every frame); null handles (a failed `new`) are ignored.
        unsafe {
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_pipeline(self.pipeline, None);
            self.device.destroy_pipeline_layout(self.layout, None);
            self.device.destroy_render_pass(self.render_pass, None);
        }
    }
}

/// What one frame draws.
pub struct Scene<'a> {
    /// Places the moving pattern (the frame's expected display time), in seconds.
    pub time_s: f32,
    /// Extra GPU work (each unit adds 64 shader loop iterations per pixel).
    pub gpu_load: f32,
    /// What the graph shows.
    pub history: &'a FrameHistory,
    /// The HUD's text, if any.
    pub hud: Option<&'a HudText>,
    /// A buffer to copy the rendered image into (tightly packed rows).
    pub readback: Option<vk::Buffer>,
}

/// After the render pass: the image to `PRESENT_SRC_KHR` (the present semaphore's signal, after
/// all commands, makes it visible), through a copy into `readback` when given.
fn finish_image(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    frame: &RenderTarget<'_>,
    readback: Option<vk::Buffer>,
) {
    let range = vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    };
    let barrier = |old, new, src_stage, src_access, dst_stage, dst_access| {
        vk::ImageMemoryBarrier2::default()
            .src_stage_mask(src_stage)
            .src_access_mask(src_access)
            .dst_stage_mask(dst_stage)
            .dst_access_mask(dst_access)
            .old_layout(old)
            .new_layout(new)
            .image(frame.image)
            .subresource_range(range)
    };
    let attachment = vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
    let color_stage = vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT;
    let color_write = vk::AccessFlags2::COLOR_ATTACHMENT_WRITE;
    let mut last = (attachment, color_stage, color_write);
    if let Some(buffer) = readback {
        let to_transfer = barrier(
            attachment,
            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
            color_stage,
            color_write,
            vk::PipelineStageFlags2::COPY,
            vk::AccessFlags2::TRANSFER_READ,
        );
        last = record_readback(d, cmd, frame, buffer, to_transfer);
    }
    let to_present = [barrier(
        last.0,
        vk::ImageLayout::PRESENT_SRC_KHR,
        last.1,
        last.2,
        vk::PipelineStageFlags2::NONE,
        vk::AccessFlags2::NONE,
    )];
    // SAFETY: `cmd` is recording; the image is alive.
    unsafe {
        d.cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default().image_memory_barriers(&to_present),
        );
    }
}

/// One subpass: the swapchain image as color (left in `COLOR_ATTACHMENT_OPTIMAL`; the barriers
/// after the pass take it to present or copy) and the slot's depth image, cleared each frame.
fn make_render_pass(device: &ash::Device, format: vk::Format) -> Result<vk::RenderPass> {
    let attachments = [
        vk::AttachmentDescription::default()
            .format(format)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::DONT_CARE)
            .store_op(vk::AttachmentStoreOp::STORE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
        vk::AttachmentDescription::default()
            .format(DEPTH_FORMAT)
            .samples(vk::SampleCountFlags::TYPE_1)
            .load_op(vk::AttachmentLoadOp::CLEAR)
            .store_op(vk::AttachmentStoreOp::DONT_CARE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .final_layout(vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
    ];
    let color = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let depth = vk::AttachmentReference {
        attachment: 1,
        layout: vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
    };
    let subpasses = [vk::SubpassDescription::default()
        .pipeline_bind_point(vk::PipelineBindPoint::GRAPHICS)
        .color_attachments(&color)
        .depth_stencil_attachment(&depth)];
    // The color image's layout transition waits for COLOR_ATTACHMENT_OUTPUT, the stage the
    // acquire semaphore's wait blocks, so it happens after the engine handed the image back;
    // the depth clear waits for earlier depth writes on the queue (of another slot's image, or
    // of this one by a frame the host already saw complete: a barrier either way).
    let dependencies = [vk::SubpassDependency::default()
        .src_subpass(vk::SUBPASS_EXTERNAL)
        .dst_subpass(0)
        .src_stage_mask(
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
                | vk::PipelineStageFlags::LATE_FRAGMENT_TESTS,
        )
        .src_access_mask(vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE)
        .dst_stage_mask(
            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT
                | vk::PipelineStageFlags::EARLY_FRAGMENT_TESTS,
        )
        .dst_access_mask(
            vk::AccessFlags::COLOR_ATTACHMENT_WRITE
                | vk::AccessFlags::DEPTH_STENCIL_ATTACHMENT_WRITE,
        )];
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpasses)
        .dependencies(&dependencies);
    // SAFETY: valid device; the create info references locals alive for the call.
    Ok(unsafe { device.create_render_pass(&info, None) }?)
}

/// The scene's pipeline: a full-screen triangle, depth tested and written.
fn make_pipeline(
    device: &ash::Device,
    layout: vk::PipelineLayout,
    render_pass: vk::RenderPass,
) -> Result<vk::Pipeline> {
    let vert = shader(device, VERT)?;
    let frag = match shader(device, FRAG) {
        Ok(f) => f,
        Err(e) => {
            // SAFETY: the module is not used by any pipeline.
            unsafe { device.destroy_shader_module(vert, None) };
            return Err(e);
        }
    };
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vert)
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(frag)
            .name(c"main"),
    ];
    let made = create_pipeline(device, &stages, layout, render_pass);
    // SAFETY: the modules are no longer needed once the pipeline is made (or failed).
    unsafe {
        device.destroy_shader_module(vert, None);
        device.destroy_shader_module(frag, None);
    }
    let pipelines = made
        .map_err(|(_, e)| e)
        .context("vkCreateGraphicsPipelines")?;
    pipelines.first().copied().context("no pipeline made")
}
