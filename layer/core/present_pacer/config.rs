//! The settings of a [`super::PacerMachine`].

use crate::core::pacing::{FrameLimit, PacingPolicy};

/// What the machine paces with and which objects it may add to a present.
#[derive(Copy, Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct PacerConfig {
    /// Presents the CPU may queue ahead of the GPU, 1..=3. Default 2.
    pub frames_in_flight: usize,
    /// Destroyed swapchains allowed to wait for proof before the bounded wait. Default 5.
    pub max_retired_swapchains: usize,
    /// Repair present semaphores (an empty submission consumes the application's semaphores
    /// and signals vkpace's). Default true.
    pub repair: bool,
    /// Add a present fence (maintenance1) where the application passed none. Default false.
    pub present_fences: bool,
    /// Add present ids where the application passed none, and read the display's feedback.
    /// Default false.
    pub present_ids: bool,
    /// The pacing policy. Default [`PacingPolicy::FramesInFlight`].
    pub pacing: PacingPolicy,
    /// A frame rate limit. Default none.
    pub frame_limit: Option<FrameLimit>,
}

impl Default for PacerConfig {
    fn default() -> Self {
        Self {
            frames_in_flight: 2,
            max_retired_swapchains: 5,
            repair: true,
            present_fences: false,
            present_ids: false,
            pacing: PacingPolicy::FramesInFlight,
            frame_limit: None,
        }
    }
}
