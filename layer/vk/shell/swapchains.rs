//! The shell's swapchain objects: the surface queried, a swapchain made from the core's plan
//! (with its images registered and its present timing set up), and its present timing read back.

use super::*;

impl Shell {
    /// The surface's capabilities, formats and present modes.
    pub(crate) fn query_surface(&self) -> Result<SurfaceInfo> {
        // SAFETY: valid physical device and surface (constructor contract).
        let caps = unsafe {
            self.surface_fn
                .get_physical_device_surface_capabilities(self.physical, self.surface)
        }
        .during("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")?;
        // SAFETY: as above.
        let formats = unsafe {
            self.surface_fn
                .get_physical_device_surface_formats(self.physical, self.surface)
        }
        .during("vkGetPhysicalDeviceSurfaceFormatsKHR")?;
        // SAFETY: as above.
        let modes = unsafe {
            self.surface_fn
                .get_physical_device_surface_present_modes(self.physical, self.surface)
        }
        .during("vkGetPhysicalDeviceSurfacePresentModesKHR")?;
        let extent = |e: vk::Extent2D| Extent {
            width: e.width,
            height: e.height,
        };
        Ok(SurfaceInfo {
            min_image_count: caps.min_image_count,
            max_image_count: caps.max_image_count,
            current_extent: (caps.current_extent.width != u32::MAX)
                .then(|| extent(caps.current_extent)),
            min_extent: extent(caps.min_image_extent),
            max_extent: extent(caps.max_image_extent),
            supported_usage: caps.supported_usage_flags.as_raw(),
            supported_composite_alpha: caps.supported_composite_alpha.as_raw(),
            current_transform: caps.current_transform.as_raw(),
            formats: formats
                .iter()
                .map(|f| SurfaceFormat {
                    format: f.format.as_raw(),
                    color_space: f.color_space.as_raw(),
                })
                .collect(),
            present_modes: modes.iter().map(|m| PresentMode(m.as_raw())).collect(),
        })
    }

    /// maintenance1: the modes compatible with `mode`.
    pub(crate) fn compatible_modes(&self, mode: PresentMode) -> Result<Vec<PresentMode>> {
        let Some(m1) = &self.m1 else {
            return Ok(Vec::new());
        };
        let mode = vk::PresentModeKHR::from_raw(mode.0);
        // SAFETY: valid handles; the instance enabled the maintenance1 instance extensions
        // (`swapchain_maintenance1` contract).
        let modes =
            unsafe { compatible_present_modes(&m1.caps2, self.physical, self.surface, mode) }?;
        Ok(modes.into_iter().map(|m| PresentMode(m.as_raw())).collect())
    }

    /// `vkCreateSwapchainKHR` of the plan, then its images and views. A failure after creation
    /// destroys the new swapchain again and reports the error.
    pub(crate) fn create_swapchain(
        &mut self,
        c: &CreateSwapchain<vk::SwapchainKHR>,
        generation: u64,
    ) -> Result<Result<(vk::SwapchainKHR, u32), VkStatus>> {
        let compatible: Vec<vk::PresentModeKHR> = c
            .plan
            .compatible_modes
            .iter()
            .map(|m| vk::PresentModeKHR::from_raw(m.0))
            .collect();
        let mut modes_info =
            vk::SwapchainPresentModesCreateInfoEXT::default().present_modes(&compatible);
        let mut info = self.create_info(c);
        if !compatible.is_empty() {
            // VUID-VkSwapchainPresentModesCreateInfoEXT-presentMode-07764: includes the
            // present mode, and all are compatible with it (queried for it).
            info = info.push_next(&mut modes_info);
        }
        // SAFETY: `old` is the non-retired current swapchain of this surface or null
        // (VUID-VkSwapchainCreateInfoKHR-oldSwapchain-01933); the other fields were checked
        // against the surface's capabilities by the core's plan.
        let handle = match unsafe { self.swapchain_fn.create_swapchain(&info, None) } {
            Ok(h) => h,
            Err(e) => return Ok(Err(status(e))),
        };
        self.namer.name(
            handle,
            format_args!("vkpace swapchain (generation {generation})"),
        );
        if let Some(hdr) = &self.hdr {
            // HDR metadata is per swapchain: each new one gets it before its first present.
            hdr.set(handle);
        }
        let format = vk::Format::from_raw(c.plan.format.format);
        match self
            .register_images(handle, format, generation)
            .and_then(|count| self.timing_created(handle).map(|()| count))
        {
            Ok(count) => Ok(Ok((handle, count))),
            Err(e) => {
                self.images.remove(&self.device, handle);
                if let Some(t) = self.timing.as_mut() {
                    t.swapchain_destroyed(handle);
                }
                // SAFETY: just created, never used.
                unsafe { self.swapchain_fn.destroy_swapchain(handle, None) };
                Err(e)
            }
        }
    }

    /// Present timing: sets up the new swapchain's results queue, domain and refresh, kept
    /// for the executor to tell the core ([`Self::take_display_timing`]).
    pub(super) fn timing_created(&mut self, handle: vk::SwapchainKHR) -> Result<()> {
        let Some(t) = self.timing.as_mut() else {
            return Ok(());
        };
        // SAFETY: `handle` was just made by this device with the PRESENT_TIMING flag.
        let refresh = unsafe { t.swapchain_created(self.device.handle(), handle, &self.clock) }?;
        self.new_display_timing = Some(refresh);
        Ok(())
    }

    /// The refresh the core has not been told about yet.
    pub(crate) fn take_display_timing(&mut self) -> Option<DisplayRefresh> {
        self.new_display_timing.take()
    }

    /// Present timing: reads the live swapchain's results (none without present timing) and
    /// the refresh cycle when it changed, for the executor to hand to the core.
    pub(crate) fn read_present_timings(
        &mut self,
        swapchain: vk::SwapchainKHR,
    ) -> (&[TimingReport], Result<Option<DisplayRefresh>>) {
        let Some(t) = self.timing.as_mut() else {
            return (&[], Ok(None));
        };
        // SAFETY: the core asks only about the live swapchain, which is not destroyed.
        unsafe { t.read(self.device.handle(), swapchain, &self.clock) }
    }

    /// The create info of the plan, with `oldSwapchain`.
    pub(super) fn create_info<'a>(
        &self,
        c: &CreateSwapchain<vk::SwapchainKHR>,
    ) -> vk::SwapchainCreateInfoKHR<'a> {
        let p = &c.plan;
        let mut flags = crate::vk::display::path_flags(
            self.feedback() == DisplayFeedback::PresentWait2,
            self.timing.is_some(),
        );
        if self.deferred_memory {
            flags |= vk::SwapchainCreateFlagsKHR::DEFERRED_MEMORY_ALLOCATION_EXT;
        }
        vk::SwapchainCreateInfoKHR::default()
            .flags(flags)
            .surface(self.surface)
            .min_image_count(p.image_count)
            .image_format(vk::Format::from_raw(p.format.format))
            .image_color_space(vk::ColorSpaceKHR::from_raw(p.format.color_space))
            .image_extent(vk::Extent2D {
                width: p.extent.width,
                height: p.extent.height,
            })
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::from_raw(p.usage))
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(vk::SurfaceTransformFlagsKHR::from_raw(p.transform))
            .composite_alpha(vk::CompositeAlphaFlagsKHR::from_raw(p.composite_alpha))
            .present_mode(vk::PresentModeKHR::from_raw(p.present_mode.0))
            .clipped(true)
            .old_swapchain(c.old.unwrap_or_default())
    }

    pub(super) fn register_images(
        &mut self,
        handle: vk::SwapchainKHR,
        format: vk::Format,
        generation: u64,
    ) -> Result<u32> {
        // SAFETY: `handle` was just created on this device.
        let images = unsafe { self.swapchain_fn.get_swapchain_images(handle) }
            .during("vkGetSwapchainImagesKHR")?;
        let count = u32::try_from(images.len()).unwrap_or(u32::MAX);
        let meta = (format, generation, self.deferred_memory);
        self.images
            .register(&self.device, &self.namer, handle, images, meta)?;
        Ok(count)
    }
}
