//! The door's random schedules: the application's loop, the door's settings (present timing
//! among them) and the world's faults, and the calm schedule the deterministic tests start
//! from.

use proptest::prelude::*;
use vkpace_core::{FrameLimit, PacingPolicy};
use vkpace_sim::pacer_driver::PacerParams;
use vkpace_sim::pacer_timing::PacerTiming;
use vkpace_sim::world::Faults;

use super::textbook::Textbook;
use crate::offers::{clock_faults, display_offer};

/// One random schedule of the door: the application's loop, the door's settings, the world's
/// faults.
#[derive(Debug, Clone)]
pub struct Schedule {
    pub seed: u64,
    pub app: Textbook,
    pub door: PacerParams,
    pub faults: Faults,
    /// Percent per step: the application sets a new frames-in-flight limit (1..=3).
    pub p_change_n: u32,
    /// The display's refresh, ns (0: none; each present shown once ready). On a refresh grid
    /// the display holds each image until it was shown.
    pub refresh_ns: u64,
    /// With present timing: the results-queue slots the world's engine really has per
    /// swapchain, and whether it reports ready times before a present is shown.
    pub engine_slots: u32,
    pub partial_results: bool,
}

/// Present timing in a schedule: the door's settings for it, and the world's engine.
#[derive(Debug, Clone, Copy)]
struct Timed {
    timing: PacerTiming,
    engine_slots: u32,
    partial_results: bool,
    /// Percent of swapchains made in MAILBOX (no targets there).
    p_mailbox: u32,
    /// Percent of presents that switch the present mode (`Textbook::p_mode_switch`).
    p_mode_switch: u32,
}

/// Present timing in a third of the schedules: a random offer of the surface and device
/// (`display_offer`, with the present timing path usable three times in four: relative,
/// absolute or no targets), the engine's clocks (`clock_faults`), 1 to 8 slots given and up
/// to 2 fewer (it then refuses a present) or 2 more in the engine, partial results or not, and
/// up to a third of the swapchains in MAILBOX; in half of them, presents that switch the
/// present mode now and then, as DXVK's do.
fn timed() -> impl Strategy<Value = Option<Timed>> {
    let timed = (
        (any::<u32>(), 0u32..4, any::<u64>()),
        clock_faults(),
        (1u32..=8, 0u32..=4, any::<bool>(), 0u32..=33),
        prop_oneof![Just(0u32), 1u32..=10],
    )
        .prop_map(
            |(
                (bits, usable, seed),
                clocks,
                (slots, more, partial_results, p_mailbox),
                p_mode_switch,
            )| {
                // Bits 3, 5, 7 and 9: present timing asked for, the surface supports it and
                // present ids 2, the host clock calibrates.
                let usable_bits = if usable > 0 { 0x2A8 } else { 0 };
                Timed {
                    timing: PacerTiming {
                        offer: display_offer(bits | usable_bits),
                        clocks,
                        slots,
                        seed,
                    },
                    engine_slots: (slots + more).saturating_sub(2).max(1),
                    partial_results,
                    p_mailbox,
                    p_mode_switch,
                }
            },
        );
    prop_oneof![2 => Just(None), 1 => timed.prop_map(Some)]
}

/// Whether the door adds present ids: with present timing, as the Vulkan shell, where the
/// device enabled either feedback path or present timing; else as the schedule drew.
fn present_ids(timed: Option<Timed>, drawn: bool) -> bool {
    match timed.map(|t| t.timing.offer) {
        Some(o) => o.present_wait || o.present_wait2.is_some() || o.timing.is_some(),
        None => drawn,
    }
}

/// The pacing policies the door's schedules draw from.
const POLICIES: [PacingPolicy; 4] = [
    PacingPolicy::FramesInFlight,
    PacingPolicy::LowLatency,
    PacingPolicy::Display,
    PacingPolicy::Grid,
];

pub fn schedule() -> impl Strategy<Value = Schedule> {
    (
        (any::<u64>(), 1usize..=3, 1usize..=6, 1usize..=3, 1u32..=4),
        (100u32..=600, 0u32..=20, 0u32..=4, 0u64..=20),
        crate::proptest_cases::world_faults(10),
        (
            any::<bool>(),
            0u32..3,
            0usize..POLICIES.len(),
            0usize..4,
            prop_oneof![Just(0u32), 1u32..=10],
        ),
        timed(),
        prop_oneof![Just(0u32), 1u32..=100],
    )
        .prop_map(
            |(
                (seed, n, max_retired, app_frames, min_images),
                (steps, p_resize, p_reopen, refresh),
                faults,
                (fences, ids, policy, limit, p_change_n),
                timed,
                p_destroy_beside,
            )| Schedule {
                seed,
                p_change_n,
                refresh_ns: if refresh < 2 { 0 } else { refresh * 100_000 },
                faults,
                engine_slots: timed.map_or(16, |t| t.engine_slots),
                partial_results: timed.is_some_and(|t| t.partial_results),
                app: Textbook {
                    app_frames,
                    min_images,
                    steps,
                    p_resize,
                    p_reopen,
                    own_ids: ids == 2,
                    p_mailbox: timed.map_or(0, |t| t.p_mailbox),
                    p_mode_switch: timed.map_or(0, |t| t.p_mode_switch),
                },
                door: PacerParams {
                    frames_in_flight: n,
                    max_retired,
                    repair: true,
                    present_fences: fences,
                    present_ids: present_ids(timed, ids >= 1),
                    pacing: POLICIES[policy],
                    // Frames take a few 100 us ticks of virtual time: these limits sleep.
                    frame_limit: [
                        None,
                        None,
                        FrameLimit::fps(2_000.0).ok(),
                        FrameLimit::fps(500.0).ok(),
                    ][limit],
                    timing: timed.map(|t| t.timing),
                    p_destroy_beside,
                },
            },
        )
}

/// A calm schedule of the door: two per-frame sets, two frames in flight, no faults; tests
/// switch on what they need.
pub fn quiet(seed: u64) -> Schedule {
    Schedule {
        seed,
        app: Textbook {
            app_frames: 2,
            min_images: 2,
            steps: 20_000,
            p_resize: 0,
            p_reopen: 0,
            own_ids: false,
            p_mailbox: 0,
            p_mode_switch: 0,
        },
        door: PacerParams {
            frames_in_flight: 2,
            max_retired: 5,
            repair: true,
            present_fences: false,
            present_ids: false,
            pacing: PacingPolicy::FramesInFlight,
            frame_limit: None,
            timing: None,
            p_destroy_beside: 0,
        },
        faults: Faults {
            max_gpu_delay: 5,
            ..Faults::default()
        },
        p_change_n: 0,
        refresh_ns: 0,
        engine_slots: 16,
        partial_results: false,
    }
}
