//! Property tests of the second door (`PresentPacer`'s machine) against the simulated GPU,
//! presentation engine and display: an application that owns its swapchain runs the textbook
//! loop in random schedules (seeded; a failure prints its parameters), through the door's shell
//! (`vkpace_sim::pacer_driver`), and every step is judged on the world's ground truth, never on
//! the machine's own bookkeeping. `VKPACE_SCHEDULES` scales the number of schedules as for
//! `core_properties.rs`.

mod door;
mod proptest_cases;

use door::judge::{judge, judge_teardown, Limits, Seen};
use door::textbook::{App, Facts, Textbook};
use proptest::prelude::*;
use proptest_cases::world_faults;
use vkpace_core::PresentPacerStats;
use vkpace_core::{FrameLimit, PacingPolicy};
use vkpace_sim::own_swapchain::Bare;
use vkpace_sim::pacer_driver::{PacerParams, SimPacer};
use vkpace_sim::pacer_truth::PacerTruth;
use vkpace_sim::world::{Faults, World};

/// The door's schedules are a fifth of `VKPACE_SCHEDULES` (each runs an application and the
/// door over hundreds of steps).
const DIVISOR: u32 = 5;

/// The negative control: the textbook loop on the driver alone signals a present semaphore
/// again while the present that waited on it may still be queued, and the world says so
/// (the property tests' judge of the door is this world).
#[test]
fn without_the_door_the_textbook_loop_breaks_00067() {
    // The calm schedule's application and world, without the door.
    let calm = quiet(1);
    let world = World::new(calm.seed, calm.faults);
    let mut judge = |_: &mut Bare, _: &Facts| Ok(());
    let err = App::new(Bare { world }, calm.app, &mut judge)
        .and_then(App::run)
        .expect_err("the driver alone lets the textbook loop break a rule");
    assert!(err.contains("00067"), "{err}");
}

/// One random schedule of the door: the application's loop, the door's settings, the world's
/// faults.
#[derive(Debug, Clone)]
struct Schedule {
    seed: u64,
    app: Textbook,
    door: PacerParams,
    faults: Faults,
    /// Percent per step: the application sets a new frames-in-flight limit (1..=3).
    p_change_n: u32,
    /// The display's refresh, ns (0: none; each present shown once ready). On a refresh grid
    /// the display holds each image until it was shown.
    refresh_ns: u64,
}

fn schedule() -> impl Strategy<Value = Schedule> {
    (
        (any::<u64>(), 1usize..=3, 1usize..=6, 1usize..=3, 1u32..=4),
        (100u32..=600, 0u32..=20, 0u32..=4, 0u64..=20),
        world_faults(10),
        (
            any::<bool>(),
            0u32..3,
            0usize..3,
            0usize..4,
            prop_oneof![Just(0u32), 1u32..=10],
        ),
    )
        .prop_map(
            |(
                (seed, n, max_retired, app_frames, min_images),
                (steps, p_resize, p_reopen, refresh),
                faults,
                (fences, ids, policy, limit, p_change_n),
            )| Schedule {
                seed,
                p_change_n,
                refresh_ns: if refresh < 2 { 0 } else { refresh * 100_000 },
                faults,
                app: Textbook {
                    app_frames,
                    min_images,
                    steps,
                    p_resize,
                    p_reopen,
                    own_ids: ids == 2,
                },
                door: PacerParams {
                    frames_in_flight: n,
                    max_retired,
                    repair: true,
                    present_fences: fences,
                    present_ids: ids >= 1,
                    pacing: [
                        PacingPolicy::FramesInFlight,
                        PacingPolicy::LowLatency,
                        PacingPolicy::Display,
                    ][policy],
                    // Frames take a few 100 us ticks of virtual time: these limits sleep.
                    frame_limit: [
                        None,
                        None,
                        FrameLimit::fps(2_000.0).ok(),
                        FrameLimit::fps(500.0).ok(),
                    ][limit],
                },
            },
        )
}

/// What a schedule did: the application's facts, what the shell made in the world, the
/// machine's counters and the judge's maxima.
#[derive(Debug)]
struct Outcome {
    facts: Facts,
    truth: PacerTruth,
    stats: PresentPacerStats,
    seen: Seen,
}

/// Runs one schedule through the door, judging every step and the teardown.
fn run(s: &Schedule) -> Result<Outcome, String> {
    let mut world = World::new(s.seed, s.faults.clone());
    world.display.config.refresh_ns = s.refresh_ns;
    world.display.config.phase_ns = s.refresh_ns / 3;
    let sim = SimPacer::new(&s.door, world).map_err(|e| format!("{e:?}"))?;
    // With the limit changed at run time, presents queued under an earlier, larger one stay.
    let changes = s.p_change_n > 0;
    let limits = Limits {
        frames_in_flight: if changes { 3 } else { s.door.frames_in_flight },
        max_retired: s.door.max_retired,
        max_images: s.app.min_images as usize + 2,
    };
    let mut seen = Seen::default();
    let mut after_step = |sim: &mut SimPacer, facts: &Facts| {
        if sim.world.rng.chance(s.p_change_n) {
            let n = 1 + sim.world.rng.below(3) as usize;
            sim.machine
                .set_frames_in_flight(n)
                .map_err(|e| e.to_string())?;
        }
        judge(sim, facts, &limits, &mut seen)
    };
    let (facts, sim) = App::new(sim, s.app.clone(), &mut after_step)?.run()?;
    judge_teardown(&sim)?;
    Ok(Outcome {
        facts,
        stats: sim.machine.stats(),
        truth: sim.truth,
        seen,
    })
}

proptest! {
    #![proptest_config(proptest_cases::config_scaled(DIVISOR))]

    /// The textbook loop through the door, in random schedules (per-frame semaphores reused,
    /// out of date, suboptimal, not ready, failed and stale presents, resizes with the old
    /// swapchain destroyed at once, windows closed and opened, present ids and fences or not,
    /// every pacing policy): no repair semaphore signalled again or destroyed while a present
    /// may wait on it, no swapchain destroyed before it is idle, destroyed ones gone within
    /// the stated bounds, repair semaphores within the design's bound, the CPU at most N
    /// presents ahead of the repairs' completion, and teardown releases everything.
    #[test]
    fn the_door_keeps_every_rule_in_random_schedules(s in schedule()) {
        let described = format!("{s:?}");
        run(&s).map_err(|e| TestCaseError::fail(format!("{e}\n  schedule: {described}")))?;
    }
}

/// A calm schedule of the door: two per-frame sets, two frames in flight, no faults; tests
/// switch on what they need.
fn quiet(seed: u64) -> Schedule {
    Schedule {
        seed,
        app: Textbook {
            app_frames: 2,
            min_images: 2,
            steps: 20_000,
            p_resize: 0,
            p_reopen: 0,
            own_ids: false,
        },
        door: PacerParams {
            frames_in_flight: 2,
            max_retired: 5,
            repair: true,
            present_fences: false,
            present_ids: false,
            pacing: PacingPolicy::FramesInFlight,
            frame_limit: None,
        },
        faults: Faults {
            max_gpu_delay: 5,
            ..Faults::default()
        },
        p_change_n: 0,
        refresh_ns: 0,
    }
}

/// The properties are not vacuous in the steady textbook loop: every present is repaired, the
/// repair semaphores are reused (a handful for thousands of presents), the gate holds the CPU
/// back and the GPU does hold N - 1 repairs between the application's calls (the door gates at
/// the end of a present: the present's own repair is the N-th), for each N.
#[test]
fn the_steady_loop_is_repaired_gated_and_reuses_semaphores() {
    for n in 1..=3 {
        let mut s = quiet(100 + n as u64);
        s.door.frames_in_flight = n;
        let out = run(&s).unwrap();
        let presents = out.facts.presents;
        assert!(presents > 2_000, "n={n}: {out:?}");
        assert_eq!(out.truth.repair_count, presents, "n={n}: {out:?}");
        assert!(out.stats.semaphores_created < 30, "n={n}: {out:?}");
        assert!(out.stats.gate_waits > 100, "n={n}: {out:?}");
        assert!(out.seen.repairs_pending + 1 >= n, "n={n}: {out:?}");
    }
}

/// A resize at every step: the application recreates and destroys its old swapchain at once,
/// every frame; the door defers each destruction until idle (the world checked each), keeps
/// the waiting ones within the cap (bounded waits when over it), and the one left at the end
/// goes at teardown.
#[test]
fn a_resize_storm_destroys_every_old_swapchain_within_the_cap() {
    let mut s = quiet(7);
    s.app.p_resize = 100;
    let out = run(&s).unwrap();
    assert!(out.facts.created > 1_000, "{out:?}");
    assert_eq!(
        out.truth.destroyed.len() as u64,
        out.facts.created,
        "{out:?}"
    );
    assert_eq!(out.seen.destroyed_waiting, 5, "{out:?}");
    assert!(out.stats.fallback_waits > 0, "{out:?}");
}

/// Out of date, suboptimal, not ready, stale and failed presents, windows closed and opened:
/// every answer of the driver passes to the application, and the bookkeeping holds (judged at
/// every step, teardown clean).
#[test]
fn the_drivers_answers_never_break_the_bookkeeping() {
    let mut s = quiet(9);
    s.app.p_reopen = 2;
    s.faults = Faults {
        max_gpu_delay: 8,
        p_out_of_date: 5,
        p_suboptimal: 5,
        p_present_fail: 2,
        p_present_stale: 5,
        p_not_ready: 20,
        ..Faults::default()
    };
    let out = run(&s).unwrap();
    let f = &out.facts;
    assert!(f.acquires_not_ready > 500, "{out:?}");
    assert!(f.acquires_out_of_date > 50, "{out:?}");
    assert!(f.stale_presents > 50 && f.failed_presents > 10, "{out:?}");
    assert!(out.stats.semaphores_poisoned > 10, "{out:?}");
    assert!(
        f.destroyed.iter().filter(|d| !d.successor).count() > 10,
        "{out:?}"
    );
    assert!(f.presents > 1_000, "{out:?}");
}

/// Present ids (the door's, and the application's own, which the door leaves alone) and
/// present fences: ids grow per swapchain (the world checks), the display is asked about the
/// door's, and present fences signal and free what they prove.
#[test]
fn present_ids_and_fences_are_added_only_where_the_application_has_none() {
    for (own_ids, refresh_ns) in [(false, 0), (true, 0), (false, 800_000)] {
        let mut s = quiet(13);
        s.refresh_ns = refresh_ns;
        s.app.own_ids = own_ids;
        s.app.p_resize = 2;
        s.door.present_ids = true;
        s.door.present_fences = true;
        let out = run(&s).unwrap();
        let ids = out.truth.ids_sent;
        assert!(ids > 1_000, "{own_ids}: {out:?}");
        assert_eq!(out.stats.present_ids_added == 0, own_ids, "{out:?}");
        // The door asks the display about its own ids only.
        assert_eq!(out.seen.frames_displayed == 0, own_ids, "{out:?}");
        assert!(out.truth.present_fences_signalled > 1_000, "{out:?}");
    }
}

/// With the repair switched off the door passes the application's semaphore to the present,
/// and the textbook loop breaks 00067 again: the switch is real, and the repair is what keeps
/// the loop valid.
#[test]
fn without_the_repair_the_textbook_loop_breaks_00067_again() {
    let mut s = quiet(17);
    s.door.repair = false;
    let err = run(&s).expect_err("the loop's own reuse reaches the present");
    assert!(err.contains("00067"), "{err}");
}

/// Frames in flight changed at run time (lowered while presents are queued) under a frame
/// limit that sleeps and each pacing policy: presents wait for a repair semaphore's proof where
/// a history filled under a larger limit, the pacing sleeps, and every rule holds.
#[test]
fn frames_in_flight_changes_and_frame_limits_keep_every_rule() {
    let mut waits = 0;
    for (i, pacing) in [
        PacingPolicy::FramesInFlight,
        PacingPolicy::LowLatency,
        PacingPolicy::Display,
    ]
    .into_iter()
    .enumerate()
    {
        let mut s = quiet(21 + i as u64);
        s.p_change_n = 5;
        s.app.p_resize = 1;
        s.door.pacing = pacing;
        s.door.frame_limit = FrameLimit::fps(500.0).ok();
        let out = run(&s).unwrap();
        assert!(out.stats.pacing_sleeps > 100, "{pacing:?}: {out:?}");
        assert!(out.facts.presents > 1_000, "{pacing:?}: {out:?}");
        waits += out.truth.history_waits;
    }
    assert!(waits > 0, "no present waited for a proof");
}
