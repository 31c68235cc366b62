//! What the machine says about itself: the settings in use, the live swapchain, the counts
//! the property tests bound, the statistics and the telemetry ring.

use super::*;
use crate::handle::Handle;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// Frames in flight N.
    #[must_use]
    pub fn frames_in_flight(&self) -> usize {
        self.presenter.frames_in_flight()
    }

    /// How frames are paced to the display now: on the refresh grid with present timing, or
    /// by the CPU.
    #[must_use]
    pub fn display_path(&self) -> crate::pacing::DisplayPath {
        self.pacing.schedule().path()
    }

    /// The pacing policy.
    #[must_use]
    pub fn pacing_policy(&self) -> PacingPolicy {
        self.pacing.policy()
    }

    /// The frame limit.
    #[must_use]
    pub fn frame_limit(&self) -> Option<FrameLimit> {
        self.pacing.frame_limit()
    }

    /// The live swapchain's handle.
    #[must_use]
    pub fn swapchain(&self) -> Option<W> {
        self.live.as_ref().map(|l| l.handle)
    }

    /// The present mode in use (after a pending per-present switch, the mode switched to).
    #[must_use]
    pub fn present_mode(&self) -> Option<PresentMode> {
        self.live.as_ref().map(|l| l.plan.present_mode)
    }

    /// The live swapchain's extent.
    #[must_use]
    pub fn extent(&self) -> Option<Extent> {
        self.live.as_ref().map(|l| l.plan.extent)
    }

    /// The live swapchain's surface format (kept across recreation).
    #[must_use]
    pub fn surface_format(&self) -> Option<SurfaceFormat> {
        self.live.as_ref().map(|l| l.plan.format)
    }

    /// How many swapchains were created (the live one is this generation).
    #[must_use]
    pub fn generation(&self) -> u64 {
        self.live.as_ref().map_or(0, |l| l.generation)
    }

    /// Retired swapchains not yet destroyed.
    #[must_use]
    pub fn retired_pending(&self) -> usize {
        self.presenter.retired_pending()
    }

    /// Semaphores the machine holds (acquire ring, present histories, pool, frame in progress).
    #[must_use]
    pub fn semaphores_held(&self) -> usize {
        self.presenter.semaphores_held()
    }

    /// The deepest present history of any image of any live swapchain.
    #[must_use]
    pub fn deepest_history(&self) -> usize {
        self.presenter.deepest_history()
    }

    /// Submitted frames whose submission is not known complete.
    #[must_use]
    pub fn frames_pending(&self) -> usize {
        self.presenter.frames_pending()
    }

    /// Counters since creation.
    #[must_use]
    pub fn stats(&self) -> SwapchainStats {
        let p = self.presenter.stats();
        let fences = self.fences.counts();
        SwapchainStats {
            old_swapchains_max_pending: p.retired_max_pending,
            fallback_waits: p.fallback_waits,
            fences_created: fences.created,
            fences_max_alive: fences.max_alive,
            ..self.stats
        }
    }

    /// The recent frames' timelines, oldest first.
    pub fn telemetry(&self) -> impl DoubleEndedIterator<Item = FrameTimes> + '_ {
        self.telemetry.iter()
    }

    /// What backs the machine's completion tokens.
    #[must_use]
    pub fn completion_backend(&self) -> CompletionBackend {
        self.config.completion
    }
}
