//! VK_KHR_present_id2 / VK_KHR_present_wait2 and VK_EXT_present_timing, implemented by the
//! layer over lavapipe (which has none of them).
//!
//! The validation layer (1.3.239) predates these extensions: it runs without handle wrapping
//! (it would hand its wrapped handles to commands it does not know), and each test filters
//! exactly the messages about names, structure types and flag bits it does not know; every
//! other message fails the test.

// Helpers of the tests: a failed call is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use ash::vk;
use common::context::{Msg, Options, Vk};
use common::micro::Micro;
use common::{env, log, swap, textbook};
use vkpace_registry::{self as r, structure_type as st, PresentStageFlagsEXT};

const PERIOD: u64 = 16_666_667;

fn options(log_path: &std::path::Path) -> Options {
    Options {
        settings: vec![("log", log_path.display().to_string())],
        device_exts: vec![
            vk::KHR_PRESENT_ID_NAME,
            vk::KHR_PRESENT_WAIT_NAME,
            vk::EXT_SWAPCHAIN_MAINTENANCE1_NAME,
            r::KHR_PRESENT_ID_2_NAME,
            r::KHR_PRESENT_WAIT_2_NAME,
            r::EXT_PRESENT_TIMING_NAME,
            vk::KHR_CALIBRATED_TIMESTAMPS_NAME,
        ],
        unique_handles: false,
        ..Options::default()
    }
}

/// Validation 1.3.239 does not know these names, structure types, or the swapchain create
/// flag bits they add (VUID-VkSwapchainCreateInfoKHR-flags-parameter).
fn unknown_to_validation(m: &Msg) -> bool {
    let exts = [
        "VK_KHR_present_id2",
        "VK_KHR_present_wait2",
        "VK_EXT_present_timing",
        "VK_KHR_calibrated_timestamps",
    ];
    let stypes = [
        st::PHYSICAL_DEVICE_PRESENT_ID_2_FEATURES_KHR.as_raw(),
        st::PHYSICAL_DEVICE_PRESENT_WAIT_2_FEATURES_KHR.as_raw(),
        st::PHYSICAL_DEVICE_PRESENT_TIMING_FEATURES_EXT.as_raw(),
        st::SURFACE_CAPABILITIES_PRESENT_ID_2_KHR.as_raw(),
        st::SURFACE_CAPABILITIES_PRESENT_WAIT_2_KHR.as_raw(),
        st::PRESENT_TIMING_SURFACE_CAPABILITIES_EXT.as_raw(),
        st::PRESENT_ID_2_KHR.as_raw(),
        st::PRESENT_TIMINGS_INFO_EXT.as_raw(),
        st::SWAPCHAIN_CALIBRATED_TIMESTAMP_INFO_EXT.as_raw(),
    ];
    common::context::too_new_for_validation(m, &exts, &stypes)
        || m.id == "VUID-VkSwapchainCreateInfoKHR-flags-parameter"
}

fn assert_clean(vk: &Vk) {
    let fatal: Vec<Msg> = vk
        .all_messages()
        .into_iter()
        .filter(|m| !unknown_to_validation(m))
        .collect();
    assert!(fatal.is_empty(), "{fatal:#?}");
}

fn device_fn<T>(vk: &Vk, name: &std::ffi::CStr) -> T {
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let f = unsafe {
        vk.instance
            .get_device_proc_addr(vk.device.handle(), name.as_ptr())
    }
    .unwrap_or_else(|| panic!("{name:?}"));
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe { std::mem::transmute_copy(&f) }
}

/// Present ids through VkPresentId2KHR; vkWaitForPresent2KHR returns once that present is on
/// the display (after the logged display time, and not much later).
#[test]
fn present_id2_and_wait2() {
    env::run(|| {
        let path = env::scratch("id2").join("present.jsonl");
        let vk = Vk::new(&options(&path));
        assert_surface_offers_id2_and_wait2(&vk);
        let flags = r::swapchain_create::PRESENT_ID_2_KHR | r::swapchain_create::PRESENT_WAIT_2_KHR;
        let sc = swap::create(
            &vk,
            &swap::SwapDesc {
                flags,
                ..Default::default()
            },
        )
        .unwrap();
        let wait: r::PFN_vkWaitForPresent2KHR = device_fn(&vk, c"vkWaitForPresent2KHR");
        let mut m = Micro::new(&vk);
        let mut returned = Vec::new();
        for id in 1..=10u64 {
            let (i, _) = m.acquire(&sc, u64::MAX).unwrap();
            let ids = [id];
            let p = r::PresentId2KHR::default().present_ids(&ids);
            assert_eq!(
                m.present(&sc, i, (&p as *const r::PresentId2KHR).cast()),
                vk::Result::SUCCESS
            );
            let w = r::PresentWait2InfoKHR::default()
                .present_id(id)
                .timeout(1_000_000_000);
            assert_eq!(
                // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
                unsafe { wait(vk.device.handle(), sc.handle, &w) },
                vk::Result::SUCCESS
            );
            returned.push((id, textbook::now_ns()));
        }
        let w = r::PresentWait2InfoKHR::default()
            .present_id(11)
            .timeout(20_000_000);
        assert_eq!(
            // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
            unsafe { wait(vk.device.handle(), sc.handle, &w) },
            vk::Result::TIMEOUT,
            "id 11 was never presented"
        );
        drop(m);
        swap::destroy(&vk, &sc);
        assert_clean(&vk);
        drop(vk);
        assert_waits_returned_on_display(&path, returned);
    })
}

/// The surface's capabilities say yes to VK_KHR_present_id2 and VK_KHR_present_wait2.
fn assert_surface_offers_id2_and_wait2(vk: &Vk) {
    let mut id2 = r::SurfaceCapabilitiesPresentId2KHR::default();
    let mut wait2 = r::SurfaceCapabilitiesPresentWait2KHR::default();
    let info = vk::PhysicalDeviceSurfaceInfo2KHR::default().surface(vk.surface);
    let mut caps = vk::SurfaceCapabilities2KHR::default()
        .push_next(&mut id2)
        .push_next(&mut wait2);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    unsafe {
        vk.surface2_fn
            .get_physical_device_surface_capabilities2(vk.pd, &info, &mut caps)
    }
    .unwrap();
    assert_eq!(
        (id2.present_id2_supported, wait2.present_wait2_supported),
        (vk::TRUE, vk::TRUE)
    );
}

/// Each wait (present id, when it returned) returned at or after its present's logged display
/// time, and the waits typically within 5 ms of it (the median): the layer wakes a waiter when
/// it shows the frame. A single wait may return later on a busy machine, where the woken
/// thread waits for a core; that is the scheduler's, not the layer's, so it is not judged.
fn assert_waits_returned_on_display(path: &std::path::Path, returned: Vec<(u64, u64)>) {
    let entries = log::read(path);
    let mut delays: Vec<u64> = returned
        .iter()
        .map(|&(id, t)| {
            let shown = entries
                .iter()
                .find(|e| e.present_id == id)
                .and_then(|e| e.shown_ns)
                .expect("shown");
            assert!(
                t >= shown,
                "present {id}: wait returned {} ns before display",
                shown - t
            );
            t - shown
        })
        .collect();
    delays.sort_unstable();
    let median = delays[delays.len() / 2];
    assert!(
        median < 5_000_000,
        "waits returned a median {median} ns after display (each: {delays:?} ns)"
    );
}

fn timing_info(
    target: u64,
    stages: PresentStageFlagsEXT,
    flags: r::PresentTimingInfoFlagsEXT,
) -> r::PresentTimingInfoEXT<'static> {
    r::PresentTimingInfoEXT {
        target_time: target,
        time_domain_id: 3,
        present_stage_queries: stages,
        flags,
        ..Default::default()
    }
}

/// Present timing: refresh properties, time domains, the results queue (QUEUE_FULL before it
/// is sized and when it is full), stage times, absolute and relative target times honoured on
/// the grid, and calibration of the swapchain-local domain against CLOCK_MONOTONIC.
#[test]
fn present_timing() {
    env::run(|| {
        let path = env::scratch("timing").join("present.jsonl");
        let vk = Vk::new(&options(&path));
        let mut tcaps = r::PresentTimingSurfaceCapabilitiesEXT::default();
        let info = vk::PhysicalDeviceSurfaceInfo2KHR::default().surface(vk.surface);
        let mut caps = vk::SurfaceCapabilities2KHR::default().push_next(&mut tcaps);
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            vk.surface2_fn
                .get_physical_device_surface_capabilities2(vk.pd, &info, &mut caps)
        }
        .unwrap();
        assert_eq!(tcaps.present_timing_supported, vk::TRUE);
        assert_eq!(tcaps.present_stage_queries, PresentStageFlagsEXT(0xF));
        let flags = r::swapchain_create::PRESENT_TIMING_EXT | r::swapchain_create::PRESENT_ID_2_KHR;
        let sc = swap::create(
            &vk,
            &swap::SwapDesc {
                flags,
                ..Default::default()
            },
        )
        .unwrap();
        check_properties(&vk, &sc);
        run_timed_presents(&vk, &sc);
        check_calibration(&vk, &sc);
        swap::destroy(&vk, &sc);
        assert_clean(&vk);
    })
}

const LOCAL_OFFSET: u64 = 1_000_000 * 1_000_000;

/// `timing_domains = local`: the device lists the local domains as calibrateable (both command
/// names), the swapchain offers only ids 1 and 2, they read `timing_local_offset_ms` ahead of
/// CLOCK_MONOTONIC, results come in them shifted, and an absolute target given in one is met.
#[test]
fn present_timing_local_domains() {
    env::run(|| {
        let path = env::scratch("timing_local").join("present.jsonl");
        let mut opts = options(&path);
        opts.settings.push(("timing_domains", "local".into()));
        opts.settings
            .push(("timing_local_offset_ms", "1000000".into()));
        let vk = Vk::new(&opts);
        check_calibrateable_local_domains(&vk);
        let flags = r::swapchain_create::PRESENT_TIMING_EXT | r::swapchain_create::PRESENT_ID_2_KHR;
        let sc = swap::create(
            &vk,
            &swap::SwapDesc {
                flags,
                ..Default::default()
            },
        )
        .unwrap();
        check_swapchain_local_domains(&vk, &sc);
        // The presenter lives to the end of the test, past the swapchain's destruction.
        let (_m, target, results) = present_in_local_domains(&vk, &sc);
        assert_eq!(
            results.iter().map(|r| r.0).collect::<Vec<_>>(),
            vec![1, 2, 3]
        );
        let visible = results[1].1[3];
        assert!(
            visible >= target && visible < target + PERIOD,
            "absolute target {target} in the local domain missed: visible {visible}"
        );
        swap::destroy(&vk, &sc);
        let entries = log::read(&path);
        for (id, t) in &results {
            let shown = entries
                .iter()
                .find(|e| e.present_id == *id)
                .and_then(|e| e.shown_ns)
                .expect("shown");
            assert_eq!(t[3], shown + LOCAL_OFFSET, "present {id}");
        }
        assert_clean(&vk);
    })
}

/// The device lists CLOCK_MONOTONIC and both local domains as calibrateable, the same through
/// the KHR and EXT command names, and a too-short array gets INCOMPLETE.
fn check_calibrateable_local_domains(vk: &Vk) {
    let khr = ash::khr::calibrated_timestamps::Instance::new(&vk.entry, &vk.instance);
    let ext = ash::ext::calibrated_timestamps::Instance::new(&vk.entry, &vk.instance);
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let listed = unsafe { khr.get_physical_device_calibrateable_time_domains(vk.pd) }.unwrap();
    // SAFETY: as above.
    let listed_ext = unsafe { ext.get_physical_device_calibrateable_time_domains(vk.pd) }.unwrap();
    assert_eq!(listed, listed_ext);
    for d in [
        vk::TimeDomainKHR::CLOCK_MONOTONIC,
        r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT,
        r::TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT,
    ] {
        assert!(listed.contains(&d), "{listed:?}");
    }
    let mut short = [vk::TimeDomainKHR::DEVICE; 1];
    let mut n = 1u32;
    assert_eq!(
        // SAFETY: as above; `short` holds `n` elements.
        unsafe {
            (khr.fp().get_physical_device_calibrateable_time_domains_khr)(
                vk.pd,
                &mut n,
                short.as_mut_ptr(),
            )
        },
        vk::Result::INCOMPLETE
    );
    assert_eq!(n, 1);
}

/// The swapchain offers only the local domains, ids 1 and 2, and SWAPCHAIN_LOCAL reads
/// `LOCAL_OFFSET` ahead of CLOCK_MONOTONIC.
fn check_swapchain_local_domains(vk: &Vk, sc: &swap::Swap) {
    assert_eq!(
        swapchain_domains(vk, sc),
        vec![
            (r::TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT, 1),
            (r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT, 2)
        ]
    );
    let (local, mono, dev) = read_swapchain_local(vk, sc);
    let diff = local.abs_diff(mono + LOCAL_OFFSET);
    assert!(
        diff <= dev.max(1_000_000),
        "local {local}, monotonic {mono}"
    );
}

/// Sizes the results queue, makes presents 1 to 3 with times in domains 2, 2 (an absolute
/// target in the local domain) and 1, and reads their results after 250 ms; returns the
/// presenter, the target and the results.
fn present_in_local_domains<'a>(
    vk: &'a Vk,
    sc: &swap::Swap,
) -> (Micro<'a>, u64, Vec<(u64, [u64; 4])>) {
    let size_fn: r::PFN_vkSetSwapchainPresentTimingQueueSizeEXT =
        device_fn(vk, c"vkSetSwapchainPresentTimingQueueSizeEXT");
    assert_eq!(
        // SAFETY: objects this test created and owns.
        unsafe { size_fn(vk.device.handle(), sc.handle, 4) },
        vk::Result::SUCCESS
    );
    let all = PresentStageFlagsEXT(0xF);
    let none = r::PresentTimingInfoFlagsEXT::empty();
    let in_domain = |target, id| r::PresentTimingInfoEXT {
        time_domain_id: id,
        ..timing_info(target, all, none)
    };
    let mut m = Micro::new(vk);
    let target = textbook::now_ns() + 6 * PERIOD + LOCAL_OFFSET;
    assert_eq!(
        present_timed(&mut m, sc, 1, in_domain(0, 2)),
        vk::Result::SUCCESS
    );
    assert_eq!(
        present_timed(&mut m, sc, 2, in_domain(target, 2)),
        vk::Result::SUCCESS
    );
    assert_eq!(
        present_timed(&mut m, sc, 3, in_domain(0, 1)),
        vk::Result::SUCCESS
    );
    std::thread::sleep(std::time::Duration::from_millis(250));
    let results = past_timings_in(vk, sc, &[2, 2, 1]);
    (m, target, results)
}

/// The swapchain's time domains with their ids.
fn swapchain_domains(vk: &Vk, sc: &swap::Swap) -> Vec<(vk::TimeDomainKHR, u64)> {
    let domains_fn: r::PFN_vkGetSwapchainTimeDomainPropertiesEXT =
        device_fn(vk, c"vkGetSwapchainTimeDomainPropertiesEXT");
    let mut domains = [vk::TimeDomainKHR::DEVICE; 8];
    let mut ids = [0u64; 8];
    let mut d = r::SwapchainTimeDomainPropertiesEXT {
        time_domain_count: 8,
        p_time_domains: domains.as_mut_ptr(),
        p_time_domain_ids: ids.as_mut_ptr(),
        ..Default::default()
    };
    assert_eq!(
        // SAFETY: objects this test created and owns; the arrays hold 8 elements.
        unsafe { domains_fn(vk.device.handle(), sc.handle, &mut d, std::ptr::null_mut()) },
        vk::Result::SUCCESS
    );
    let n = d.time_domain_count as usize;
    domains[..n]
        .iter()
        .copied()
        .zip(ids[..n].iter().copied())
        .collect()
}

/// One reading of (SWAPCHAIN_LOCAL id 2, CLOCK_MONOTONIC, max deviation).
fn read_swapchain_local(vk: &Vk, sc: &swap::Swap) -> (u64, u64, u64) {
    let cal_fn: vk::PFN_vkGetCalibratedTimestampsKHR =
        device_fn(vk, c"vkGetCalibratedTimestampsKHR");
    let mut sci = r::SwapchainCalibratedTimestampInfoEXT {
        swapchain: sc.handle,
        time_domain_id: 2,
        ..Default::default()
    };
    let local = sci.chain_onto(
        vk::CalibratedTimestampInfoKHR::default().time_domain(r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT),
    );
    let infos = [
        local,
        vk::CalibratedTimestampInfoKHR::default().time_domain(vk::TimeDomainKHR::CLOCK_MONOTONIC),
    ];
    let mut stamps = [0u64; 2];
    let mut dev = 0u64;
    assert_eq!(
        // SAFETY: objects this test created and owns; arrays of 2.
        unsafe {
            cal_fn(
                vk.device.handle(),
                2,
                infos.as_ptr(),
                stamps.as_mut_ptr(),
                &mut dev,
            )
        },
        vk::Result::SUCCESS
    );
    (stamps[0], stamps[1], dev)
}

fn check_properties(vk: &Vk, sc: &swap::Swap) {
    let props_fn: r::PFN_vkGetSwapchainTimingPropertiesEXT =
        device_fn(vk, c"vkGetSwapchainTimingPropertiesEXT");
    let domains_fn: r::PFN_vkGetSwapchainTimeDomainPropertiesEXT =
        device_fn(vk, c"vkGetSwapchainTimeDomainPropertiesEXT");
    let mut props = r::SwapchainTimingPropertiesEXT::default();
    let mut counter = 0;
    assert_eq!(
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { props_fn(vk.device.handle(), sc.handle, &mut props, &mut counter) },
        vk::Result::SUCCESS
    );
    assert_eq!(
        (props.refresh_duration, props.refresh_interval),
        (PERIOD, PERIOD)
    );
    let mut d = r::SwapchainTimeDomainPropertiesEXT::default();
    assert_eq!(
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { domains_fn(vk.device.handle(), sc.handle, &mut d, std::ptr::null_mut()) },
        vk::Result::SUCCESS
    );
    let n = d.time_domain_count as usize;
    let mut domains = vec![vk::TimeDomainKHR::DEVICE; n];
    let mut ids = vec![0u64; n];
    d.p_time_domains = domains.as_mut_ptr();
    d.p_time_domain_ids = ids.as_mut_ptr();
    assert_eq!(
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { domains_fn(vk.device.handle(), sc.handle, &mut d, std::ptr::null_mut()) },
        vk::Result::SUCCESS
    );
    assert!(
        domains.contains(&r::TIME_DOMAIN_PRESENT_STAGE_LOCAL_EXT),
        "{domains:?}"
    );
    assert!(domains
        .iter()
        .zip(&ids)
        .any(|(d, i)| *d == vk::TimeDomainKHR::CLOCK_MONOTONIC && *i == 3));
}

fn present_timed(
    m: &mut Micro,
    sc: &swap::Swap,
    id: u64,
    t: r::PresentTimingInfoEXT<'static>,
) -> vk::Result {
    // A finite timeout: validation 1.3.239 does not know VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT
    // and keeps counting an image rejected with it as acquired (the spec releases it), which
    // only matters to its check of UINT64_MAX acquires (VUID-vkAcquireNextImageKHR-surface-07783).
    let (i, _) = m.acquire(sc, 1_000_000_000).unwrap();
    let ids = [id];
    let timings = [t];
    let mut id2 = r::PresentId2KHR::default().present_ids(&ids);
    let mut ti = r::PresentTimingsInfoEXT::default().timing_infos(&timings);
    ti.p_next = (&mut id2 as *mut r::PresentId2KHR).cast();
    m.present(sc, i, (&ti as *const r::PresentTimingsInfoEXT).cast())
}

fn run_timed_presents(vk: &Vk, sc: &swap::Swap) {
    let size_fn: r::PFN_vkSetSwapchainPresentTimingQueueSizeEXT =
        device_fn(vk, c"vkSetSwapchainPresentTimingQueueSizeEXT");
    let all = PresentStageFlagsEXT(0xF);
    let none = r::PresentTimingInfoFlagsEXT::empty();
    let mut m = Micro::new(vk);
    // Spec: with stage queries and no queue size set, presentation fails with QUEUE_FULL.
    assert_eq!(
        present_timed(&mut m, sc, 1, timing_info(0, all, none)),
        r::ERROR_PRESENT_TIMING_QUEUE_FULL_EXT
    );
    assert_eq!(
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { size_fn(vk.device.handle(), sc.handle, 3) },
        vk::Result::SUCCESS
    );
    let target = textbook::now_ns() + 6 * PERIOD;
    assert_eq!(
        present_timed(&mut m, sc, 2, timing_info(0, all, none)),
        vk::Result::SUCCESS
    );
    assert_eq!(
        present_timed(&mut m, sc, 3, timing_info(target, all, none)),
        vk::Result::SUCCESS
    );
    let rel = r::PresentTimingInfoFlagsEXT::PRESENT_AT_RELATIVE_TIME;
    assert_eq!(
        present_timed(&mut m, sc, 4, timing_info(3 * PERIOD, all, rel)),
        vk::Result::SUCCESS
    );
    assert_eq!(
        present_timed(&mut m, sc, 5, timing_info(0, all, none)),
        r::ERROR_PRESENT_TIMING_QUEUE_FULL_EXT,
        "3 slots in use"
    );
    std::thread::sleep(std::time::Duration::from_millis(250));
    check_timed_results(vk, sc, target);
    // The slots were released by reading complete results.
    assert_eq!(
        present_timed(&mut m, sc, 6, timing_info(0, all, none)),
        vk::Result::SUCCESS
    );
}

/// Reads the results of `run_timed_presents`' presents 2 to 4: present 3 is visible on the
/// refresh of its absolute target, present 4 three refreshes after it (its relative target).
fn check_timed_results(vk: &Vk, sc: &swap::Swap, target: u64) {
    let results = past_timings(vk, sc);
    assert_eq!(
        results.iter().map(|r| r.0).collect::<Vec<_>>(),
        vec![2, 3, 4],
        "{results:?}"
    );
    let visible = |id: u64| results.iter().find(|r| r.0 == id).unwrap().1[3];
    let queue_end = |id: u64| results.iter().find(|r| r.0 == id).unwrap().1[0];
    println!("absolute target {target}: visible {} (+{} ns); relative 3 refreshes: {} ns after the previous", visible(3), visible(3) as i64 - target as i64, visible(4) - visible(3));
    assert!(queue_end(2) <= visible(2));
    assert!(
        visible(3) >= target && visible(3) < target + PERIOD,
        "absolute target missed"
    );
    let rel_gap = visible(4) - visible(3);
    assert!(
        (3 * PERIOD - 1000..4 * PERIOD).contains(&rel_gap),
        "relative target: {rel_gap} ns"
    );
}

/// Reads all complete results: (present id, stage times in bit order), all in domain id 3.
fn past_timings(vk: &Vk, sc: &swap::Swap) -> Vec<(u64, [u64; 4])> {
    past_timings_in(vk, sc, &[3; 3])
}

/// Reads all complete results (at most `ids.len()`), the i-th in domain id `ids[i]`.
fn past_timings_in(vk: &Vk, sc: &swap::Swap, ids: &[u64]) -> Vec<(u64, [u64; 4])> {
    let past_fn: r::PFN_vkGetPastPresentationTimingEXT =
        device_fn(vk, c"vkGetPastPresentationTimingEXT");
    let info = r::PastPresentationTimingInfoEXT {
        swapchain: sc.handle,
        ..Default::default()
    };
    let mut props = r::PastPresentationTimingPropertiesEXT::default();
    assert_eq!(
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { past_fn(vk.device.handle(), &info, &mut props) },
        vk::Result::SUCCESS
    );
    let n = props.presentation_timing_count as usize;
    let mut stages = vec![[r::PresentStageTimeEXT::default(); 4]; n];
    let mut entries: Vec<r::PastPresentationTimingEXT> = stages
        .iter_mut()
        .map(|s| r::PastPresentationTimingEXT {
            present_stage_count: 4,
            p_present_stages: s.as_mut_ptr(),
            ..Default::default()
        })
        .collect();
    props.p_presentation_timings = entries.as_mut_ptr();
    assert_eq!(
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe { past_fn(vk.device.handle(), &info, &mut props) },
        vk::Result::SUCCESS
    );
    let mut out = Vec::new();
    assert!(n <= ids.len(), "{n} results");
    for (e, id) in entries
        .iter()
        .take(props.presentation_timing_count as usize)
        .zip(ids)
    {
        assert_eq!(
            (e.report_complete, e.present_stage_count, e.time_domain_id),
            (vk::TRUE, 4, *id)
        );
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        let s = unsafe { std::slice::from_raw_parts(e.p_present_stages, 4) };
        let mut t = [0u64; 4];
        for (i, st) in s.iter().enumerate() {
            assert_eq!(st.stage, PresentStageFlagsEXT(1 << i));
            t[i] = st.time;
        }
        out.push((e.present_id, t));
    }
    out
}

fn check_calibration(vk: &Vk, sc: &swap::Swap) {
    let cal_fn: vk::PFN_vkGetCalibratedTimestampsKHR =
        device_fn(vk, c"vkGetCalibratedTimestampsKHR");
    let mut sci = r::SwapchainCalibratedTimestampInfoEXT {
        swapchain: sc.handle,
        time_domain_id: 2,
        ..Default::default()
    };
    let local = sci.chain_onto(
        vk::CalibratedTimestampInfoKHR::default().time_domain(r::TIME_DOMAIN_SWAPCHAIN_LOCAL_EXT),
    );
    let infos = [
        local,
        vk::CalibratedTimestampInfoKHR::default().time_domain(vk::TimeDomainKHR::CLOCK_MONOTONIC),
    ];
    let mut stamps = [0u64; 2];
    let mut dev = 0u64;
    assert_eq!(
        // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
        unsafe {
            cal_fn(
                vk.device.handle(),
                2,
                infos.as_ptr(),
                stamps.as_mut_ptr(),
                &mut dev,
            )
        },
        vk::Result::SUCCESS
    );
    let diff = stamps[0].abs_diff(stamps[1]);
    println!("swapchain-local vs CLOCK_MONOTONIC: {diff} ns apart (max deviation {dev} ns)");
    assert!(diff <= dev.max(1_000_000), "{stamps:?}");
}
