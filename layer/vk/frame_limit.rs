//! The frame rate limit a renderer asks for: the core's `vkpace_core::FrameLimit` (which keeps
//! the range rule and the deadline grid) behind a constructor that fails with vkpace's own
//! [`Error`], so no signature of vkpace returns a core error type.

use super::error::{Error, Result};

/// A frame rate limit ([`crate::PacingConfig::frame_limit`],
/// [`crate::Setting::FrameLimit`]).
///
/// ```
/// use vkpace::FrameLimit;
/// let limit = FrameLimit::fps(60.0)?;
/// assert_eq!(limit.period_ns(), 16_666_667);
/// assert!(FrameLimit::fps(0.0).is_err());
/// # Ok::<(), vkpace::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameLimit(vkpace_core::FrameLimit);

impl FrameLimit {
    /// The slowest frame limit, fps.
    pub const MIN_FPS: f64 = vkpace_core::FrameLimit::MIN_FPS;
    /// The fastest frame limit, fps.
    pub const MAX_FPS: f64 = vkpace_core::FrameLimit::MAX_FPS;

    /// A limit of `fps` frames per second ([`Self::MIN_FPS`] to [`Self::MAX_FPS`]); outside that,
    /// [`Error::InvalidFrameLimit`].
    pub fn fps(fps: f64) -> Result<Self> {
        vkpace_core::FrameLimit::fps(fps)
            .map(Self)
            .map_err(Error::from)
    }

    /// The frame period in nanoseconds.
    #[must_use]
    pub fn period_ns(&self) -> u64 {
        self.0.period_ns()
    }

    /// The core's limit, for the frame machine.
    pub(crate) fn core(self) -> vkpace_core::FrameLimit {
        self.0
    }

    /// The limit the frame machine holds, as vkpace's.
    pub(crate) fn from_core(limit: vkpace_core::FrameLimit) -> Self {
        Self(limit)
    }
}
