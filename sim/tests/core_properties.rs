//! Property tests of the bookkeeping core against the simulated GPU and presentation engine.
//!
//! Each case is a random schedule (seeded, so a failure reproduces from the printed
//! parameters). `VKPACE_SCHEDULES` sets how many cases run (default 10,000).

mod proptest_cases;
mod sim;

use proptest::prelude::*;
use sim::app::{run, Params};

fn params() -> impl Strategy<Value = Params> {
    (
        any::<u64>(),
        1usize..=3,
        1usize..=6,
        1u32..=4,
        100u32..=600,
        0u32..=6,
        (0u32..=8, 0u32..=8, 0u32..=20, 0u32..=15, 0u32..=5, 0u32..=2),
        (any::<bool>(), 0u32..=30, prop_oneof![Just(0u32), 1u32..=10]),
    )
        .prop_map(
            |(
                seed,
                n,
                max_retired,
                min_images,
                steps,
                delay,
                (ood, sub, resize, skip, stale, fail),
                (fences, never, change_n),
            )| {
                Params {
                    seed,
                    frames_in_flight: n,
                    max_retired,
                    min_images,
                    steps,
                    max_gpu_delay: delay,
                    p_out_of_date: ood,
                    p_suboptimal: sub,
                    p_resize: resize,
                    p_skip: skip,
                    p_present_stale: stale,
                    p_present_fail: fail,
                    present_fences: fences,
                    p_fence_never: never,
                    p_change_n: change_n,
                }
            },
        )
}

proptest! {
    #![proptest_config(proptest_cases::config())]

    /// No semaphore reused or destroyed while busy, no swapchain destroyed while a present to
    /// it may be pending, CPU at most N frames ahead, retired swapchains within the cap, history
    /// at most N+1 deep, and everything released exactly once after drain.
    #[test]
    fn random_schedules_keep_every_rule(p in params()) {
        let described = format!("{p:?}");
        let out = run(p).map_err(|e| TestCaseError::fail(format!("{e}\n  schedule: {described}")))?;
        prop_assert!(out.max_history >= 1 || out.frames_presented == 0);
    }
}

/// A long, resize-heavy schedule: the retired-swapchain cap must be reached and honoured.
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

/// Steady state with no resize: semaphores stay within the documented bound
/// (acquire: N + 1; present: images x (N + 1)).
#[test]
fn steady_state_semaphores_are_bounded() {
    for n in 1..=3usize {
        let out = run(Params {
            frames_in_flight: n,
            min_images: 3,
            steps: 50_000,
            max_gpu_delay: 5,
            ..Params::quiet(11 + n as u64)
        })
        .unwrap();
        // One swapchain of at most 5 images: the steady-state bound of `semaphore_bound`.
        let bound = (n + 1) + 5 * (n + 1);
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
/// without ever needing the legacy fallback (which the same storm needs without them, see
/// `resize_storm_stays_within_the_cap`).
#[test]
fn present_fences_keep_the_retired_backlog_small() {
    let out = run(Params {
        p_resize: 100,
        present_fences: true,
        ..Params::quiet(5)
    })
    .unwrap();
    assert!(out.swapchains_created > 1000, "{out:?}");
    assert_eq!(out.fallback_waits, 0, "{out:?}");
}
