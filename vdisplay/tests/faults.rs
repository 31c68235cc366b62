//! Faults on demand (per-instance settings, seeded): random SUBOPTIMAL / OUT_OF_DATE, extent
//! changes every K presents, surface loss, images handed back in random order, a slow engine,
//! present fences that signal late or never.

// Helpers of the tests: a failed call is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use ash::vk;
use common::context::{Options, Vk};
use common::micro::Micro;
use common::textbook::{self, LoopDesc};
use common::{env, log, swap};

fn with(settings: &[(&'static str, &str)]) -> Options {
    Options {
        settings: settings.iter().map(|(k, v)| (*k, v.to_string())).collect(),
        ..Options::default()
    }
}

fn run_loop(opts: &Options, mode: vk::PresentModeKHR, d: &LoopDesc) -> textbook::LoopStats {
    let vk = Vk::new(opts);
    let sc = swap::create(
        &vk,
        &swap::SwapDesc {
            mode,
            image_count: 4,
            ..Default::default()
        },
    )
    .unwrap();
    let stats = textbook::run(&vk, &sc, d);
    swap::destroy(&vk, &sc);
    assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
    stats
}

/// SUBOPTIMAL at random: the same sequence for the same seed, another for another seed.
#[test]
fn random_suboptimal_is_seeded() {
    env::run(|| {
        let d = LoopDesc {
            frames: 40,
            ..Default::default()
        };
        let fifo = vk::PresentModeKHR::FIFO;
        let faults = |seed| with(&[("seed", seed), ("fault_suboptimal", "0.3")]);
        let a = run_loop(&faults("7"), fifo, &d).results;
        let b = run_loop(&faults("7"), fifo, &d).results;
        let c = run_loop(&faults("8"), fifo, &d).results;
        let count = |v: &[vk::Result]| {
            v.iter()
                .filter(|x| **x == vk::Result::SUBOPTIMAL_KHR)
                .count()
        };
        println!(
            "SUBOPTIMAL presents of 40: seed 7 {}, seed 8 {}",
            count(&a),
            count(&c)
        );
        assert_eq!(a, b, "same seed, same faults");
        assert_ne!(a, c, "another seed, other faults");
        assert!(count(&a) > 0 && count(&a) < 40);
    })
}

/// OUT_OF_DATE at random: once reported, the swapchain stays out of date.
#[test]
fn random_out_of_date_sticks() {
    env::run(|| {
        let vk = Vk::new(&with(&[("seed", "5"), ("fault_out_of_date", "0.05")]));
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        let stats = textbook::run(
            &vk,
            &sc,
            &LoopDesc {
                frames: 200,
                ..Default::default()
            },
        );
        println!("OUT_OF_DATE after {} results", stats.results.len());
        assert_eq!(
            stats.results.last(),
            Some(&vk::Result::ERROR_OUT_OF_DATE_KHR)
        );
        let mut m = Micro::new(&vk);
        assert_eq!(
            m.acquire(&sc, 0).err(),
            Some(vk::Result::ERROR_OUT_OF_DATE_KHR)
        );
        drop(m);
        swap::destroy(&vk, &sc);
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
    })
}

/// The surface extent changes every K presents: the (K+1)th acquire is out of date and the
/// capabilities report the next extent of the list.
#[test]
fn extent_changes_every_k_presents() {
    env::run(|| {
        let opts = with(&[
            ("extent", "640x480"),
            ("fault_resize_every", "5"),
            ("fault_resize_extents", "800x600,0x0"),
        ]);
        let vk = Vk::new(&opts);
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        let stats = textbook::run(
            &vk,
            &sc,
            &LoopDesc {
                frames: 20,
                ..Default::default()
            },
        );
        assert_eq!(stats.results.len(), 6, "{:?}", stats.results);
        assert_eq!(stats.results[5], vk::Result::ERROR_OUT_OF_DATE_KHR);
        assert_eq!(
            vk.caps().current_extent,
            vk::Extent2D {
                width: 800,
                height: 600
            }
        );
        swap::destroy(&vk, &sc);
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
    })
}

/// A display the resize fault minimized comes back: nothing can be presented at 0x0, so there
/// the cycle moves on every K capability queries (the application's way to see it return),
/// not presents. With K = 4 the 4th query after the minimize sees the next extent, the 3
/// before it still 0x0.
#[test]
fn a_minimized_display_comes_back() {
    env::run(|| {
        let zero = vk::Extent2D::default();
        let back = vk::Extent2D {
            width: 320,
            height: 200,
        };
        let opts = with(&[
            ("extent", "640x480"),
            ("fault_resize_every", "4"),
            ("fault_resize_extents", "0x0,320x200"),
        ]);
        let vk = Vk::new(&opts);
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        let stats = textbook::run(
            &vk,
            &sc,
            &LoopDesc {
                frames: 10,
                ..Default::default()
            },
        );
        assert_eq!(
            stats.results.last(),
            Some(&vk::Result::ERROR_OUT_OF_DATE_KHR),
            "minimized after 4 presents: {:?}",
            stats.results
        );
        swap::destroy(&vk, &sc);
        let seen: Vec<vk::Extent2D> = (0..4).map(|_| vk.caps().current_extent).collect();
        assert_eq!(seen, [zero, zero, zero, back], "extents seen by 4 queries");
        assert_eq!(vk.caps().current_extent, back, "the display stays back");
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
    })
}

/// The surface is lost after N presents: acquire and the surface queries fail with
/// VK_ERROR_SURFACE_LOST_KHR.
#[test]
fn surface_lost_after_n_presents() {
    env::run(|| {
        let vk = Vk::new(&with(&[("fault_surface_lost_after", "3")]));
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        let stats = textbook::run(
            &vk,
            &sc,
            &LoopDesc {
                frames: 10,
                ..Default::default()
            },
        );
        assert_eq!(
            stats.results.last(),
            Some(&vk::Result::ERROR_SURFACE_LOST_KHR),
            "{:?}",
            stats.results
        );
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let caps = unsafe {
            vk.surface_fn
                .get_physical_device_surface_capabilities(vk.pd, vk.surface)
        };
        assert_eq!(caps.err(), Some(vk::Result::ERROR_SURFACE_LOST_KHR));
        swap::destroy(&vk, &sc);
        for m in vk.all_messages() {
            println!(
                "MSG {} {}",
                m.id,
                m.text.chars().take(250).collect::<String>()
            );
        }
        let fatal = vk.all_messages();
        assert!(fatal.is_empty(), "{fatal:#?}");
    })
}

/// Free images are handed out in random order under the fault (Spec: vkAcquireNextImageKHR
/// promises no order); without it, the image freed first comes first. Each round acquires all
/// four images, releases them in index order (maintenance1) and acquires them again.
#[test]
fn images_in_random_order() {
    env::run(|| {
        let rounds = |opts: &Options| -> Vec<Vec<u32>> {
            let vk = Vk::new(opts);
            let sc = swap::create(
                &vk,
                &swap::SwapDesc {
                    image_count: 4,
                    ..Default::default()
                },
            )
            .unwrap();
            let mut m = Micro::new(&vk);
            let mut out = Vec::new();
            for _ in 0..6 {
                let order: Vec<u32> = (0..4)
                    .map(|_| m.acquire(&sc, 1_000_000_000).unwrap().0)
                    .collect();
                let idx = [0, 1, 2, 3];
                let info = vk::ReleaseSwapchainImagesInfoEXT::default()
                    .swapchain(sc.handle)
                    .image_indices(&idx);
                // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
                unsafe { vk.maint1_fn.release_swapchain_images(&info) }.unwrap();
                out.push(order);
            }
            drop(m);
            swap::destroy(&vk, &sc);
            assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
            out
        };
        let ordered = rounds(&Options::default());
        let random = rounds(&with(&[("fault_random_order", "1"), ("seed", "3")]));
        println!("default: {ordered:?}\nrandom:  {random:?}");
        assert!(ordered[1..].iter().all(|o| o == &[0, 1, 2, 3]));
        assert!(random[1..].iter().any(|o| o != &[0, 1, 2, 3]));
    })
}

/// A slow engine sees each present this long after its rendering completed.
#[test]
fn slow_engine() {
    env::run(|| {
        let path = env::scratch("slow").join("present.jsonl");
        let opts = with(&[
            ("fault_slow_engine_ms", "40"),
            ("log", path.to_str().unwrap()),
        ]);
        let vk = Vk::new(&opts);
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        textbook::run(
            &vk,
            &sc,
            &LoopDesc {
                frames: 10,
                ..Default::default()
            },
        );
        textbook::wait_shown(&vk, &sc, 10);
        swap::destroy(&vk, &sc);
        drop(vk);
        let gaps: Vec<u64> = log::read(&path)
            .iter()
            .filter_map(|e| Some(e.shown_ns? - e.ready_ns?))
            .collect();
        assert_eq!(gaps.len(), 10);
        assert!(gaps.iter().all(|g| *g >= 40_000_000), "{gaps:?}");
    })
}

/// Present fences (maintenance1) that signal late: not before the image was shown plus the
/// delay. And present fences that never signal.
#[test]
fn present_fences_late_and_never() {
    env::run(|| {
        let path = env::scratch("fences").join("present.jsonl");
        for (setting, value) in [
            ("fault_present_fence_late_ms", "30"),
            ("fault_present_fence_never", "1"),
        ] {
            let vk = Vk::new(&with(&[(setting, value), ("log", path.to_str().unwrap())]));
            let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            let fence = unsafe {
                vk.device
                    .create_fence(&vk::FenceCreateInfo::default(), None)
            }
            .unwrap();
            let mut m = Micro::new(&vk);
            let (i, _) = m.acquire(&sc, u64::MAX).unwrap();
            let fences = [fence];
            let info = vk::SwapchainPresentFenceInfoEXT::default().fences(&fences);
            assert_eq!(
                m.present(
                    &sc,
                    i,
                    (&info as *const vk::SwapchainPresentFenceInfoEXT).cast()
                ),
                vk::Result::SUCCESS
            );
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            let r = unsafe { vk.device.wait_for_fences(&fences, true, 300_000_000) };
            let t = textbook::now_ns();
            if setting == "fault_present_fence_never" {
                assert_eq!(r, Err(vk::Result::TIMEOUT));
                std::mem::forget(m); // its semaphores and the fence stay: the present never completes for the app
                continue;
            }
            r.unwrap();
            drop(m);
            swap::destroy(&vk, &sc);
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            unsafe { vk.device.destroy_fence(fence, None) };
            drop(vk);
            let shown = log::read(&path).last().and_then(|e| e.shown_ns).unwrap();
            assert!(
                t >= shown + 30_000_000,
                "fence signaled {} ms after display",
                (t as f64 - shown as f64) / 1e6
            );
        }
    })
}
