//! Random offers of display paths and engine clocks, as the shell would find them: shared by
//! the schedules of both doors (`core_properties.rs`, `door_properties.rs`).

use proptest::prelude::*;
use vkpace_core::{DisplayOffer, TimingOffer};
use vkpace_sim::world::ClockFaults;

/// A random offer of display paths, as the shell would find them (`DisplayOffer`): each path
/// asked for or not, and what the surface and device say, each capability there three times
/// in four, so that every outcome of `choose_paths` comes up.
pub fn display_offer(bits: u32) -> DisplayOffer {
    let bit = |i: u32| bits >> i & 1 == 1;
    let mostly = |i: u32| bit(i) || bit(i + 1);
    let timing = mostly(3).then_some(TimingOffer {
        surface_timing: mostly(5),
        surface_present_id2: mostly(7),
        host_clock_calibrateable: mostly(9),
        relative_targets: bit(11),
        absolute_targets: mostly(12),
    });
    DisplayOffer {
        present_wait: bit(0),
        present_wait2: bit(1).then_some(bit(2)),
        timing,
    }
}

/// How the engine's clocks behave: results in `CLOCK_MONOTONIC` or a local domain that needs a
/// calibration, a foreign domain now and then, counters that move, `VK_NOT_READY` refreshes.
pub fn clock_faults() -> impl Strategy<Value = ClockFaults> {
    (
        any::<bool>(),
        any::<u32>(),
        0u32..=2,
        (0u32..=3, 0u32..=3, 0u32..=10, 0u32..=5),
    )
        .prop_map(
            |(monotonic, offset, not_ready, (refresh, domain, mono, foreign))| ClockFaults {
                offers_monotonic: monotonic,
                monotonic_offset: u64::from(offset) * 1_000,
                max_not_ready: not_ready,
                p_refresh_change: refresh,
                p_domain_change: domain,
                p_monotonic_result: mono,
                p_foreign_result: foreign,
            },
        )
}
