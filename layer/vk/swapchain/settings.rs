//! What the renderer may change between frames; each takes effect at a frame boundary the
//! core chooses.

use super::*;
use crate::vk::frame_limit::FrameLimit;
use crate::vk::swapchain_info::Setting;

impl Swapchain {
    /// Asks for a new extent (used where the surface lets the application choose it, as
    /// headless surfaces do, and on Wayland, where the window's size is the application's).
    /// Coalesced: the swapchain is recreated at most once, at the next acquire. Safe
    /// mid-frame: nothing changes before the next acquire, which presents a submitted frame
    /// first.
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

    /// Changes a [`Setting`] from the next frame on.
    ///
    /// ```no_run
    /// # fn f(swapchain: &mut vkpace::Swapchain) -> vkpace::Result<()> {
    /// use vkpace::Setting;
    /// swapchain.set(Setting::PresentMode(ash::vk::PresentModeKHR::MAILBOX))?;
    /// swapchain.set(Setting::FramesInFlight(1))?;
    /// # Ok(()) }
    /// ```
    pub fn set(&mut self, setting: Setting) -> Result<()> {
        match setting {
            Setting::PresentMode(mode) => {
                self.machine.set_present_mode(PresentMode(mode.as_raw()));
            }
            Setting::FramesInFlight(n) => self.machine.set_frames_in_flight(n)?,
            Setting::Pacing(policy) => self.machine.set_pacing(policy),
            Setting::FrameLimit(limit) => self.machine.set_frame_limit(limit.map(FrameLimit::core)),
        }
        Ok(())
    }
}
