//! Counters a [`super::Swapchain`] keeps for reports and tests.

/// Object counts and events since the swapchain was made. Cheap to copy.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct SwapchainStats {
    /// `VkSwapchainKHR` objects created (1 plus recreations).
    pub swapchains_created: u64,
    /// The most retired swapchains waiting for proof at once.
    pub old_swapchains_max_pending: usize,
    /// Times the retired-swapchain cap forced the bounded fallback wait.
    pub fallback_waits: u64,
    /// Semaphores created (acquire and present).
    pub semaphores_created: u64,
    /// The most semaphores alive at once.
    pub semaphores_max_alive: usize,
    /// Semaphores alive now.
    pub semaphores_alive: usize,
    /// Fences created.
    pub fences_created: u64,
    /// The most fences alive at once.
    pub fences_max_alive: usize,
    /// Frames presented.
    pub frames_presented: u64,
    /// Bit `i` set when image index `i` (< 64) was ever acquired.
    pub images_acquired_mask: u64,
    /// Image count of the current swapchain.
    pub image_count: u32,
    /// `VK_ERROR_OUT_OF_DATE_KHR` or `VK_SUBOPTIMAL_KHR` seen (acquire or present).
    pub out_of_date_or_suboptimal: u64,
    /// Frames skipped because the surface had zero extent.
    pub zero_extent_skips: u64,
    /// Present-mode changes that took effect, with or without recreation.
    pub present_mode_switches: u64,
    /// Of those, the ones that needed a new swapchain (legacy path, or modes the driver does
    /// not report compatible).
    pub present_mode_recreations: u64,
    /// Whether the maintenance1 path is in use.
    pub maintenance1: bool,
}

impl SwapchainStats {
    /// How many distinct image indices were acquired.
    #[must_use]
    pub fn distinct_images_acquired(&self) -> u32 {
        self.images_acquired_mask.count_ones()
    }
}
