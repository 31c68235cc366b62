//! A graphics pipeline for the examples, not about vkpace: shader modules from build.rs's
//! SPIR-V and the plainest fixed-function state.

// Not every example draws with a pipeline.
#![allow(dead_code)]

use anyhow::Result;
use ash::vk;

/// A shader stage of entry point `main` and its module, from SPIR-V bytes (build.rs compiles
/// `shaders/` into `OUT_DIR`). The caller destroys the module.
fn shader_stage(
    device: &ash::Device,
    stage: vk::ShaderStageFlags,
    spv: &[u8],
) -> Result<vk::PipelineShaderStageCreateInfo<'static>> {
    let code = ash::util::read_spv(&mut std::io::Cursor::new(spv))?;
    let info = vk::ShaderModuleCreateInfo::default().code(&code);
    // SAFETY: valid device; valid SPIR-V (naga's output); the caller destroys the module.
    let module = unsafe { device.create_shader_module(&info, None) }?;
    Ok(vk::PipelineShaderStageCreateInfo::default()
        .stage(stage)
        .module(module)
        .name(c"main"))
}

/// A pipeline with an empty layout for subpass 0 of `render_pass`: the `vertex` and
/// `fragment` shaders (SPIR-V, entry point `main`), no vertex input, a triangle list, no
/// culling, one color attachment written as is, viewport and scissor dynamic (so a new
/// extent needs no new pipeline), and with `depth` the depth test and write (`LESS`).
pub fn graphics_pipeline(
    device: &ash::Device,
    render_pass: vk::RenderPass,
    (vertex, fragment): (&[u8], &[u8]),
    depth: bool,
) -> Result<(vk::PipelineLayout, vk::Pipeline)> {
    let stages = [
        shader_stage(device, vk::ShaderStageFlags::VERTEX, vertex)?,
        shader_stage(device, vk::ShaderStageFlags::FRAGMENT, fragment)?,
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
    let depth_state = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(depth)
        .depth_write_enable(depth)
        .depth_compare_op(vk::CompareOp::LESS);
    let blend_attachment = [vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)];
    let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend_attachment);
    let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
    let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
    // SAFETY: valid device; an empty layout, destroyed by the caller.
    let layout =
        unsafe { device.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), None) }?;
    let info = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vertex_input)
        .input_assembly_state(&assembly)
        .viewport_state(&viewport)
        .rasterization_state(&raster)
        .multisample_state(&multisample)
        .depth_stencil_state(&depth_state)
        .color_blend_state(&blend)
        .dynamic_state(&dynamic)
        .layout(layout)
        .render_pass(render_pass);
    // SAFETY: every pointer refers to locals alive for the call.
    let made =
        unsafe { device.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) };
    for stage in stages {
        // SAFETY: the modules are not needed once the pipeline is made (or failed).
        unsafe { device.destroy_shader_module(stage.module, None) };
    }
    Ok((layout, made.map_err(|(_, e)| e)?[0]))
}
