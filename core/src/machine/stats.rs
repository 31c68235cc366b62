//! Counters the frame machine keeps for reports and tests.

/// Object counts and events since the swapchain object was made. Cheap to copy.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SwapchainStats {
    /// `VkSwapchainKHR` objects created (1 plus recreations).
    pub swapchains_created: u64,
    /// The most retired swapchains waiting for proof at once.
    pub old_swapchains_max_pending: usize,
    /// Times the retired-swapchain cap forced the bounded fallback wait.
    pub fallback_waits: u64,
    /// Semaphores created (acquire and present).
    pub semaphores_created: u64,
    /// Semaphores alive now.
    pub semaphores_alive: usize,
    /// The most semaphores alive at once.
    pub semaphores_max_alive: usize,
    /// Fences created (submission and present fences).
    pub fences_created: u64,
    /// The most fences alive at once.
    pub fences_max_alive: usize,
    /// Frames presented.
    pub frames_presented: u64,
    /// Of those, frames submitted but never given to `present` that vkpace presented itself at
    /// the next acquire (a submitted frame that was dropped).
    pub abandoned_frames_presented: u64,
    /// Bit `i` set when image index `i` (< 64) was ever acquired.
    pub images_acquired_mask: u64,
    /// Image count of the current swapchain.
    pub image_count: u32,
    /// `VK_ERROR_OUT_OF_DATE_KHR` or `VK_SUBOPTIMAL_KHR` seen (acquire or present), or
    /// `VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT` (`VkStatus::is_stale_swapchain`).
    pub out_of_date_or_suboptimal: u64,
    /// Acquires that returned a zero extent (minimized).
    pub zero_extent_skips: u64,
    /// Acquires that got no image within the wait bound and returned "not ready".
    pub not_ready_skips: u64,
    /// Images taken back from FIFO swapchains just before their retirement, so that at most
    /// one of their frames was still queued for the display (the frame machine's
    /// `Request::DrainDisplayQueue`).
    pub images_drained_before_retire: u64,
    /// Present-mode changes that took effect, with or without recreation.
    pub present_mode_switches: u64,
    /// Of those, the ones that needed a new swapchain (legacy path, or modes the driver does
    /// not report compatible).
    pub present_mode_recreations: u64,
    /// Display times learnt exactly by waiting for a present during a pacing sleep (low
    /// latency, or a frame limit whose grid follows the display, on a FIFO display without
    /// present timing; polls only bound a display time).
    pub display_times_watched: u64,
    /// The display's interval for the frame limit, as the limiter's grid follows it (ns; 0:
    /// no grid follows the display; `vkpace_core::DisplayAnchor`), the latest learned.
    pub anchored_period_ns: u64,
    /// Frames shown a refresh early or late that moved the limiter's grid.
    pub anchor_moves: u64,
    /// Whether the maintenance1 path is in use.
    pub maintenance1: bool,
    /// Present timing: complete timing results read.
    pub present_timing_results: u64,
    /// Present timing: presents the engine refused with a full results queue (the machine
    /// asks for stage times only while a slot is free, so this stays 0 unless the engine
    /// loses results).
    pub timing_queue_full: u64,
    /// Present timing: frames shown later than the refresh the schedule meant them for.
    pub refreshes_missed: u64,
    /// Present timing: of [`Self::present_timing_results`], those whose stage times were in a
    /// time domain vkpace has no calibration for (one the engine never offered, or one whose
    /// calibration read nothing yet), so that they gave the frame no display time. A count
    /// that keeps growing means the engine reports in a domain it did not list; vkpace logs a
    /// warning the first time (once per `Swapchain`, whatever its recreations) and calibrates
    /// the domains again when due.
    pub timing_results_unmapped: u64,
}

impl SwapchainStats {
    /// How many distinct image indices were acquired.
    #[must_use]
    pub fn distinct_images_acquired(&self) -> u32 {
        self.images_acquired_mask.count_ones()
    }

    pub(crate) fn semaphore_created(&mut self) {
        self.semaphores_created += 1;
        self.semaphores_alive += 1;
        self.semaphores_max_alive = self.semaphores_max_alive.max(self.semaphores_alive);
    }
}
