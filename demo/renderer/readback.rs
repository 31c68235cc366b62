//! The readback of a rendered frame: its image copied into a host-readable buffer after the
//! render pass, when the scene asks for one (`Scene::readback`).

use ash::vk;

use super::RenderTarget;

/// Records the copy of `frame`'s image into `buffer` (tightly packed rows), after
/// `to_transfer` takes the image to `TRANSFER_SRC_OPTIMAL`, and makes the copy visible to the
/// host. Returns the image's layout, stage and access after the copy, for the next barrier.
pub(super) fn record_readback(
    d: &ash::Device,
    cmd: vk::CommandBuffer,
    frame: &RenderTarget<'_>,
    buffer: vk::Buffer,
    to_transfer: vk::ImageMemoryBarrier2<'_>,
) -> (vk::ImageLayout, vk::PipelineStageFlags2, vk::AccessFlags2) {
    let to_transfer = [to_transfer];
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
    // Make the copy visible to the host once the frame's completion is seen.
    let to_host = [vk::MemoryBarrier2::default()
        .src_stage_mask(vk::PipelineStageFlags2::COPY)
        .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
        .dst_stage_mask(vk::PipelineStageFlags2::HOST)
        .dst_access_mask(vk::AccessFlags2::HOST_READ)];
    let src = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
    // SAFETY: `cmd` is recording; the image and buffer are alive.
    unsafe {
        d.cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default().image_memory_barriers(&to_transfer),
        );
        d.cmd_copy_image_to_buffer(cmd, frame.image, src, buffer, &copy);
        d.cmd_pipeline_barrier2(
            cmd,
            &vk::DependencyInfo::default().memory_barriers(&to_host),
        );
    }
    (src, vk::PipelineStageFlags2::COPY, vk::AccessFlags2::NONE)
}
