//! The device-enabled paths both configurations carry ([`super::SwapchainConfig`] and
//! [`super::PresentPacerConfig`]): one place that [`super::Support::apply`] writes them and one
//! place that narrows them to a [`super::DisplayChoice`], so the two doors cannot drift apart.

use super::error::{Error, Result};
use super::maintenance1::Maintenance1Names;

/// Mutable views of a configuration's enabled-path fields.
pub struct EnabledPaths<'a> {
    pub(crate) maintenance1: &'a mut Option<Maintenance1Names>,
    pub(crate) present_wait: &'a mut bool,
    pub(crate) present_wait2: &'a mut bool,
    pub(crate) present_timing: &'a mut bool,
    /// Absent where the configuration has no GPU timestamps (the pacer records no commands).
    pub(crate) gpu_timestamps: Option<&'a mut bool>,
}

/// Which display path a swapchain takes ([`super::SwapchainConfig::display`]), among those the device
/// enabled ([`super::SwapchainConfig::present_timing`], [`super::SwapchainConfig::present_wait2`],
/// [`super::SwapchainConfig::present_wait`]; [`crate::Support::apply`] sets them).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DisplayChoice {
    /// Present timing where the surface supports it, and display feedback through
    /// present_wait2 where the surface supports it, else present_wait, else none.
    #[default]
    Auto,
    /// Display feedback through present_wait2 only (none where the surface lacks it); no
    /// present timing. Needs [`super::SwapchainConfig::present_wait2`].
    PresentWait2,
    /// Display feedback through present_wait only; no present timing. Needs
    /// [`super::SwapchainConfig::present_wait`]. For a driver whose present_wait2 misbehaves (DXVK
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
        fn enabled_paths(&mut self) -> super::EnabledPaths<'_>;
    }
}

/// A configuration [`super::Support::apply`] can fill in: [`super::SwapchainConfig`] and
/// [`super::PresentPacerConfig`]. Sealed: implemented by vkpace only.
pub trait TakesSupport: sealed::Sealed {}

pub(crate) use sealed::Sealed;

impl<T: sealed::Sealed> TakesSupport for T {}

/// Narrows the enabled display paths to `display`'s choice; a forced path the device did not
/// enable is [`Error::InvalidConfig`].
pub(crate) fn resolve_display(display: DisplayChoice, paths: EnabledPaths<'_>) -> Result<()> {
    let EnabledPaths {
        present_wait,
        present_wait2,
        present_timing,
        ..
    } = paths;
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
