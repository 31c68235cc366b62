//! What a swapchain says about itself: the live swapchain's properties, the settings and
//! display path in use, statistics and telemetry.

use super::*;

impl Swapchain {
    /// The present modes the surface offers.
    pub fn surface_present_modes(&self) -> Result<Vec<vk::PresentModeKHR>> {
        // SAFETY: valid physical device and surface (constructor contract).
        unsafe {
            self.shell
                .surface_fn
                .get_physical_device_surface_present_modes(self.shell.physical, self.shell.surface)
        }
        .during("vkGetPhysicalDeviceSurfacePresentModesKHR")
    }

    /// The present mode in use.
    #[must_use]
    pub fn present_mode(&self) -> Option<vk::PresentModeKHR> {
        self.machine
            .present_mode()
            .map(|m| vk::PresentModeKHR::from_raw(m.0))
    }

    /// The extent of the current swapchain.
    #[must_use]
    pub fn extent(&self) -> Option<vk::Extent2D> {
        self.machine.extent().map(|e| vk::Extent2D {
            width: e.width,
            height: e.height,
        })
    }

    /// The format and color space of the swapchain images (kept across recreation while the
    /// surface offers it).
    #[must_use]
    pub fn surface_format(&self) -> Option<vk::SurfaceFormatKHR> {
        self.machine.surface_format().map(|f| vk::SurfaceFormatKHR {
            format: vk::Format::from_raw(f.format),
            color_space: vk::ColorSpaceKHR::from_raw(f.color_space),
        })
    }

    /// The image format of the swapchain.
    #[must_use]
    pub fn format(&self) -> Option<vk::Format> {
        self.surface_format().map(|f| f.format)
    }

    /// The current swapchain's images and their views (made by vkpace; they live until that
    /// swapchain is destroyed, once provably idle after a recreation).
    #[must_use]
    pub fn images(&self) -> Vec<(vk::Image, vk::ImageView)> {
        self.machine
            .swapchain()
            .map(|w| self.shell.images.of(w))
            .unwrap_or_default()
    }

    /// Frames in flight N.
    #[must_use]
    pub fn frames_in_flight(&self) -> usize {
        self.machine.frames_in_flight()
    }

    /// The pacing policy in use.
    #[must_use]
    pub fn pacing_policy(&self) -> PacingPolicy {
        self.machine.pacing_policy()
    }

    /// The frame limit in use.
    #[must_use]
    pub fn frame_limit(&self) -> Option<FrameLimit> {
        self.machine.frame_limit()
    }

    /// Counters since creation.
    #[must_use]
    pub fn stats(&self) -> SwapchainStats {
        self.machine.stats()
    }

    /// Everything vkpace is waiting for, as text (`Display`): the queue's submitted and
    /// completed values and pending fences, the frame in progress, the acquire semaphores,
    /// each image's present semaphores and what proves them free, every retired swapchain and
    /// the proof it waits for. Handles print in hex, as the validation layer names them. Print
    /// it when a loop seems stuck or with an error:
    ///
    /// ```no_run
    /// # fn f(swapchain: &mut vkpace::vk::Swapchain) {
    /// if let Err(e) = swapchain.acquire() {
    ///     eprintln!("acquire failed: {e}\n{}", swapchain.debug_state());
    /// }
    /// # }
    /// ```
    #[must_use]
    pub fn debug_state(
        &self,
    ) -> crate::core::DebugState<'_, vk::Semaphore, vk::SwapchainKHR, vk::Fence> {
        self.machine.debug_state()
    }

    /// Retired swapchains not yet destroyed.
    #[must_use]
    pub fn old_swapchains_pending(&self) -> usize {
        self.machine.retired_pending()
    }

    /// The present timing in use (`VK_EXT_present_timing`), or `None`: not asked for
    /// ([`SwapchainConfig::present_timing`]) or not supported by the surface, so frame limits
    /// are kept by the CPU limiter.
    #[must_use]
    pub fn present_timing(&self) -> Option<crate::vk::PresentTimingInUse> {
        self.shell.timing.as_ref().map(|t| t.in_use())
    }

    /// How frames are paced to the display now: [`DisplayPath::RefreshGrid`] with the swap
    /// interval while present timing targets refreshes (a frame limit on the grid, or the
    /// display or low-latency policy), else [`DisplayPath::Cpu`].
    #[must_use]
    pub fn display_path(&self) -> DisplayPath {
        self.machine.display_path()
    }

    /// Whether display feedback is in use, by either path ([`Self::display_feedback`] says
    /// which): present_wait (`VK_KHR_present_wait`) or present_wait2.
    #[must_use]
    pub fn uses_present_wait(&self) -> bool {
        self.shell.display.is_some()
    }

    /// Which display feedback this swapchain object uses, chosen at [`Self::new`] from
    /// [`SwapchainConfig::present_wait2`], [`SwapchainConfig::present_wait`] and what the
    /// surface supports, and kept for every swapchain made after a recreation.
    #[must_use]
    pub fn display_feedback(&self) -> DisplayFeedback {
        self.shell.feedback()
    }

    /// Which names of swapchain maintenance1 are in use, if the path is.
    #[must_use]
    pub fn maintenance1(&self) -> Option<Maintenance1Names> {
        self.shell.m1.as_ref().map(|m| m.names)
    }

    /// What backs the swapchain's completion tokens ([`SwapchainConfig::completion`]).
    #[must_use]
    pub fn completion_backend(&self) -> CompletionBackend {
        self.machine.completion_backend()
    }

    /// The recent frames' timelines, oldest first (at most [`crate::core::TELEMETRY_FRAMES`]).
    pub fn telemetry(&self) -> impl DoubleEndedIterator<Item = FrameTimes> + '_ {
        self.machine.telemetry()
    }

    /// The instant the telemetry's times count from.
    #[must_use]
    pub fn telemetry_epoch(&self) -> Instant {
        self.shell.clock.epoch()
    }
}
