//! The modelled GPU (`gpu_ms`) over the real driver: the textbook loop at 60 Hz (FIFO), whose
//! frames lavapipe renders in about a millisecond, with a fixed 12 ms model is shown at least
//! 12 ms after each present call, the log's `ready_ns` being the modelled time; with a zero
//! model frames are ready when lavapipe rendered them, as without the setting.

// Helpers of the tests: a failed call is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::context::{Options, Vk};
use common::textbook::{self, LoopDesc};
use common::{env, log, swap};

const MODEL_NS: u64 = 12_000_000;

/// Runs `frames` frames of the textbook loop (maintenance1 present fences on, so the fences
/// the model holds back are waited on) with `gpu_ms`; returns the log.
fn run(name: &str, gpu_ms: &str, frames: usize) -> Vec<log::Entry> {
    let dir = env::scratch(name);
    let path = dir.join("present.jsonl");
    let opts = Options {
        settings: vec![
            ("log", path.display().to_string()),
            ("gpu_ms", gpu_ms.to_string()),
        ],
        ..Options::default()
    };
    let vk = Vk::new(&opts);
    let sc = swap::create(
        &vk,
        &swap::SwapDesc {
            image_count: 3,
            ..Default::default()
        },
    )
    .unwrap();
    textbook::run(
        &vk,
        &sc,
        &LoopDesc {
            frames,
            present_fences: true,
            ..Default::default()
        },
    );
    textbook::wait_shown(&vk, &sc, frames as u64);
    swap::destroy(&vk, &sc);
    assert!(
        vk.all_messages().is_empty(),
        "validation: {:#?}",
        vk.all_messages()
    );
    drop(vk);
    let entries = log::read(&path);
    assert_eq!(entries.len(), frames, "every present is logged");
    assert!(
        entries.iter().all(|e| e.shown_ns.is_some()),
        "every FIFO frame is shown"
    );
    entries
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// `gpu_ms = 12` at 60 Hz: every frame's `shown_ns` and `ready_ns` are at least 12 ms after
/// its `queued_ns`, and it is shown at the first refresh after its ready time.
#[test]
fn a_fixed_model_delays_every_frame() {
    env::run(|| {
        let entries = run("gpu_fixed", "12", 90);
        let period = 1e9 / 60.0;
        let mut least = u64::MAX;
        for e in &entries {
            let (ready, shown) = (e.ready_ns.unwrap(), e.shown_ns.unwrap());
            assert!(
                ready - e.queued_ns >= MODEL_NS,
                "present {}: ready {:.3} ms after its present call",
                e.seq,
                ms(ready - e.queued_ns)
            );
            assert!(shown >= ready, "present {}: shown before ready", e.seq);
            least = least.min(shown - e.queued_ns);
        }
        // FIFO shows one frame a refresh: a frame ready while its predecessor still waits for
        // its refresh waits more than one; judged only on frames the queue did not hold back.
        let first_refresh = entries
            .windows(2)
            .filter(|w| w[1].ready_ns > w[0].shown_ns)
            .all(|w| (w[1].shown_ns.unwrap() - w[1].ready_ns.unwrap()) as f64 <= period + 1e3);
        println!(
            "gpu_ms = 12: least present call to shown {:.3} ms",
            ms(least)
        );
        assert!(least >= MODEL_NS);
        assert!(
            first_refresh,
            "a frame ready after its predecessor was shown waited past the next refresh"
        );
    })
}

/// `gpu_ms = 0`: no model; lavapipe's own rendering (about a millisecond) decides when a frame
/// is ready, so most frames are ready well within 12 ms of their present call.
#[test]
fn a_zero_model_changes_nothing() {
    env::run(|| {
        let entries = run("gpu_zero", "0", 90);
        let mut after: Vec<f64> = entries
            .iter()
            .map(|e| ms(e.ready_ns.unwrap() - e.queued_ns))
            .collect();
        after.sort_by(f64::total_cmp);
        let median = after[after.len() / 2];
        println!("gpu_ms = 0: present call to ready median {median:.3} ms");
        assert!(median < 4.0, "median present call to ready {median:.3} ms");
    })
}
