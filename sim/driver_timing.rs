//! The sim's shell, display paths and present timing (as `vk/display/` is the Vulkan
//! shell's): results read through the live swapchain's book (`timing_shell.rs`), absolute
//! targets through its domain, and each present checked against the paths the core chose.

use vkpace_core::{DisplayFeedback, DisplayOffer, DisplayPaths, PresentTarget, Targets};

use crate::driver::{SimError, SimSwapchain};
use crate::world::{Gen, PresentExtras};

impl SimSwapchain {
    /// `Request::ReadPresentTimings`: the live swapchain's results through its book (none for
    /// another swapchain, as the Vulkan shell), then the refresh if it changed.
    pub(crate) fn read_timings(&mut self, swapchain: Gen) -> Result<(), SimError> {
        let now = self.now;
        let Some(t) = self.timing.as_mut().filter(|t| t.is_live(swapchain)) else {
            return Ok(self.machine.handle_present_timings(&[], now)?);
        };
        let truths = self.world.display.read_timings(swapchain, now);
        let refresh = self.world.display.config.refresh_ns;
        let (reports, changed) = t.read(swapchain, &truths, refresh, now)?;
        self.machine.handle_present_timings(&reports, now)?;
        if let Some(timing) = changed {
            self.machine.handle_display_timing(timing);
        }
        Ok(())
    }

    /// What the engine makes of the machine's target ([`SimTiming::engine_target`]).
    pub(crate) fn engine_target(&self, target: PresentTarget) -> Result<PresentTarget, SimError> {
        match self.timing.as_ref() {
            Some(timing) => timing.engine_target(target),
            None => Ok(target),
        }
    }

    /// A present carries only what the chosen paths use ([`check_extras`]).
    pub(crate) fn check_path(&self, extras: &PresentExtras) -> Result<(), SimError> {
        check_extras(self.paths, self.offer, extras)
    }
}

/// A present carries only what the chosen paths use, and those only what the offer allows:
/// an id only with display feedback or present timing, stage queries only with present
/// timing, a relative target only on the relative path of a surface that takes them and an
/// absolute one only on the absolute path of a surface that takes those
/// (VUID-VkPresentTimingInfoEXT-targetTime-12236/12237), none on present timing's
/// `Targets::None`.
pub(crate) fn check_extras(
    paths: DisplayPaths,
    offer: Option<DisplayOffer>,
    extras: &PresentExtras,
) -> Result<(), SimError> {
    let timing = paths.timing;
    let ids = paths.feedback != DisplayFeedback::None || timing.is_some();
    let offered = offer.map(|o| o.timing.unwrap_or_default());
    let allowed = match (extras.target, timing) {
        (PresentTarget::None, _) => true,
        (PresentTarget::Relative(_), Some(Targets::Relative)) => {
            offered.is_none_or(|t| t.relative_targets)
        }
        (PresentTarget::Absolute(_), Some(Targets::Absolute)) => {
            offered.is_none_or(|t| t.absolute_targets)
        }
        _ => false,
    };
    let feedback_offered = match (offer, paths.feedback) {
        (Some(o), DisplayFeedback::PresentWait2) => o.present_wait2 == Some(true),
        (Some(o), DisplayFeedback::PresentWait) => o.present_wait,
        _ => true,
    };
    let timing_offered = match (offered, timing) {
        (Some(t), Some(_)) => t.surface_timing && t.surface_present_id2,
        _ => true,
    };
    let fits = feedback_offered && timing_offered;
    if (extras.id != 0 && !ids) || (extras.stages && timing.is_none()) || !allowed || !fits {
        return Err(SimError::Broken(format!(
            "a present carries {extras:?} on the paths {:?} for the offer {:?}",
            paths, offer
        )));
    }
    Ok(())
}
