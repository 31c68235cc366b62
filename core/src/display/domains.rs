//! Time domains of present timing: which of a swapchain's domains to use ([`choose_domain`]),
//! what a calibration reads ([`calibration_plan`]) and the mapping it gives
//! ([`calibration_from`], [`shift`]), and when a clock is calibrated again
//! ([`recalibration_due`], for present timing's domain and the GPU's timestamps alike).

/// A time domain (`VkTimeDomainKHR`'s value).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TimeDomain(pub i32);

impl TimeDomain {
    /// `VK_TIME_DOMAIN_CLOCK_MONOTONIC_KHR`: the shell's clock.
    pub const CLOCK_MONOTONIC: Self = Self(1);
    /// `VK_TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT`: one per swapchain and stage; every
    /// implementation of present timing offers one.
    pub const PRESENT_STAGE_LOCAL: Self = Self(1_000_208_000);
    /// `VK_TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT`: one per swapchain, shared by its stages.
    pub const SWAPCHAIN_LOCAL: Self = Self(1_000_208_001);
}

/// A set of present stages (`VkPresentStageFlagsEXT`'s bits).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stages(pub u32);

impl Stages {
    /// `QUEUE_OPERATIONS_END`.
    pub const QUEUE_OPERATIONS_END: Self = Self(0x1);
    /// `REQUEST_DEQUEUED`.
    pub const REQUEST_DEQUEUED: Self = Self(0x2);
    /// `IMAGE_FIRST_PIXEL_OUT`.
    pub const IMAGE_FIRST_PIXEL_OUT: Self = Self(0x4);
    /// `IMAGE_FIRST_PIXEL_VISIBLE`.
    pub const IMAGE_FIRST_PIXEL_VISIBLE: Self = Self(0x8);
    /// The four stages, in the order a present goes through them.
    pub const ALL: [Self; 4] = [
        Self::QUEUE_OPERATIONS_END,
        Self::REQUEST_DEQUEUED,
        Self::IMAGE_FIRST_PIXEL_OUT,
        Self::IMAGE_FIRST_PIXEL_VISIBLE,
    ];

    /// No stage.
    #[must_use]
    pub const fn empty() -> Self {
        Self(0)
    }

    /// Whether every stage of `other` is in this set.
    #[must_use]
    pub const fn contains(self, other: Self) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for Stages {
    type Output = Self;
    fn bitor(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }
}

/// Index of a single stage in [`Stages::ALL`].
#[must_use]
pub fn stage_index(stage: Stages) -> Option<usize> {
    Stages::ALL.iter().position(|s| *s == stage)
}

/// The time domains the device can calibrate (`vkGetPhysicalDeviceCalibrateableTimeDomainsKHR`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Calibrateable {
    /// `CLOCK_MONOTONIC`, the shell's clock (every calibration reads it).
    pub host: bool,
    /// `SWAPCHAIN_LOCAL_EXT`.
    pub swapchain_local: bool,
    /// `PRESENT_STAGE_LOCAL_EXT`.
    pub stage_local: bool,
}

impl Calibrateable {
    /// From the device's list.
    #[must_use]
    pub fn of(list: &[TimeDomain]) -> Self {
        Self {
            host: list.contains(&TimeDomain::CLOCK_MONOTONIC),
            swapchain_local: list.contains(&TimeDomain::SWAPCHAIN_LOCAL),
            stage_local: list.contains(&TimeDomain::PRESENT_STAGE_LOCAL),
        }
    }

    fn allows(self, d: TimeDomain) -> bool {
        (d == TimeDomain::CLOCK_MONOTONIC && self.host)
            || (d == TimeDomain::SWAPCHAIN_LOCAL && self.swapchain_local)
            || (d == TimeDomain::PRESENT_STAGE_LOCAL && self.stage_local)
    }
}

/// Prefers `CLOCK_MONOTONIC` (the shell's clock itself: no drift to correct), then a
/// swapchain-local domain (one calibration for all stages), then a stage-local one (which the
/// spec requires every implementation to offer), each only where the device can calibrate
/// it. Other domains are not used. `domains`: (domain, id) as the swapchain reports them.
#[must_use]
pub fn choose_domain(
    domains: &[(TimeDomain, u64)],
    calibrateable: Calibrateable,
) -> Option<(TimeDomain, u64)> {
    [
        TimeDomain::CLOCK_MONOTONIC,
        TimeDomain::SWAPCHAIN_LOCAL,
        TimeDomain::PRESENT_STAGE_LOCAL,
    ]
    .iter()
    .filter(|want| calibrateable.allows(**want))
    .find_map(|want| domains.iter().copied().find(|(d, _)| d == want))
}

/// The stage an absolute target is given in for a stage-local domain: the target aligns
/// `IMAGE_FIRST_PIXEL_VISIBLE`, and the spec advises where that has no timing to "use the
/// supported present stage nearest to it"; so the latest supported stage.
#[must_use]
pub fn target_stage(supported: Stages) -> Stages {
    Stages::ALL
        .iter()
        .rev()
        .copied()
        .find(|s| supported.contains(*s))
        .unwrap_or(Stages::empty())
}

/// The mapping of reported times to the shell clock: `shell = time + offset`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Calibration {
    /// The chosen domain.
    pub domain: TimeDomain,
    /// Its id.
    pub domain_id: u64,
    /// Offset per stage (index as [`Stages::ALL`]); the same for all stages unless the domain
    /// is stage-local; `None` where not calibrated.
    pub stage_offsets: [Option<i128>; 4],
    /// Offset of `CLOCK_MONOTONIC`, for results the engine reports there as a fallback.
    pub monotonic_offset: i128,
    /// The shell time of the calibration.
    pub at_ns: u64,
}

/// One `vkGetCalibratedTimestampsKHR` reading.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// Middle of the shell-clock bracket around the call.
    pub mid_ns: u64,
    /// Width of that bracket.
    pub bracket_ns: u64,
    /// `CLOCK_MONOTONIC`.
    pub monotonic: u64,
    /// The chosen domain, per entry of the calibration plan ([`calibration_plan`]).
    pub locals: [u64; 4],
}

/// What to read besides `CLOCK_MONOTONIC`: the `presentStage` of each
/// `VkSwapchainCalibratedTimestampInfoEXT`: nothing for `CLOCK_MONOTONIC`, one zero stage for a
/// swapchain-local domain, each supported stage for a stage-local one (VUID-12228: "one and
/// only one present stage").
#[must_use]
pub fn calibration_plan(domain: TimeDomain, supported: Stages) -> ([Stages; 4], usize) {
    let mut plan = [Stages::empty(); 4];
    if domain == TimeDomain::SWAPCHAIN_LOCAL {
        return (plan, 1);
    }
    let mut n = 0;
    if domain == TimeDomain::PRESENT_STAGE_LOCAL {
        for s in Stages::ALL.iter().filter(|s| supported.contains(**s)) {
            plan[n] = *s;
            n += 1;
        }
    }
    (plan, n)
}

/// The calibration a reading gives. A local reading of 0 means the domain is gone ("If the
/// timeDomainId is no longer supported by the swapchain, implementations may report zero"):
/// that stage stays uncalibrated.
#[must_use]
pub fn calibration_from(
    (domain, domain_id): (TimeDomain, u64),
    plan: &[Stages],
    reading: &Reading,
) -> Calibration {
    let mid = i128::from(reading.mid_ns);
    let monotonic_offset = mid - i128::from(reading.monotonic);
    let local = |v: u64| (v != 0).then(|| mid - i128::from(v));
    let mut stage_offsets = [None; 4];
    if domain == TimeDomain::CLOCK_MONOTONIC {
        stage_offsets = [Some(monotonic_offset); 4];
    } else if domain == TimeDomain::SWAPCHAIN_LOCAL {
        stage_offsets = [local(reading.locals[0]); 4];
    } else {
        for (stage, v) in plan.iter().zip(reading.locals) {
            if let Some(i) = stage_index(*stage) {
                stage_offsets[i] = local(v);
            }
        }
    }
    Calibration {
        domain,
        domain_id,
        stage_offsets,
        monotonic_offset,
        at_ns: reading.mid_ns,
    }
}

/// `time + offset`, clamped to the `u64` range; `None` for a time of 0 ("results for that
/// present stage are not available").
#[must_use]
pub fn shift(time: u64, offset: i128) -> Option<u64> {
    if time == 0 {
        return None;
    }
    let shell = (i128::from(time) + offset).clamp(0, i128::from(u64::MAX));
    u64::try_from(shell).ok()
}

/// A clock mapped to the shell's (the GPU's timestamps, a present-timing domain other than
/// `CLOCK_MONOTONIC`) is calibrated again after this long, so drift never adds up.
pub const RECALIBRATE_NS: u64 = 1_000_000_000;

/// Whether a clock last calibrated at `calibrated_at` (never: `None`) is due at `now`.
#[must_use]
pub fn recalibration_due(calibrated_at: Option<u64>, now: u64) -> bool {
    calibrated_at.is_none_or(|at| now.saturating_sub(at) >= RECALIBRATE_NS)
}

#[cfg(test)]
mod tests {
    use super::*;

    const QOE: Stages = Stages::QUEUE_OPERATIONS_END;
    const DEQ: Stages = Stages::REQUEST_DEQUEUED;
    const OUT: Stages = Stages::IMAGE_FIRST_PIXEL_OUT;
    const VIS: Stages = Stages::IMAGE_FIRST_PIXEL_VISIBLE;
    const ALL: Calibrateable = Calibrateable {
        host: true,
        swapchain_local: true,
        stage_local: true,
    };
    const MONO: TimeDomain = TimeDomain::CLOCK_MONOTONIC;
    const DEVICE: TimeDomain = TimeDomain(0);

    #[test]
    fn domain_choice_prefers_the_host_clock() {
        let stage = (TimeDomain::PRESENT_STAGE_LOCAL, 1);
        let swap = (TimeDomain::SWAPCHAIN_LOCAL, 2);
        let mono = (MONO, 3);
        // vdisplay's list.
        assert_eq!(choose_domain(&[stage, swap, mono], ALL), Some(mono));
        assert_eq!(choose_domain(&[stage, swap], ALL), Some(swap));
        assert_eq!(choose_domain(&[stage], ALL), Some(stage));
        assert_eq!(choose_domain(&[(DEVICE, 9), stage], ALL), Some(stage));
        assert_eq!(choose_domain(&[(DEVICE, 9)], ALL), None);
        assert_eq!(choose_domain(&[], ALL), None);
        let host_only = Calibrateable::of(&[MONO]);
        assert_eq!(choose_domain(&[stage, swap], host_only), None);
        assert_eq!(choose_domain(&[stage, swap, mono], host_only), Some(mono));
    }

    #[test]
    fn the_target_stage_is_the_latest_supported() {
        assert_eq!(target_stage(QOE | DEQ | OUT | VIS), VIS);
        assert_eq!(target_stage(QOE | DEQ), DEQ);
        assert_eq!(target_stage(QOE), QOE);
        assert_eq!(target_stage(Stages::empty()), Stages::empty());
    }

    #[test]
    fn calibration_plans_and_offsets() {
        assert_eq!(calibration_plan(MONO, QOE | VIS).1, 0);
        let (plan, n) = calibration_plan(TimeDomain::SWAPCHAIN_LOCAL, QOE | VIS);
        assert_eq!((plan[0], n), (Stages::empty(), 1));
        let (plan, n) = calibration_plan(TimeDomain::PRESENT_STAGE_LOCAL, QOE | VIS);
        assert_eq!(&plan[..n], &[QOE, VIS]);

        let reading = Reading {
            mid_ns: 1_000,
            bracket_ns: 10,
            monotonic: 50_000,
            locals: [7_000, 0, 0, 0],
        };
        let cal = calibration_from((MONO, 3), &[], &reading);
        assert_eq!(cal.stage_offsets, [Some(-49_000); 4]);
        let cal = calibration_from((TimeDomain::SWAPCHAIN_LOCAL, 2), &plan[..1], &reading);
        assert_eq!(cal.stage_offsets, [Some(-6_000); 4]);
        assert_eq!(cal.monotonic_offset, -49_000);
        let cal = calibration_from((TimeDomain::PRESENT_STAGE_LOCAL, 1), &[QOE, VIS], &reading);
        // VIS read 0: "no longer supported", left uncalibrated.
        assert_eq!(cal.stage_offsets, [Some(-6_000), None, None, None]);
    }

    #[test]
    fn clocks_are_calibrated_first_and_then_once_a_second() {
        assert!(recalibration_due(None, 0));
        assert!(!recalibration_due(Some(5), 5 + RECALIBRATE_NS - 1));
        assert!(recalibration_due(Some(5), 5 + RECALIBRATE_NS));
    }
}
