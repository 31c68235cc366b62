//! Property tests of the frame machine against the simulated GPU and presentation engine.
//!
//! Each case is a random schedule of the calls a renderer makes (seeded, so a failure
//! reproduces from the printed parameters), run through the machine that ships. Every step
//! checks the Vulkan rules in the world and the invariants in `sim/app.rs`.
//! `VKPACE_SCHEDULES` sets how many cases run (default 10,000).

mod offers;
mod proptest_cases;
mod sim;

use offers::{clock_faults, display_offer};
use proptest::prelude::*;
use proptest_cases::world_faults;
use sim::app::{run, Params};
use sim::display::{run_display, DisplayParams};
use vkpace_core::{choose_paths, DisplayFeedback, DisplayOffer, Targets, TimingOffer};
use vkpace_core::{CompletionBackend, PacingPolicy};
use vkpace_sim::driver::SimGpuClock;
use vkpace_sim::world::{ClockFaults, DisplayConfig, Faults};

/// Display feedback and GPU timestamps of one schedule: the display paths the core chooses
/// (`choose_paths`) for a random offer of the surface and device, as the shell takes them
/// (present ids with either feedback path or present timing; relative targets where chosen),
/// present timing's results reported in the engine's own time domain and converted by the
/// shell's `TimingBook` (`sim/timing_shell.rs`: every converted time is checked against the
/// world's); GPU timestamps in a third; the display's refresh (0.2 to
/// 2 ms: frames often miss it), its phase, partial results, the
/// results-queue slots configured and how many fewer the engine really has; and the pacing
/// policy the machine starts with (the display and low-latency ones target refreshes).
#[derive(Debug, Clone)]
struct Feedback {
    present_ids: bool,
    present_timing: Option<u32>,
    display: DisplayConfig,
    gpu_clock: Option<SimGpuClock>,
    pacing: PacingPolicy,
    paths: (DisplayOffer, ClockFaults),
}

fn feedback() -> impl Strategy<Value = Feedback> {
    (
        (any::<u32>(), 0u32..3),
        (2u64..=20, 0u64..=19, any::<bool>()),
        (1u32..=16, 0u32..=2),
        (0usize..3, 0usize..3, any::<u64>()),
        clock_faults(),
    )
        .prop_map(
            |(
                (bits, gpu),
                (refresh, phase, partial),
                (slots, fewer),
                (period, bits_gpu, offset),
                clocks,
            )| {
                let offer = display_offer(bits);
                let paths = choose_paths(&offer);
                let timed = paths.timing.is_some();
                let present_ids = paths.feedback != DisplayFeedback::None || timed;
                let refresh_ns = refresh * 100_000;
                Feedback {
                    present_ids,
                    present_timing: timed.then_some(slots),
                    display: DisplayConfig {
                        refresh_ns,
                        phase_ns: phase * refresh_ns / 20,
                        relative_targets: paths.timing == Some(Targets::Relative),
                        timing_slots: slots.saturating_sub(fewer).max(1),
                        partial_results: partial,
                    },
                    gpu_clock: (gpu == 0).then(|| SimGpuClock {
                        period_ns: [1.0, 2.5, 0.75][period],
                        valid_bits: [64, 36, 32][bits_gpu],
                        offset,
                    }),
                    pacing: [
                        PacingPolicy::FramesInFlight,
                        PacingPolicy::LowLatency,
                        PacingPolicy::Display,
                        PacingPolicy::Grid,
                    ][(offset % 4) as usize],
                    paths: (offer, clocks),
                }
            },
        )
}

fn params(completion: CompletionBackend) -> impl Strategy<Value = Params> {
    (
        (any::<u64>(), 1usize..=3, 1usize..=6, 1u32..=4, 100u32..=600),
        world_faults(5),
        (
            0u32..=20,
            0u32..=15,
            0u32..=10,
            prop_oneof![Just(0u32), 1u32..=10],
        ),
        (0u32..=5, 0u32..=3, any::<bool>(), 0u32..=10),
        (0usize..=2, 0u32..=40),
        feedback(),
    )
        .prop_map(
            move |(
                (seed, n, max_retired, min_images, steps),
                faults,
                (resize, drop, abandon, change_n),
                (mode, create_fail, maintenance1, token),
                (other_queues, p_queue),
                fb,
            )| Params {
                seed,
                frames_in_flight: n,
                max_retired,
                min_images,
                steps,
                faults,
                p_resize: resize,
                p_drop: drop,
                p_abandon: abandon,
                p_change_n: change_n,
                p_mode: mode,
                p_create_fail: create_fail,
                maintenance1,
                p_token: token,
                completion,
                other_queues,
                p_queue,
                present_ids: fb.present_ids,
                present_timing: fb.present_timing,
                display: fb.display,
                gpu_clock: fb.gpu_clock,
                pacing: fb.pacing,
                paths: Some(fb.paths),
            },
        )
}

proptest! {
    #![proptest_config(proptest_cases::config())]

    /// No semaphore or fence reused or destroyed while busy, no swapchain destroyed while a
    /// present to it may be pending, the CPU at most N frames ahead, retired swapchains within
    /// the cap, history at most N+1 deep, a slot handed out only once its last submission
    /// completed, a dropped frame handed back unchanged, a dropped submitted frame presented,
    /// and everything released exactly once at teardown.
    #[test]
    fn random_call_sequences_keep_every_rule(p in params(CompletionBackend::Fences)) {
        let described = format!("{p:?}");
        run(p).map_err(|e| TestCaseError::fail(format!("{e}\n  schedule: {described}")))?;
    }

    /// The same schedules with the timeline backend: the same rules, and no submission fence
    /// (only maintenance1's present fences, at most 2 (N + 1) with a retiring swapchain's).
    #[test]
    fn random_call_sequences_keep_every_rule_on_the_timeline(
        p in params(CompletionBackend::TimelineSemaphore)
    ) {
        let described = format!("{p:?}");
        let m1 = p.maintenance1;
        let out = run(p)
            .map_err(|e| TestCaseError::fail(format!("{e}\n  schedule: {described}")))?;
        if !m1 {
            prop_assert_eq!(out.max_fences_alive, 0, "fences made on the timeline backend");
        }
    }
}

/// Display feedback and GPU timestamps on, with resizes, drops and GPU delays: the world shows
/// presents on its refresh grid and answers present-id polls, timing reads (partial results,
/// an engine with fewer results slots than configured, so some presents are refused) and GPU
/// time reads; the machine targets refreshes, learns what was shown, and every rule and truth
/// check holds (GPU times read back are the world's, checked in `sim/app.rs`).
#[test]
fn display_feedback_and_gpu_times_are_answered() {
    // Presents refused for a full results queue, with absolute and with relative targets.
    let mut queue_full = [0u64; 2];
    for (seed, relative, policy) in [
        (41, false, PacingPolicy::LowLatency),
        (42, true, PacingPolicy::Display),
        (43, false, PacingPolicy::Display),
    ] {
        let out = run(Params {
            p_resize: 1,
            p_drop: 5,
            p_abandon: 5,
            present_ids: true,
            present_timing: Some(6),
            display: DisplayConfig {
                refresh_ns: 800_000,
                phase_ns: 123_456,
                relative_targets: relative,
                timing_slots: 4,
                partial_results: !relative,
            },
            gpu_clock: Some(SimGpuClock {
                period_ns: 2.5,
                valid_bits: 32,
                offset: u64::from(u32::MAX) - 1_000,
            }),
            pacing: policy,
            faults: Faults {
                max_gpu_delay: 12,
                ..Faults::default()
            },
            ..Params::quiet(seed)
        })
        .unwrap();
        assert!(out.frames_presented > 1000, "{seed}: {out:?}");
        assert!(out.frames_displayed > 100, "{seed}: {out:?}");
        // Relative targets are the engine's to place: no refresh is recorded for them.
        assert!(relative || out.frames_targeted > 100, "{seed}: {out:?}");
        assert!(out.timing_results > 1000, "{seed}: {out:?}");
        queue_full[usize::from(relative)] += out.timing_queue_full;
        assert!(out.refreshes_missed > 0, "{seed}: {out:?}");
        assert!(out.gpu_reads > 1000, "{seed}: {out:?}");
        assert!(out.gpu_times_checked > 1000, "{seed}: {out:?}");
    }
    assert!(queue_full.iter().all(|&n| n > 0), "{queue_full:?}");
    // Present ids alone: polled and seen shown.
    let out = run(Params {
        present_ids: true,
        ..Params::quiet(44)
    })
    .unwrap();
    assert!(out.frames_displayed > 100, "{out:?}");
}

/// Present timing through the shell's bookkeeping on each kind of target the core can choose,
/// with results in `CLOCK_MONOTONIC` or a swapchain-local domain that needs a calibration:
/// domains replaced and the refresh re-read as the counters move, refresh reads answered
/// `VK_NOT_READY`, results now and then in a domain nobody can map. Every converted time is
/// the world's (checked in `sim/timing_shell.rs`), the unmappable results are counted (none
/// lost silently), and the presents carry what the chosen path allows: absolute targets only
/// on the absolute path, none on the path without targets.
#[test]
fn present_timing_results_go_through_the_book_on_every_path() {
    for (i, targets) in [Targets::Relative, Targets::Absolute, Targets::None]
        .into_iter()
        .enumerate()
    {
        for monotonic in [false, true] {
            let clocks = ClockFaults {
                offers_monotonic: monotonic,
                monotonic_offset: 5_000_000_000,
                max_not_ready: 2,
                p_refresh_change: 2,
                p_domain_change: 2,
                p_monotonic_result: 5,
                p_foreign_result: 3,
            };
            // The offer that makes the core choose `targets`.
            let offer = DisplayOffer {
                present_wait: true,
                present_wait2: None,
                timing: Some(TimingOffer {
                    surface_timing: true,
                    surface_present_id2: true,
                    host_clock_calibrateable: true,
                    relative_targets: targets == Targets::Relative,
                    absolute_targets: targets != Targets::None,
                }),
            };
            assert_eq!(choose_paths(&offer).timing, Some(targets));
            let out = run(Params {
                p_resize: 1,
                present_ids: true,
                present_timing: Some(6),
                display: DisplayConfig {
                    refresh_ns: 800_000,
                    phase_ns: 123_456,
                    relative_targets: targets == Targets::Relative,
                    timing_slots: 6,
                    partial_results: true,
                },
                pacing: PacingPolicy::LowLatency,
                paths: Some((offer, clocks)),
                ..Params::quiet(60 + i as u64)
            })
            .unwrap();
            let t = out.timing;
            let case = format!("{targets:?}, monotonic {monotonic}: {out:?}");
            assert!(t.results > 1000 && t.times_checked > 1000, "{case}");
            assert!(t.unmapped > 0 && t.via_monotonic > 0, "{case}");
            assert!(monotonic || t.via_local > 0, "{case}");
            assert!(t.refresh_not_ready > 0, "{case}");
            // Each swapchain calibrates once, and again when its domains change.
            assert!(t.calibrations > out.swapchains_created, "{case}");
            match targets {
                Targets::Absolute => assert!(out.frames_targeted > 100, "{case}"),
                _ => assert_eq!(out.frames_targeted, 0, "{case}"),
            }
        }
    }
}

fn display_params() -> impl Strategy<Value = DisplayParams> {
    (
        any::<u64>(),
        (5u64..=20, 1u32..=3),
        (0u32..=30, 0u32..=10, 1usize..=3),
        any::<bool>(),
    )
        .prop_map(
            |(seed, (refresh, interval), (gpu, cpu, n), partial_results)| DisplayParams {
                seed,
                refresh_ns: refresh * 100_000,
                interval,
                max_gpu_delay: gpu,
                max_cpu_ticks: cpu,
                frames_in_flight: n,
                partial_results,
                frames: 120,
            },
        )
}

proptest! {
    #![proptest_config(proptest_cases::config_scaled(10))]

    /// The display schedule, driven through the machine on a FIFO display with absolute
    /// targets and a frame limit on the refresh grid, frames sometimes late on the GPU or the
    /// CPU: no targeted frame is shown less than its swap interval after the one before it (a
    /// late frame moves the schedule; `late_frame_stays` in `scripts/mutation-check` breaks
    /// that).
    #[test]
    fn a_late_frame_moves_the_display_schedule(p in display_params()) {
        let described = format!("{p:?}");
        run_display(&p).map_err(|e| TestCaseError::fail(format!("{e}\n  schedule: {described}")))?;
    }
}

/// The display schedule's property is not vacuous: frames miss their refresh, and many
/// targeted pairs are checked.
#[test]
fn display_schedules_miss_refreshes_and_are_checked() {
    let out = run_display(&DisplayParams {
        seed: 77,
        refresh_ns: 1_000_000,
        interval: 2,
        max_gpu_delay: 25,
        max_cpu_ticks: 8,
        frames_in_flight: 2,
        partial_results: true,
        frames: 2_000,
    })
    .unwrap();
    assert!(out.frames_presented >= 1_900, "{out:?}");
    assert!(out.missed > 20, "{out:?}");
    assert!(out.pairs_checked > 200, "{out:?}");
}

/// A long, resize-heavy schedule on the proof-based path: the retired-swapchain cap must be
/// reached and honoured, through the bounded fallback.
#[test]
fn resize_storm_stays_within_the_cap() {
    let out = run(Params {
        p_resize: 100,
        ..Params::quiet(7)
    })
    .unwrap();
    assert!(out.swapchains_created > 1000, "{out:?}");
    assert_eq!(out.max_retired_pending, 5, "{out:?}");
    assert!(out.fallback_waits > 0, "{out:?}");
}

/// Steady state with no resize: semaphores stay within the documented steady-state bound
/// (acquire: N + 1; present: images x (N + 1)) and the history fills to N + 1.
#[test]
fn steady_state_semaphores_are_bounded() {
    for n in 1..=3usize {
        let out = run(Params {
            frames_in_flight: n,
            min_images: 3,
            steps: 50_000,
            faults: Faults {
                max_gpu_delay: 5,
                ..Faults::default()
            },
            ..Params::quiet(11 + n as u64)
        })
        .unwrap();
        // One swapchain of at most 3 + 1 + 2 images.
        let bound = (n + 1) + 6 * (n + 1);
        assert!(out.frames_presented > 1000, "{out:?}");
        assert!(
            out.max_semaphores_alive <= bound,
            "n={n}: {out:?} > {bound}"
        );
        assert_eq!(
            out.max_history,
            n + 1,
            "n={n}: the history fills to N+1: {out:?}"
        );
    }
}

/// The maintenance1 path under a resize at every step: present fences free retired swapchains
/// without the fallback the same storm needs without them.
#[test]
fn present_fences_keep_the_retired_backlog_small() {
    let out = run(Params {
        p_resize: 100,
        maintenance1: true,
        ..Params::quiet(5)
    })
    .unwrap();
    assert!(out.swapchains_created > 1000, "{out:?}");
    assert_eq!(out.fallback_waits, 0, "{out:?}");
}

/// Completion tokens under drops, resizes and GPU delays: looked at, waited for (some waits
/// time out), and refused when past the last submission or of another stream; a token
/// reported reached is reached in truth (checked in `sim/app.rs`).
#[test]
fn tokens_are_reached_only_when_the_gpu_is_done() {
    let out = run(Params {
        p_token: 40,
        p_resize: 5,
        p_drop: 10,
        p_abandon: 10,
        faults: Faults {
            max_gpu_delay: 40,
            ..Faults::default()
        },
        ..Params::quiet(21)
    })
    .unwrap();
    assert!(out.tokens_reached > 100, "{out:?}");
    assert!(out.tokens_waited > 100, "{out:?}");
    assert!(out.token_timeouts > 0, "{out:?}");
    assert!(out.tokens_refused > 100, "{out:?}");
}

/// An acquire that gets no image within its bound (a hidden window, a compositor that stopped
/// repainting: 30% of acquires here, with resizes, dropped frames and GPU delays, on both
/// completion backends) ends "not ready": no error, nothing acquired or waiting, every rule
/// still held (checked at each step in `sim/app.rs`, where any timeout now fails the run), and
/// the next acquire goes on; teardown releases everything.
#[test]
fn an_acquire_without_an_image_is_skipped_and_retried() {
    for completion in [
        CompletionBackend::Fences,
        CompletionBackend::TimelineSemaphore,
    ] {
        let out = run(Params {
            p_resize: 5,
            p_drop: 10,
            p_abandon: 10,
            completion,
            faults: Faults {
                max_gpu_delay: 20,
                p_not_ready: 30,
                ..Faults::default()
            },
            ..Params::quiet(31)
        })
        .unwrap();
        assert!(out.not_ready_skips > 1000, "{completion:?}: {out:?}");
        assert!(out.frames_presented > 1000, "{completion:?}: {out:?}");
    }
}

/// Out of date, then (after the recreation) not ready, then out of date again: the last is
/// the first answer of a new try, so the machine recreates once more and hands out a frame
/// (only two out-of-date answers within one try are an error).
#[test]
fn out_of_date_after_a_not_ready_acquire_is_a_new_try() {
    use vkpace_sim::world::AcquireResult;
    let mut sim = fifo_sim(vkpace_core::MachineConfig::default(), 9);
    sim.world.acquire_script = [AcquireResult::OutOfDate, AcquireResult::NotReady].into();
    assert!(sim.acquire().unwrap().is_none(), "not ready");
    assert_eq!(sim.machine.stats().not_ready_skips, 1);
    sim.world.acquire_script = [AcquireResult::OutOfDate].into();
    let frame = sim
        .acquire()
        .expect("a new try: one out-of-date answer is allowed");
    assert!(frame.is_some());
    assert_eq!(sim.machine.stats().swapchains_created, 3);
}

/// A machine set up over a calm simulated world (seed `seed`) and a FIFO-only surface whose
/// minimum is 2 images, for tests that drive it call by call.
fn fifo_sim(config: vkpace_core::MachineConfig, seed: u64) -> vkpace_sim::driver::SimSwapchain {
    use vkpace_sim::driver::{SimSurface, SimSwapchain};
    use vkpace_sim::world::World;
    let surface = SimSurface {
        min_images: 2,
        extra_images: 0,
        p_create_fail: 0,
        present_modes: vec![vkpace_core::PresentMode::FIFO],
        compatible_modes: Vec::new(),
    };
    let world = World::new(seed, Faults::default());
    let mut sim = SimSwapchain::new(config, world, surface).unwrap();
    sim.setup().unwrap();
    sim
}

/// Dropped frames, before and after submission, in a calm schedule: every one is handled
/// (handed back, or presented at the next acquire), and the loop goes on.
#[test]
fn dropped_frames_are_handled() {
    let out = run(Params {
        p_drop: 30,
        p_abandon: 30,
        ..Params::quiet(3)
    })
    .unwrap();
    assert!(out.abandoned_presented > 100, "{out:?}");
    assert!(out.frames_presented > 1000, "{out:?}");
}

/// Two other queues with timelines of their own, frames waiting for their values on the GPU,
/// on both backends: waits past a promise are refused, the others accepted and honoured by the
/// world's GPU, and the machine forgets waits as frames complete.
#[test]
fn frames_wait_for_other_queues_on_both_backends() {
    for (seed, completion) in [
        (31, CompletionBackend::Fences),
        (32, CompletionBackend::TimelineSemaphore),
    ] {
        let out = run(Params {
            other_queues: 2,
            p_queue: 40,
            p_resize: 3,
            p_drop: 5,
            p_abandon: 5,
            completion,
            ..Params::quiet(seed)
        })
        .unwrap();
        assert!(out.queue_waits_accepted > 300, "{completion:?}: {out:?}");
        assert!(out.queue_waits_refused > 100, "{completion:?}: {out:?}");
        assert!(out.max_pending_gpu_waits > 0, "{completion:?}: {out:?}");
        assert!(out.frames_presented > 1000, "{completion:?}: {out:?}");
        // The swapchain's own tokens: waited for on the GPU with the timeline only.
        let own_accepted = out.own_gpu_waits > 100;
        assert_eq!(
            own_accepted,
            completion == CompletionBackend::TimelineSemaphore,
            "{completion:?}: {out:?}"
        );
    }
}

/// A frame kept from before a recreation gave its image back has stale objects: the machine
/// no longer takes it for the frame in progress (the shell refuses to submit it), on both
/// backends; the frame handed out instead is.
#[test]
fn a_frame_from_before_a_recreation_is_not_the_current_one() {
    use vkpace_core::MachineConfig;
    for completion in [
        CompletionBackend::Fences,
        CompletionBackend::TimelineSemaphore,
    ] {
        let mut config = MachineConfig::default();
        config.completion = completion;
        let mut sim = fifo_sim(config, 5);
        let old = sim.acquire().unwrap().unwrap();
        assert!(sim.machine.frame_matches(&old));
        let again = sim.acquire().unwrap().unwrap();
        assert_eq!(
            again.number, old.number,
            "{completion:?}: the dropped frame comes back"
        );
        assert!(sim.machine.frame_matches(&old), "{completion:?}: unchanged");
        sim.machine.request_recreate();
        let new = sim.acquire().unwrap().unwrap();
        assert!(
            !sim.machine.frame_matches(&old),
            "{completion:?}: {old:?} vs {new:?}"
        );
        assert!(sim.machine.frame_matches(&new), "{completion:?}");
    }
}

/// A frame the simulated swapchain hands out.
type SimFrame = vkpace_core::FrameInfo<
    vkpace_sim::world::Sem,
    vkpace_sim::world::Gen,
    vkpace_sim::world::Fence,
>;

/// Submits and presents `frame`, then lets the world run (the present consumed, images back).
fn present_and_settle(sim: &mut vkpace_sim::driver::SimSwapchain, frame: &SimFrame) {
    sim.submit(frame).unwrap();
    sim.present(frame.number).unwrap();
    for _ in 0..50 {
        sim.tick().unwrap();
    }
}

/// Asks for a new extent and acquires the first frame of the swapchain made for it.
fn resize_and_acquire(sim: &mut vkpace_sim::driver::SimSwapchain) -> SimFrame {
    sim.machine.resize(vkpace_core::Extent {
        width: 321,
        height: 241,
    });
    sim.acquire()
        .unwrap()
        .expect("a frame of the new swapchain")
}

/// Before a FIFO swapchain is retired the machine takes back all but one of its images (the
/// drain, `core/machine/drain.rs`): once the world consumed the one present, every image is
/// free, so all but one are taken, before the retirement (the world refuses acquires from
/// retired swapchains). The old swapchain is destroyed in the end with those images still
/// acquired, which the world allows (no acquire signal pending); teardown releases everything.
/// A MAILBOX swapchain is not drained.
#[test]
fn a_fifo_swapchain_is_drained_before_it_is_retired() {
    for (mode, drained) in [
        (vkpace_core::PresentMode::FIFO, true),
        (vkpace_core::PresentMode::MAILBOX, false),
    ] {
        let mut sim = fifo_sim(vkpace_core::MachineConfig::default(), 5);
        sim.surface
            .present_modes
            .push(vkpace_core::PresentMode::MAILBOX);
        sim.machine.set_present_mode(mode);
        let frame = sim.acquire().unwrap().expect("a frame");
        present_and_settle(&mut sim, &frame);
        let images = sim.machine.stats().image_count;
        let before = sim.machine.stats().images_drained_before_retire;
        let frame = resize_and_acquire(&mut sim);
        let taken = sim.machine.stats().images_drained_before_retire - before;
        let expected = if drained { u64::from(images) - 1 } else { 0 };
        assert_eq!(taken, expected, "{mode:?}");
        present_and_settle(&mut sim, &frame);
        sim.shutdown().unwrap();
    }
}

/// An image acquired and dropped before a resize is given up but stays acquired (its
/// semaphore consumed): the drain counts it as taken and takes one image fewer.
#[test]
fn a_held_image_counts_in_the_drain() {
    let mut sim = fifo_sim(vkpace_core::MachineConfig::default(), 6);
    let frame = sim.acquire().unwrap().expect("a frame");
    present_and_settle(&mut sim, &frame);
    let _dropped = sim
        .acquire()
        .unwrap()
        .expect("a frame, dropped unsubmitted");
    let images = sim.machine.stats().image_count;
    let frame = resize_and_acquire(&mut sim);
    assert_eq!(sim.machine.stats().swapchains_created, 2);
    let taken = sim.machine.stats().images_drained_before_retire;
    assert_eq!(taken, u64::from(images) - 2);
    present_and_settle(&mut sim, &frame);
    sim.shutdown().unwrap();
}

/// A schedule CI found: a 32-bit GPU clock of 0.75 ns (a wrap every 3.2 s) and a frame the GPU
/// held 3.3 s (the schedule's faults and other queues delay it; which one, not traced), so its
/// start and end ticks are a wrap apart and no reader of the clock can tell its start. That
/// frame is not judged; every frame whose span is under half a wrap still must be read right,
/// as before.
#[test]
fn a_frame_held_past_a_clock_wrap_is_not_judged_and_the_rest_are() {
    let p = Params {
        seed: 10_774_922_805_585_206_008,
        frames_in_flight: 3,
        max_retired: 3,
        min_images: 1,
        steps: 348,
        faults: Faults {
            max_gpu_delay: 4,
            p_out_of_date: 2,
            p_suboptimal: 4,
            p_fence_never: 25,
            p_present_fail: 0,
            p_present_stale: 0,
            p_not_ready: 2,
        },
        p_resize: 15,
        p_drop: 0,
        p_abandon: 0,
        p_change_n: 0,
        p_mode: 0,
        p_create_fail: 2,
        maintenance1: true,
        p_token: 10,
        completion: CompletionBackend::Fences,
        other_queues: 1,
        p_queue: 18,
        present_ids: true,
        present_timing: Some(4),
        display: DisplayConfig {
            refresh_ns: 400_000,
            phase_ns: 200_000,
            relative_targets: false,
            timing_slots: 4,
            partial_results: false,
        },
        gpu_clock: Some(SimGpuClock {
            period_ns: 0.75,
            valid_bits: 32,
            offset: 5_273_452_503_989_000_893,
        }),
        pacing: PacingPolicy::LowLatency,
        paths: None,
    };
    let out = run(p).unwrap();
    assert!(out.gpu_times_checked > 0, "{out:?}");
}
