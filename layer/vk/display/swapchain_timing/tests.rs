//! Unit tests of a swapchain's present timing: time conversion and the results read back (the
//! refresh classification and the calibration math are the core's, tested there).

use super::*;
use crate::core::{calibration_from, Reading};
use crate::vk::registry::{TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT};

/// The core's name of a Vulkan time domain.
fn core(domain: vk::TimeDomainKHR) -> TimeDomain {
    TimeDomain(domain.as_raw())
}

/// The core's name of stages.
fn st(stages: PresentStageFlagsEXT) -> Stages {
    Stages(stages.0)
}

const QOE: PresentStageFlagsEXT = PresentStageFlagsEXT::QUEUE_OPERATIONS_END;
const DEQ: PresentStageFlagsEXT = PresentStageFlagsEXT::REQUEST_DEQUEUED;
const OUT: PresentStageFlagsEXT = PresentStageFlagsEXT::IMAGE_FIRST_PIXEL_OUT;
const VIS: PresentStageFlagsEXT = PresentStageFlagsEXT::IMAGE_FIRST_PIXEL_VISIBLE;
const MONO: vk::TimeDomainKHR = vk::TimeDomainKHR::CLOCK_MONOTONIC;

fn entry(domain: vk::TimeDomainKHR, id: u64) -> PastPresentationTimingEXT<'static> {
    PastPresentationTimingEXT {
        present_id: 42,
        target_time: 60_000,
        time_domain: domain,
        time_domain_id: id,
        report_complete: vk::TRUE,
        ..Default::default()
    }
}

fn stages() -> [PresentStageTimeEXT; 4] {
    [
        PresentStageTimeEXT {
            stage: QOE,
            time: 51_000,
        },
        PresentStageTimeEXT {
            stage: DEQ,
            time: 0,
        },
        PresentStageTimeEXT {
            stage: OUT,
            time: 60_000,
        },
        PresentStageTimeEXT {
            stage: VIS,
            time: 60_500,
        },
    ]
}

#[test]
fn results_are_shifted_to_the_shell_clock() {
    let reading = Reading {
        mid_ns: 1_000,
        bracket_ns: 10,
        monotonic: 50_000,
        locals: [20_000, 0, 0, 0],
    };
    let cal = calibration_from((core(TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT), 2), &[], &reading);
    let (r, foreign) = convert(
        &entry(TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 2),
        &stages(),
        &cal,
        cal.stage_offsets[3],
    );
    assert!(!foreign);
    assert_eq!(r.present_id, 42);
    assert_eq!(r.target_ns, Some(41_000));
    assert_eq!(r.queue_operations_end, Some(32_000));
    assert_eq!(r.request_dequeued, None, "a time of 0 has no result");
    assert_eq!(r.first_pixel_out, Some(41_000));
    assert_eq!(r.first_pixel_visible, Some(41_500));
    assert!(r.complete);

    // Fallback to CLOCK_MONOTONIC: the host mapping applies.
    let (r, foreign) = convert(&entry(MONO, 3), &stages()[..1], &cal, None);
    assert!(!foreign);
    assert_eq!(r.queue_operations_end, Some(2_000));
    assert_eq!(r.target_ns, None, "relative targets were used");
    assert_eq!(r.first_pixel_visible, None, "not reported");

    // Another swapchain-local id: no calibration, times dropped, re-read asked for.
    let (r, foreign) = convert(
        &entry(TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 7),
        &stages(),
        &cal,
        None,
    );
    assert!(foreign);
    assert_eq!(r.queue_operations_end, None);
    assert_eq!(r.first_pixel_visible, None);
    assert_eq!(r.present_id, 42);
}

#[test]
fn stage_local_results_use_their_own_offsets_and_clamp() {
    let reading = Reading {
        mid_ns: 100,
        bracket_ns: 1,
        monotonic: 1,
        locals: [1_000, 5_000, 0, 0],
    };
    let cal = calibration_from(
        (core(TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT), 1),
        &[st(QOE), st(VIS)],
        &reading,
    );
    let e = entry(TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 1);
    let target = stage_index(target_stage(st(QOE | VIS))).and_then(|i| cal.stage_offsets[i]);
    let (r, _) = convert(&e, &stages(), &cal, target);
    assert_eq!(r.queue_operations_end, Some(50_100));
    assert_eq!(r.first_pixel_out, None, "stage not calibrated");
    assert_eq!(r.first_pixel_visible, Some(55_600));
    // The target is in the target stage's (VIS) domain.
    assert_eq!(r.target_ns, Some(55_100));
    // Before the shell epoch: clamped to 0, still a time.
    assert_eq!(shift(10, -100), Some(0));
    assert_eq!(shift(u64::MAX, 100), Some(u64::MAX));
    assert_eq!(shift(0, 100), None);
}
