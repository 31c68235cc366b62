//! Unit tests of a swapchain's present timing book: conversion of results to the shell clock,
//! and what is read again when.

use super::*;
use crate::display::domains::{calibration_from, Reading, RECALIBRATE_NS};

const QOE: Stages = Stages::QUEUE_OPERATIONS_END;
const DEQ: Stages = Stages::REQUEST_DEQUEUED;
const OUT: Stages = Stages::IMAGE_FIRST_PIXEL_OUT;
const VIS: Stages = Stages::IMAGE_FIRST_PIXEL_VISIBLE;
const MONO: TimeDomain = TimeDomain::CLOCK_MONOTONIC;
const SWAP: TimeDomain = TimeDomain::SWAPCHAIN_LOCAL;
const STAGE: TimeDomain = TimeDomain::PRESENT_STAGE_LOCAL;

const STAGE_TIMES: [(Stages, u64); 4] = [(QOE, 51_000), (DEQ, 0), (OUT, 60_000), (VIS, 60_500)];

fn raw(domain: (TimeDomain, u64), stages: &[(Stages, u64)]) -> RawTiming<'_> {
    RawTiming {
        present_id: 42,
        domain,
        complete: true,
        stages,
    }
}

fn times(r: &TimingReport) -> [Option<u64>; 4] {
    let s = r.stages;
    [
        s.queue_operations_end,
        s.request_dequeued,
        s.first_pixel_out,
        s.first_pixel_visible,
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
    let mut book = TimingBook::new(QOE | DEQ | OUT | VIS);
    book.calibrated(calibration_from((SWAP, 2), &[], &reading), 1);
    let r = book.convert(&raw((SWAP, 2), &STAGE_TIMES));
    assert_eq!((r.present_id, r.complete), (42, true));
    let none = None;
    assert_eq!(times(&r), [Some(32_000), none, Some(41_000), Some(41_500)]);
    assert_eq!(book.target_time(41_000), Some(60_000));
    assert!(!book.after_read(2_000).domains, "calibrated, not due");

    // Fallback to CLOCK_MONOTONIC: the host mapping applies.
    let r = book.convert(&raw((MONO, 3), &STAGE_TIMES[..1]));
    assert_eq!(times(&r), [Some(2_000), None, None, None]);
    assert!(!book.after_read(2_000).domains);

    // Another swapchain-local id: no calibration, times dropped, re-read when due.
    let r = book.convert(&raw((SWAP, 7), &STAGE_TIMES));
    assert_eq!(times(&r), [None; 4]);
    assert_eq!(r.present_id, 42);
    assert!(!book.after_read(2_000).domains, "not every frame");
    assert!(book.after_read(1_000 + RECALIBRATE_NS).domains);
}

#[test]
fn stage_local_results_use_their_own_offsets_and_targets_the_latest_stage() {
    let reading = Reading {
        mid_ns: 100,
        bracket_ns: 1,
        monotonic: 1,
        locals: [1_000, 5_000, 0, 0],
    };
    let mut book = TimingBook::new(QOE | VIS);
    book.calibrated(calibration_from((STAGE, 1), &[QOE, VIS], &reading), 4);
    assert_eq!(book.target_stage_local(), Some(VIS));
    let r = book.convert(&raw((STAGE, 1), &STAGE_TIMES));
    assert_eq!(times(&r), [Some(50_100), None, None, Some(55_600)]);
    // Targets are in the target stage's (VIS) domain.
    assert_eq!(book.target_time(55_100), Some(60_000));
    // A domain whose zero is later than the shell's: a time before it is 1, as soon as
    // possible (0 would mean no target).
    let late_zero = Reading {
        mid_ns: 100_000,
        ..reading
    };
    book.calibrated(calibration_from((STAGE, 1), &[QOE, VIS], &late_zero), 5);
    assert_eq!(book.target_time(50_000), Some(1));
    assert_eq!(book.target_time(95_001), Some(1));
    assert_eq!(book.target_time(95_002), Some(2));
}

#[test]
fn without_a_calibration_nothing_converts_and_no_target_is_given() {
    let mut book = TimingBook::new(QOE | VIS);
    assert_eq!(
        times(&book.convert(&raw((MONO, 0), &STAGE_TIMES))),
        [None; 4]
    );
    assert_eq!(book.target_time(5), None);
    assert!(
        book.after_read(RECALIBRATE_NS).domains,
        "stale until calibrated"
    );
    assert_eq!(book.target_stage_local(), None);
}

#[test]
fn moved_counters_and_a_pending_refresh_are_read_again() {
    let mut book = TimingBook::new(QOE);
    book.refresh_read(None, 3);
    assert_eq!(book.refresh(), RefreshCycle::Unknown);
    assert!(book.after_read(0).refresh, "not ready: asked again");
    book.reported_refresh_read(Some((16_666_667, 0)), 4);
    assert_eq!(
        book.refresh(),
        RefreshCycle::Fixed {
            duration_ns: 16_666_667
        }
    );
    assert_eq!(book.refresh_reported(), Some((16_666_667, 0)));
    assert!(!book.after_read(0).refresh);
    // An engine with no refresh limit: read, and no grid.
    book.reported_refresh_read(Some((1, 1)), 5);
    assert_eq!(book.refresh(), RefreshCycle::Unknown);
    assert!(!book.after_read(0).refresh, "read: not asked again");
    book.calibrated(calibration_from((MONO, 0), &[], &Reading::default()), 9);
    assert_eq!(book.counters_seen(5, 9), Rereads::default());
    let both = Rereads {
        refresh: true,
        domains: true,
    };
    assert_eq!(book.counters_seen(6, 10), both);
}

#[test]
fn a_calibration_that_read_zero_is_stale() {
    let mut book = TimingBook::new(QOE);
    // The domain was gone: the local reading is 0, no stage mapped.
    book.calibrated(calibration_from((SWAP, 2), &[], &Reading::default()), 1);
    assert!(book.after_read(RECALIBRATE_NS).domains);
    let mono = calibration_from((MONO, 0), &[], &Reading::default());
    book.calibrated(mono, 2);
    assert!(
        !book.after_read(RECALIBRATE_NS).domains,
        "the host clock never drifts"
    );
}

#[test]
fn results_in_a_domain_with_no_calibration_are_counted_as_unmapped() {
    let mut book = TimingBook::new(QOE | VIS);
    book.calibrated(calibration_from((SWAP, 2), &[], &Reading::default()), 1);
    // A domain never offered (CLOCK_MONOTONIC_RAW is 4): times dropped, counted.
    let foreign = raw((TimeDomain(4), 99), &STAGE_TIMES);
    for n in 1..=3 {
        let r = book.convert(&foreign);
        assert!(r.unmapped);
        assert_eq!(times(&r), [None; 4]);
        assert_eq!(book.unmapped(), n);
    }
    // The host clock maps; a result with no stage time lost nothing.
    let host = book.convert(&raw((MONO, 0), &STAGE_TIMES));
    assert!(!host.unmapped);
    let empty = book.convert(&raw((TimeDomain(4), 99), &[(QOE, 0)]));
    assert!(!empty.unmapped);
    assert_eq!(book.unmapped(), 3);
}
