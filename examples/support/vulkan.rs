//! Vulkan boilerplate the examples share that is not about vkpace: command buffers, a depth
//! image, a mapped host buffer, barriers (the graphics pipeline is in `pipeline.rs`). A
//! renderer would use an allocator (gpu-allocator); the examples make a few objects plainly.

// Each example uses only some of these.
#![allow(dead_code)]

use anyhow::{Context as _, Result};
use ash::vk;

/// Memory for `requirements` of the first type with `flags`. Free it before the device.
fn allocate(
    device: &ash::Device,
    memory: &vk::PhysicalDeviceMemoryProperties,
    requirements: vk::MemoryRequirements,
    flags: vk::MemoryPropertyFlags,
) -> Result<vk::DeviceMemory> {
    let index = (0..memory.memory_type_count)
        .find(|&i| {
            requirements.memory_type_bits & (1 << i) != 0
                && memory.memory_types[i as usize]
                    .property_flags
                    .contains(flags)
        })
        .with_context(|| format!("no memory type with {flags:?}"))?;
    let info = vk::MemoryAllocateInfo::default()
        .allocation_size(requirements.size)
        .memory_type_index(index);
    // SAFETY: valid device and a memory type of its own; the caller frees the memory.
    Ok(unsafe { device.allocate_memory(&info, None) }?)
}

/// A command pool of queue family `family` whose buffers are reset one by one, and `count`
/// primary command buffers from it (destroying the pool frees them).
pub fn command_buffers(
    device: &ash::Device,
    family: u32,
    count: usize,
) -> Result<(vk::CommandPool, Vec<vk::CommandBuffer>)> {
    let info = vk::CommandPoolCreateInfo::default()
        .queue_family_index(family)
        .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    // SAFETY: valid device; the caller destroys the pool.
    let pool = unsafe { device.create_command_pool(&info, None) }?;
    let alloc = vk::CommandBufferAllocateInfo::default()
        .command_pool(pool)
        .command_buffer_count(count as u32);
    // SAFETY: `pool` is a live pool of `device`.
    let buffers = unsafe { device.allocate_command_buffers(&alloc) }?;
    Ok((pool, buffers))
}

/// Resets `cmd` and begins it for one submission.
///
/// # Safety
///
/// `cmd` comes from a pool made by [`command_buffers`] and is not pending (with vkpace: it
/// belongs to the frame's slot, whose previous frame has completed).
pub unsafe fn begin(device: &ash::Device, cmd: vk::CommandBuffer) -> Result<()> {
    let info =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    // SAFETY: caller contract.
    unsafe {
        device.reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())?;
        device.begin_command_buffer(cmd, &info)?;
    }
    Ok(())
}

/// The first depth format the device can render to in optimal tiling (Vulkan requires
/// `D32_SFLOAT` or `X8_D24_UNORM_PACK32` to be one).
pub fn depth_format(instance: &ash::Instance, physical: vk::PhysicalDevice) -> Result<vk::Format> {
    use vk::Format as F;
    let formats = [
        F::D32_SFLOAT,
        F::X8_D24_UNORM_PACK32,
        F::D24_UNORM_S8_UINT,
        F::D16_UNORM,
    ];
    let attachment = vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT;
    // SAFETY: `physical` comes from `instance` (the caller's).
    let features = |f| unsafe { instance.get_physical_device_format_properties(physical, f) };
    formats
        .into_iter()
        .find(|&f| features(f).optimal_tiling_features.contains(attachment))
        .context("no depth format")
}

/// An image in device-local memory, with a view.
pub struct Image {
    pub image: vk::Image,
    pub memory: vk::DeviceMemory,
    pub view: vk::ImageView,
}

impl Image {
    /// A depth attachment of `format` and `extent` (2D, one sample, level and layer, optimal
    /// tiling) and a view of its depth aspect.
    pub fn depth(
        device: &ash::Device,
        memory: &vk::PhysicalDeviceMemoryProperties,
        format: vk::Format,
        extent: vk::Extent2D,
    ) -> Result<Self> {
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(extent.into())
            .mip_levels(1)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .usage(vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT);
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::DEPTH)
            .level_count(1)
            .layer_count(1);
        // SAFETY: valid device; the caller destroys the objects with `destroy`.
        unsafe {
            let image = device.create_image(&info, None)?;
            let needs = device.get_image_memory_requirements(image);
            let memory = allocate(device, memory, needs, vk::MemoryPropertyFlags::DEVICE_LOCAL)?;
            device.bind_image_memory(image, memory, 0)?;
            let view_info = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(format)
                .subresource_range(range);
            let view = device.create_image_view(&view_info, None)?;
            Ok(Self {
                image,
                memory,
                view,
            })
        }
    }

    /// Destroys the view, the image and its memory.
    ///
    /// # Safety
    ///
    /// No pending GPU work uses the image (with vkpace: a token taken after its last use was
    /// reached).
    pub unsafe fn destroy(self, device: &ash::Device) {
        // SAFETY: caller contract.
        unsafe {
            device.destroy_image_view(self.view, None);
            device.destroy_image(self.image, None);
            device.free_memory(self.memory, None);
        }
    }
}

/// A host-visible, coherent buffer, mapped once for its whole life.
pub struct HostBuffer {
    pub buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    /// The start of the mapping, `size` bytes.
    pub mapped: *mut u8,
}

impl HostBuffer {
    /// A buffer of `size` bytes for `usage`, bound to host-visible, coherent memory, mapped.
    pub fn new(
        device: &ash::Device,
        memory: &vk::PhysicalDeviceMemoryProperties,
        size: u64,
        usage: vk::BufferUsageFlags,
    ) -> Result<Self> {
        let info = vk::BufferCreateInfo::default().size(size).usage(usage);
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        // SAFETY: valid device; the caller destroys the objects with `destroy`.
        unsafe {
            let buffer = device.create_buffer(&info, None)?;
            let needs = device.get_buffer_memory_requirements(buffer);
            let memory = allocate(device, memory, needs, host)?;
            device.bind_buffer_memory(buffer, memory, 0)?;
            let flags = vk::MemoryMapFlags::empty();
            let mapped = device.map_memory(memory, 0, vk::WHOLE_SIZE, flags)?.cast();
            Ok(Self {
                buffer,
                memory,
                mapped,
            })
        }
    }

    /// Destroys the buffer and frees (and so unmaps) its memory.
    ///
    /// # Safety
    ///
    /// No pending GPU work uses the buffer, and nothing uses the mapping any more.
    pub unsafe fn destroy(self, device: &ash::Device) {
        // SAFETY: caller contract.
        unsafe {
            device.destroy_buffer(self.buffer, None);
            device.free_memory(self.memory, None);
        }
    }
}

/// Stages and accesses on one side of a barrier.
pub type Scope = (vk::PipelineStageFlags2, vk::AccessFlags2);

/// The one mip level and layer of a color image.
pub const COLOR: vk::ImageSubresourceRange = vk::ImageSubresourceRange {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    base_mip_level: 0,
    level_count: 1,
    base_array_layer: 0,
    layer_count: 1,
};

/// A barrier (synchronization2) on color image `image`: after `src`, before `dst`, and its
/// layout from `from` to `to`.
pub fn image_barrier(
    image: vk::Image,
    (src, dst): (Scope, Scope),
    (from, to): (vk::ImageLayout, vk::ImageLayout),
) -> vk::ImageMemoryBarrier2<'static> {
    vk::ImageMemoryBarrier2::default()
        .src_stage_mask(src.0)
        .src_access_mask(src.1)
        .dst_stage_mask(dst.0)
        .dst_access_mask(dst.1)
        .old_layout(from)
        .new_layout(to)
        .image(image)
        .subresource_range(COLOR)
}

/// A global memory barrier (synchronization2): after `src`, before `dst`.
pub fn memory_barrier((src, dst): (Scope, Scope)) -> vk::MemoryBarrier2<'static> {
    vk::MemoryBarrier2::default()
        .src_stage_mask(src.0)
        .src_access_mask(src.1)
        .dst_stage_mask(dst.0)
        .dst_access_mask(dst.1)
}
