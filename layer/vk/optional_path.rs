//! Where to turn an optional path off: in the [`Support`], before the device is made
//! ([`Support::only`], [`Support::without`]). A path taken out there is neither enabled on the
//! device ([`Support::device_extensions`], [`Support::features`]) nor set in the configuration
//! ([`Support::apply`]), so nothing is enabled that nothing uses. (Clearing a flag in the
//! [`super::SwapchainConfig`] after `apply` also runs without the path, but leaves its
//! extensions and features enabled on the device.)

use super::support::Support;

/// One of vkpace's optional paths: a field of [`Support`] each, named for
/// [`Support::only`] and [`Support::without`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OptionalPath {
    /// Swapchain maintenance1 ([`Support::maintenance1`]).
    Maintenance1,
    /// GPU start and end of each frame ([`Support::gpu_timestamps`]).
    GpuTimestamps,
    /// `VK_KHR_present_id` + `VK_KHR_present_wait` ([`Support::present_wait`]).
    PresentWait,
    /// `VK_KHR_present_id2` + `VK_KHR_present_wait2` ([`Support::present_wait2`]).
    PresentWait2,
    /// `VK_EXT_present_timing` ([`Support::present_timing`]).
    PresentTiming,
}

impl OptionalPath {
    /// Every path, for [`Support::only`] (a new path goes here and in [`Support::turn_off`]).
    const ALL: [Self; 5] = [
        Self::Maintenance1,
        Self::GpuTimestamps,
        Self::PresentWait,
        Self::PresentWait2,
        Self::PresentTiming,
    ];
}

impl Support {
    /// This support with every path turned off but those in `keep`, which stay as offered (a
    /// path the device lacks is not turned on). Take it before the device is made, then enable
    /// its [`Self::device_extensions`] and [`Self::features`] and [`Self::apply`] it: the other
    /// paths are then neither enabled nor used.
    ///
    /// ```
    /// use vkpace::{OptionalPath, Support, SwapchainConfig};
    /// // As `Support::query` answers for a device that offers GPU timestamps and present_wait:
    /// let mut offered = Support::default();
    /// offered.gpu_timestamps = true;
    /// offered.present_wait = true;
    ///
    /// let support = offered.only(&[OptionalPath::PresentWait]);
    /// assert!(support.present_wait && !support.gpu_timestamps);
    /// // Only present_wait's extensions are to be enabled, and only present_wait is set.
    /// let names = [ash::khr::present_id::NAME, ash::khr::present_wait::NAME];
    /// assert_eq!(support.device_extensions(), names);
    /// let mut config = SwapchainConfig::default();
    /// support.apply(&mut config);
    /// assert!(config.paths.present_wait && !config.gpu_timestamps);
    /// ```
    #[must_use]
    pub fn only(mut self, keep: &[OptionalPath]) -> Self {
        for path in OptionalPath::ALL {
            if !keep.contains(&path) {
                self.turn_off(path);
            }
        }
        self
    }

    /// This support with the paths in `paths` turned off, the others as offered (see
    /// [`Self::only`]): `support.without(&[OptionalPath::PresentTiming])` runs everything
    /// offered but present timing.
    #[must_use]
    pub fn without(mut self, paths: &[OptionalPath]) -> Self {
        for &path in paths {
            self.turn_off(path);
        }
        self
    }

    fn turn_off(&mut self, path: OptionalPath) {
        match path {
            OptionalPath::Maintenance1 => self.maintenance1 = None,
            OptionalPath::GpuTimestamps => self.gpu_timestamps = false,
            OptionalPath::PresentWait => self.present_wait = false,
            OptionalPath::PresentWait2 => self.present_wait2 = false,
            OptionalPath::PresentTiming => self.present_timing = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{OptionalPath, Support};
    use crate::vk::Maintenance1Names;

    /// A device that offers every path.
    fn everything() -> Support {
        Support {
            maintenance1: Some(Maintenance1Names::Khr),
            gpu_timestamps: true,
            present_wait: true,
            present_wait2: true,
            present_timing: Some((true, true)),
        }
    }

    /// The paths a support has on, in the order of the enum, read from its fields.
    fn on(s: Support) -> Vec<OptionalPath> {
        let fields = [
            (s.maintenance1.is_some(), OptionalPath::Maintenance1),
            (s.gpu_timestamps, OptionalPath::GpuTimestamps),
            (s.present_wait, OptionalPath::PresentWait),
            (s.present_wait2, OptionalPath::PresentWait2),
            (s.present_timing.is_some(), OptionalPath::PresentTiming),
        ];
        fields.into_iter().filter(|f| f.0).map(|f| f.1).collect()
    }

    #[test]
    fn only_keeps_the_named_path_and_without_drops_it() {
        let all = on(everything());
        assert_eq!(all.len(), 5, "the test's device offers every path");
        for path in all.iter().copied() {
            assert_eq!(on(everything().only(&[path])), [path]);
            let rest: Vec<_> = all.iter().copied().filter(|p| *p != path).collect();
            assert_eq!(on(everything().without(&[path])), rest);
        }
        assert_eq!(everything().only(&[]), Support::default());
        assert!(everything().only(&[]).device_extensions().is_empty());
        assert_eq!(everything().without(&[]), everything());
    }

    #[test]
    fn only_does_not_turn_on_what_is_not_offered() {
        let offered = Support::default().only(&[OptionalPath::PresentTiming]);
        assert_eq!(offered, Support::default());
        let kept = everything().only(&[OptionalPath::PresentTiming]);
        let timing_alone = Support {
            present_timing: Some((true, true)),
            ..Support::default()
        };
        assert_eq!(kept, timing_alone, "kept as offered, the rest off");
        assert_eq!(kept.device_extensions(), timing_alone.device_extensions());
    }
}
