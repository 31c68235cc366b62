//! The render pass's per-image and size-dependent objects, the way most renderers have them: a
//! depth image per frame slot and a framebuffer per (slot, swapchain image), made on first use
//! and retired when the swapchain changes, without idling the device.
//!
//! The bookkeeping (what is stale, which frames in flight may still use it, when the GPU is
//! done) is vkpace's `vkpace::RenderTargets`: depth images per slot, rebuilt for a new
//! extent; framebuffers per (slot, image), rebuilt for a new swapchain. What is left here is
//! how the objects are made and destroyed (the depth images' memory comes from gpu-allocator),
//! the report's count of framebuffer sets, and the benchmark's path without vkpace.

use anyhow::{Context as _, Result};
use ash::vk;
use gpu_allocator::vulkan::{
    Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc,
};
use gpu_allocator::MemoryLocation;
use vkpace::{Frame, Rebuild, Swapchain};

use super::renderer::RenderTarget;

/// The depth format (required for depth attachments by the spec's format tables).
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

/// One slot's depth image.
struct Depth {
    image: vk::Image,
    view: vk::ImageView,
    allocation: Option<Allocation>,
}

/// A framebuffer and the set it belongs to: the framebuffers of one swapchain generation, made
/// and retired together (numbered from 1 in the order made).
type Framebuffer = (vk::Framebuffer, u64);

/// The depth images and framebuffers of a vkpace swapchain's frames, and those of the
/// benchmark's fixed swapchain.
pub struct RenderTargets {
    device: ash::Device,
    allocator: Option<Allocator>,
    depth: vkpace::RenderTargets<Depth>,
    framebuffers: vkpace::RenderTargets<Framebuffer>,
    /// The `Swapchain` object (its tokens' stream) the objects above were made for.
    stream: Option<u64>,
    /// The swapchain (stream) and generation of the newest framebuffer set.
    newest_set: (u64, u64),
    /// The benchmark's swapchain (never recreated): per slot a depth image, per (slot, image)
    /// a framebuffer, kept until [`Self::destroy`].
    fixed_depth: Vec<(usize, Depth)>,
    fixed_framebuffers: Vec<((usize, u32), vk::Framebuffer)>,
    /// Framebuffer sets made so far (one per swapchain generation drawn to).
    pub sets_made: u64,
    /// Sets destroyed once the GPU was done with them (the report reads it before teardown).
    pub sets_retired: u64,
}

impl RenderTargets {
    /// An empty cache; objects are made as frames ask for them.
    pub fn new(
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        device: &ash::Device,
    ) -> Result<Self> {
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device: physical,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        })
        .context("gpu-allocator")?;
        Ok(Self {
            device: device.clone(),
            allocator: Some(allocator),
            depth: vkpace::RenderTargets::per_slot(Rebuild::OnExtent),
            framebuffers: vkpace::RenderTargets::per_slot_and_image(),
            stream: None,
            newest_set: (0, 0),
            fixed_depth: Vec::new(),
            fixed_framebuffers: Vec::new(),
            sets_made: 0,
            sets_retired: 0,
        })
    }

    /// The framebuffer for `frame` of `swapchain` (the one that acquired it), drawing into
    /// `view` (the frame's own, or a view of its image that changes only with the swapchain),
    /// with the slot's depth image; each made now if needed. First destroys what the GPU is
    /// done with (never blocks): call it every frame.
    ///
    /// Frames of another `Swapchain` object than the last one's: the previous one must be
    /// destroyed (its teardown waits for its frames), and everything made for it is destroyed.
    pub fn framebuffer(
        &mut self,
        swapchain: &mut Swapchain,
        frame: &Frame,
        view: vk::ImageView,
        render_pass: vk::RenderPass,
    ) -> Result<vk::Framebuffer> {
        let stream = swapchain.last_submitted().stream();
        if self.stream.is_some_and(|s| s != stream) {
            // Its tokens are not this swapchain's; its frames completed at its teardown.
            self.release_all();
        }
        self.stream = Some(stream);
        let Self {
            device,
            allocator,
            depth,
            framebuffers,
            newest_set,
            sets_made,
            sets_retired,
            ..
        } = self;
        let allocator = allocator.as_mut().context("render targets destroyed")?;
        framebuffers.release_completed(swapchain, |(f, set)| {
            // SAFETY: handed back once every submission that could use it has completed.
            unsafe { device.destroy_framebuffer(f, None) };
            // Sets are retired whole, in the order made: this one is now all gone.
            *sets_retired = (*sets_retired).max(set);
        })?;
        depth.release_completed(swapchain, |d| {
            destroy_depth(device, Some(&mut *allocator), d)
        })?;
        let depth = depth.get_or_make(swapchain, frame, |f| {
            make_depth(device, allocator, f.extent(), f.slot())
        })?;
        let depth_view = depth.view;
        let made = framebuffers.get_or_make(swapchain, frame, |f| -> Result<Framebuffer> {
            let framebuffer =
                make_framebuffer(device, render_pass, [view, depth_view], f.extent())?;
            if *newest_set != (stream, f.generation()) {
                *newest_set = (stream, f.generation());
                *sets_made += 1;
            }
            Ok((framebuffer, *sets_made))
        })?;
        Ok(made.0)
    }

    /// The framebuffer for an image of a swapchain that is never recreated and not vkpace's
    /// (the benchmark's textbook loop): made on first use, kept until [`Self::destroy`].
    pub fn fixed_framebuffer(
        &mut self,
        target: &RenderTarget<'_>,
        render_pass: vk::RenderPass,
    ) -> Result<vk::Framebuffer> {
        let (at, slot) = ((target.slot, target.image_index), target.slot);
        if let Some(&(_, f)) = self.fixed_framebuffers.iter().find(|(k, _)| *k == at) {
            return Ok(f);
        }
        let depth = self.fixed_depth.iter().find(|(s, _)| *s == slot);
        let depth_view = match depth.map(|(_, d)| d.view) {
            Some(view) => view,
            None => {
                let allocator = self
                    .allocator
                    .as_mut()
                    .context("render targets destroyed")?;
                let depth = make_depth(&self.device, allocator, target.extent, slot)?;
                self.fixed_depth.push((slot, depth));
                self.fixed_depth[self.fixed_depth.len() - 1].1.view
            }
        };
        let views = [target.image_view, depth_view];
        let framebuffer = make_framebuffer(&self.device, render_pass, views, target.extent)?;
        self.fixed_framebuffers.push((at, framebuffer));
        Ok(framebuffer)
    }

    /// Destroys everything (what a vkpace swapchain's frames used counts as retired sets).
    fn release_all(&mut self) {
        let (device, mut allocator) = (&self.device, self.allocator.as_mut());
        let retired = &mut self.sets_retired;
        self.framebuffers.release_all(|(f, set)| {
            // SAFETY: no submission uses it (the caller's contract).
            unsafe { device.destroy_framebuffer(f, None) };
            *retired = (*retired).max(set);
        });
        let fixed = self.fixed_framebuffers.drain(..).map(|(_, f)| f);
        // SAFETY: as above.
        fixed.for_each(|f| unsafe { device.destroy_framebuffer(f, None) });
        let depth = |d| destroy_depth(device, allocator.as_deref_mut(), d);
        self.depth.release_all(depth);
        let fixed_depth = self.fixed_depth.drain(..).map(|(_, d)| d);
        fixed_depth.for_each(|d| destroy_depth(device, allocator.as_deref_mut(), d));
    }

    /// Destroys everything. Call once no submission uses the objects (after the swapchain's
    /// teardown, which waits for every frame).
    pub fn destroy(mut self) {
        self.release_all();
        self.allocator = None;
    }
}

/// A framebuffer of `render_pass` with `attachments` (color, depth) of `extent`.
fn make_framebuffer(
    device: &ash::Device,
    render_pass: vk::RenderPass,
    attachments: [vk::ImageView; 2],
    extent: vk::Extent2D,
) -> Result<vk::Framebuffer> {
    let info = vk::FramebufferCreateInfo::default()
        .render_pass(render_pass)
        .attachments(&attachments)
        .width(extent.width)
        .height(extent.height)
        .layers(1);
    // SAFETY: the views are alive and of the extent given; the render pass is compatible
    // (same formats, one sample).
    Ok(unsafe { device.create_framebuffer(&info, None) }?)
}

/// A `D32_SFLOAT` image of `extent` with its memory and view.
fn make_depth(
    device: &ash::Device,
    allocator: &mut Allocator,
    extent: vk::Extent2D,
    slot: usize,
) -> Result<Depth> {
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(DEPTH_FORMAT)
        .extent(vk::Extent3D {
            width: extent.width,
            height: extent.height,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    // SAFETY: valid device and create info.
    let image = unsafe { device.create_image(&info, None) }?;
    let mut depth = Depth {
        image,
        view: vk::ImageView::null(),
        allocation: None,
    };
    if let Err(e) = bind_and_view(device, allocator, &mut depth, slot) {
        destroy_depth(device, Some(allocator), depth);
        return Err(e);
    }
    Ok(depth)
}

fn bind_and_view(
    device: &ash::Device,
    allocator: &mut Allocator,
    depth: &mut Depth,
    slot: usize,
) -> Result<()> {
    // SAFETY: the image was just created on `device`.
    let requirements = unsafe { device.get_image_memory_requirements(depth.image) };
    let allocation = allocator.allocate(&AllocationCreateDesc {
        name: &format!("vkpace demo depth, slot {slot}"),
        requirements,
        location: MemoryLocation::GpuOnly,
        linear: false,
        allocation_scheme: AllocationScheme::GpuAllocatorManaged,
    })?;
    // SAFETY: the allocation satisfies the image's requirements and is bound once.
    let bound =
        unsafe { device.bind_image_memory(depth.image, allocation.memory(), allocation.offset()) };
    depth.allocation = Some(allocation);
    bound?;
    let view_info = vk::ImageViewCreateInfo::default()
        .image(depth.image)
        .view_type(vk::ImageViewType::TYPE_2D)
        .format(DEPTH_FORMAT)
        .subresource_range(vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::DEPTH,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        });
    // SAFETY: the image is bound to memory; the view matches its format and aspect.
    depth.view = unsafe { device.create_image_view(&view_info, None) }?;
    Ok(())
}

fn destroy_depth(device: &ash::Device, allocator: Option<&mut Allocator>, depth: Depth) {
    // SAFETY: no pending submission uses the image (caller's contract); null views are ignored.
    unsafe {
        device.destroy_image_view(depth.view, None);
        device.destroy_image(depth.image, None);
    }
    if let (Some(allocation), Some(allocator)) = (depth.allocation, allocator) {
        if let Err(e) = allocator.free(allocation) {
            eprintln!("vkpace demo: freeing a depth image: {e}");
        }
    }
}
