//! The configuration every property test of this crate runs with: `VKPACE_SCHEDULES` random
//! cases (default 10,000; `scripts/test` sets it), and no failure files written into the
//! source tree (a failure prints its case, which reproduces it).

use proptest::test_runner::Config;

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
