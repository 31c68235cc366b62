//! What the renderer may change between frames; each takes effect at a frame boundary the
//! core chooses.

use super::*;

impl Swapchain {
    /// Asks for a new extent (used where the surface lets the application choose it, as
    /// headless surfaces do; window surfaces report their own size). Coalesced: the swapchain
    /// is recreated at most once, at the next acquire. Safe mid-frame: nothing changes before
    /// the next acquire, which presents a submitted frame first.
    pub fn resize(&mut self, extent: vk::Extent2D) {
        self.machine.resize(Extent {
            width: extent.width,
            height: extent.height,
        });
    }

    /// Recreates the swapchain at the next acquire (for example after the window system
    /// reported a resize whose size the surface will tell).
    pub fn request_recreate(&mut self) {
        self.machine.request_recreate();
    }

    /// Switches the present mode. On the maintenance1 path a mode compatible with the current
    /// swapchain switches with the next present, without recreation; otherwise the swapchain is
    /// recreated at the next acquire (FIFO where the surface lacks the mode).
    pub fn set_present_mode(&mut self, mode: vk::PresentModeKHR) {
        self.machine.set_present_mode(PresentMode(mode.as_raw()));
    }

    /// Changes frames in flight (1..=3); the next acquire paces by it. [`Frame::slot`] stays
    /// safe across the change (chosen by completion).
    pub fn set_frames_in_flight(&mut self, frames_in_flight: usize) -> Result<()> {
        Ok(self.machine.set_frames_in_flight(frames_in_flight)?)
    }

    /// Switches the pacing policy from the next frame on.
    pub fn set_pacing_policy(&mut self, policy: PacingPolicy) {
        self.machine.set_pacing_policy(policy);
    }

    /// Sets or removes the frame limit from the next frame on.
    pub fn set_frame_limit(&mut self, limit: Option<FrameLimit>) {
        self.machine.set_frame_limit(limit);
    }
}
