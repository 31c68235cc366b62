//! Completion tokens on the public swapchain: which of the GPU's work is done, so a renderer
//! can free or reuse its own objects without `vkDeviceWaitIdle`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::error::{Error, Result};
use super::frame::SubmittedFrame;
use super::host_timeline::{HostTimeline, TimelineState};
use super::swapchain::Swapchain;
use vkpace_core::SyncToken;

use super::token_set::TokenSet;

impl Swapchain {
    /// The token of the newest submission on this swapchain's queue that vkpace made or was
    /// told of (every frame's included): whatever the GPU used so far is unused once it is
    /// reached. When the swapchain changes ([`super::Frame::swapchain_changed`]), retire the
    /// renderer's per-image and size-dependent objects with this token.
    ///
    /// ```no_run
    /// # fn f(swapchain: &mut vkpace::Swapchain, frame: &vkpace::Frame,
    /// #      old: &mut vkpace::DeferredRelease<ash::vk::Framebuffer>,
    /// #      framebuffers: &mut Vec<ash::vk::Framebuffer>, device: &ash::Device)
    /// #      -> vkpace::Result<()> {
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

    /// Whether every submission up to `tokens` has completed (a token, or a merged
    /// [`TokenSet`]: all of its members). Never blocks: at most one `vkGetFenceStatus` per
    /// pending submission looked at (fence backend) or one `vkGetSemaphoreCounterValue` of the
    /// swapchain's timeline (timeline backend), and one per host timeline.
    ///
    /// Takes the swapchain's own tokens and those of registered [`HostTimeline`]s. Errors:
    /// [`Error::ForeignToken`] for any other token, [`Error::TokenNotSubmitted`] for a value
    /// past [`Self::last_submitted`] (or past what a timeline promised).
    pub fn completed(&mut self, tokens: impl Into<TokenSet>) -> Result<bool> {
        let set = tokens.into();
        self.check_tokens(&set)?;
        for token in set.tokens() {
            if !self.token_completed(token)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Every member of `set` checked before anything is looked at or waited for.
    fn check_tokens(&mut self, set: &TokenSet) -> Result<()> {
        for token in set.tokens() {
            if self.timeline_of(token)?.is_none() {
                self.machine.check_token(token)?;
            }
        }
        Ok(())
    }

    /// The machine looks (its own fences or timeline, or a registered timeline's counter).
    fn token_completed(&mut self, token: SyncToken) -> Result<bool> {
        // Brings what a registered timeline promised into the machine's view.
        self.timeline_of(token)?;
        if self.machine.token_reached(token) {
            return Ok(true);
        }
        self.machine.begin_token_check(token)?;
        let now = self.shell.now_ns();
        self.drive(now)?;
        Ok(self.machine.token_reached(token))
    }

    /// Waits until `tokens` (a token or a merged [`TokenSet`]) are reached, at most `timeout`
    /// in all ([`Error::Timeout`] then; the wait may be made again). Every member is checked
    /// before anything is waited for: the same refusals as [`Self::completed`], and a zero
    /// `timeout`.
    pub fn wait(&mut self, tokens: impl Into<TokenSet>, timeout: Duration) -> Result<()> {
        vkpace_core::validate_wait_timeout(super::clock::ns_of(timeout))?;
        let set = tokens.into();
        self.check_tokens(&set)?;
        let deadline = Instant::now() + timeout;
        for token in set.tokens() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Error::Timeout {
                    what: "a completion token",
                    timeout,
                });
            }
            self.wait_token(token, left)?;
        }
        Ok(())
    }

    /// The machine waits (bounded), as for its own tokens.
    fn wait_token(&mut self, token: SyncToken, timeout: Duration) -> Result<()> {
        self.timeline_of(token)?;
        let bound = super::clock::ns_of(timeout);
        self.machine.begin_token_wait(token, bound)?;
        let now = self.shell.now_ns();
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

impl Swapchain {
    /// Lets this swapchain's frames wait for `timeline` on the GPU ([`super::Batch::waits`])
    /// and [`Self::completed`] / [`Self::wait`] take its tokens. Registering twice is harmless;
    /// a timeline of another device is [`Error::InvalidConfig`].
    pub fn register_host_timeline(&mut self, timeline: &HostTimeline) -> Result<()> {
        if !timeline.is_of(self.shell.device()) {
            return Err(Error::InvalidConfig(
                "a host timeline of another device than the swapchain's",
            ));
        }
        let state = timeline.state();
        self.machine.register_stream(state.stream);
        self.shell.add_timeline(state);
        Ok(())
    }

    /// Forgets `timeline`: its tokens are [`Error::ForeignToken`] here from now on. Frames
    /// already submitted keep their waits (the timeline must outlive them).
    pub fn unregister_host_timeline(&mut self, timeline: &HostTimeline) {
        let stream = timeline.token(0).stream();
        self.machine.unregister_stream(stream);
        let machine = &self.machine;
        self.shell
            .remove_timeline(stream, |s| machine.holds_stream(s));
    }

    /// The registered timeline of `token`'s stream, with what it promised brought into the
    /// machine's view; `None` for the swapchain's own stream. Tokens of streams neither own
    /// nor registered (or of a destroyed timeline) are [`Error::ForeignToken`].
    pub(super) fn timeline_of(&mut self, token: SyncToken) -> Result<Option<Arc<TimelineState>>> {
        if token.stream() == self.last_submitted().stream() {
            return Ok(None);
        }
        let Some(t) = self
            .shell
            .timelines()
            .iter()
            .find(|t| t.stream == token.stream() && !t.destroyed())
            .cloned()
        else {
            return Err(Error::ForeignToken(token));
        };
        self.machine
            .stream_promised(SyncToken::new(t.stream, t.promised()))?;
        self.machine.check_stream_wait(token)?;
        Ok(Some(t))
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
