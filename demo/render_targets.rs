//! The render pass's per-image and size-dependent objects, the way most renderers have them: a
//! depth image per frame slot and a framebuffer per (slot, swapchain image), made on first use
//! and retired when the swapchain changes, without idling the device.
//!
//! Why per slot: frames in flight overlap, and a depth image written by every frame would be
//! shared by two frames at once; the slot's previous submission has completed
//! (`vkpace::Frame::slot`), so the slot's depth image is free. A framebuffer names one
//! depth view and one swapchain view, hence one per (slot, image).
//!
//! Why retiring by slot is safe: a set of objects made for one swapchain generation is used
//! only by frames recorded into slots that name that generation. When a slot is handed out
//! again, its previous submission completed; so once no slot's last recorded frame used a
//! retired generation, no pending submission uses its objects and they are destroyed.
//! (`examples/render_pass.rs` shows the other way: vkpace's tokens with `DeferredRelease`.)

use anyhow::{Context as _, Result};
use ash::vk;
use gpu_allocator::vulkan::{
    Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc,
};
use gpu_allocator::MemoryLocation;

use super::renderer::RenderTarget;

/// Frame slots (`vkpace::MAX_FRAMES_IN_FLIGHT`).
const SLOTS: usize = vkpace::MAX_FRAMES_IN_FLIGHT;

/// The depth format (required for depth attachments by the spec's format tables).
pub const DEPTH_FORMAT: vk::Format = vk::Format::D32_SFLOAT;

/// One slot's depth image.
struct Depth {
    image: vk::Image,
    view: vk::ImageView,
    allocation: Option<Allocation>,
}

/// The objects of one swapchain generation.
struct TargetSet {
    /// Unique per set (a generation could be drawn at two extents by a caller that does not
    /// count recreations).
    id: u64,
    generation: u64,
    extent: vk::Extent2D,
    depth: [Option<Depth>; SLOTS],
    /// `(slot, image index, framebuffer)`; room for every pair is reserved up front.
    framebuffers: Vec<(usize, u32, vk::Framebuffer)>,
}

/// The current generation's objects and the retired ones still in use.
pub struct RenderTargets {
    device: ash::Device,
    allocator: Option<Allocator>,
    current: Option<TargetSet>,
    retired: Vec<TargetSet>,
    /// The set of the last frame recorded into each slot.
    slot_set: [Option<u64>; SLOTS],
    /// Sets made so far (one per swapchain generation drawn to).
    pub sets_made: u64,
    /// Sets destroyed before teardown (retired and proven unused).
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
            current: None,
            retired: Vec::with_capacity(8),
            slot_set: [None; SLOTS],
            sets_made: 0,
            sets_retired: 0,
        })
    }

    /// The framebuffer for `target` (its slot's depth image and its swapchain image), made now
    /// if needed. A changed swapchain (`Frame::swapchain_changed`), generation or extent retires
    /// the previous set.
    pub fn framebuffer(
        &mut self,
        target: &RenderTarget,
        render_pass: vk::RenderPass,
    ) -> Result<vk::Framebuffer> {
        let slot = target.slot % SLOTS;
        let stale = self.current.as_ref().is_some_and(|c| {
            target.swapchain_changed
                || c.generation != target.generation
                || c.extent != target.extent
        });
        if stale {
            self.retired.extend(self.current.take());
        }
        if self.current.is_none() {
            self.sets_made += 1;
            self.current = Some(TargetSet {
                id: self.sets_made,
                generation: target.generation,
                extent: target.extent,
                depth: std::array::from_fn(|_| None),
                framebuffers: Vec::with_capacity(SLOTS * 8),
            });
        }
        // The slot is handed out: its previous submission completed, so from now on it holds
        // only what this frame uses.
        self.slot_set[slot] = Some(self.sets_made);
        self.destroy_unused_retired();
        let found = self.current.as_ref().and_then(|set| {
            set.framebuffers
                .iter()
                .find(|(s, i, _)| *s == slot && *i == target.image_index)
                .map(|(_, _, f)| *f)
        });
        match found {
            Some(f) => Ok(f),
            None => self.make_framebuffer(target, slot, render_pass),
        }
    }

    fn make_framebuffer(
        &mut self,
        target: &RenderTarget,
        slot: usize,
        render_pass: vk::RenderPass,
    ) -> Result<vk::Framebuffer> {
        let (Some(set), Some(allocator)) = (self.current.as_mut(), self.allocator.as_mut()) else {
            anyhow::bail!("render targets destroyed");
        };
        if set.depth[slot].is_none() {
            set.depth[slot] = Some(make_depth(&self.device, allocator, target.extent, slot)?);
        }
        let depth_view = set.depth[slot]
            .as_ref()
            .map_or(vk::ImageView::null(), |d| d.view);
        let attachments = [target.image_view, depth_view];
        let info = vk::FramebufferCreateInfo::default()
            .render_pass(render_pass)
            .attachments(&attachments)
            .width(target.extent.width)
            .height(target.extent.height)
            .layers(1);
        // SAFETY: the views are alive and of the extent given; the render pass is compatible
        // (same formats, one sample).
        let framebuffer = unsafe { self.device.create_framebuffer(&info, None) }?;
        set.framebuffers
            .push((slot, target.image_index, framebuffer));
        Ok(framebuffer)
    }

    /// Destroys the retired sets no slot's last recorded frame uses.
    fn destroy_unused_retired(&mut self) {
        let mut i = 0;
        while i < self.retired.len() {
            if self.slot_set.contains(&Some(self.retired[i].id)) {
                i += 1;
                continue;
            }
            let set = self.retired.swap_remove(i);
            self.destroy_set(set);
            self.sets_retired += 1;
        }
    }

    fn destroy_set(&mut self, mut set: TargetSet) {
        for (_, _, framebuffer) in set.framebuffers.drain(..) {
            // SAFETY: no pending submission uses it (see the module docs).
            unsafe { self.device.destroy_framebuffer(framebuffer, None) };
        }
        for depth in set.depth.iter_mut().filter_map(Option::take) {
            destroy_depth(&self.device, self.allocator.as_mut(), depth);
        }
    }

    /// Destroys everything. Call once no submission uses the objects (after the swapchain's
    /// teardown, which waits for every frame).
    pub fn destroy(mut self) {
        let sets: Vec<TargetSet> = self.retired.drain(..).chain(self.current.take()).collect();
        for set in sets {
            self.destroy_set(set);
        }
        self.allocator = None;
    }
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
