//! What the renderer may change between frames: the extent, a forced recreation, the present
//! mode, the frames in flight, the pacing policy and the frame limit; each takes effect at the
//! next frame boundary the machine chooses.

use super::*;
use crate::handle::Handle;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// Asks for a new extent (used where the surface lets the application choose it). The
    /// swapchain is recreated at most once, at the next acquire.
    pub fn resize(&mut self, extent: Extent) {
        if extent != self.config.surface.extent {
            self.config.surface.extent = extent;
            self.needs_recreate = true;
        }
    }

    /// Recreates the swapchain at the next acquire (the surface tells the size).
    pub fn request_recreate(&mut self) {
        self.needs_recreate = true;
    }

    /// Switches the present mode: with the next present where the live swapchain can switch
    /// to it (maintenance1, a compatible mode), else by recreation at the next acquire.
    pub fn set_present_mode(&mut self, mode: PresentMode) {
        self.config.surface.present_mode = mode;
        let Some(live) = self.live.as_ref() else {
            return;
        };
        if self.next_mode.unwrap_or(live.plan.present_mode) == mode {
            self.next_mode = None;
        } else if self.config.maintenance1 && live.plan.compatible_modes.contains(&mode) {
            self.next_mode = (mode != live.plan.present_mode).then_some(mode);
        } else {
            self.next_mode = None;
            self.needs_recreate = true;
            self.stats.present_mode_recreations += 1;
        }
    }

    /// Changes frames in flight (1..=3); the next frame paces by it. Slots stay safe: they are
    /// chosen by completion.
    pub fn set_frames_in_flight(&mut self, frames_in_flight: usize) -> Result<(), CoreError> {
        self.presenter.set_frames_in_flight(frames_in_flight)?;
        self.pacing.set_frames_in_flight(frames_in_flight);
        self.config.pacing.frames_in_flight = frames_in_flight;
        Ok(())
    }

    /// Switches the pacing policy from the next frame on.
    pub fn set_pacing(&mut self, policy: PacingPolicy) {
        self.pacing.set_policy(policy);
    }

    /// Sets or removes the frame limit from the next frame on.
    pub fn set_frame_limit(&mut self, limit: Option<FrameLimit>) {
        self.pacing.set_frame_limit(limit);
    }
}
