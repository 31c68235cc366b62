//! The textbook loop over the layer on the real driver: frames overlap on the GPU, FIFO runs on
//! the 60 Hz grid, and vkWaitForPresentKHR returns at display time.

// Helpers of the tests: a failed call is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use ash::vk;
use common::context::{Options, Vk};
use common::textbook::{self, LoopDesc};
use common::{env, log, swap};

fn log_options(name: &str) -> (Options, std::path::PathBuf) {
    let dir = env::scratch(name);
    let path = dir.join("present.jsonl");
    let opts = Options {
        settings: vec![("log", path.display().to_string())],
        ..Options::default()
    };
    (opts, path)
}

/// GPU-bound (about 25 ms of copies per frame at 60 Hz, FIFO): with the layer the textbook
/// loop has more than one frame pending at once in most frames, and images rotate.
#[test]
fn frames_overlap_on_the_gpu() {
    env::run(|| {
        let (opts, path) = log_options("overlap");
        let vk = Vk::new(&opts);
        let iterations = textbook::calibrate_iterations(&vk, 25.0);
        let sc = swap::create(
            &vk,
            &swap::SwapDesc {
                image_count: 3,
                ..Default::default()
            },
        )
        .unwrap();
        let stats = textbook::run(
            &vk,
            &sc,
            &LoopDesc {
                frames: 60,
                load_iterations: iterations,
                ..Default::default()
            },
        );
        swap::destroy(&vk, &sc);
        let measured = &stats.pending[3..];
        let overlapped = measured.iter().filter(|p| **p > 1).count() as f64 / measured.len() as f64;
        let mut distinct = stats.images.clone();
        distinct.sort();
        distinct.dedup();
        println!("shader iterations {iterations} (~25 ms of GPU work); frames with >1 fence pending: {:.0}%; pending {:?}; images used {distinct:?}", overlapped * 100.0, measured);
        assert!(
            overlapped > 0.5,
            "frames overlapped in only {:.0}% of frames",
            overlapped * 100.0
        );
        assert_eq!(distinct.len(), 3, "images do not rotate: {distinct:?}");
        assert!(
            vk.all_messages().is_empty(),
            "validation: {:#?}",
            vk.all_messages()
        );
        drop(vk);
        // GPU-bound FIFO still shows every image on the refresh grid (every other refresh).
        let shown: Vec<u64> = log::read(&path).iter().filter_map(|e| e.shown_ns).collect();
        let period = 1e9 / 60.0;
        let refreshes: Vec<f64> = shown
            .windows(2)
            .map(|w| (w[1] - w[0]) as f64 / period)
            .collect();
        let worst = refreshes
            .iter()
            .map(|r| (r - r.round()).abs() * period)
            .fold(0.0, f64::max);
        println!("GPU-bound FIFO: {} shown, {:.2} refreshes per image on average, worst off-grid {worst:.0} ns", shown.len(), refreshes.iter().sum::<f64>() / refreshes.len() as f64);
        assert!(worst < 1000.0);
    })
}

/// FIFO at 60 Hz over 300 frames: the mean interval between shown frames (the layer's log) and
/// between the application's frame starts is within 0.5% of 16.667 ms.
#[test]
fn fifo_mean_interval_is_on_the_grid() {
    env::run(|| {
        let (opts, path) = log_options("fifo");
        let vk = Vk::new(&opts);
        let sc = swap::create(
            &vk,
            &swap::SwapDesc {
                image_count: 3,
                ..Default::default()
            },
        )
        .unwrap();
        let stats = textbook::run(
            &vk,
            &sc,
            &LoopDesc {
                frames: 300,
                ..Default::default()
            },
        );
        textbook::wait_shown(&vk, &sc, 300);
        swap::destroy(&vk, &sc);
        assert!(
            vk.all_messages().is_empty(),
            "validation: {:#?}",
            vk.all_messages()
        );
        drop(vk);
        let entries = log::read(&path);
        let shown: Vec<u64> = entries.iter().filter_map(|e| e.shown_ns).collect();
        assert_eq!(shown.len(), 300, "every FIFO frame is shown");
        let target = 1e9 / 60.0;
        let display = common::mean_interval(&shown[10..]);
        let app = common::mean_interval(&stats.frame_start_ns[10..]);
        let dev = |v: f64| (v - target).abs() / target;
        let sd = |t: &[u64]| {
            let d: Vec<f64> = t.windows(2).map(|w| (w[1] - w[0]) as f64).collect();
            let m = d.iter().sum::<f64>() / d.len() as f64;
            (d.iter().map(|x| (x - m).powi(2)).sum::<f64>() / d.len() as f64).sqrt()
        };
        let overlap = stats.pending[3..].iter().filter(|p| **p > 1).count();
        println!(
            "FIFO interval sd: shown {:.1} us, app frame starts {:.1} us",
            sd(&shown[10..]) / 1e3,
            sd(&stats.frame_start_ns[10..]) / 1e3
        );
        println!("FIFO mean interval: shown {:.4} ms ({:+.3}%), app frame starts {:.4} ms ({:+.3}%); frames with >1 pending: {overlap}/{}", display / 1e6, (display - target) / target * 100.0, app / 1e6, (app - target) / target * 100.0, stats.pending.len() - 3);
        assert!(dev(display) < 0.005, "shown interval {display} ns");
        assert!(dev(app) < 0.005, "app interval {app} ns");
        assert!(entries.iter().all(|e| !e.dropped && e.mode == "FIFO"));
    })
}

/// vkWaitForPresentKHR returns after the frame was shown (never before its display time) and
/// shortly after it.
#[test]
fn present_wait_returns_at_display_time() {
    env::run(|| {
        let (opts, path) = log_options("wait");
        let vk = Vk::new(&opts);
        let sc = swap::create(
            &vk,
            &swap::SwapDesc {
                image_count: 3,
                ..Default::default()
            },
        )
        .unwrap();
        let stats = textbook::run(
            &vk,
            &sc,
            &LoopDesc {
                frames: 120,
                wait_each: true,
                ..Default::default()
            },
        );
        swap::destroy(&vk, &sc);
        assert!(
            vk.all_messages().is_empty(),
            "validation: {:#?}",
            vk.all_messages()
        );
        drop(vk);
        let entries = log::read(&path);
        let mut lat = Vec::new();
        for (id, ret) in &stats.wait_return {
            let e = entries
                .iter()
                .find(|e| e.present_id == *id)
                .expect("logged");
            let shown = e.shown_ns.expect("shown");
            assert!(
                *ret >= shown,
                "present {id}: wait returned {} ns before display",
                shown - ret
            );
            lat.push((ret - shown) as f64 / 1e6);
        }
        let med = common::median(&lat);
        let max = lat.iter().cloned().fold(0.0, f64::max);
        println!(
            "present_wait return - shown: median {med:.3} ms, max {max:.3} ms over {} frames",
            lat.len()
        );
        assert!(med < 2.0, "median latency {med} ms");
        let _ = vk::Result::SUCCESS;
    })
}
