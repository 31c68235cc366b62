//! What a present pacer counts.

/// Counters of a `vkpace::PresentPacer`, over all the swapchains it made (one pacer serves an
/// application's every swapchain, so the counts are the pacer's, not one swapchain's).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PresentPacerStats {
    /// Swapchains created through the pacer.
    pub swapchains_created: u64,
    /// Swapchains the pacer destroyed (each after `destroy_swapchain`, once provably idle or
    /// after a bounded wait).
    pub swapchains_destroyed: u64,
    /// The most destroyed-but-not-yet-idle swapchains waiting at once.
    pub retired_max_pending: usize,
    /// Times a swapchain's destruction fell back to a bounded wait (no successor, or too many
    /// waiting).
    pub fallback_waits: u64,
    /// Images acquired through the pacer.
    pub acquires: u64,
    /// Presents paced (each of a swapchain made through the pacer).
    pub presents: u64,
    /// Acquires and presents of swapchains not made through the pacer, passed through unpaced.
    pub unpaced_calls: u64,
    /// Empty repair submissions made (one per paced present while repair is on).
    pub repair_submits: u64,
    /// Repair semaphores created.
    pub semaphores_created: u64,
    /// Repair semaphores alive now.
    pub semaphores_alive: usize,
    /// The most repair semaphores alive at once.
    pub semaphores_max_alive: usize,
    /// Repair semaphores destroyed after a present that may not have executed its wait (an
    /// error other than out-of-date, suboptimal, surface lost).
    pub semaphores_poisoned: u64,
    /// Fences created (repair completion and present fences).
    pub fences_created: u64,
    /// Present ids the pacer added where the application passed none.
    pub present_ids_added: u64,
    /// Present fences (maintenance1) the pacer added where the application passed none.
    pub present_fences_added: u64,
    /// Acquires the frames-in-flight gate held back.
    pub gate_waits: u64,
    /// Acquires the pacing policy or frame limit put to sleep.
    pub pacing_sleeps: u64,
    /// `VK_ERROR_OUT_OF_DATE_KHR` or `VK_SUBOPTIMAL_KHR` returned (acquire or present).
    pub out_of_date_or_suboptimal: u64,
}
