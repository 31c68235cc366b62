//! Swapchain behaviour of the virtual display on the real driver: oldSwapchain retirement,
//! acquire timeouts, the present modes' rules, external resize and minimize.

// Helpers of the tests: a failed call is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use ash::vk;
use common::context::{Options, Vk};
use common::micro::Micro;
use common::textbook::{self, LoopDesc};
use common::{env, log, swap};

const PERIOD: f64 = 1e9 / 60.0;

fn with_log(name: &str, mut opts: Options) -> (Options, std::path::PathBuf) {
    let path = env::scratch(name).join("present.jsonl");
    opts.settings.push(("log", path.display().to_string()));
    (opts, path)
}

/// Distance of `t - origin` from the nearest multiple of the refresh period, in ns.
fn off_grid(t: u64, origin: u64) -> f64 {
    let k = ((t - origin) as f64 / PERIOD).round();
    ((t - origin) as f64 - k * PERIOD).abs()
}

/// Spec (VkSwapchainCreateInfoKHR::oldSwapchain): the old swapchain is retired; acquiring
/// from it fails with OUT_OF_DATE, but images acquired before may still be presented.
#[test]
fn old_swapchain_is_retired() {
    env::run(|| {
        let (opts, path) = with_log("old", Options::default());
        let vk = Vk::new(&opts);
        let old = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        let mut m = Micro::new(&vk);
        let (a, _) = m.acquire(&old, u64::MAX).unwrap();
        assert_eq!(m.present(&old, a, std::ptr::null()), vk::Result::SUCCESS);
        let (b, _) = m.acquire(&old, u64::MAX).unwrap();
        let new = swap::create(
            &vk,
            &swap::SwapDesc {
                old: old.handle,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            m.present(&old, b, std::ptr::null()),
            vk::Result::SUCCESS,
            "present of an image acquired before retirement"
        );
        let s = m.acquire(&old, 0);
        assert_eq!(s.err(), Some(vk::Result::ERROR_OUT_OF_DATE_KHR));
        let (c, _) = m.acquire(&new, u64::MAX).unwrap();
        assert_eq!(m.present(&new, c, std::ptr::null()), vk::Result::SUCCESS);
        std::thread::sleep(std::time::Duration::from_millis(100)); // three FIFO refreshes
        drop(m);
        swap::destroy(&vk, &new);
        swap::destroy(&vk, &old);
        // Acquiring from a retired swapchain is itself invalid usage; that is what this test does.
        let msgs = vk.messages_except(&["VUID-vkAcquireNextImageKHR-swapchain-01285"]);
        let msgs: Vec<_> = msgs
            .into_iter()
            .filter(|m| !common::context::benign(m))
            .collect();
        assert!(msgs.is_empty(), "{msgs:#?}");
        drop(vk);
        let entries = log::read(&path);
        let first = entries.iter().map(|e| e.swapchain).min().unwrap();
        let shown = |sc: u64| {
            entries
                .iter()
                .filter(|e| e.swapchain == sc && e.shown_ns.is_some())
                .count()
        };
        assert_eq!((shown(first), shown(first + 1)), (2, 1), "{entries:#?}");
    })
}

/// Spec (vkAcquireNextImageKHR): no free image and timeout 0 -> VK_NOT_READY; a finite
/// timeout that expires -> VK_TIMEOUT, after at least the timeout.
#[test]
fn acquire_timeouts() {
    env::run(|| {
        let vk = Vk::new(&Options::default());
        let sc = swap::create(
            &vk,
            &swap::SwapDesc {
                image_count: 3,
                ..Default::default()
            },
        )
        .unwrap();
        let mut m = Micro::new(&vk);
        let mut held = Vec::new();
        for _ in 0..3 {
            held.push(m.acquire(&sc, 1_000_000_000).unwrap().0);
        }
        held.sort();
        assert_eq!(held, vec![0, 1, 2]);
        assert_eq!(m.acquire(&sc, 0).err(), Some(vk::Result::NOT_READY));
        let t0 = textbook::now_ns();
        assert_eq!(m.acquire(&sc, 20_000_000).err(), Some(vk::Result::TIMEOUT));
        let waited = (textbook::now_ns() - t0) as f64 / 1e6;
        assert!(waited >= 20.0, "TIMEOUT after {waited} ms");
        // Present one: it goes back to the free set once a successor is shown, which only the
        // next present can be; so a short acquire still times out, a present later frees one.
        assert_eq!(
            m.present(&sc, held[0], std::ptr::null()),
            vk::Result::SUCCESS
        );
        assert_eq!(
            m.acquire(&sc, 50_000_000).err(),
            Some(vk::Result::TIMEOUT),
            "the only shown image has no successor"
        );
        drop(m);
        swap::destroy(&vk, &sc);
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
    })
}

/// MAILBOX: a fast application's images replace each other (dropped, logged "replaced"), and
/// what is shown is on the refresh grid. IMMEDIATE: images are shown when ready, off the grid,
/// and none is dropped.
#[test]
fn mailbox_replaces_and_immediate_does_not_wait() {
    env::run(|| {
        let (opts, path) = with_log("mailbox", Options::default());
        let vk = Vk::new(&opts);
        for mode in [vk::PresentModeKHR::MAILBOX, vk::PresentModeKHR::IMMEDIATE] {
            let sc = swap::create(
                &vk,
                &swap::SwapDesc {
                    mode,
                    image_count: 4,
                    ..Default::default()
                },
            )
            .unwrap();
            textbook::run(
                &vk,
                &sc,
                &LoopDesc {
                    frames: 120,
                    ..Default::default()
                },
            );
            swap::destroy(&vk, &sc);
        }
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
        drop(vk);
        let entries = log::read(&path);
        let (mailbox, immediate): (Vec<_>, Vec<_>) =
            entries.iter().partition(|e| e.mode == "MAILBOX");
        check_mailbox_log(&mailbox);
        check_immediate_log(&immediate);
    })
}

/// MAILBOX's presents: some were replaced, and every shown one is on the refresh grid.
fn check_mailbox_log(mailbox: &[&log::Entry]) {
    let replaced = mailbox
        .iter()
        .filter(|e| e.reason.as_deref() == Some("replaced"))
        .count();
    let shown: Vec<u64> = mailbox.iter().filter_map(|e| e.shown_ns).collect();
    let worst = shown
        .iter()
        .map(|t| off_grid(*t, shown[0]))
        .fold(0.0, f64::max);
    println!(
        "MAILBOX: {} presents, {replaced} replaced, {} shown, worst off-grid {worst:.0} ns",
        mailbox.len(),
        shown.len()
    );
    assert!(replaced > 0, "MAILBOX dropped nothing");
    assert!(worst < 1000.0, "MAILBOX shows off the grid by {worst} ns");
}

/// IMMEDIATE's presents: all shown as soon as they are ready, most of them off the grid. The
/// one exception is the swapchain's destruction: `vkDestroySwapchainKHR` may come before the
/// display thread has seen the last frames ready (the test's device-idle wait does not wait
/// for vdisplay's watcher), and those are logged "destroyed", after every shown one.
fn check_immediate_log(immediate: &[&log::Entry]) {
    let ishown: Vec<u64> = immediate.iter().filter_map(|e| e.shown_ns).collect();
    let off = ishown
        .iter()
        .filter(|t| off_grid(**t, ishown[0]) > 100_000.0)
        .count();
    let mean = common::mean_interval(&ishown);
    let mut waits: Vec<u64> = immediate
        .iter()
        .filter_map(|e| Some(e.shown_ns?.saturating_sub(e.ready_ns?)))
        .collect();
    waits.sort_unstable();
    let wait_p50 = waits.get(waits.len() / 2).copied().unwrap_or(u64::MAX) as f64;
    let last_shown = immediate
        .iter()
        .filter(|e| e.shown_ns.is_some())
        .map(|e| e.seq)
        .max();
    let dropped: Vec<_> = immediate
        .iter()
        .filter(|e| e.shown_ns.is_none())
        .map(|e| (e.seq, e.reason.clone()))
        .collect();
    println!(
        "IMMEDIATE: {} shown, {off} off the grid, mean interval {:.3} ms, ready to shown \
         p50 {:.3} ms, not shown {dropped:?}",
        ishown.len(),
        mean / 1e6,
        wait_p50 / 1e6
    );
    let at_destroy = |(seq, reason): &(u64, Option<String>)| {
        reason.as_deref() == Some("destroyed") && Some(*seq) > last_shown
    };
    assert!(
        dropped.iter().all(at_destroy),
        "IMMEDIATE dropped images: {dropped:?}"
    );
    let in_flight = LoopDesc::default().in_flight;
    assert!(
        dropped.len() <= in_flight,
        "IMMEDIATE left {} images unshown",
        dropped.len()
    );
    // How fast the application presents is the machine's (two busy threads make it slower
    // than the refresh); that a ready image is shown without waiting for one is vdisplay's.
    assert!(
        wait_p50 < PERIOD / 8.0,
        "IMMEDIATE waited for the refresh: ready to shown p50 {wait_p50} ns"
    );
    assert!(off > ishown.len() / 2, "IMMEDIATE shows on the grid");
}

/// FIFO_RELAXED with frames that take longer than a refresh: late images are shown at once
/// (off the grid); FIFO with the same load keeps every image on the grid.
#[test]
fn fifo_relaxed_shows_late_images_at_once() {
    env::run(|| {
        let (opts, path) = with_log("relaxed", Options::default());
        let vk = Vk::new(&opts);
        let iterations = textbook::calibrate_iterations(&vk, 22.0);
        for mode in [vk::PresentModeKHR::FIFO_RELAXED, vk::PresentModeKHR::FIFO] {
            let sc = swap::create(
                &vk,
                &swap::SwapDesc {
                    mode,
                    ..Default::default()
                },
            )
            .unwrap();
            let n = textbook::run(
                &vk,
                &sc,
                &LoopDesc {
                    frames: 40,
                    load_iterations: iterations,
                    ..Default::default()
                },
            )
            .results
            .len();
            textbook::wait_shown(&vk, &sc, n as u64);
            swap::destroy(&vk, &sc);
        }
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
        drop(vk);
        let entries = log::read(&path);
        for (mode, expect_off) in [("FIFO_RELAXED", true), ("FIFO", false)] {
            let shown: Vec<u64> = entries
                .iter()
                .filter(|e| e.mode == mode)
                .filter_map(|e| e.shown_ns)
                .collect();
            let off = shown
                .iter()
                .filter(|t| off_grid(**t, shown[0]) > 100_000.0)
                .count();
            println!("{mode}: {} shown, {off} off the grid", shown.len());
            assert_eq!(off > 0, expect_off, "{mode}");
        }
    })
}

/// The surface extent changes from outside (the layer's control function): the swapchain is
/// out of date, the capabilities report the new extent, a recreated swapchain works; 0x0 is
/// minimized.
#[test]
fn external_resize_and_minimize() {
    env::run(|| {
        let vk = Vk::new(&Options {
            settings: vec![("extent", "640x480".into())],
            ..Options::default()
        });
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        let mut m = Micro::new(&vk);
        let (i, _) = m.acquire(&sc, u64::MAX).unwrap();
        assert_eq!(m.present(&sc, i, std::ptr::null()), vk::Result::SUCCESS);
        assert!(env::control_set_extent(0, 800, 600) >= 1);
        assert_eq!(
            vk.caps().current_extent,
            vk::Extent2D {
                width: 800,
                height: 600
            }
        );
        assert_eq!(
            m.acquire(&sc, 0).err(),
            Some(vk::Result::ERROR_OUT_OF_DATE_KHR)
        );
        let sc2 = swap::create(
            &vk,
            &swap::SwapDesc {
                old: sc.handle,
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            sc2.extent,
            vk::Extent2D {
                width: 800,
                height: 600
            }
        );
        let (j, _) = m.acquire(&sc2, u64::MAX).unwrap();
        assert_eq!(m.present(&sc2, j, std::ptr::null()), vk::Result::SUCCESS);
        env::control_set_extent(0, 0, 0);
        assert_eq!(
            vk.caps().current_extent,
            vk::Extent2D {
                width: 0,
                height: 0
            }
        );
        assert_eq!(
            m.acquire(&sc2, 0).err(),
            Some(vk::Result::ERROR_OUT_OF_DATE_KHR)
        );
        drop(m);
        swap::destroy(&vk, &sc2);
        swap::destroy(&vk, &sc);
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
    })
}

/// The acquire semaphore's wait is elided by the layer (its signal is owed, not submitted):
/// submissions that also carry a VkTimelineSemaphoreSubmitInfo (per-wait values) or use
/// vkQueueSubmit2 still work and signal what they should.
#[test]
fn acquire_waits_in_timeline_and_submit2_batches() {
    env::run(|| {
        let vk = Vk::new(&Options::default());
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        let d = &vk.device;
        let timeline = create_timeline_semaphore(&vk);
        let acquire = |s| {
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            unsafe {
                vk.swapchain_fn
                    .acquire_next_image(sc.handle, 1_000_000_000, s, vk::Fence::null())
            }
            .unwrap()
            .0
        };
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let sem =
            || unsafe { d.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }.unwrap();
        let (s1, s2) = (sem(), sem());
        acquire(s1);
        submit_with_timeline_values(&vk, s1, timeline);
        acquire(s2);
        submit2_signalling_timeline(&vk, s2, timeline);
        let values = [2u64];
        let sems = [timeline];
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            d.wait_semaphores(
                &vk::SemaphoreWaitInfo::default()
                    .semaphores(&sems)
                    .values(&values),
                1_000_000_000,
            )
        }
        .unwrap();
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            d.device_wait_idle().unwrap();
            for s in [s1, s2, timeline] {
                d.destroy_semaphore(s, None);
            }
        }
        swap::destroy(&vk, &sc);
        // Two images stay acquired (never presented): not an error.
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
    })
}

/// Creates a timeline semaphore (initial value 0).
fn create_timeline_semaphore(vk: &Vk) -> vk::Semaphore {
    let mut type_info =
        vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::TIMELINE);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        vk.device.create_semaphore(
            &vk::SemaphoreCreateInfo::default().push_next(&mut type_info),
            None,
        )
    }
    .unwrap()
}

/// A vkQueueSubmit batch that waits for the acquire semaphore `acquired` and `timeline` (value
/// 0) and signals `timeline` to 1, the values in a VkTimelineSemaphoreSubmitInfo.
fn submit_with_timeline_values(vk: &Vk, acquired: vk::Semaphore, timeline: vk::Semaphore) {
    let waits = [acquired, timeline];
    let stages = [vk::PipelineStageFlags::ALL_COMMANDS; 2];
    let (wait_values, signal_values) = ([0u64, 0], [1u64]);
    let signals = [timeline];
    let mut tl = vk::TimelineSemaphoreSubmitInfo::default()
        .wait_semaphore_values(&wait_values)
        .signal_semaphore_values(&signal_values);
    let submit = vk::SubmitInfo::default()
        .wait_semaphores(&waits)
        .wait_dst_stage_mask(&stages)
        .signal_semaphores(&signals)
        .push_next(&mut tl);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        vk.device
            .queue_submit(vk.queue, &[submit], vk::Fence::null())
    }
    .unwrap();
}

/// A vkQueueSubmit2 batch that waits for the acquire semaphore `acquired` and signals
/// `timeline` to 2.
fn submit2_signalling_timeline(vk: &Vk, acquired: vk::Semaphore, timeline: vk::Semaphore) {
    let w = [vk::SemaphoreSubmitInfo::default()
        .semaphore(acquired)
        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
    let sig = [vk::SemaphoreSubmitInfo::default()
        .semaphore(timeline)
        .value(2)
        .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)];
    let submit2 = vk::SubmitInfo2::default()
        .wait_semaphore_infos(&w)
        .signal_semaphore_infos(&sig);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        vk.device
            .queue_submit2(vk.queue, &[submit2], vk::Fence::null())
    }
    .unwrap();
}

/// Debug names and tags of the layer's own swapchains and surfaces stay in the layer (the
/// driver would read the handle as one of its objects: lavapipe crashed on vkpace naming its
/// swapchain); a driver object's name still goes down, and nothing is reported.
#[test]
fn debug_names_of_virtual_objects_stay_in_the_layer() {
    env::run(|| {
        let vk = Vk::new(&Options::default());
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        let du = ash::ext::debug_utils::Device::new(&vk.instance, &vk.device);
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let fence = unsafe {
            vk.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }
        .unwrap();
        let tag = [1u8, 2, 3];
        for (ty, handle) in [
            (vk::ObjectType::SWAPCHAIN_KHR, vk::Handle::as_raw(sc.handle)),
            (vk::ObjectType::SURFACE_KHR, vk::Handle::as_raw(vk.surface)),
            (vk::ObjectType::FENCE, vk::Handle::as_raw(fence)),
        ] {
            let name = vk::DebugUtilsObjectNameInfoEXT {
                object_type: ty,
                object_handle: handle,
                p_object_name: c"vdisplay test object".as_ptr(),
                ..Default::default()
            };
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            unsafe { du.set_debug_utils_object_name(&name) }.unwrap();
            let info = vk::DebugUtilsObjectTagInfoEXT {
                object_type: ty,
                object_handle: handle,
                tag_name: 7,
                ..Default::default()
            }
            .tag(&tag);
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            unsafe { du.set_debug_utils_object_tag(&info) }.unwrap();
        }
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { vk.device.destroy_fence(fence, None) };
        swap::destroy(&vk, &sc);
        let msgs = vk.all_messages();
        assert!(msgs.is_empty(), "{msgs:#?}");
    })
}
