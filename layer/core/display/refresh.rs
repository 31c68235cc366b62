//! The refresh cycle a swapchain reports (`VkSwapchainTimingPropertiesEXT`), classified.

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
    /// next".
    Variable {
        /// The shortest refresh cycle.
        min_duration_ns: u64,
    },
    /// `refreshDuration` is zero ("not able to determine the duration"), the query returned
    /// `VK_NOT_READY` (some platforms answer only after a present), or `refreshInterval` is
    /// larger than `refreshDuration` (it cannot be a factor of it, as the spec requires).
    Unknown,
}

impl RefreshCycle {
    /// Classifies `refreshDuration` and `refreshInterval` (see the variants).
    #[must_use]
    pub(crate) fn classify(duration: u64, interval: u64) -> Self {
        match (duration, interval) {
            (0, _) => Self::Unknown,
            (d, u64::MAX) => Self::Variable { min_duration_ns: d },
            (d, i) if i <= d => Self::Fixed { duration_ns: d },
            _ => Self::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RefreshCycle;

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
}
