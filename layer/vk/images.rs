//! The images and views of every swapchain that is not destroyed yet (the live one and the
//! retired ones, whose views pending work may still use).

use ash::vk;

use super::error::{Result, VkContext};
use super::names::Namer;

/// One swapchain's images and their views (a view is null until made, with deferred memory
/// allocation).
struct SwapchainImages {
    handle: vk::SwapchainKHR,
    format: vk::Format,
    generation: u64,
    images: Vec<(vk::Image, vk::ImageView)>,
}

/// Images and views by swapchain.
#[derive(Default)]
pub(crate) struct ImageTable {
    swapchains: Vec<SwapchainImages>,
}

impl ImageTable {
    /// Records `handle`'s images; makes their views unless memory is deferred (views of images
    /// without memory are invalid, VUID-VkImageViewCreateInfo-image-01020: made at first
    /// acquire then). On failure nothing is recorded and the views made are destroyed.
    pub(crate) fn register(
        &mut self,
        device: &ash::Device,
        namer: &Namer,
        handle: vk::SwapchainKHR,
        images: Vec<vk::Image>,
        (format, generation, deferred): (vk::Format, u64, bool),
    ) -> Result<()> {
        let mut entry = SwapchainImages {
            handle,
            format,
            generation,
            images: images
                .into_iter()
                .map(|i| (i, vk::ImageView::null()))
                .collect(),
        };
        for (i, image) in entry.images.iter().enumerate() {
            namer.name(
                image.0,
                format_args!("vkpace swapchain image {i} (generation {generation})"),
            );
        }
        if !deferred {
            for i in 0..entry.images.len() {
                if let Err(e) = Self::make_view(device, namer, &mut entry, i) {
                    Self::destroy_views(device, &entry);
                    return Err(e);
                }
            }
        }
        self.swapchains.push(entry);
        Ok(())
    }

    /// The image and view of `index` of `handle`, making the view now if it was deferred.
    pub(crate) fn image_and_view(
        &mut self,
        device: &ash::Device,
        namer: &Namer,
        handle: vk::SwapchainKHR,
        index: u32,
    ) -> Result<(vk::Image, vk::ImageView)> {
        let Some(entry) = self.swapchains.iter_mut().find(|s| s.handle == handle) else {
            return Ok((vk::Image::null(), vk::ImageView::null()));
        };
        let i = index as usize;
        if entry
            .images
            .get(i)
            .is_some_and(|(_, v)| *v == vk::ImageView::null())
        {
            Self::make_view(device, namer, entry, i)?;
        }
        Ok(entry
            .images
            .get(i)
            .copied()
            .unwrap_or((vk::Image::null(), vk::ImageView::null())))
    }

    /// The images and views of `handle`.
    pub(crate) fn of(&self, handle: vk::SwapchainKHR) -> Vec<(vk::Image, vk::ImageView)> {
        self.swapchains
            .iter()
            .find(|s| s.handle == handle)
            .map(|s| s.images.clone())
            .unwrap_or_default()
    }

    /// Forgets `handle`, destroying its views. The caller destroys the swapchain.
    pub(crate) fn remove(&mut self, device: &ash::Device, handle: vk::SwapchainKHR) {
        if let Some(i) = self.swapchains.iter().position(|s| s.handle == handle) {
            let entry = self.swapchains.swap_remove(i);
            Self::destroy_views(device, &entry);
        }
    }

    fn make_view(
        device: &ash::Device,
        namer: &Namer,
        entry: &mut SwapchainImages,
        i: usize,
    ) -> Result<()> {
        let Some(&(image, _)) = entry.images.get(i) else {
            return Ok(());
        };
        let info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(entry.format)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: 0,
                level_count: 1,
                base_array_layer: 0,
                layer_count: 1,
            });
        // SAFETY: `image` is a swapchain image of this device with this format, bound to
        // memory (created without deferred allocation, or acquired at least once).
        let view = unsafe { device.create_image_view(&info, None) }.during("vkCreateImageView")?;
        let generation = entry.generation;
        namer.name(
            view,
            format_args!("vkpace image view {i} (generation {generation})"),
        );
        entry.images[i].1 = view;
        Ok(())
    }

    fn destroy_views(device: &ash::Device, entry: &SwapchainImages) {
        for &(_, view) in &entry.images {
            if view != vk::ImageView::null() {
                // SAFETY: the swapchain is idle (the core proved it) or the views were never
                // used, so no pending command uses them.
                unsafe { device.destroy_image_view(view, None) };
            }
        }
    }
}
