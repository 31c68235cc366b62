//! How frames are paced, as both doors take it: one value ([`PacingConfig`]) embedded in
//! [`super::SwapchainConfig`] and [`super::PresentPacerConfig`], checked in one place, turned
//! into the core's settings in one place. A new pacing setting is a field here.

use std::time::Duration;

use vkpace_core::{validate_wait_timeout, PacingPolicy, PacingSettings};

use super::error::Result;
use super::frame_limit::FrameLimit;

/// How frames are paced: the settings both doors share ([`crate::SwapchainConfig::pacing`],
/// [`crate::PresentPacerConfig::pacing`]). Every field documents its default; start from
/// [`PacingConfig::default`] and change what you need:
///
/// ```
/// let mut config = vkpace::SwapchainConfig::default();
/// config.pacing.frames_in_flight = 1;
/// config.pacing.policy = vkpace::PacingPolicy::LowLatency;
/// config.pacing.frame_limit = Some(vkpace::FrameLimit::fps(60.0)?);
/// # Ok::<(), vkpace::Error>(())
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PacingConfig {
    /// Frames the CPU may queue ahead of the GPU, 1..=3 ([`crate::MAX_FRAMES_IN_FLIGHT`]):
    /// the next frame waits until the submission this many frames back has completed. Door 2
    /// waits for the repair submission of the present this many presents back: keep it at
    /// most the application's own frames in flight (the distance at which it reuses its
    /// per-frame semaphores). Default 2.
    pub frames_in_flight: usize,
    /// When frames begin beyond the frames-in-flight gate. Default
    /// [`PacingPolicy::FramesInFlight`].
    pub policy: PacingPolicy,
    /// A frame rate limit (a deadline grid; composes with every policy). Default none.
    pub frame_limit: Option<FrameLimit>,
    /// Bound of every wait vkpace makes (the frames-in-flight gate, fences, acquire, deferred
    /// destruction, teardown), never a hang; non-zero. A wait on the GPU that runs out is an
    /// [`Error::Timeout`](super::Error::Timeout); door 1's acquire that gets no image in time
    /// (a hidden window, a compositor that stopped repainting) is
    /// [`crate::Acquired::NotReady`], not an error.
    /// While a window is not served, each acquire blocks the calling thread this long: a
    /// renderer whose event loop runs on that thread may want it shorter. Default 2 s.
    pub wait_timeout: Duration,
    /// Retired swapchains allowed to wait for proof before a bounded fallback wait. Default 5.
    pub max_retired_swapchains: usize,
}

impl Default for PacingConfig {
    fn default() -> Self {
        Self {
            frames_in_flight: 2,
            policy: PacingPolicy::FramesInFlight,
            frame_limit: None,
            wait_timeout: Duration::from_secs(2),
            max_retired_swapchains: 5,
        }
    }
}

impl PacingConfig {
    /// The one check of the settings, for both doors, before any Vulkan object is made: the
    /// core's ([`vkpace_core::PacingSettings::check`]: frames in flight in range,
    /// [`Error::InvalidFramesInFlight`](super::Error::InvalidFramesInFlight)) and a non-zero
    /// wait bound ([`Error::ZeroTimeout`](super::Error::ZeroTimeout)). A
    /// frame limit is checked when it is made ([`FrameLimit::fps`]).
    pub(crate) fn check(&self) -> Result<()> {
        self.core().check()?;
        validate_wait_timeout(self.wait_timeout_ns())?;
        Ok(())
    }

    /// The wait bound in nanoseconds, as the core counts it.
    pub(crate) fn wait_timeout_ns(&self) -> u64 {
        super::clock::ns_of(self.wait_timeout)
    }

    /// The settings both core machines take (all but the wait bound, which the shell's waits
    /// keep).
    pub(crate) fn core(&self) -> PacingSettings {
        PacingSettings {
            frames_in_flight: self.frames_in_flight,
            policy: self.policy,
            frame_limit: self.frame_limit.map(FrameLimit::core),
            max_retired_swapchains: self.max_retired_swapchains,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vk::error::Error;

    #[test]
    fn one_check_for_both_doors() {
        assert!(PacingConfig::default().check().is_ok());
        let c = PacingConfig {
            frames_in_flight: 0,
            ..PacingConfig::default()
        };
        assert!(matches!(
            c.check(),
            Err(Error::InvalidFramesInFlight { requested: 0, .. })
        ));
        let c = PacingConfig {
            wait_timeout: Duration::ZERO,
            ..PacingConfig::default()
        };
        assert!(matches!(c.check(), Err(Error::ZeroTimeout)));
    }
}
