//! The configuration every property test of this crate runs with: `VKPACE_SCHEDULES` random
//! cases (default 10,000; `scripts/test` sets it), and no failure files written into the
//! source tree (a failure prints its case, which reproduces it).

use proptest::test_runner::Config;

/// The property tests' configuration.
pub fn config() -> Config {
    let cases = std::env::var("VKPACE_SCHEDULES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}
