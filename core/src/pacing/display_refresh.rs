//! What the pacing is told of a swapchain's refresh: whether the display has a fixed grid, and
//! whether presents can target it.

use super::DisplayTiming;

/// What the display reports of its refresh cycle, as the pacing uses it.
///
/// The frame limiter anchors its grid on exact display times ([`super::DisplayAnchor`]) only
/// where the display may have a fixed grid: on an engine with none (a refresh of 1 ns, 0,
/// `UINT64_MAX`, or a variable refresh) the times it reports are the limiter's own output, and
/// a grid that followed them would walk with their noise (periods a few percent off the cap,
/// frames faster than the limit).
///
/// ```
/// use vkpace_core::{DisplayRefresh, DisplayTiming};
/// let fixed = DisplayRefresh::Targeted(DisplayTiming { refresh_ns: 16_666_667, relative_targets: true });
/// assert_eq!(fixed.timing().map(|t| t.refresh_ns), Some(16_666_667));
/// assert!(fixed.may_have_grid());
/// assert!(!DisplayRefresh::NoFixedGrid.may_have_grid());
/// assert!(DisplayRefresh::Unreported.may_have_grid());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DisplayRefresh {
    /// Nothing reported (no present timing on this swapchain): exact display times, where
    /// they come (present ids watched), may anchor the frame limiter, which learns the
    /// period from them.
    #[default]
    Unreported,
    /// The display reports no fixed refresh: variable, or a duration that is no display's
    /// (`display::RefreshCycle::Unknown` or `Variable`). The CPU limiter keeps its own clock.
    NoFixedGrid,
    /// A fixed refresh that presents do not target (present timing with stage times only):
    /// the frame limiter may anchor on the reported times.
    Fixed,
    /// A fixed refresh that presents target: frame limits on the grid become targets.
    Targeted(DisplayTiming),
}

impl DisplayRefresh {
    /// The refresh presents target, if they do.
    #[must_use]
    pub fn timing(self) -> Option<DisplayTiming> {
        match self {
            Self::Targeted(t) => Some(t),
            Self::Unreported | Self::NoFixedGrid | Self::Fixed => None,
        }
    }

    /// Whether the display may have a fixed grid for the frame limiter to anchor on: all but
    /// [`DisplayRefresh::NoFixedGrid`].
    #[must_use]
    pub fn may_have_grid(self) -> bool {
        self != Self::NoFixedGrid
    }
}
