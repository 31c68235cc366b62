//! Which display path a swapchain object takes, from what the shell found on the device and
//! the surface for the paths the config asks for ([`DisplayOffer`]).
//!
//! Feedback: present_wait2 where asked for and the surface reports both `presentId2Supported`
//! and `presentWait2Supported`, else present_wait where asked for, else none. Present timing:
//! where asked for, the surface reports `presentTimingSupported` and `presentId2Supported`
//! (results name presents by their id2), and the device can calibrate `CLOCK_MONOTONIC`
//! (every reported time is mapped to the shell's clock through it). Targets are relative where
//! the surface takes them (a late frame then moves the schedule in the engine instead of making
//! the next one short), absolute where only those are supported, none where neither is.
//!
//! The newer feedback pair comes first although DXVK preferred the older one in 2026 (pull
//! request 5530): what broke there were blocking waits that never returned, and vkpace's
//! present waits are bounded by a sleep it makes anyway (docs/design.md, *The display path*).

use super::refresh::RefreshCycle;
use crate::pacing::{DisplayRefresh, DisplayTiming};

/// Which display feedback a swapchain uses: when each frame was shown, for the telemetry's
/// `displayed` and the low-latency policy.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DisplayFeedback {
    /// `VK_KHR_present_id2` + `VK_KHR_present_wait2`: asked for with
    /// vkpace's `EnabledPaths::present_wait2` and supported by the surface.
    PresentWait2,
    /// `VK_KHR_present_id` + `VK_KHR_present_wait`: asked for with
    /// vkpace's `EnabledPaths::present_wait`, and present_wait2 not asked for or not
    /// supported by the surface.
    PresentWait,
    /// No display feedback: display times stay unknown.
    None,
}

impl DisplayFeedback {
    /// Whether display times are learnt at all (either path).
    #[must_use]
    pub fn in_use(self) -> bool {
        self != DisplayFeedback::None
    }

    /// "present-wait2", "present-wait" or "none", for reports.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            DisplayFeedback::PresentWait2 => "present-wait2",
            DisplayFeedback::PresentWait => "present-wait",
            DisplayFeedback::None => "none",
        }
    }
}

/// What the shell found for present timing on the device and the surface.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TimingOffer {
    /// The surface reports `presentTimingSupported`.
    pub surface_timing: bool,
    /// The surface reports `presentId2Supported`.
    pub surface_present_id2: bool,
    /// The device can calibrate `CLOCK_MONOTONIC`.
    pub host_clock_calibrateable: bool,
    /// The surface takes targets relative to the previous frame's first pixel.
    pub relative_targets: bool,
    /// The surface takes absolute target times.
    pub absolute_targets: bool,
}

/// What the shell found for the paths the config asks for (a path not asked for is `false`
/// or `None`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct DisplayOffer {
    /// present_wait is asked for (the device enabled it).
    pub present_wait: bool,
    /// present_wait2 is asked for: whether the surface supports it (`presentId2Supported`
    /// and `presentWait2Supported`).
    pub present_wait2: Option<bool>,
    /// Present timing is asked for: what the surface and device offer.
    pub timing: Option<TimingOffer>,
}

/// How a swapchain object's presents aim at a time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Targets {
    /// Relative to the previous frame's first pixel.
    Relative,
    /// Absolute times.
    Absolute,
    /// None: present timing reports stage times only.
    None,
}

/// The paths a swapchain object takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DisplayPaths {
    /// How it learns when frames were shown.
    pub feedback: DisplayFeedback,
    /// Present timing, with its kind of targets; `None`: not used (frame limits are kept by
    /// the CPU).
    pub timing: Option<Targets>,
}

/// Which structure carries a swapchain's present ids, if any.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum PresentIdStructure {
    /// No ids: neither display feedback nor present timing.
    #[default]
    None,
    /// `VkPresentIdKHR`, which present_wait waits for (the presentId feature).
    Id,
    /// `VkPresentId2KHR`, which present_wait2 waits for and present timing's results name
    /// presents by; the swapchain is made with `PRESENT_ID_2` (VUID-VkPresentId2KHR-None-10820).
    Id2,
}

impl DisplayPaths {
    /// Which structure the swapchain's presents carry vkpace's present ids in: display
    /// feedback waits for them, and present timing's results name presents by them. Both
    /// doors ask this one question, per swapchain.
    #[must_use]
    pub fn id_structure(&self) -> PresentIdStructure {
        match (self.timing, self.feedback) {
            (Some(_), _) | (None, DisplayFeedback::PresentWait2) => PresentIdStructure::Id2,
            (None, DisplayFeedback::PresentWait) => PresentIdStructure::Id,
            (None, DisplayFeedback::None) => PresentIdStructure::None,
        }
    }

    /// Whether any swapchain's presents may carry vkpace's ids: the device enabled a path
    /// that uses them (`present_wait`, `present_wait2`, `present_timing`). Where it did not,
    /// no surface is asked and no id is added.
    #[must_use]
    pub fn may_carry_present_ids(present_wait: bool, present_wait2: bool, timing: bool) -> bool {
        present_wait || present_wait2 || timing
    }
}

/// The paths for `offer` (see the module documentation for the order and why).
#[must_use]
pub fn choose_paths(offer: &DisplayOffer) -> DisplayPaths {
    let feedback = match offer.present_wait2 {
        Some(true) => DisplayFeedback::PresentWait2,
        _ if offer.present_wait => DisplayFeedback::PresentWait,
        _ => DisplayFeedback::None,
    };
    let timing = offer
        .timing
        .filter(|t| t.surface_timing && t.surface_present_id2 && t.host_clock_calibrateable)
        .map(|t| match (t.relative_targets, t.absolute_targets) {
            (true, _) => Targets::Relative,
            (false, true) => Targets::Absolute,
            (false, false) => Targets::None,
        });
    DisplayPaths { feedback, timing }
}

impl Targets {
    /// What the pacing is told of a swapchain with this refresh cycle: a fixed refresh
    /// targeted where there is a way to target it; a fixed one without targets (the frame
    /// limiter may anchor on its reported times); no fixed grid for a variable or unknown one
    /// (the CPU keeps frame limits on its own clock).
    #[must_use]
    pub fn display_refresh(self, refresh: RefreshCycle) -> DisplayRefresh {
        let RefreshCycle::Fixed { duration_ns } = refresh else {
            return DisplayRefresh::NoFixedGrid;
        };
        if self == Targets::None {
            return DisplayRefresh::Fixed;
        }
        DisplayRefresh::Targeted(DisplayTiming {
            refresh_ns: duration_ns,
            relative_targets: self == Targets::Relative,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const USABLE: TimingOffer = TimingOffer {
        surface_timing: true,
        surface_present_id2: true,
        host_clock_calibrateable: true,
        relative_targets: true,
        absolute_targets: true,
    };

    #[test]
    fn feedback_prefers_present_wait2_where_the_surface_supports_it() {
        let offer = |wait, wait2| DisplayOffer {
            present_wait: wait,
            present_wait2: wait2,
            timing: None,
        };
        let feedback = |o: DisplayOffer| choose_paths(&o).feedback;
        assert_eq!(
            feedback(offer(true, Some(true))),
            DisplayFeedback::PresentWait2
        );
        assert_eq!(
            feedback(offer(true, Some(false))),
            DisplayFeedback::PresentWait
        );
        assert_eq!(
            feedback(offer(false, Some(true))),
            DisplayFeedback::PresentWait2
        );
        assert_eq!(feedback(offer(false, Some(false))), DisplayFeedback::None);
        assert_eq!(feedback(offer(true, None)), DisplayFeedback::PresentWait);
        assert_eq!(feedback(offer(false, None)), DisplayFeedback::None);
    }

    /// Door 2 once gave ids only where display feedback was chosen, so a swapchain with
    /// present timing alone got none; both doors now ask this, and put the ids in the
    /// structure it names (each door once chose it by its own rule).
    #[test]
    fn presents_carry_ids_for_feedback_or_present_timing() {
        let ids = |feedback, timing| DisplayPaths { feedback, timing }.id_structure();
        assert_eq!(
            ids(DisplayFeedback::PresentWait, None),
            PresentIdStructure::Id
        );
        assert_eq!(
            ids(DisplayFeedback::PresentWait2, None),
            PresentIdStructure::Id2
        );
        // Present timing's results name presents by VkPresentId2KHR's ids, beside either wait.
        for feedback in [DisplayFeedback::None, DisplayFeedback::PresentWait] {
            assert_eq!(ids(feedback, Some(Targets::None)), PresentIdStructure::Id2);
        }
        assert_eq!(ids(DisplayFeedback::None, None), PresentIdStructure::None);
        assert!(DisplayPaths::may_carry_present_ids(false, false, true));
        assert!(!DisplayPaths::may_carry_present_ids(false, false, false));
    }

    #[test]
    fn present_timing_needs_the_surface_ids_and_the_host_clock() {
        let timing = |t: TimingOffer| {
            choose_paths(&DisplayOffer {
                timing: Some(t),
                ..DisplayOffer::default()
            })
            .timing
        };
        assert_eq!(timing(USABLE), Some(Targets::Relative));
        let absolute_only = TimingOffer {
            relative_targets: false,
            ..USABLE
        };
        assert_eq!(timing(absolute_only), Some(Targets::Absolute));
        let stages_only = TimingOffer {
            absolute_targets: false,
            ..absolute_only
        };
        assert_eq!(timing(stages_only), Some(Targets::None));
        for missing in [
            TimingOffer {
                surface_timing: false,
                ..USABLE
            },
            TimingOffer {
                surface_present_id2: false,
                ..USABLE
            },
            TimingOffer {
                host_clock_calibrateable: false,
                ..USABLE
            },
        ] {
            assert_eq!(timing(missing), None, "{missing:?}");
        }
        assert_eq!(choose_paths(&DisplayOffer::default()).timing, None);
    }

    #[test]
    fn only_a_fixed_refresh_with_targets_is_paced_on_the_grid() {
        let fixed = RefreshCycle::Fixed { duration_ns: 100 };
        assert_eq!(
            Targets::Absolute.display_refresh(fixed),
            DisplayRefresh::Targeted(DisplayTiming {
                refresh_ns: 100,
                relative_targets: false
            })
        );
        assert_eq!(Targets::None.display_refresh(fixed), DisplayRefresh::Fixed);
        let vrr = RefreshCycle::Variable {
            min_duration_ns: 100,
        };
        assert_eq!(
            Targets::Relative.display_refresh(vrr),
            DisplayRefresh::NoFixedGrid
        );
        assert_eq!(
            Targets::Relative.display_refresh(RefreshCycle::Unknown),
            DisplayRefresh::NoFixedGrid
        );
    }
}
