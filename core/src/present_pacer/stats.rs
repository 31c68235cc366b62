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
    /// Empty submissions made to prove a destroyed swapchain idle (its presents without present
    /// fences, or fences given up), the pacer's own teardown not counted: the one proof that
    /// uses the queue from the destroying thread.
    pub proof_submits: u64,
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
    /// Pauses (the pacing sleeps and the gate's GPU waits, each sleep or wait counted) carried
    /// out inside a call of the pacer (its plain methods). A caller that reaches the pacer only
    /// under its lock held that lock through each of them.
    pub pauses_in_calls: u64,
    /// Pauses carried out between the steps of a call made in steps (`vkpace::PacerCall`):
    /// with no pacer borrowed and the caller's lock released.
    pub pauses_between_calls: u64,
    /// Calls down that may block (the driver's present with its repair submission, the
    /// driver's acquire, swapchain creation and destruction, and vkpace's bounded GPU waits
    /// for them), each counted, made inside a call of the pacer (as
    /// [`Self::pauses_in_calls`]): a caller reaching the pacer under its lock held it through
    /// each of them.
    pub calls_down_in_calls: u64,
    /// Those calls down made between the steps of a call made in steps, with the caller's
    /// lock released.
    pub calls_down_between_calls: u64,
    /// `VK_ERROR_OUT_OF_DATE_KHR` or `VK_SUBOPTIMAL_KHR` returned (acquire or present), or
    /// `VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT` (`VkStatus::is_stale_swapchain`).
    pub out_of_date_or_suboptimal: u64,
    /// Swapchains whose presents carry vkpace's present timing (the display path: their frame
    /// limit on the refresh grid is kept by targets, their display learnt from the results).
    pub swapchains_timed: u64,
    /// Swapchains whose present timing vkpace gave up because the application chained its own
    /// present timing or present mode switch.
    pub timing_stopped: u64,
    /// Presents that carried a present-timing target vkpace added.
    pub targets_added: u64,
    /// Complete present timing results read.
    pub present_timing_results: u64,
    /// Results whose stage times were in a time domain vkpace could not map, dropped.
    pub timing_results_unmapped: u64,
    /// Presents the engine refused for a full timing results queue (not shown; their waits
    /// executed).
    pub timing_queue_full: u64,
    /// Refreshes missed by frames presented with targets (the display schedule's count, over
    /// the lineages alive).
    pub refreshes_missed: u64,
    /// Display times seen exactly: a watch during a pacing sleep began while the present was
    /// not shown and ended because it was (`PacerMachine::display_watched`).
    pub display_times_watched: u64,
    /// Frames whose ready time was seen exactly from the pacer's own submission: a wait
    /// during the pause after their present began before the repair submission completed and
    /// ended because it did (`PacerMachine::frame_ready`; where the engine gives no stage
    /// times).
    pub ready_times_watched: u64,
    /// Frames whose ready time was bounded by their repair submission seen complete right
    /// after their present (`PacerMachine::frame_ready_by`).
    pub ready_times_bounded: u64,
    /// Frames whose repair submission was not complete by the end of the pause after their
    /// present (`PacerMachine::frame_not_ready_by`): learned as ready then, a lower bound.
    pub ready_times_not_by_pause_end: u64,
    /// The display's interval for the frame limit, as the limiter's grid follows it (ns; 0:
    /// no grid follows a display), the latest learned of any lineage
    /// (`vkpace_core::DisplayAnchor`).
    pub anchored_period_ns: u64,
    /// Frames shown a refresh early or late that moved a limiter's grid.
    pub anchor_moves: u64,
}
