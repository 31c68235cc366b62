//! Completion tokens on the public swapchain: which of the GPU's work is done, so a renderer
//! can free or reuse its own objects without `vkDeviceWaitIdle`.

use std::time::Duration;

use super::error::{Error, Result};
use super::frame::SubmittedFrame;
use super::swapchain::Swapchain;
use crate::core::SyncToken;

impl Swapchain {
    /// The token of the newest submission on this swapchain's queue that vkpace made or was
    /// told of (every frame's included): whatever the GPU used so far is unused once it is
    /// reached. When the swapchain changes ([`super::Frame::swapchain_changed`]), retire the
    /// renderer's per-image and size-dependent objects with this token.
    ///
    /// ```no_run
    /// # fn f(swapchain: &mut vkpace::vk::Swapchain, frame: &vkpace::vk::Frame,
    /// #      old: &mut vkpace::core::DeferredRelease<ash::vk::Framebuffer>,
    /// #      framebuffers: &mut Vec<ash::vk::Framebuffer>, device: &ash::Device)
    /// #      -> vkpace::vk::Result<()> {
    /// if frame.swapchain_changed() {
    ///     let token = swapchain.last_submitted();
    ///     for fb in framebuffers.drain(..) {
    ///         old.defer(token, fb);
    ///     }
    /// }
    /// // Once a frame: destroy what the GPU is done with (never blocks).
    /// // SAFETY: a framebuffer whose token is reached is used by no pending submission.
    /// old.release_reached(|t| swapchain.completed(t), |fb| unsafe {
    ///     device.destroy_framebuffer(fb, None)
    /// })?;
    /// # Ok(()) }
    /// ```
    #[must_use]
    pub fn last_submitted(&self) -> SyncToken {
        self.machine.last_submitted()
    }

    /// Whether every submission up to `token` has completed. Never blocks: at most one
    /// `vkGetFenceStatus` per pending submission looked at.
    ///
    /// Errors: [`Error::ForeignToken`] for another swapchain's token,
    /// [`Error::TokenNotSubmitted`] for a value past [`Self::last_submitted`].
    pub fn completed(&mut self, token: SyncToken) -> Result<bool> {
        if self.machine.token_reached(token) {
            return Ok(true);
        }
        self.machine.begin_token_check(token)?;
        let now = self.shell.clock.now_ns();
        self.drive(now)?;
        Ok(self.machine.token_reached(token))
    }

    /// Waits until every submission up to `token` has completed, at most `timeout`
    /// ([`Error::Timeout`] then; the wait may be made again). Refuses the same tokens as
    /// [`Self::completed`], and a zero `timeout`.
    pub fn wait(&mut self, token: SyncToken, timeout: Duration) -> Result<()> {
        let bound = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        self.machine.begin_token_wait(token, bound)?;
        let now = self.shell.clock.now_ns();
        self.drive(now)?;
        if self.machine.token_reached(token) {
            Ok(())
        } else {
            Err(Error::Timeout {
                what: "a completion token",
                timeout,
            })
        }
    }
}

impl SubmittedFrame {
    /// The token the frame's submission reaches: once it is, the frame's command buffers and
    /// everything they used are free.
    #[must_use]
    pub fn token(&self) -> SyncToken {
        self.token
    }
}
