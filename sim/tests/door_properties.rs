//! Property tests of the second door (`PresentPacer`'s machine) against the simulated GPU,
//! presentation engine and display: an application that owns its swapchain runs the textbook
//! loop in random schedules (seeded; a failure prints its parameters), through the door's shell
//! (`vkpace_sim::pacer_driver`), and every step is judged on the world's ground truth, never on
//! the machine's own bookkeeping. `VKPACE_SCHEDULES` scales the number of schedules as for
//! `core_properties.rs`.

mod door;
mod offers;
mod proptest_cases;

use door::judge::{judge, judge_teardown, Limits, Seen};
use door::schedule::{quiet, schedule, Schedule};
use door::textbook::{App, Facts};
use proptest::prelude::*;
use vkpace_core::PresentPacerStats;
use vkpace_core::{choose_paths, DisplayOffer, PresentTarget, Targets, TimingOffer};
use vkpace_core::{FrameLimit, PacingPolicy};
use vkpace_sim::own_swapchain::Bare;
use vkpace_sim::pacer_driver::SimPacer;
use vkpace_sim::pacer_timing::PacerTiming;
use vkpace_sim::pacer_truth::PacerTruth;
use vkpace_sim::world::ClockFaults;
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

/// What a schedule did: the application's facts, what the shell made in the world, the
/// machine's counters and the judge's maxima.
#[derive(Debug)]
struct Outcome {
    facts: Facts,
    truth: PacerTruth,
    stats: PresentPacerStats,
    seen: Seen,
    /// Destroys carried out beside a present, and their waits that met the present in flight.
    beside: (u64, u64),
    /// First-pixel times and targets of the latest presents the world's display showed.
    shown: Vec<(u64, PresentTarget)>,
}

/// Runs one schedule through the door, judging every step and the teardown.
fn run(s: &Schedule) -> Result<Outcome, String> {
    let mut world = World::new(s.seed, s.faults.clone());
    world.display.config.refresh_ns = s.refresh_ns;
    world.display.config.phase_ns = s.refresh_ns / 3;
    world.display.config.timing_slots = s.engine_slots;
    world.display.config.partial_results = s.partial_results;
    let sim = SimPacer::new(&s.door, world).map_err(|e| format!("{e:?}"))?;
    // With the limit changed at run time, presents queued under an earlier, larger one stay.
    let changes = s.p_change_n > 0;
    let limits = Limits {
        frames_in_flight: if changes { 3 } else { s.door.frames_in_flight },
        max_retired: s.door.max_retired,
        max_images: s.app.min_images as usize + 2,
        timing_slots: s.door.timing.map(|t| (t.slots, s.engine_slots)),
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
    let d = &sim.world.display.shown;
    let shown = d
        .iter()
        .filter_map(|p| Some((p.shown?, p.target)))
        .collect();
    Ok(Outcome {
        shown,
        facts,
        stats: sim.machine.stats(),
        truth: sim.truth,
        seen,
        beside: (sim.beside.destroys, sim.beside.waits_for_present),
    })
}

proptest! {
    #![proptest_config(proptest_cases::config_scaled(DIVISOR))]

    /// The textbook loop through the door, in random schedules (per-frame semaphores reused,
    /// out of date, suboptimal, not ready, failed and stale presents, resizes with the old
    /// swapchain destroyed at once, windows closed and opened, present ids and fences or not,
    /// every pacing policy, present timing on a third, some swapchains in MAILBOX): no repair
    /// semaphore signalled again or destroyed while a present may wait on it, no swapchain
    /// destroyed before it is idle, destroyed ones gone within the stated bounds, repair
    /// semaphores within the design's bound, the CPU at most N presents ahead of the repairs'
    /// completion, present timing's targets only in FIFO (the world checks), its results
    /// vkpace's, its results queue within the slots given, and teardown releases everything.
    #[test]
    fn the_door_keeps_every_rule_in_random_schedules(s in schedule()) {
        let described = format!("{s:?}");
        run(&s).map_err(|e| TestCaseError::fail(format!("{e}\n  schedule: {described}")))?;
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

/// The destroy of a recreated swapchain made from another thread while the next present is
/// between the door's plan and its result (what the layer's shared door lets in): over the cap
/// of 1, each one forces a bounded wait, whose proof submission waits for the present in
/// flight; every old swapchain still goes, every rule holds (judged at every step).
#[test]
fn destroys_beside_a_present_keep_every_rule() {
    let mut s = quiet(11);
    s.app.p_resize = 100;
    s.door.max_retired = 1;
    s.door.p_destroy_beside = 100;
    let out = run(&s).unwrap();
    eprintln!(
        "{} swapchains made; destroys beside a present: {}, their waits meeting the present in flight: {}",
        out.facts.created, out.beside.0, out.beside.1
    );
    assert!(out.facts.created > 1_000, "{out:?}");
    assert!(
        out.beside.0 > 500,
        "destroys beside a present: {:?}",
        out.beside
    );
    assert!(
        out.beside.1 > 0,
        "waits for the present in flight: {:?}",
        out.beside
    );
    assert_eq!(
        out.truth.destroyed.len() as u64,
        out.facts.created,
        "{out:?}"
    );
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
/// present fences: ids grow per swapchain (the world checks), the display is asked about each
/// frame's present by its id, the door's or the application's (DXVK gives every present one:
/// the door's display feedback under it), and present fences signal and free what they prove.
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
        // The display is asked about the frames by whichever ids their presents carried.
        assert!(out.seen.frames_displayed > 100, "{own_ids}: {out:?}");
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

/// Present timing for a surface whose offer makes the core choose `targets`, with `slots`
/// results-queue slots given, the engine's clocks in `CLOCK_MONOTONIC`.
fn timing_on(targets: Targets, slots: u32) -> PacerTiming {
    let offer = DisplayOffer {
        present_wait: false,
        present_wait2: None,
        timing: Some(TimingOffer {
            surface_timing: true,
            surface_present_id2: true,
            host_clock_calibrateable: true,
            relative_targets: targets == Targets::Relative,
            absolute_targets: targets == Targets::Absolute,
        }),
    };
    assert_eq!(choose_paths(&offer).timing, Some(targets));
    PacerTiming {
        offer,
        clocks: ClockFaults {
            offers_monotonic: true,
            ..ClockFaults::default()
        },
        slots,
        seed: 5,
    }
}

/// Present timing on each path the core can choose (relative, absolute and no targets), with
/// resizes and a fifth of the swapchains in MAILBOX, two results slots given and an engine
/// with more (the world would take more stage queries than given: the judge counts them) or
/// with one (it refuses a present): every swapchain is timed, FIFO presents carry targets (the
/// world refuses one in MAILBOX), results come back and name vkpace's presents, each
/// swapchain's queue is refused at most once and only by the smaller engine, and every rule of
/// the door holds.
#[test]
fn present_timing_is_carried_out_on_every_path() {
    let paths = [
        (Targets::Absolute, 4),
        (Targets::Relative, 1),
        (Targets::None, 1),
    ];
    for (i, (targets, engine_slots)) in paths.into_iter().enumerate() {
        let mut s = quiet(31 + i as u64);
        s.refresh_ns = 1_000_000;
        s.app.steps = 12_000;
        s.app.p_resize = 1;
        s.app.p_mailbox = 20;
        s.door.present_ids = true;
        s.door.frame_limit = FrameLimit::fps(500.0).ok();
        s.door.timing = Some(timing_on(targets, 2));
        s.engine_slots = engine_slots;
        s.partial_results = targets == Targets::Absolute;
        let out = run(&s).unwrap();
        let (t, f) = (&out.truth.timing, &out.facts);
        let case = format!("{targets:?}: {out:?}");
        assert_eq!(t.swapchains_timed, f.created, "{case}");
        assert!(f.created > 10 && f.mailbox_created > 0, "{case}");
        let complete = t.results.iter().filter(|r| r.2).count();
        assert!(complete > 200, "{case}");
        assert_eq!(t.refused.is_empty(), engine_slots >= 2, "{case}");
        assert!(out.seen.timing_slots_held > 0, "{case}");
        match targets {
            Targets::None => assert_eq!(t.targets, 0, "{case}"),
            _ => assert!(t.targets > 200, "{case}"),
        }
    }
}

/// Presents that switch the present mode, as DXVK's do (every present chains the mode; one in
/// ten draws FIFO, FIFO_RELAXED, MAILBOX or IMMEDIATE, so about one present in thirteen
/// switches), with relative and absolute
/// targets: a target goes only with a present whose swapchain is in a FIFO mode before it and
/// after it (the world refuses any other, VUID-VkPresentTimingsInfoEXT-pSwapchains-12235), and
/// presents in FIFO modes still carry them.
#[test]
fn present_mode_switches_take_targets_only_between_fifo_modes() {
    for (i, targets) in [Targets::Relative, Targets::Absolute]
        .into_iter()
        .enumerate()
    {
        let mut s = quiet(51 + i as u64);
        s.refresh_ns = 1_000_000;
        s.app.steps = 12_000;
        s.app.p_mode_switch = 10;
        s.door.present_ids = true;
        s.door.frame_limit = FrameLimit::fps(500.0).ok();
        s.door.timing = Some(timing_on(targets, 4));
        let out = run(&s).unwrap();
        let case = format!("{targets:?}: {out:?}");
        assert!(out.facts.mode_switches > 100, "{case}");
        assert!(out.truth.timing.targets > 200, "{case}");
    }
}

/// A 30 fps limit on a 60 Hz display with relative targets and no faults but GPU delays:
/// once settled (the display keeps its latest 256 frames), every frame is shown exactly 2
/// refreshes after the one before it, each asked for with a relative target of 2 refreshes.
#[test]
fn a_30_fps_limit_at_60_hz_shows_every_frame_two_refreshes_apart() {
    let refresh = 16_666_667;
    let mut s = quiet(37);
    s.refresh_ns = refresh;
    s.app.steps = 4_000;
    s.door.frame_limit = FrameLimit::fps(30.0).ok();
    s.door.present_ids = true;
    s.door.timing = Some(timing_on(Targets::Relative, 8));
    let out = run(&s).unwrap();
    assert!(out.shown.len() >= 200, "{out:?}");
    for w in out.shown.windows(2) {
        let ((before, _), (at, target)) = (w[0], w[1]);
        assert_eq!(at - before, 2 * refresh, "{:?}", out.shown);
        assert_eq!(
            target,
            PresentTarget::Relative(2 * refresh),
            "{:?}",
            out.shown
        );
    }
}

/// A frame limit's pacing sleeps watch each frame's ready time on its repair submission's own
/// fence, lent out of the pool (`SleepWatch::Ready`), and the machine counts each one it was
/// told; a fence seen signalled by another thread's look during the wait is parked, not reset
/// (the world refuses a reset under a wait: the `lend_exact_unmarked` mutation).
#[test]
fn a_frame_limits_sleeps_watch_ready_times_on_lent_fences() {
    for ids in [false, true] {
        let mut s = quiet(7);
        s.door.frame_limit = Some(FrameLimit::fps(30.0).unwrap());
        s.door.present_ids = ids;
        let out = run(&s).unwrap();
        let r = out.truth.ready_times;
        assert!(r.exact > 1_000, "ids {ids}: {out:?}");
        assert_eq!(out.stats.ready_times_watched, r.exact, "ids {ids}: {out:?}");
        assert_eq!(
            out.stats.ready_times_bounded, r.bounded,
            "ids {ids}: {out:?}"
        );
        assert_eq!(
            out.stats.ready_times_not_by_pause_end, r.not_by_end,
            "ids {ids}: {out:?}"
        );
    }
}

/// Without present timing, a 30 fps limit on a 59.5 Hz display follows the display's clock
/// from the exact display times its pacing sleeps watch (`SleepWatch::Display`, the anchored
/// limiter): once settled, every frame is shown 2 refreshes after the one before it. Without
/// present ids there is nothing to watch: the CPU's 33.3 ms grid slips against the display's
/// 33.6 ms and some frames are shown 3 refreshes apart (the control).
#[test]
fn a_30_fps_limit_follows_a_59_5_hz_display_from_watched_display_times() {
    let refresh = 16_806_723;
    for ids in [true, false] {
        let mut s = quiet(41);
        s.refresh_ns = refresh;
        s.app.steps = 4_000;
        s.door.frame_limit = FrameLimit::fps(30.0).ok();
        s.door.present_ids = ids;
        let out = run(&s).unwrap();
        let settled = &out.shown[out.shown.len().saturating_sub(200)..];
        assert_eq!(settled.len(), 200, "{out:?}");
        let off = settled
            .windows(2)
            .filter(|w| w[1].0 - w[0].0 != 2 * refresh)
            .count();
        let watches = out.truth.display_watches;
        if ids {
            assert_eq!(off, 0, "{settled:?}");
            assert!(watches.exact > 500, "{out:?}");
            assert_eq!(out.stats.display_times_watched, watches.exact, "{out:?}");
            let period = out.stats.anchored_period_ns.abs_diff(2 * refresh);
            assert!(period < 100_000, "{out:?}");
        } else {
            assert!(off > 0, "the control held the grid without display times");
            assert_eq!(watches.exact + watches.polled, 0, "{out:?}");
        }
    }
}
