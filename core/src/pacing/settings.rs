//! How frames are paced, as both machines take it: one value, checked in one place, so that a
//! new pacing setting is a field here and in the shell's one configuration of it.

use super::{FrameLimit, Pacing, PacingPolicy};
use crate::error::CoreError;
use crate::pacer::validate_frames_in_flight;

/// The pacing settings of door 1's [`crate::FrameMachine`] ([`crate::MachineConfig::pacing`])
/// and door 2's [`crate::PacerMachine`] ([`crate::PacerConfig::pacing`]). Every field
/// documents its default.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PacingSettings {
    /// Frames the CPU may queue ahead of the GPU, 1..=3. Default 2.
    pub frames_in_flight: usize,
    /// When frames begin beyond the gate. Default [`PacingPolicy::FramesInFlight`].
    pub policy: PacingPolicy,
    /// A frame rate limit. Default none.
    pub frame_limit: Option<FrameLimit>,
    /// Retired swapchains allowed to wait for proof before the bounded fallback. Default 5,
    /// as ANGLE (some drivers refuse a new swapchain past about 20 alive).
    pub max_retired_swapchains: usize,
}

impl Default for PacingSettings {
    fn default() -> Self {
        Self {
            frames_in_flight: 2,
            policy: PacingPolicy::FramesInFlight,
            frame_limit: None,
            max_retired_swapchains: 5,
        }
    }
}

impl PacingSettings {
    /// Refuses what a machine cannot run with (frames in flight out of 1..=3); the frame
    /// limit was checked when it was made ([`FrameLimit::fps`]).
    pub fn check(&self) -> Result<(), CoreError> {
        validate_frames_in_flight(self.frames_in_flight).map(|_| ())
    }

    /// The pacing decisions these settings start with (both machines' lineages).
    pub(crate) fn start(&self) -> Pacing {
        let mut pacing = Pacing::new(self.policy, self.frame_limit);
        pacing.set_frames_in_flight(self.frames_in_flight);
        pacing
    }
}
