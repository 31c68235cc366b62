//! The demo scene: a full-screen triangle whose fragment shader draws bars moving at constant
//! speed and the live frame graph, with dynamic rendering (no render pass or framebuffers to
//! rebuild on resize).

use anyhow::{Context as _, Result};
use ash::vk;

use super::frame_history::FrameHistory;

/// What the renderer draws into: a vkpace frame's image, or any image (the benchmark's
/// textbook loop has its own swapchain).
#[derive(Copy, Clone, Debug)]
pub struct RenderTarget {
    pub image: vk::Image,
    pub image_view: vk::ImageView,
    pub extent: vk::Extent2D,
    /// The per-frame resource slot whose objects are free.
    pub slot: usize,
}

impl RenderTarget {
    /// The target of a vkpace frame.
    pub fn of(frame: &vkpace::vk::Frame) -> Self {
        Self {
            image: frame.image(),
            image_view: frame.image_view(),
            extent: frame.extent(),
            slot: frame.slot(),
        }
    }
}
use super::graph_buffers::GraphBuffers;

const VERT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/scene.vert.spv"));
const FRAG: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/scene.frag.spv"));

/// Pipeline plus one command buffer and one graph buffer per frame slot.
pub struct Renderer {
    device: ash::Device,
    graph: Option<GraphBuffers>,
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
    /// Builds the pipeline for `format` and `slots` command and graph buffers.
    pub fn new(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        device: &ash::Device,
        queue_family: u32,
        format: vk::Format,
        slots: usize,
    ) -> Result<Self> {
        let graph = GraphBuffers::new(instance, physical, device, slots)?;
        let vert = shader(device, VERT)?;
        let frag = shader(device, FRAG)?;
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::FRAGMENT)
            .size(16)];
        let set_layouts = [graph.set_layout()];
        // SAFETY: valid device; plain create infos below reference locals alive for each call.
        let layout = unsafe {
            device.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default()
                    .push_constant_ranges(&ranges)
                    .set_layouts(&set_layouts),
                None,
            )
        }?;
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
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let attachments = [vk::PipelineColorBlendAttachmentState::default()
            .color_write_mask(vk::ColorComponentFlags::RGBA)];
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let formats = [format];
        let mut rendering =
            vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(layout)
            .push_next(&mut rendering);
        // SAFETY: as above.
        let pipeline =
            unsafe { device.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
                .map_err(|(_, e)| e)
                .context("vkCreateGraphicsPipelines")?[0];
        // SAFETY: the modules are no longer needed once the pipeline exists.
        unsafe {
            device.destroy_shader_module(vert, None);
            device.destroy_shader_module(frag, None);
        }
        // SAFETY: valid device and family.
        let pool = unsafe {
            device.create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(queue_family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )
        }?;
        // SAFETY: valid pool.
        let commands = unsafe {
            device.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(u32::try_from(slots)?),
            )
        }?;
        Ok(Self {
            device: device.clone(),
            graph: Some(graph),
            layout,
            pipeline,
            pool,
            commands,
        })
    }

    /// Records the scene for `frame` into the slot's command buffer and returns it. The slot's
    /// previous submission has completed (vkpace's pacing guarantees it, see `Frame::slot`).
    /// `time_s` places the moving pattern (the frame's expected display time); `history` is
    /// what the graph shows.
    pub fn record(
        &mut self,
        frame: &RenderTarget,
        time_s: f32,
        gpu_load: f32,
        history: &FrameHistory,
    ) -> Result<vk::CommandBuffer> {
        self.record_with_readback(frame, time_s, gpu_load, history, None)
    }

    /// As [`Renderer::record`], and when `readback` is given, also copies the rendered image
    /// into that buffer (tightly packed rows; the swapchain needs `TRANSFER_SRC` usage) before
    /// handing it to the presentation engine.
    pub fn record_with_readback(
        &mut self,
        frame: &RenderTarget,
        time_s: f32,
        gpu_load: f32,
        history: &FrameHistory,
        readback: Option<vk::Buffer>,
    ) -> Result<vk::CommandBuffer> {
        let cmd = self.commands[frame.slot % self.commands.len()];
        let set = self
            .graph
            .as_mut()
            .context("renderer destroyed")?
            .write(frame.slot, history)?;
        let range = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        // Layout transition chained to the acquire semaphore's wait at COLOR_ATTACHMENT_OUTPUT
        // (the submit's wait stage), so the write waits for the engine to hand the image back.
        let to_attachment = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
            .src_access_mask(vk::AccessFlags2::NONE)
            .dst_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
            .dst_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .image(frame.image)
            .subresource_range(range)];
        // To PRESENT_SRC_KHR; the present semaphore's signal (all commands) makes it visible.
        // With a read-back, through TRANSFER_SRC_OPTIMAL first.
        let (last_layout, last_stage, last_access) = match readback {
            Some(_) => (
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                vk::PipelineStageFlags2::COPY,
                vk::AccessFlags2::NONE,
            ),
            None => (
                vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT,
                vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            ),
        };
        let to_transfer = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT)
            .src_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .image(frame.image)
            .subresource_range(range)];
        let to_present = [vk::ImageMemoryBarrier2::default()
            .src_stage_mask(last_stage)
            .src_access_mask(last_access)
            .dst_stage_mask(vk::PipelineStageFlags2::NONE)
            .dst_access_mask(vk::AccessFlags2::NONE)
            .old_layout(last_layout)
            .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
            .image(frame.image)
            .subresource_range(range)];
        let copy = [vk::BufferImageCopy::default()
            .image_subresource(vk::ImageSubresourceLayers {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                mip_level: 0,
                base_array_layer: 0,
                layer_count: 1,
            })
            .image_extent(vk::Extent3D {
                width: frame.extent.width,
                height: frame.extent.height,
                depth: 1,
            })];
        let attachments = [vk::RenderingAttachmentInfo::default()
            .image_view(frame.image_view)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::DONT_CARE)
            .store_op(vk::AttachmentStoreOp::STORE)];
        let area = vk::Rect2D {
            offset: vk::Offset2D::default(),
            extent: frame.extent,
        };
        let rendering = vk::RenderingInfo::default()
            .render_area(area)
            .layer_count(1)
            .color_attachments(&attachments);
        let viewport = vk::Viewport {
            x: 0.0,
            y: 0.0,
            width: frame.extent.width as f32,
            height: frame.extent.height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        let push: [f32; 4] = [
            time_s,
            gpu_load * 64.0,
            frame.extent.width as f32,
            frame.extent.height as f32,
        ];
        let mut push_bytes = [0u8; 16];
        for (i, v) in push.iter().enumerate() {
            push_bytes[i * 4..i * 4 + 4].copy_from_slice(&v.to_ne_bytes());
        }
        let d = &self.device;
        // SAFETY: `cmd` is not pending (its slot's previous submission completed); every handle
        // is alive; the image is acquired and waited on through the frame's semaphore.
        unsafe {
            d.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())?;
            d.begin_command_buffer(
                cmd,
                &vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
            )?;
            d.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().image_memory_barriers(&to_attachment),
            );
            d.cmd_begin_rendering(cmd, &rendering);
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline);
            d.cmd_bind_descriptor_sets(
                cmd,
                vk::PipelineBindPoint::GRAPHICS,
                self.layout,
                0,
                &[set],
                &[],
            );
            d.cmd_set_viewport(cmd, 0, &[viewport]);
            d.cmd_set_scissor(cmd, 0, &[area]);
            d.cmd_push_constants(
                cmd,
                self.layout,
                vk::ShaderStageFlags::FRAGMENT,
                0,
                &push_bytes,
            );
            d.cmd_draw(cmd, 3, 1, 0, 0);
            d.cmd_end_rendering(cmd);
            if let Some(buffer) = readback {
                d.cmd_pipeline_barrier2(
                    cmd,
                    &vk::DependencyInfo::default().image_memory_barriers(&to_transfer),
                );
                d.cmd_copy_image_to_buffer(
                    cmd,
                    frame.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    buffer,
                    &copy,
                );
                // Make the copy visible to the host once the frame's fence signals.
                let to_host = [vk::MemoryBarrier2::default()
                    .src_stage_mask(vk::PipelineStageFlags2::COPY)
                    .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                    .dst_stage_mask(vk::PipelineStageFlags2::HOST)
                    .dst_access_mask(vk::AccessFlags2::HOST_READ)];
                d.cmd_pipeline_barrier2(
                    cmd,
                    &vk::DependencyInfo::default().memory_barriers(&to_host),
                );
            }
            d.cmd_pipeline_barrier2(
                cmd,
                &vk::DependencyInfo::default().image_memory_barriers(&to_present),
            );
            d.end_command_buffer(cmd)?;
        }
        Ok(cmd)
    }

    /// Destroys what it made. Call after the swapchain (which waits for its frames) is gone.
    pub fn destroy(mut self) {
        if let Some(graph) = self.graph.take() {
            graph.destroy();
        }
        // SAFETY: no submission using these objects is pending (the swapchain's teardown waited
        // for every frame fence).
        unsafe {
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_pipeline(self.pipeline, None);
            self.device.destroy_pipeline_layout(self.layout, None);
        }
    }
}
