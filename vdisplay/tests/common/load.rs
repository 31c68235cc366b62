//! GPU load for the textbook loop: a full-screen triangle into an offscreen target with a
//! fragment shader that loops. On lavapipe, draws are rasterized on llvmpipe's threads after
//! the queue thread processed the command buffer, so consecutive frames can overlap there.

use ash::vk;

use super::context::Vk;

/// Offscreen target size.
pub const SIZE: u32 = 256;

const VERT: &str = "#version 450
void main() {
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}";

const FRAG: &str = "#version 450
layout(push_constant) uniform PC { uint iterations; } pc;
layout(location = 0) out vec4 color;
void main() {
    float v = gl_FragCoord.x * 0.001 + gl_FragCoord.y * 0.0007;
    for (uint i = 0u; i < pc.iterations; i++) {
        v = fract(sin(v * 12.9898 + float(i)) * 43758.5453);
    }
    color = vec4(v, gl_FragCoord.x / 256.0, gl_FragCoord.y / 256.0, 1.0);
}";

fn spirv(src: &str, stage: naga::ShaderStage) -> Vec<u32> {
    let mut front = naga::front::glsl::Frontend::default();
    let module = front
        .parse(&naga::front::glsl::Options::from(stage), src)
        .expect("GLSL");
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .expect("valid shader");
    let mut opts = naga::back::spv::Options::default();
    opts.flags
        .remove(naga::back::spv::WriterFlags::ADJUST_COORDINATE_SPACE);
    let pipe = naga::back::spv::PipelineOptions {
        shader_stage: stage,
        entry_point: "main".into(),
    };
    naga::back::spv::write_vec(&module, &info, &opts, Some(&pipe)).expect("SPIR-V")
}

/// The draw load: a pipeline and one offscreen target per frame slot.
pub struct DrawLoad {
    pub iterations: u32,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
    images: Vec<(vk::Image, vk::DeviceMemory, vk::ImageView)>,
}

impl DrawLoad {
    /// Creates the pipeline and `slots` targets.
    pub fn new(vk: &Vk, slots: usize, iterations: u32) -> Self {
        let d = &vk.device;
        let module = |code: &[u32]| {
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            unsafe {
                d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
            }
            .unwrap()
        };
        let (vs, fs) = (
            module(&spirv(VERT, naga::ShaderStage::Vertex)),
            module(&spirv(FRAG, naga::ShaderStage::Fragment)),
        );
        let range = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::FRAGMENT)
            .size(4)];
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let layout = unsafe {
            d.create_pipeline_layout(
                &vk::PipelineLayoutCreateInfo::default().push_constant_ranges(&range),
                None,
            )
        }
        .unwrap();
        let pipeline = make_pipeline(vk, layout, vs, fs);
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            d.destroy_shader_module(vs, None);
            d.destroy_shader_module(fs, None);
        }
        let images = (0..slots).map(|_| make_target(vk)).collect();
        Self {
            iterations,
            layout,
            pipeline,
            images,
        }
    }

    /// Records the draw into slot `slot`'s target.
    pub fn record(&self, vk: &Vk, cmd: vk::CommandBuffer, slot: usize) {
        let d = &vk.device;
        let (image, _, view) = self.images[slot];
        let barrier = to_attachment_barrier(image);
        let out = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
        let attachment = [vk::RenderingAttachmentInfo::default()
            .image_view(view)
            .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .load_op(vk::AttachmentLoadOp::DONT_CARE)
            .store_op(vk::AttachmentStoreOp::STORE)];
        let area = target_area();
        let info = vk::RenderingInfo::default()
            .render_area(area)
            .layer_count(1)
            .color_attachments(&attachment);
        let viewport = [target_viewport()];
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            d.cmd_pipeline_barrier(
                cmd,
                out,
                out,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier],
            );
            d.cmd_begin_rendering(cmd, &info);
            d.cmd_bind_pipeline(cmd, vk::PipelineBindPoint::GRAPHICS, self.pipeline);
            d.cmd_set_viewport(cmd, 0, &viewport);
            d.cmd_set_scissor(cmd, 0, &[area]);
            d.cmd_push_constants(
                cmd,
                self.layout,
                vk::ShaderStageFlags::FRAGMENT,
                0,
                &self.iterations.to_ne_bytes(),
            );
            d.cmd_draw(cmd, 3, 1, 0, 0);
            d.cmd_end_rendering(cmd);
        }
    }

    /// Destroys everything (the device must be idle).
    pub fn destroy(&self, vk: &Vk) {
        let d = &vk.device;
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            for (image, memory, view) in &self.images {
                d.destroy_image_view(*view, None);
                d.destroy_image(*image, None);
                d.free_memory(*memory, None);
            }
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_pipeline_layout(self.layout, None);
        }
    }
}

/// The barrier that takes a target image from undefined to a colour attachment, before the draw.
fn to_attachment_barrier(image: vk::Image) -> vk::ImageMemoryBarrier<'static> {
    let range = vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(1)
        .layer_count(1);
    vk::ImageMemoryBarrier::default()
        .old_layout(vk::ImageLayout::UNDEFINED)
        .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
        .dst_access_mask(vk::AccessFlags::COLOR_ATTACHMENT_WRITE)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image)
        .subresource_range(range)
}

/// The whole target, `SIZE` by `SIZE`, as the render area and scissor.
fn target_area() -> vk::Rect2D {
    vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D {
            width: SIZE,
            height: SIZE,
        },
    }
}

/// The viewport covering the whole target.
fn target_viewport() -> vk::Viewport {
    vk::Viewport {
        x: 0.0,
        y: 0.0,
        width: SIZE as f32,
        height: SIZE as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    }
}

fn make_pipeline(
    vk: &Vk,
    layout: vk::PipelineLayout,
    vs: vk::ShaderModule,
    fs: vk::ShaderModule,
) -> vk::Pipeline {
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vs)
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(fs)
            .name(c"main"),
    ];
    let vertex = vk::PipelineVertexInputStateCreateInfo::default();
    let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let viewport = vk::PipelineViewportStateCreateInfo::default()
        .viewport_count(1)
        .scissor_count(1);
    let raster = vk::PipelineRasterizationStateCreateInfo::default()
        .line_width(1.0)
        .cull_mode(vk::CullModeFlags::NONE);
    let multisample = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let blend_att = [vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_att);
    let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
    let formats = [vk::Format::R8G8B8A8_UNORM];
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .color_blend_state(&blend)
        .dynamic_state(&dynamic)
        .layout(layout)
        .push_next(&mut rendering);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        vk.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
    }
    .unwrap()[0]
}

fn make_target(vk: &Vk) -> (vk::Image, vk::DeviceMemory, vk::ImageView) {
    let d = &vk.device;
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .extent(vk::Extent3D {
            width: SIZE,
            height: SIZE,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let image = unsafe { d.create_image(&info, None) }.unwrap();
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let req = unsafe { d.get_image_memory_requirements(image) };
    let alloc = vk::MemoryAllocateInfo::default()
        .allocation_size(req.size)
        .memory_type_index(
            vk.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL),
        );
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let memory = unsafe { d.allocate_memory(&alloc, None) }.unwrap();
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe { d.bind_image_memory(image, memory, 0) }.unwrap();
    let range = vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(1)
        .layer_count(1);
    let view_info = vk::ImageViewCreateInfo::default()
        .image(image)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .subresource_range(range);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let view = unsafe { d.create_image_view(&view_info, None) }.unwrap();
    (image, memory, view)
}
