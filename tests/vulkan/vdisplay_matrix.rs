//! vkpace over the virtual display (vdisplay, the layer in `vdisplay/`) on lavapipe, where frames
//! really overlap: the integration matrix (both sync paths, frames in flight 1 to 3, every
//! present mode) with the layer's faults on (SUBOPTIMAL and OUT_OF_DATE at random, images
//! handed back in random order, a slow engine, present fences signalled late) and, after a
//! steady phase, a new display extent every frame. The Khronos validation layer (synchronization
//! validation on) sits above vdisplay and fails a run on its first message. Each run must rotate
//! frame slots (N >= 2; N = 1 has one slot by definition) and image indices, and learn display
//! times through present-wait (vkpace's telemetry `displayed`).
//!
//! Also a FIFO run without faults that keeps its per-present log and a picture read back from
//! the display under `target/vdisplay/`.

use crate::common;
use crate::run_length;
use crate::vdisplay_support;

use std::collections::BTreeSet;
use std::time::Duration;

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use common::{Harness, RenderTarget};
use vdisplay_support::{artifacts_dir, read_log, Present};
use vkpace::{Acquired, SwapchainConfig};
use vkpace_demo::virtual_display::set_extent;

/// Frames before the resizing starts: 120 with `VKPACE_FULL` (`scripts/test --full`), else 60
/// (present-wait must report two thirds of the steady frames, and the first few of a run have
/// no display time yet: fewer than 60 leave too little margin).
fn steady_frames() -> u64 {
    run_length::frames(60, 120)
}

/// Frames with a new display extent each: 60 with `VKPACE_FULL`, else 30.
fn resize_frames() -> u64 {
    run_length::frames(30, 60)
}
/// The display's extent in the steady phase.
const EXTENT: (u32, u32) = (480, 360);
/// Extents cycled through while resizing.
const SIZES: [(u32, u32); 5] = [(320, 240), (400, 300), (480, 360), (560, 420), (352, 264)];
/// Extra GPU work (the demo's `--gpu-load` units): about 25 ms per frame at 480x360 on this
/// machine's lavapipe, longer than a refresh, so the GPU is the bottleneck, frames queue behind
/// each other and slots rotate in every present mode.
const GPU_LOAD: f32 = 1.5;

/// The faults, seeded per run.
fn fault_settings(seed: u64, log: &std::path::Path) -> Vec<(&'static str, String)> {
    vec![
        ("extent", format!("{}x{}", EXTENT.0, EXTENT.1)),
        ("seed", seed.to_string()),
        ("log", log.display().to_string()),
        ("fault_suboptimal", "0.02".into()),
        ("fault_out_of_date", "0.01".into()),
        ("fault_random_order", "true".into()),
        ("fault_slow_engine_ms", "3".into()),
        ("fault_present_fence_late_ms", "20".into()),
    ]
}

/// What one run saw.
#[derive(Debug, Default)]
struct Seen {
    slots: BTreeSet<usize>,
    images: BTreeSet<u32>,
    /// Per frame number: the phase it belongs to (true: resizing), and whether vkpace's
    /// telemetry has its display time.
    frames: Vec<(bool, bool)>,
    /// Start (vkpace's `cpu_start`) to displayed, per frame whose display time is known.
    start_to_displayed_ms: Vec<f64>,
    /// Acquires that returned OUT_OF_DATE after vkpace's own recreation (see [`acquire`]).
    double_out_of_date: u64,
}

impl Seen {
    /// Frames of a phase with a display time, and frames of it.
    fn displayed(&self, resizing: bool) -> (usize, usize) {
        let phase: Vec<_> = self.frames.iter().filter(|(r, _)| *r == resizing).collect();
        (phase.iter().filter(|(_, d)| *d).count(), phase.len())
    }
}

/// Records the demo scene with [`GPU_LOAD`] for one frame, submits and presents it.
fn frame(h: &mut Harness, seen: &mut Seen, resizing: bool) -> Result<()> {
    frame_in_phase(h, seen, resizing, GPU_LOAD)
}

/// A steady-phase frame with `gpu_load`.
fn frame_with_load(h: &mut Harness, seen: &mut Seen, gpu_load: f32) -> Result<()> {
    frame_in_phase(h, seen, false, gpu_load)
}

fn frame_in_phase(h: &mut Harness, seen: &mut Seen, resizing: bool, gpu_load: f32) -> Result<()> {
    let (Some(sc), Some(r)) = (h.swapchain.as_mut(), h.renderer.as_mut()) else {
        bail!("harness finished");
    };
    let frame = match acquire(sc, seen)? {
        Acquired::Frame(f) => f,
        _ => bail!("zero extent (the display never reports one here)"),
    };
    seen.slots.insert(frame.slot());
    seen.images.insert(frame.image_index());
    let number = usize::try_from(frame.number())?;
    if seen.frames.len() <= number {
        seen.frames.resize(number + 1, (resizing, false));
    }
    seen.frames[number].0 = resizing;
    h.history.push(common::Sample {
        interval_ms: 16.0 + (h.frames % 7) as f32,
        cpu_wait_ms: (h.frames % 5) as f32,
        latency_ms: 20.0 + (h.frames % 3) as f32,
    });
    let t = h.frames as f32 / 60.0;
    let cmd = r.record(RenderTarget::of(sc, &frame), t, gpu_load, &h.history)?;
    // SAFETY: `cmd` was recorded for this frame's free slot and lives until the renderer is
    // destroyed, after the swapchain waited for its submissions.
    let submitted = unsafe {
        sc.submit(
            frame,
            vkpace::Submission::command_buffers(
                &[cmd],
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            ),
        )
    }?;
    sc.present(submitted)?;
    h.frames += 1;
    note_displayed(h, seen);
    h.check_canary("after presenting")
}

/// `acquire`, once more when the swapchain vkpace just recreated was out of date too: vkpace
/// recreates at most once per acquire and returns that second `VK_ERROR_OUT_OF_DATE_KHR` as an
/// error (counted in [`Seen::double_out_of_date`]); the next acquire recreates again.
fn acquire(sc: &mut vkpace::Swapchain, seen: &mut Seen) -> Result<Acquired> {
    match sc.acquire() {
        Err(vkpace::Error::Vulkan {
            call: "vkAcquireNextImageKHR",
            result: vk::Result::ERROR_OUT_OF_DATE_KHR,
        }) => {
            seen.double_out_of_date += 1;
            Ok(sc.acquire()?)
        }
        other => Ok(other?),
    }
}

/// Takes the display times vkpace learned since the last look (the newest frames of its
/// telemetry ring; a frame's time arrives within a few frames of its present).
fn note_displayed(h: &mut Harness, seen: &mut Seen) {
    for t in h.swapchain().telemetry().rev().take(32) {
        let Some(entry) = usize::try_from(t.frame)
            .ok()
            .and_then(|f| seen.frames.get_mut(f))
        else {
            continue;
        };
        if let (Some(shown), false) = (t.displayed, entry.1) {
            entry.1 = true;
            let ms = shown.saturating_sub(t.cpu_start).as_secs_f64() * 1e3;
            seen.start_to_displayed_ms.push(ms);
        }
    }
}

fn config(mode: vk::PresentModeKHR, n: usize, m1: bool) -> SwapchainConfig {
    let mut c = SwapchainConfig::default();
    c.present_mode = mode;
    c.pacing.frames_in_flight = n;
    // The context enables the names the layer offers and sets the real ones.
    c.paths.swapchain_maintenance1 = m1.then_some(vkpace::Maintenance1Names::Ext);
    c.pacing.wait_timeout = Duration::from_secs(5);
    c
}

/// The run's frames: a steady phase, then a new display extent before every frame.
fn frames(h: &mut Harness, seen: &mut Seen) -> Result<()> {
    for _ in 0..steady_frames() {
        frame(h, seen, false)?;
    }
    for i in 0..resize_frames() {
        let (w, hgt) = SIZES[(i as usize) % SIZES.len()];
        ensure!(set_extent(0, w, hgt)? == 1, "one virtual display expected");
        frame(h, seen, true)?;
    }
    // A few more frames at the last extent, so the last resized frames' display times arrive.
    for _ in 0..8 {
        frame(h, seen, false)?;
    }
    Ok(())
}

/// One run of the matrix; returns a line for the test's output.
pub(crate) fn run_case(mode: vk::PresentModeKHR, n: usize, m1: bool) -> Result<String> {
    let name = format!("{}-{mode:?}-{n}", if m1 { "m1" } else { "legacy" });
    let dir = artifacts_dir().join("matrix");
    std::fs::create_dir_all(&dir)?;
    let log = dir.join(format!("{name}.jsonl"));
    let _ = std::fs::remove_file(&log);
    let seed = 1 + mode.as_raw() as u64 * 10 + n as u64 + if m1 { 100 } else { 0 };
    let settings = fault_settings(seed, &log);
    vdisplay_support::run(&settings, move || run_case_on_thread(mode, n, m1, &log))
        .with_context(|| name.clone())
        .map(|line| format!("{name}: {line}"))
}

fn run_case_on_thread(
    mode: vk::PresentModeKHR,
    n: usize,
    m1: bool,
    log: &std::path::Path,
) -> Result<String> {
    let mut h = Harness::headless(config(mode, n, m1))?;
    ensure!(
        h.swapchain().info().display_feedback.in_use(),
        "present-wait not in use"
    );
    ensure!(
        h.swapchain().info().present_mode == Some(mode),
        "mode {:?}",
        h.swapchain().info().present_mode
    );
    ensure!(h.swapchain().info().maintenance1.is_some() == m1, "path");
    let mut seen = Seen::default();
    frames(&mut h, &mut seen)?;
    let stats = h.finish()?;
    let presents = read_log(log)?;
    check(&seen, &stats, &presents, n)
}

/// Slots rotate with more than one frame in flight (N = 1 has one slot by definition: frame F
/// begins once F - 1 completed), and more than one image index was acquired.
fn check_rotation(seen: &Seen, n: usize) -> Result<()> {
    if n >= 2 {
        ensure!(
            seen.slots.len() > 1,
            "slots did not rotate: {:?}",
            seen.slots
        );
    } else {
        ensure!(
            seen.slots == BTreeSet::from([0]),
            "N = 1 has one slot: {:?}",
            seen.slots
        );
    }
    ensure!(
        seen.images.len() > 1,
        "one image index only: {:?}",
        seen.images
    );
    Ok(())
}

/// The run's checks; returns what it saw as one line.
fn check(
    seen: &Seen,
    stats: &vkpace::SwapchainStats,
    presents: &[Present],
    n: usize,
) -> Result<String> {
    let total = steady_frames() + resize_frames() + 8;
    ensure!(stats.frames_presented == total, "{stats:?}");
    check_rotation(seen, n)?;
    ensure!(
        stats.swapchains_created > resize_frames(),
        "a new extent every frame should recreate every frame: {stats:?}"
    );
    let (steady, steady_of) = seen.displayed(false);
    let (resized, resized_of) = seen.displayed(true);
    // Steady frames: present-wait reports most of them (not MAILBOX's replaced ones, nor those
    // whose swapchain a fault retired first). Resizing frames: none is expected, since each
    // frame's swapchain is retired by the next frame's recreation before vkpace may ask, and
    // vkWaitForPresentKHR must not be called on a retired swapchain
    // (VUID-vkWaitForPresentKHR-swapchain-04997); the layer's log shows them shown.
    ensure!(
        3 * steady > 2 * steady_of,
        "display times for {steady} of {steady_of} steady frames"
    );
    let shown = presents.iter().filter(|p| p.shown_ns.is_some()).count();
    ensure!(
        presents.len() as u64 >= total,
        "log has {} presents",
        presents.len()
    );
    let mut lat = seen.start_to_displayed_ms.clone();
    lat.sort_by(f64::total_cmp);
    Ok(format!(
        "slots {:?}, images {:?}, {} swapchains, {} OUT_OF_DATE/SUBOPTIMAL ({} twice in one \
         acquire), display times: \
         steady {steady}/{steady_of}, resizing {resized}/{resized_of}; layer log: {shown} of {} \
         presents shown; start to displayed p50 {:.1} ms",
        seen.slots,
        seen.images,
        stats.swapchains_created,
        stats.out_of_date_or_suboptimal,
        seen.double_out_of_date,
        presents.len(),
        lat.get(lat.len() / 2).copied().unwrap_or(f64::NAN),
    ))
}

/// A test per case: `name: MODE, frames in flight, maintenance1;`.
macro_rules! matrix {
    ($($name:ident: $mode:ident, $n:expr, $m1:expr;)*) => {$(
        #[test]
        fn $name() -> anyhow::Result<()> {
            let line = crate::vdisplay_matrix::run_case(ash::vk::PresentModeKHR::$mode, $n, $m1)?;
            println!("vdisplay matrix: {line}");
            Ok(())
        }
    )*};
}
pub(crate) use matrix;

// Per push, eight of the 24 cases: each present mode on both sync paths, each N on both paths
// and with two or three modes. `vdisplay_matrix_full` holds the other 16 (`scripts/test --full`).
matrix! {
    legacy_fifo_1: FIFO, 1, false; legacy_fifo_relaxed_2: FIFO_RELAXED, 2, false;
    legacy_mailbox_3: MAILBOX, 3, false; legacy_immediate_2: IMMEDIATE, 2, false;
    m1_fifo_3: FIFO, 3, true; m1_fifo_relaxed_1: FIFO_RELAXED, 1, true;
    m1_mailbox_2: MAILBOX, 2, true; m1_immediate_1: IMMEDIATE, 1, true;
}

/// The refresh period of the virtual display (60 Hz).
const PERIOD_NS: f64 = 1e9 / 60.0;

/// A FIFO run without faults, display-bound (light GPU load): every present is shown, one per
/// refresh on the 60 Hz grid; its per-present log and a frame read back from the display are
/// kept as `target/vdisplay/fifo-present-log.jsonl` and `target/vdisplay/fifo-frame.png`.
#[test]
fn fifo_run_keeps_its_log_and_a_picture() -> Result<()> {
    let dir = artifacts_dir();
    let readback = dir.join("readback");
    let _ = std::fs::remove_dir_all(&readback);
    std::fs::create_dir_all(&readback)?;
    let log = dir.join("fifo-present-log.jsonl");
    let _ = std::fs::remove_file(&log);
    let settings = vec![
        ("extent", "640x480".to_string()),
        ("log", log.display().to_string()),
        ("readback_dir", readback.display().to_string()),
        ("readback_every", "60".to_string()),
    ];
    let frames = 180;
    vdisplay_support::run(&settings, move || -> Result<()> {
        let mut h = Harness::headless(config(vk::PresentModeKHR::FIFO, 2, true))?;
        let mut seen = Seen::default();
        for _ in 0..frames {
            frame_with_load(&mut h, &mut seen, 0.1)?;
        }
        let stats = h.finish()?;
        ensure!(stats.swapchains_created == 1, "{stats:?}");
        Ok(())
    })?;
    let (kept, single, intervals) = check_fifo_log(&read_log(&log)?, frames)?;
    let png = newest_png(&readback)?;
    let picture = dir.join("fifo-frame.png");
    std::fs::copy(&png, &picture)?;
    check_png(&picture, 640, 480)?;
    println!(
        "vdisplay FIFO run: {frames} presents, the first {kept} all shown, {single} of \
         {intervals} frames ready in time, each one refresh after the one before; log {}, \
         picture {}",
        log.display(),
        picture.display()
    );
    Ok(())
}

/// A display-bound FIFO run's log: one present per frame; every present but those still
/// queued at teardown (at most the images beyond the one on screen, which go with the
/// swapchain) shown, on the refresh grid; every frame that was ready by the refresh after the
/// previous frame's shown then, one refresh apart. A frame not ready then (a busy machine can
/// make one late) is a miss, not a failure; enough frames must be ready for the check to judge
/// something. Returns the presents checked, the intervals judged (ready in time) and all
/// intervals.
fn check_fifo_log(presents: &[Present], frames: usize) -> Result<(usize, usize, usize)> {
    ensure!(
        presents.len() == frames,
        "{} presents logged",
        presents.len()
    );
    let kept = frames - 3;
    let shown: Vec<(u64, u64)> = presents[..kept]
        .iter()
        .filter_map(|p| Some((p.ready_ns?, p.shown_ns?)))
        .collect();
    ensure!(
        shown.len() == kept,
        "{} of the first {kept} shown",
        shown.len()
    );
    let periods: Vec<(f64, bool)> = shown
        .windows(2)
        .map(|w| {
            let refresh = (w[1].1 - w[0].1) as f64 / PERIOD_NS;
            (refresh, w[1].0 as f64 <= w[0].1 as f64 + PERIOD_NS)
        })
        .collect();
    let off_grid = periods
        .iter()
        .filter(|(p, _)| (p - p.round()).abs() > 0.01)
        .count();
    ensure!(off_grid == 0, "{off_grid} intervals off the refresh grid");
    let in_time: Vec<f64> = periods
        .iter()
        .filter(|(_, r)| *r)
        .map(|(p, _)| *p)
        .collect();
    let held = in_time.iter().filter(|p| p.round() != 1.0).count();
    ensure!(
        held == 0,
        "{held} of {} frames ready in time not shown one refresh after the one before: {periods:?}",
        in_time.len()
    );
    ensure!(
        in_time.len() * 2 >= periods.len(),
        "only {} of {} frames ready in time",
        in_time.len(),
        periods.len()
    );
    Ok((kept, in_time.len(), periods.len()))
}

/// The read-back PNG with the highest present sequence number.
fn newest_png(dir: &std::path::Path) -> Result<std::path::PathBuf> {
    let seq = |p: &std::path::Path| -> Option<u64> {
        let name = p.file_name()?.to_str()?;
        name.split('_')
            .find_map(|part| part.strip_prefix('p')?.parse().ok())
    };
    std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "png"))
        .max_by_key(|p| seq(p))
        .with_context(|| format!("no PNG read back into {}", dir.display()))
}

/// A PNG of `width` x `height` (signature and IHDR), big enough not to be a blank picture (a
/// uniform 640x480 RGBA image compresses to well under a kilobyte; the scene's bars and graph
/// to tens of kilobytes).
fn check_png(path: &std::path::Path, width: u32, height: u32) -> Result<()> {
    let bytes = std::fs::read(path)?;
    ensure!(bytes.len() > 33, "{} is too short", path.display());
    ensure!(bytes[..8] == *b"\x89PNG\r\n\x1a\n", "not a PNG");
    ensure!(bytes[12..16] == *b"IHDR", "no IHDR first");
    let be =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    ensure!((be(16), be(20)) == (width, height), "{}x{}", be(16), be(20));
    ensure!(
        bytes.len() > 8_000,
        "{} bytes: a blank picture?",
        bytes.len()
    );
    Ok(())
}

/// The canary works over the layer: the validation layer sits above vdisplay (checking the
/// application, not vdisplay), so a swapchain made with an extent the virtual display does not
/// allow is reported. With validation below vdisplay, vdisplay would handle the call and
/// validation would never see it.
#[test]
fn validation_sits_above_the_virtual_display() -> Result<()> {
    let settings = vec![("extent", "640x480".to_string())];
    let messages = vdisplay_support::run(&settings, || -> Result<u64> {
        common::set_runtime_dir();
        let ctx = common::VulkanContext::new(common::SurfaceSource::Headless, true, false)?;
        // SAFETY: the context's valid handles.
        let caps = unsafe {
            ctx.surface_fn
                .get_physical_device_surface_capabilities(ctx.physical, ctx.surface)
        }?;
        ensure!(caps.current_extent.width == 640, "{caps:?}");
        let sc_fn = ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device);
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(ctx.surface)
            .min_image_count(caps.min_image_count)
            .image_format(vk::Format::B8G8R8A8_UNORM)
            .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR)
            .image_extent(vk::Extent2D {
                width: 320,
                height: 200,
            })
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true);
        // SAFETY: deliberately invalid (the extent), for the validation layer to report; the
        // layer below makes the swapchain or refuses, and a made one is destroyed at once.
        if let Ok(sc) = unsafe { sc_fn.create_swapchain(&info, None) } {
            // SAFETY: just made, never used.
            unsafe { sc_fn.destroy_swapchain(sc, None) };
        }
        let n = ctx.messages.count();
        ctx.destroy();
        Ok(n)
    })?;
    ensure!(
        messages >= 1,
        "the validation layer did not see the application's call"
    );
    Ok(())
}
