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

    /// The live swapchain's handle and plan (its present mode is, after a pending per-present
    /// switch, the mode switched to; its format is kept across recreation).
    #[must_use]
    pub fn live(&self) -> Option<(W, &SwapchainPlan)> {
        self.live.as_ref().map(|l| (l.handle, &l.plan))
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
        let fences = self.fences.counts();
        SwapchainStats {
            old_swapchains_max_pending: self.presenter.retired_max_pending,
            fallback_waits: self.presenter.fallback_waits,
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
