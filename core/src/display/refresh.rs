//! The refresh cycle a swapchain reports (`VkSwapchainTimingPropertiesEXT`), classified.
//!
//! A reported duration is taken as a display's refresh only if a display could have it: at
//! least [`MIN_REFRESH_NS`]. An engine with no refresh limit (a headless compositor, an
//! off-screen engine) has been seen to report `refreshDuration` = 1 ns; taken as a grid, a
//! 30 fps limit becomes a swap interval of 33,333,333 refreshes and every frame counts as
//! missing refreshes. `UINT64_MAX` is no duration either. Both mean "no fixed grid", as 0
//! ("not able to determine the duration") does: frame limits are then kept by the CPU.

/// The shortest refresh cycle taken as a display's: 100 us, a 10 kHz refresh. Panels reach
/// 1000 Hz (1 ms), an order of magnitude above; a shorter duration is an engine with no refresh
/// limit, whose "grid" no frame limit could be counted on. Well under it, so no real display
/// is refused; well over the 1 ns such engines report.
pub const MIN_REFRESH_NS: u64 = 100_000;

/// The refresh cycle a swapchain reports (`VkSwapchainTimingPropertiesEXT`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RefreshCycle {
    /// Fixed refresh rate: each image stays visible a multiple of `duration_ns`
    /// (`refreshDuration`). Also used when `refreshInterval` is a smaller factor of it (the
    /// spec's note: a fixed visible duration on a faster vblank grid, so multiples of
    /// `duration_ns` are valid image present durations) and when `refreshInterval` is zero
    /// (the engine cannot tell whether it runs VRR; a multiple of the duration is valid on
    /// both kinds).
    Fixed {
        /// Nanoseconds from the start of one refresh cycle to the start of the next.
        duration_ns: u64,
    },
    /// Variable refresh rate (`refreshInterval` is `UINT64_MAX`): "refreshDuration is the
    /// minimum number of nanoseconds from the start of one refresh cycle to the start of the
    /// next" (at least 100 us, a 10 kHz refresh, else [`RefreshCycle::Unknown`]).
    Variable {
        /// The shortest refresh cycle.
        min_duration_ns: u64,
    },
    /// No fixed grid and no usable minimum: `refreshDuration` is zero ("not able to determine
    /// the duration"), `UINT64_MAX`, or shorter than 100 us, a 10 kHz refresh (an engine with
    /// no refresh limit); the query returned `VK_NOT_READY` (some platforms answer only after a
    /// present); or `refreshInterval` is larger than `refreshDuration` (it cannot be a factor
    /// of it, as the spec requires).
    Unknown,
}

impl RefreshCycle {
    /// Classifies `refreshDuration` and `refreshInterval` (see the variants).
    #[must_use]
    pub(crate) fn classify(duration: u64, interval: u64) -> Self {
        match (duration, interval) {
            (d, _) if !(MIN_REFRESH_NS..u64::MAX).contains(&d) => Self::Unknown,
            (d, u64::MAX) => Self::Variable { min_duration_ns: d },
            (d, i) if i <= d => Self::Fixed { duration_ns: d },
            _ => Self::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RefreshCycle;

    /// What a display can have: 1000 Hz panels exist (1 ms), 10 kHz is the floor here.
    const PANEL_1000_HZ: u64 = 1_000_000;

    #[test]
    fn refresh_cycles_are_classified_as_the_spec_defines_them() {
        assert_eq!(RefreshCycle::classify(0, 0), RefreshCycle::Unknown);
        assert_eq!(RefreshCycle::classify(0, u64::MAX), RefreshCycle::Unknown);
        assert_eq!(
            RefreshCycle::classify(16_666_667, 16_666_667),
            RefreshCycle::Fixed {
                duration_ns: 16_666_667
            }
        );
        assert_eq!(
            RefreshCycle::classify(6_944_444, u64::MAX),
            RefreshCycle::Variable {
                min_duration_ns: 6_944_444
            }
        );
        // A faster vblank grid under a fixed visible duration, and an engine that cannot say.
        for interval in [8_333_333, 0] {
            assert_eq!(
                RefreshCycle::classify(16_666_666, interval),
                RefreshCycle::Fixed {
                    duration_ns: 16_666_666
                }
            );
        }
        assert_eq!(
            RefreshCycle::classify(8_000_000, 16_000_000),
            RefreshCycle::Unknown
        );
    }

    #[test]
    fn durations_no_display_has_are_no_grid() {
        // An engine with no refresh limit (1 ns), nonsense (UINT64_MAX), and 10 us (100 kHz):
        // fixed or variable, no grid.
        for d in [1, 10_000, 99_999, u64::MAX] {
            for interval in [d, 0, u64::MAX] {
                assert_eq!(
                    RefreshCycle::classify(d, interval),
                    RefreshCycle::Unknown,
                    "{d} {interval}"
                );
            }
        }
        // The fastest panels are a grid.
        assert_eq!(
            RefreshCycle::classify(PANEL_1000_HZ, PANEL_1000_HZ),
            RefreshCycle::Fixed {
                duration_ns: PANEL_1000_HZ
            }
        );
        assert_eq!(
            RefreshCycle::classify(PANEL_1000_HZ, u64::MAX),
            RefreshCycle::Variable {
                min_duration_ns: PANEL_1000_HZ
            }
        );
    }
}
