//! The device-enabled paths both configurations carry ([`super::SwapchainConfig`] and
//! [`super::PresentPacerConfig`]), one value: [`super::Support::apply`] writes it and one
//! place narrows it to a [`super::DisplayChoice`], so the two doors cannot drift apart.

use super::error::{Error, Result};
use super::maintenance1::Maintenance1Names;

/// The presentation paths the device enabled, one value that both doors' configurations carry
/// ([`super::SwapchainConfig::paths`], [`super::PresentPacerConfig::paths`]). Set each only for
/// what the device enabled: [`super::Support::apply`] sets exactly those (and
/// [`super::Support::device_extensions`] and [`super::Support::features`] enable them); a path
/// set without its extension makes [`super::Swapchain::new`] fail with
/// [`Error::InvalidConfig`] before it makes any Vulkan object. Which of the display paths a
/// swapchain takes is the configuration's [`DisplayChoice`].
///
/// ```
/// # fn configure(support: &vkpace::Support) -> vkpace::PresentPacerConfig {
/// let mut config = vkpace::PresentPacerConfig::default();
/// support.apply(&mut config); // every path the device enabled
/// // Turning a path off is always valid: pace by the CPU limiter even where the surface offers
/// // present-timing targets.
/// config.paths.present_timing = false;
/// # config }
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EnabledPaths {
    /// The names of swapchain maintenance1 the instance and device enabled (with the
    /// `swapchainMaintenance1` feature; [`super::Support::maintenance1`] says which are offered):
    /// present fences (door 2 adds one where the application passed none), per-present mode
    /// switches and image release, which prove semaphores and old swapchains free. `None`: the
    /// proof-based path, which works everywhere.
    pub swapchain_maintenance1: Option<Maintenance1Names>,
    /// `VK_KHR_present_id` + `VK_KHR_present_wait` with the `presentId` and `presentWait`
    /// features: learn when each frame was shown (polled once per frame without blocking;
    /// door 2 adds present ids where the application passed none). With
    /// [`Self::present_wait2`] too, the fallback for surfaces that do not support
    /// present_wait2.
    pub present_wait: bool,
    /// `VK_KHR_present_id2` + `VK_KHR_present_wait2` with the `presentId2` and `presentWait2`
    /// features, and the instance `VK_KHR_get_surface_capabilities2` (which both require and
    /// which the surface query uses): the per-surface successors of present_id / present_wait,
    /// used where the surface supports them (`presentId2Supported`, `presentWait2Supported`);
    /// otherwise [`Self::present_wait`] decides. [`super::SwapchainInfo::display_feedback`] says
    /// which path is in use.
    pub present_wait2: bool,
    /// `VK_EXT_present_timing`, `VK_KHR_present_id2` and calibrated timestamps with the
    /// `presentTiming` and `presentId2` features (and `presentAtRelativeTime` /
    /// `presentAtAbsoluteTime` wherever offered), and the instance
    /// `VK_KHR_get_surface_capabilities2` ([`super::Support::present_timing`] says what is
    /// offered): pace to the display where the surface supports it. A frame limit on the
    /// refresh grid (30 fps on 60 Hz: every second refresh) becomes a target present time
    /// instead of a CPU sleep, [`crate::PacingPolicy::Display`] picks the swap interval, low
    /// latency starts frames from measured first-pixel times, and each frame's stage times
    /// reach the telemetry. On a surface without present timing vkpace falls back to the CPU
    /// limiter ([`super::SwapchainInfo::present_timing`] says `None`); so does a device that
    /// cannot calibrate the shell's clock, `CLOCK_MONOTONIC` (Linux; Windows has none).
    pub present_timing: bool,
}

impl EnabledPaths {
    /// Whether presents may carry vkpace's present ids on some surface with these paths
    /// (`vkpace_core::DisplayPaths::may_carry_present_ids`, the one rule).
    pub(crate) fn may_carry_present_ids(&self) -> bool {
        vkpace_core::DisplayPaths::may_carry_present_ids(
            self.present_wait,
            self.present_wait2,
            self.present_timing,
        )
    }
}

/// Which display path a swapchain takes ([`super::SwapchainConfig::display`]), among those the
/// device enabled ([`EnabledPaths::present_timing`], [`EnabledPaths::present_wait2`],
/// [`EnabledPaths::present_wait`]; [`crate::Support::apply`] sets them).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DisplayChoice {
    /// Present timing where the surface supports it, and display feedback through
    /// present_wait2 where the surface supports it, else present_wait, else none.
    #[default]
    Auto,
    /// Display feedback through present_wait2 only (none where the surface lacks it); no
    /// present timing. Needs [`EnabledPaths::present_wait2`].
    PresentWait2,
    /// Display feedback through present_wait only; no present timing. Needs
    /// [`EnabledPaths::present_wait`]. For a driver whose present_wait2 misbehaves (DXVK
    /// moved to this order for NVIDIA's 590 driver in 2026, where a blocking wait never
    /// returned; vkpace's present waits are bounded by the pacing sleep they replace).
    PresentWait,
    /// No display feedback and no present timing: display times stay unknown, frame limits
    /// are kept by the CPU.
    Off,
}

mod sealed {
    /// Only vkpace's configurations carry enabled paths.
    pub trait Sealed {
        /// The configuration's enabled paths, and its GPU timestamps flag if it has one (door
        /// 2 records no commands).
        fn enabled_paths(&mut self) -> (&mut super::EnabledPaths, Option<&mut bool>);
    }
}

/// A configuration [`super::Support::apply`] can fill in: [`super::SwapchainConfig`] and
/// [`super::PresentPacerConfig`]. Sealed: implemented by vkpace only.
pub trait TakesSupport: sealed::Sealed {}

pub(crate) use sealed::Sealed;

impl<T: sealed::Sealed> TakesSupport for T {}

impl EnabledPaths {
    /// Narrows the enabled display paths to `display`'s choice (both doors' configurations);
    /// a forced path the device did not enable is [`Error::InvalidConfig`].
    pub(crate) fn narrow(&mut self, display: DisplayChoice) -> Result<()> {
        let EnabledPaths {
            present_wait,
            present_wait2,
            present_timing,
            ..
        } = self;
        match display {
            DisplayChoice::Auto => {}
            DisplayChoice::PresentWait2 => {
                if !*present_wait2 {
                    return Err(Error::InvalidConfig(
                        "DisplayChoice::PresentWait2 needs present_wait2 enabled",
                    ));
                }
                (*present_wait, *present_timing) = (false, false);
            }
            DisplayChoice::PresentWait => {
                if !*present_wait {
                    return Err(Error::InvalidConfig(
                        "DisplayChoice::PresentWait needs present_wait enabled",
                    ));
                }
                (*present_wait2, *present_timing) = (false, false);
            }
            DisplayChoice::Off => {
                (*present_wait, *present_wait2) = (false, false);
                *present_timing = false;
            }
        }
        Ok(())
    }
}
