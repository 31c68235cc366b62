//! The configuration every property test of this crate runs with: `VKPACE_SCHEDULES` random
//! cases (default 10,000; `scripts/test` sets it), and no failure files written into the
//! source tree (a failure prints its case, which reproduces it); the world's faults both doors'
//! schedules draw.

use proptest::prelude::*;
use proptest::test_runner::Config;
use vkpace_sim::world::Faults;

/// The property tests' configuration.
#[allow(dead_code)]
pub fn config() -> Config {
    config_scaled(1)
}

/// [`config`] with `1 / divisor` as many cases, for schedules that each run long.
#[allow(dead_code)]
pub fn config_scaled(divisor: u32) -> Config {
    let cases = std::env::var("VKPACE_SCHEDULES")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(10_000)
        / divisor.max(1);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

/// Most percent of retired swapchains whose present fences never signal (seen on drivers): the
/// doors' bounded waits give such a fence up for the proof by an empty submission.
const FENCES_NEVER_SIGNAL: u32 = 30;

/// The world's faults, as both doors' schedules draw them: GPU delays, out of date, suboptimal,
/// stale and failed presents, present fences that never signal, and up to `max_not_ready`
/// percent of acquires that get no image.
#[allow(dead_code)]
pub fn world_faults(max_not_ready: u32) -> impl Strategy<Value = Faults> {
    (
        0u32..=6,
        0u32..=8,
        0u32..=8,
        0u32..=5,
        0u32..=2,
        0u32..=max_not_ready,
        0u32..=FENCES_NEVER_SIGNAL,
    )
        .prop_map(|(delay, ood, sub, stale, fail, not_ready, never)| Faults {
            max_gpu_delay: delay,
            p_out_of_date: ood,
            p_suboptimal: sub,
            p_fence_never: never,
            p_present_fail: fail,
            p_present_stale: stale,
            p_not_ready: not_ready,
        })
}
