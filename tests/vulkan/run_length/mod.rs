//! How long the suite's repeated runs are. `scripts/test` runs them at a default length that
//! covers every case; `scripts/test --full` (what a release runs) sets `VKPACE_FULL=1` and runs
//! them at the length the issues named. The extra frames add confidence, not coverage: every
//! combination still runs in both.

/// `full` frames under `VKPACE_FULL`, else `default`.
pub fn frames(default: u64, full: u64) -> u64 {
    if full_length() {
        full
    } else {
        default
    }
}

/// Whether the whole matrix runs (`VKPACE_FULL`, `scripts/test --full`).
pub fn full_length() -> bool {
    std::env::var_os("VKPACE_FULL").is_some()
}
