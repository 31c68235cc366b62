//! The objects of the benchmark's textbook loops (`overhead.rs`, `pacing_loops.rs`): for each
//! swapchain image a view and a present semaphore, for each frame slot an acquire semaphore and
//! a fence created signalled.

use anyhow::Result;
use ash::vk;

/// A textbook loop's per-image and per-slot objects.
#[derive(Default)]
pub struct TextbookObjects {
    pub images: Vec<vk::Image>,
    pub views: Vec<vk::ImageView>,
    pub acquire_sems: Vec<vk::Semaphore>,
    pub present_sems: Vec<vk::Semaphore>,
    pub fences: Vec<vk::Fence>,
}

impl TextbookObjects {
    /// Creates the objects for `swapchain`'s images (views of `format`) and `slots` frame
    /// slots. On an error what was made so far stays here, for [`Self::destroy`].
    pub fn create(
        &mut self,
        d: &ash::Device,
        sc_fn: &ash::khr::swapchain::Device,
        swapchain: vk::SwapchainKHR,
        format: vk::Format,
        slots: usize,
    ) -> Result<()> {
        // SAFETY: a swapchain of this device.
        self.images = unsafe { sc_fn.get_swapchain_images(swapchain) }?;
        for &image in &self.images {
            let vi = vk::ImageViewCreateInfo::default()
                .image(image)
                .view_type(vk::ImageViewType::TYPE_2D)
                .format(format)
                .subresource_range(vk::ImageSubresourceRange {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    base_mip_level: 0,
                    level_count: 1,
                    base_array_layer: 0,
                    layer_count: 1,
                });
            // SAFETY: an image of this device's swapchain.
            self.views.push(unsafe { d.create_image_view(&vi, None) }?);
            // SAFETY: a valid device.
            let sem = unsafe { d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }?;
            self.present_sems.push(sem);
        }
        for _ in 0..slots {
            // SAFETY: a valid device.
            let sem = unsafe { d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }?;
            self.acquire_sems.push(sem);
            let fi = vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED);
            // SAFETY: a valid device.
            self.fences.push(unsafe { d.create_fence(&fi, None) }?);
        }
        Ok(())
    }

    /// Destroys every object once (the vectors are drained).
    ///
    /// # Safety
    ///
    /// None of them is in use (the benchmark's teardown waits for the device to be idle).
    pub unsafe fn destroy(&mut self, d: &ash::Device) {
        // SAFETY: the caller's contract; each handle is destroyed once.
        unsafe {
            for s in self
                .acquire_sems
                .drain(..)
                .chain(self.present_sems.drain(..))
            {
                d.destroy_semaphore(s, None);
            }
            for f in self.fences.drain(..) {
                d.destroy_fence(f, None);
            }
            for v in self.views.drain(..) {
                d.destroy_image_view(v, None);
            }
        }
        self.images.clear();
    }
}
