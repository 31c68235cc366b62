//! Swapchain creation for the tests.

use std::ffi::c_void;

use ash::vk;

use super::context::Vk;

/// What to create.
#[derive(Clone)]
pub struct SwapDesc {
    pub mode: vk::PresentModeKHR,
    pub image_count: u32,
    /// Modes for VkSwapchainPresentModesCreateInfoEXT (maintenance1), if any.
    pub modes: Vec<vk::PresentModeKHR>,
    pub flags: vk::SwapchainCreateFlagsKHR,
    pub old: vk::SwapchainKHR,
    pub extent: Option<vk::Extent2D>,
    pub format: vk::Format,
    pub color_space: vk::ColorSpaceKHR,
    /// Extra structure to chain (its pNext must be null).
    pub extra: *const c_void,
}

impl Default for SwapDesc {
    fn default() -> Self {
        Self {
            mode: vk::PresentModeKHR::FIFO,
            image_count: 3,
            modes: Vec::new(),
            flags: vk::SwapchainCreateFlagsKHR::empty(),
            old: vk::SwapchainKHR::null(),
            extent: None,
            format: vk::Format::B8G8R8A8_UNORM,
            color_space: vk::ColorSpaceKHR::SRGB_NONLINEAR,
            extra: std::ptr::null(),
        }
    }
}

/// A created swapchain.
pub struct Swap {
    pub handle: vk::SwapchainKHR,
    pub images: Vec<vk::Image>,
    pub extent: vk::Extent2D,
    pub format: vk::Format,
}

/// Creates a swapchain on the context's surface.
pub fn create(vk: &Vk, d: &SwapDesc) -> Result<Swap, vk::Result> {
    let extent = d.extent.unwrap_or_else(|| vk.caps().current_extent);
    let mut modes_ci = vk::SwapchainPresentModesCreateInfoEXT::default().present_modes(&d.modes);
    let mut ci = vk::SwapchainCreateInfoKHR::default()
        .surface(vk.surface)
        .min_image_count(d.image_count)
        .image_format(d.format)
        .image_color_space(d.color_space)
        .image_extent(extent)
        .image_array_layers(1)
        .image_usage(vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::COLOR_ATTACHMENT)
        .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
        .pre_transform(vk::SurfaceTransformFlagsKHR::IDENTITY)
        .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
        .present_mode(d.mode)
        .clipped(true)
        .flags(d.flags)
        .old_swapchain(d.old);
    if !d.modes.is_empty() {
        ci = ci.push_next(&mut modes_ci);
    }
    if !d.extra.is_null() {
        // The extra structure goes at the head of the chain.
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { (*(d.extra as *mut vk::BaseOutStructure)).p_next = ci.p_next as *mut _ };
        ci.p_next = d.extra;
    }
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let handle = unsafe { vk.swapchain_fn.create_swapchain(&ci, None) }?;
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let images = unsafe { vk.swapchain_fn.get_swapchain_images(handle) }.unwrap();
    Ok(Swap {
        handle,
        images,
        extent,
        format: d.format,
    })
}

/// Destroys a swapchain.
pub fn destroy(vk: &Vk, s: &Swap) {
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe { vk.swapchain_fn.destroy_swapchain(s.handle, None) };
}
