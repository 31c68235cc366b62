//! Integration tests on lavapipe's VK_EXT_headless_surface, on the proof-based ("legacy") path
//! and the swapchain maintenance1 path, with the Khronos validation layer (synchronization
//! validation on) failing a test on its first message.

use crate::common;
use crate::object_bounds;
use crate::run_length;

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use common::{Harness, RenderTarget};
use object_bounds::semaphores_allowed;
use vkpace::{Acquired, Error, Frame, Submission, SwapchainConfig, SwapchainStats};

/// Frames of the resize run (a new extent each).
const FRAMES: u64 = 300;

/// Frames of each matrix case: 300 with `VKPACE_FULL` (`scripts/test --full`), else 100 (every
/// slot and its semaphores cycle many times over either way).
fn matrix_frames() -> u64 {
    run_length::frames(100, 300)
}

fn config(mode: vk::PresentModeKHR, frames_in_flight: usize, m1: bool) -> SwapchainConfig {
    let mut c = SwapchainConfig::default();
    c.present_mode = mode;
    c.pacing.frames_in_flight = frames_in_flight;
    c.paths.swapchain_maintenance1 = m1_if(m1);
    c
}

/// Asks for the maintenance1 path; the context enables the names the driver offers and sets
/// the real ones (KHR where offered, else EXT).
fn m1_if(on: bool) -> Option<vkpace::Maintenance1Names> {
    on.then_some(vkpace::Maintenance1Names::Ext)
}

fn with(f: impl FnOnce(&mut SwapchainConfig)) -> SwapchainConfig {
    let mut c = SwapchainConfig::default();
    f(&mut c);
    c
}

/// Acquires a frame; a zero extent is a failure here (headless surfaces have the wanted one).
fn acquire(h: &mut Harness) -> Result<Frame> {
    match h.swapchain().acquire()? {
        Acquired::Frame(f) => Ok(f),
        _ => bail!("zero extent on a headless surface"),
    }
}

/// Records the demo scene for `frame` and submits it.
fn submit(h: &mut Harness, frame: Frame) -> Result<vkpace::SubmittedFrame> {
    let (Some(sc), Some(r)) = (h.swapchain.as_mut(), h.renderer.as_mut()) else {
        bail!("harness finished");
    };
    let cmd = r.record(RenderTarget::of(sc, &frame), 0.0, 0.0, &h.history)?;
    // SAFETY: `cmd` was recorded for this frame's free slot and outlives its submission.
    Ok(unsafe {
        sc.submit(
            frame,
            vkpace::Submission::command_buffers(
                &[cmd],
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            ),
        )
    }?)
}

/// Steady state: the mode asked for is the mode in use where the surface offers it (FIFO, the
/// fallback, where it does not: lavapipe's headless surface offers only FIFO and MAILBOX), and
/// every object count stays within the documented steady-state bound.
fn run_matrix_case(mode: vk::PresentModeKHR, n: usize, m1: bool) -> Result<()> {
    let mut h = Harness::headless(config(mode, n, m1))?;
    let offered = h.ctx.as_ref().context("no context")?.present_modes()?;
    let expected = if offered.contains(&mode) {
        mode
    } else {
        println!(
            "{mode:?} is not offered by this surface ({offered:?}): checking the FIFO fallback"
        );
        vk::PresentModeKHR::FIFO
    };
    ensure!(
        h.swapchain().info().present_mode == Some(expected),
        "{:?}",
        h.swapchain().info().present_mode
    );
    let frames = matrix_frames();
    for _ in 0..frames {
        ensure!(h.frame()?, "zero extent on a headless surface");
    }
    ensure!(h.swapchain().info().present_mode == Some(expected));
    ensure!(h.swapchain().info().maintenance1.is_some() == m1);
    let stats = h.finish()?;
    let images = stats.image_count as usize;
    let steady_bound = (n + 1) + images * (n + 1);
    ensure!(stats.frames_presented == frames, "{stats:?}");
    ensure!(
        stats.swapchains_created == 1,
        "no recreation expected: {stats:?}"
    );
    ensure!(
        stats.semaphores_max_alive <= steady_bound,
        "{stats:?} over {steady_bound}"
    );
    // Submission fences: N + 1; present fences (maintenance1): N + 1 more.
    let fence_bound = if m1 { 2 * (n + 1) } else { n + 1 };
    ensure!(stats.fences_max_alive <= fence_bound, "{stats:?}");
    Ok(())
}

macro_rules! matrix {
    ($($name:ident: $mode:ident, $n:expr, $m1:expr;)*) => {$(
        #[test]
        fn $name() -> Result<()> {
            run_matrix_case(vk::PresentModeKHR::$mode, $n, $m1)
        }
    )*};
}

matrix! {
    legacy_fifo_1: FIFO, 1, false; legacy_fifo_2: FIFO, 2, false; legacy_fifo_3: FIFO, 3, false;
    legacy_mailbox_1: MAILBOX, 1, false; legacy_mailbox_2: MAILBOX, 2, false;
    legacy_mailbox_3: MAILBOX, 3, false;
    legacy_immediate_1: IMMEDIATE, 1, false; legacy_immediate_2: IMMEDIATE, 2, false;
    legacy_immediate_3: IMMEDIATE, 3, false;
    legacy_fifo_relaxed_1: FIFO_RELAXED, 1, false; legacy_fifo_relaxed_2: FIFO_RELAXED, 2, false;
    legacy_fifo_relaxed_3: FIFO_RELAXED, 3, false;
    m1_fifo_1: FIFO, 1, true; m1_fifo_2: FIFO, 2, true; m1_fifo_3: FIFO, 3, true;
    m1_mailbox_1: MAILBOX, 1, true; m1_mailbox_2: MAILBOX, 2, true; m1_mailbox_3: MAILBOX, 3, true;
    m1_immediate_1: IMMEDIATE, 1, true; m1_immediate_2: IMMEDIATE, 2, true;
    m1_immediate_3: IMMEDIATE, 3, true;
    m1_fifo_relaxed_1: FIFO_RELAXED, 1, true; m1_fifo_relaxed_2: FIFO_RELAXED, 2, true;
    m1_fifo_relaxed_3: FIFO_RELAXED, 3, true;
}

/// A new extent every frame on both paths: one swapchain per frame, the retired backlog
/// within the cap (plus the one just retired), semaphores within the documented bound, nothing
/// leaked; and the maintenance1 path keeps at most 2 retired swapchains pending with no fallback
/// wait, fewer than the proof-based path on the same driver.
#[test]
fn new_extent_every_frame() -> Result<()> {
    for n in 1..=3 {
        let legacy = new_extent_every_frame_on(n, false)?;
        let m1 = new_extent_every_frame_on(n, true)?;
        ensure!(m1.old_swapchains_max_pending <= 2, "maintenance1: {m1:?}");
        ensure!(
            m1.fallback_waits == 0,
            "maintenance1 needed the fallback: {m1:?}"
        );
        ensure!(
            m1.old_swapchains_max_pending < legacy.old_swapchains_max_pending,
            "maintenance1 {} vs legacy {}",
            m1.old_swapchains_max_pending,
            legacy.old_swapchains_max_pending
        );
    }
    Ok(())
}

fn new_extent_every_frame_on(n: usize, m1: bool) -> Result<SwapchainStats> {
    let mut h = Harness::headless(config(vk::PresentModeKHR::FIFO, n, m1))?;
    for i in 0..FRAMES {
        let w = 320 + (i % 7) as u32 * 64;
        h.swapchain().resize(vk::Extent2D {
            width: w,
            height: 200 + (i % 5) as u32 * 40,
        });
        ensure!(h.frame()?, "zero extent");
        ensure!(
            h.swapchain().info().old_swapchains_pending <= 6,
            "backlog over the cap"
        );
    }
    let stats = h.finish()?;
    ensure!(stats.swapchains_created >= FRAMES, "{stats:?}");
    ensure!(stats.old_swapchains_max_pending <= 6, "{stats:?}");
    // 5: the default retired cap (`PacingConfig::max_retired_swapchains`).
    let bound = semaphores_allowed(n, stats.image_count as usize, 5);
    ensure!(
        stats.semaphores_max_alive <= bound,
        "{stats:?} over {bound}"
    );
    Ok(stats)
}

/// `set_present_mode` on both paths: the switch takes effect and is counted. Lavapipe's
/// headless surface reports no compatible modes, so here every switch recreates (the X11 test
/// shows per-present switching without recreation).
#[test]
fn set_present_mode_switches_on_both_paths() -> Result<()> {
    for m1 in [false, true] {
        let mut h = Harness::headless(config(vk::PresentModeKHR::FIFO, 2, m1))?;
        let modes = [vk::PresentModeKHR::MAILBOX, vk::PresentModeKHR::FIFO];
        for i in 0..40usize {
            if i % 10 == 9 {
                h.swapchain()
                    .set(vkpace::Setting::PresentMode(modes[(i / 10) % 2]))?;
            }
            ensure!(h.frame()?);
        }
        ensure!(h.swapchain().info().present_mode == Some(vk::PresentModeKHR::FIFO));
        let stats = h.finish()?;
        ensure!(stats.present_mode_switches == 4, "{stats:?}");
    }
    Ok(())
}

/// Deferred memory allocation (maintenance1): views are made at first acquire; no message.
#[test]
fn deferred_memory_allocation_renders_cleanly() -> Result<()> {
    let mut h = Harness::headless(with(|c| {
        c.paths.swapchain_maintenance1 = m1_if(true);
        c.deferred_memory_allocation = true;
    }))?;
    for i in 0..50u32 {
        if i % 10 == 5 {
            h.swapchain().resize(vk::Extent2D {
                width: 200 + i,
                height: 150,
            });
        }
        ensure!(h.frame()?);
    }
    h.finish()?;
    Ok(())
}

/// Zero extent (minimized): acquire says so at once, creates nothing, waits for nothing; a
/// non-zero extent brings frames back.
#[test]
fn zero_extent_skips_then_recovers() -> Result<()> {
    let mut h = Harness::headless(SwapchainConfig::default())?;
    ensure!(h.frame()?);
    h.swapchain().resize(vk::Extent2D {
        width: 0,
        height: 0,
    });
    let created = h.swapchain().stats().swapchains_created;
    let started = std::time::Instant::now();
    for _ in 0..100 {
        if let Acquired::Frame(_) = h.swapchain().acquire()? {
            anyhow::bail!("a frame with zero extent");
        }
    }
    ensure!(
        started.elapsed().as_millis() < 2000,
        "zero-extent acquires took {:?}",
        started.elapsed()
    );
    ensure!(
        h.swapchain().stats().swapchains_created == created,
        "created a swapchain while minimized"
    );
    h.swapchain().resize(vk::Extent2D {
        width: 300,
        height: 200,
    });
    for _ in 0..10 {
        ensure!(h.frame()?);
    }
    ensure!(
        h.swapchain().info().extent
            == Some(vk::Extent2D {
                width: 300,
                height: 200
            })
    );
    let stats = h.finish()?;
    ensure!(stats.zero_extent_skips == 100, "{stats:?}");
    Ok(())
}

/// A frame dropped before submission keeps its image: the next acquire hands back the same
/// image and semaphores without calling vkAcquireNextImageKHR again; and a recreation while an
/// image is held consumes its acquire semaphore, with no validation message. Both paths.
#[test]
fn dropped_frame_keeps_its_image_and_recreation_consumes_it() -> Result<()> {
    for m1 in [false, true] {
        let mut h = Harness::headless(with(|c| c.paths.swapchain_maintenance1 = m1_if(m1)))?;
        ensure!(h.frame()?);
        let first = acquire(&mut h)?;
        let key = |f: &Frame| {
            (
                f.number(),
                f.image_index(),
                f.acquire_semaphore(),
                f.fence(),
                f.timeline_signal(),
            )
        };
        let seen = key(&first);
        drop(first);
        let again = acquire(&mut h)?;
        ensure!(key(&again) == seen, "{:?} vs {seen:?}", key(&again));
        drop(again);
        h.swapchain().resize(vk::Extent2D {
            width: 200,
            height: 100,
        });
        for _ in 0..20 {
            ensure!(h.frame()?);
        }
        h.check_canary("after recreating with a held image")?;
        let stats = h.finish()?;
        ensure!(stats.swapchains_created == 2, "{stats:?}");
    }
    Ok(())
}

/// What safe code could do with vkpace 0.1 to break Vulkan rules is handled: a frame submitted
/// and dropped is presented by the next acquire (its semaphores and fence are never handed out
/// twice), also when a resize or a frames-in-flight change came in between; a frame of another
/// swapchain object is refused with a typed error. Validation-clean on both paths.
#[test]
fn submitted_frames_dropped_or_foreign_are_handled() -> Result<()> {
    for m1 in [false, true] {
        let mut h = Harness::headless(with(|c| c.paths.swapchain_maintenance1 = m1_if(m1)))?;
        let mut other = Harness::headless(SwapchainConfig::default())?;
        ensure!(h.frame()?);
        for round in 0..6u32 {
            let frame = acquire(&mut h)?;
            let submitted = submit(&mut h, frame)?;
            drop(submitted);
            match round % 3 {
                0 => h.swapchain().resize(vk::Extent2D {
                    width: 200 + round,
                    height: 120,
                }),
                1 => h
                    .swapchain()
                    .set(vkpace::Setting::FramesInFlight(1 + (round as usize % 3)))?,
                _ => {}
            }
            let next = acquire(&mut h)?;
            let submitted = submit(&mut h, next)?;
            match other.swapchain().present(submitted) {
                Err(Error::ForeignFrame) => {}
                r => bail!("a frame of another swapchain was accepted: {r:?}"),
            }
            h.check_canary("after dropping a submitted frame")?;
        }
        ensure!(h.frame()?, "the loop goes on");
        let stats = h.finish()?;
        // Six dropped ones, and the six the other swapchain refused.
        ensure!(stats.abandoned_frames_presented == 12, "{stats:?}");
        other.finish()?;
    }
    Ok(())
}

/// Dropping the swapchain while an image is held (acquired, never submitted), or a frame is
/// submitted and not presented, still releases everything cleanly.
#[test]
fn teardown_with_a_frame_in_progress_leaks_nothing() -> Result<()> {
    for (m1, submitted) in [(false, false), (true, false), (false, true), (true, true)] {
        let mut h = Harness::headless(with(|c| c.paths.swapchain_maintenance1 = m1_if(m1)))?;
        for _ in 0..5 {
            ensure!(h.frame()?);
        }
        let frame = acquire(&mut h)?;
        if submitted {
            drop(submit(&mut h, frame)?);
        } else {
            drop(frame);
        }
        h.finish()?;
    }
    Ok(())
}

/// Bad settings give typed errors before anything is created.
#[test]
fn bad_configuration_is_a_typed_error() -> Result<()> {
    for (config, expect) in [
        (with(|c| c.pacing.frames_in_flight = 0), "frames"),
        (with(|c| c.pacing.frames_in_flight = 4), "frames"),
        (
            with(|c| c.pacing.wait_timeout = std::time::Duration::ZERO),
            "timeout",
        ),
        (with(|c| c.deferred_memory_allocation = true), "invalid"),
        (
            with(|c| c.image_usage |= vk::ImageUsageFlags::FRAGMENT_DENSITY_MAP_EXT),
            "usage",
        ),
        (
            with(|c| {
                c.preferred_formats = vec![vk::SurfaceFormatKHR {
                    format: vk::Format::R16G16B16A16_SFLOAT,
                    color_space: vk::ColorSpaceKHR::EXTENDED_SRGB_LINEAR_EXT,
                }];
                c.any_format_if_none_offered = false;
            }),
            "format",
        ),
    ] {
        match Harness::headless(config) {
            Ok(_) => anyhow::bail!("accepted a bad configuration ({expect})"),
            Err(e) => match e.downcast_ref::<Error>() {
                Some(Error::InvalidFramesInFlight { .. }) if expect == "frames" => {}
                Some(Error::InvalidConfig(_)) if expect == "invalid" => {}
                Some(Error::ZeroTimeout) if expect == "timeout" => {}
                Some(Error::UnsupportedImageUsage { .. }) if expect == "usage" => {}
                Some(Error::NoSurfaceFormat) if expect == "format" => {}
                other => anyhow::bail!("unexpected error for {expect}: {other:?} ({e})"),
            },
        }
    }
    Ok(())
}

/// The canary is alive: a semaphore deliberately leaked makes the teardown check fail (the
/// validation layer reports it at vkDestroyDevice), and so would any leak of vkpace's.
#[test]
fn canary_catches_a_deliberate_leak() -> Result<()> {
    let mut h = Harness::headless(SwapchainConfig::default())?;
    ensure!(h.frame()?);
    let device = h
        .ctx
        .as_ref()
        .map(|c| c.device.clone())
        .ok_or_else(|| anyhow::anyhow!("no ctx"))?;
    // SAFETY: valid device; the semaphore is leaked on purpose.
    let _leaked = unsafe { device.create_semaphore(&vk::SemaphoreCreateInfo::default(), None) }?;
    match h.finish() {
        Ok(_) => anyhow::bail!("a leaked semaphore went unnoticed"),
        Err(e) => ensure!(e.to_string().contains("teardown"), "unexpected error: {e}"),
    }
    Ok(())
}

/// The demo scene renders upright and moves: one frame read back from the swapchain image has
/// the red orientation marker top-left (not bottom-left, which an unwanted coordinate flip in
/// the shader build would give, with no validation message) and bars across its middle row; a
/// frame half a second later has the bars elsewhere.
#[test]
fn scene_renders_upright_and_moves() -> Result<()> {
    let (w, h_px) = (256u32, 128u32);
    let mut h = Harness::headless(with(|c| {
        c.extent = vk::Extent2D {
            width: w,
            height: h_px,
        };
        c.image_usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
    }))?;
    let ctx = h
        .ctx
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("no context"))?;
    let device = ctx.device.clone();
    let size = u64::from(w * h_px * 4);
    let (buffer, memory, ptr) = create_readback_buffer(ctx, size)?;
    let mut rows = Vec::new();
    for t in [0.0f32, 0.5] {
        let bgra = render_and_read_back(&mut h, t, (w, h_px), buffer)?;
        // SAFETY: the copy completed (the frame's token) and was made host-visible (HOST
        // barrier); the mapping covers `size` bytes.
        let pixels = unsafe { std::slice::from_raw_parts(ptr, size as usize) };
        rows.push(check_marker_and_bars(pixels, bgra, (w, h_px))?);
    }
    ensure!(rows[0] != rows[1], "the bars did not move in half a second");
    // SAFETY: no submission uses the buffer any more (both fences waited).
    unsafe {
        device.unmap_memory(memory);
        device.destroy_buffer(buffer, None);
        device.free_memory(memory, None);
    }
    h.finish()?;
    Ok(())
}

/// A host-visible, coherent transfer destination of `size` bytes, bound and mapped; the
/// caller unmaps, destroys and frees it.
fn create_readback_buffer(
    ctx: &common::VulkanContext,
    size: u64,
) -> Result<(vk::Buffer, vk::DeviceMemory, *const u8)> {
    let device = &ctx.device;
    // SAFETY: valid device; plain host-visible buffer, destroyed by the caller.
    let (buffer, memory, ptr) = unsafe {
        let buffer = device.create_buffer(
            &vk::BufferCreateInfo::default()
                .size(size)
                .usage(vk::BufferUsageFlags::TRANSFER_DST),
            None,
        )?;
        let req = device.get_buffer_memory_requirements(buffer);
        let props = ctx
            .instance
            .get_physical_device_memory_properties(ctx.physical);
        let want = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let index = (0..props.memory_type_count)
            .find(|&i| {
                req.memory_type_bits & (1 << i) != 0
                    && props.memory_types[i as usize].property_flags.contains(want)
            })
            .ok_or_else(|| anyhow::anyhow!("no host-visible memory"))?;
        let memory = device.allocate_memory(
            &vk::MemoryAllocateInfo::default()
                .allocation_size(req.size)
                .memory_type_index(index),
            None,
        )?;
        device.bind_buffer_memory(buffer, memory, 0)?;
        let ptr = device.map_memory(memory, 0, size, vk::MemoryMapFlags::empty())? as *const u8;
        (buffer, memory, ptr)
    };
    Ok((buffer, memory, ptr))
}

/// Renders the scene at time `t` into a frame of the extent `(w, h_px)`, copies it into
/// `buffer`, presents it and waits for it; returns whether the image is BGRA.
fn render_and_read_back(
    h: &mut Harness,
    t: f32,
    (w, h_px): (u32, u32),
    buffer: vk::Buffer,
) -> Result<bool> {
    let (Some(sc), Some(r)) = (h.swapchain.as_mut(), h.renderer.as_mut()) else {
        anyhow::bail!("harness");
    };
    let frame = match sc.acquire()? {
        Acquired::Frame(f) => f,
        _ => anyhow::bail!("zero extent"),
    };
    let want = vk::Extent2D {
        width: w,
        height: h_px,
    };
    ensure!(frame.extent() == want, "{:?}", frame.extent());
    let bgra = matches!(
        frame.format(),
        vk::Format::B8G8R8A8_UNORM | vk::Format::B8G8R8A8_SRGB
    );
    let cmd = r.record_with_readback(
        RenderTarget::of(sc, &frame),
        t,
        0.0,
        &h.history,
        Some(buffer),
    )?;
    // SAFETY: `cmd` was recorded for this frame's free slot and outlives its submission.
    let submitted = unsafe {
        sc.submit(
            frame,
            vkpace::Submission::command_buffers(
                &[cmd],
                vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
            ),
        )
    }?;
    let token = submitted.token();
    sc.present(submitted)?;
    sc.wait(token, std::time::Duration::from_secs(2))?;
    Ok(bgra)
}

/// Checks the read-back `pixels` of a `(w, h_px)` image: the red marker top-left and not
/// bottom-left, and bars across the middle row; returns that row.
fn check_marker_and_bars(pixels: &[u8], bgra: bool, (w, h_px): (u32, u32)) -> Result<Vec<[u8; 3]>> {
    let rgb = |x: u32, y: u32| {
        let i = ((y * w + x) * 4) as usize;
        let p = &pixels[i..i + 3];
        if bgra {
            [p[2], p[1], p[0]]
        } else {
            [p[0], p[1], p[2]]
        }
    };
    let top_left = rgb(2, 2);
    let bottom_left = rgb(2, h_px - 3);
    ensure!(
        top_left[0] > 200 && top_left[1] < 40 && top_left[2] < 40,
        "top-left {top_left:?}"
    );
    ensure!(
        bottom_left != top_left,
        "marker at the bottom too: flipped? {bottom_left:?}"
    );
    let row: Vec<[u8; 3]> = (0..w).map(|x| rgb(x, h_px / 2)).collect();
    let mut distinct = row.clone();
    distinct.sort();
    distinct.dedup();
    ensure!(distinct.len() >= 2, "middle row is uniform: {:?}", row[0]);
    Ok(row)
}

/// Frames in flight change at run time on both paths: pacing follows the new value, slots stay
/// within the three per-frame resource sets, no validation message; a bad value is a typed
/// error and changes nothing.
#[test]
fn frames_in_flight_change_at_run_time() -> Result<()> {
    for m1 in [false, true] {
        let mut h = Harness::headless(config(vk::PresentModeKHR::FIFO, 1, m1))?;
        for n in [1usize, 3, 2, 1, 3, 1] {
            h.swapchain().set(vkpace::Setting::FramesInFlight(n))?;
            for _ in 0..30 {
                ensure!(h.frame()?);
            }
            ensure!(h.swapchain().info().frames_in_flight == n);
        }
        match h.swapchain().set(vkpace::Setting::FramesInFlight(4)) {
            Err(Error::InvalidFramesInFlight { requested: 4, .. }) => {}
            other => anyhow::bail!("frames in flight 4 accepted: {other:?}"),
        }
        ensure!(h.swapchain().info().frames_in_flight == 1);
        let stats = h.finish()?;
        ensure!(stats.frames_presented == 180, "{stats:?}");
    }
    Ok(())
}

/// GPU timestamps (VK_EXT_calibrated_timestamps, which lavapipe offers): every frame's GPU
/// start and end are measured and fit the CPU timeline: submitted before the GPU started, the
/// GPU ended before vkpace saw the fence signalled, start before end. The tolerance covers the
/// calibration's CPU bracket (tens of microseconds at most).
#[test]
fn gpu_timestamps_fit_the_cpu_timeline() -> Result<()> {
    use std::time::Duration;
    let tolerance = Duration::from_micros(200);
    for m1 in [false, true] {
        let mut h = Harness::headless(config(vk::PresentModeKHR::FIFO, 2, m1))?;
        ensure!(
            h.ctx.as_ref().is_some_and(|c| c.gpu_timing),
            "lavapipe offers VK_EXT_calibrated_timestamps; the context must enable it"
        );
        for _ in 0..200 {
            ensure!(h.frame()?);
        }
        let mut timed = 0;
        for t in h.swapchain().telemetry() {
            let Some(done) = t.completion_observed else {
                continue;
            };
            let (Some(sub), Some(start), Some(end)) = (t.submitted, t.gpu_start, t.gpu_end) else {
                anyhow::bail!("completed frame {} has no GPU times: {t:?}", t.frame);
            };
            ensure!(t.cpu_start <= sub, "{t:?}");
            ensure!(
                sub <= start + tolerance,
                "GPU started before submission: {t:?}"
            );
            ensure!(start <= end, "{t:?}");
            ensure!(
                end <= done + tolerance,
                "GPU ended after the fence was seen: {t:?}"
            );
            timed += 1;
        }
        ensure!(timed >= 190, "only {timed} frames timed");
        h.finish()?;
    }
    Ok(())
}

/// Display feedback needs VK_KHR_present_id and VK_KHR_present_wait. Where the device offers
/// them the context enables them and shown frames get display times (over lavapipe that branch
/// runs over the virtual display, which offers them: `tests/vulkan/present_wait2.rs`,
/// `present_wait_is_used_where_offered`); where it does not (lavapipe) asking for it is a
/// typed error that creates and leaks nothing.
#[test]
fn present_wait_is_used_where_offered_and_refused_where_not() -> Result<()> {
    use common::{SurfaceSource, VulkanContext};
    common::set_runtime_dir();
    let ctx = VulkanContext::new(SurfaceSource::Headless, true, false)?;
    // Present wait is a device extension alone: asked as if the instance enabled nothing of
    // vkpace's (which it then needs not have).
    let enabled = vkpace::InstanceSupport::default();
    // SAFETY: the physical device and queue family come from the context's Vulkan 1.3
    // instance, loaded from its entry, which enabled everything `enabled` names (nothing).
    let support = unsafe {
        vkpace::Support::query(
            &ctx.entry,
            &ctx.instance,
            ctx.physical,
            ctx.queue_family,
            &enabled,
        )
    }?;
    ensure!(
        support.present_wait == ctx.present_wait,
        "the context enables present wait exactly where it is offered ({support:?})"
    );
    if ctx.present_wait {
        // A driver with present_wait of its own (not lavapipe): the positive branch here too.
        // CI runs it over the virtual display (tests/vulkan/present_wait2.rs).
        ctx.destroy();
        let mut c = config(vk::PresentModeKHR::FIFO, 2, false);
        c.display = vkpace::DisplayChoice::PresentWait;
        let mut h = Harness::headless(c)?;
        common::check_present_wait_display_times(&mut h, 200, None)?;
        h.finish()?;
        return Ok(());
    }
    let mut config = config(vk::PresentModeKHR::FIFO, 2, false);
    config.paths.present_wait = true;
    // SAFETY: the option is set on a device without the extension on purpose: vkpace checks
    // that one itself (Swapchain::new's contract); nothing else needs an extension.
    let made = unsafe { ctx.swapchain_as_given(config) };
    let outcome = match made {
        Err(e) if matches!(e.downcast_ref::<Error>(), Some(Error::InvalidConfig(why)) if why.contains("present_wait")) => {
            Ok(())
        }
        Err(e) => Err(anyhow::anyhow!("unexpected error: {e}")),
        Ok(sc) => {
            let _ = sc.destroy();
            Err(anyhow::anyhow!(
                "present_wait accepted on a device without it"
            ))
        }
    };
    let messages = ctx.messages.clone();
    ctx.destroy();
    outcome?;
    ensure!(
        messages.count() == 0,
        "{} validation message(s): the refused swapchain left something behind",
        messages.count()
    );
    Ok(())
}

/// A frame kept from before a recreation gave its image back (same frame number, stale image,
/// semaphores and fence or timeline value) is refused, typed, before any Vulkan call; the frame
/// handed out instead renders normally. Both sync paths; zero validation messages.
#[test]
fn a_frame_kept_across_a_recreation_is_refused() -> Result<()> {
    for m1 in [false, true] {
        let mut h = Harness::headless(with(|c| c.paths.swapchain_maintenance1 = m1_if(m1)))?;
        ensure!(h.frame()?);
        let stale = acquire(&mut h)?;
        h.swapchain().resize(vk::Extent2D {
            width: 320,
            height: 200,
        });
        let current = acquire(&mut h)?;
        ensure!(
            current.number() == stale.number(),
            "the same frame, recreated"
        );
        // SAFETY: nothing is submitted: the frame is refused first.
        let refused = unsafe {
            h.swapchain().submit(
                stale,
                vkpace::Submission::command_buffers(
                    &[],
                    vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                ),
            )
        };
        ensure!(
            matches!(refused, Err(Error::ForeignFrame)),
            "a stale frame was not refused: {refused:?}"
        );
        let submitted = submit(&mut h, current)?;
        h.swapchain().present(submitted)?;
        h.check_canary("after the refused stale frame")?;
        h.finish()?;
    }
    Ok(())
}

/// Submissions the swapchain cannot take are typed errors before any Vulkan call, and the frame
/// stays held: an empty list of batches, and a declaration with the timing command buffers
/// on a swapchain without GPU timestamps are `InvalidConfig`; the next acquire hands the same
/// frame out again, and it renders normally. Both sync paths; zero validation messages.
#[test]
fn submissions_the_swapchain_cannot_take_are_refused() -> Result<()> {
    for m1 in [false, true] {
        let config = with(|c| c.paths.swapchain_maintenance1 = m1_if(m1));
        let mut h = Harness::headless_with(config, |c| c.gpu_timestamps = false)?;
        ensure!(h.frame()?);
        let frame = acquire(&mut h)?;
        let number = frame.number();
        // Were the declaration below believed, nothing would signal the frame's semaphores.
        ensure!(
            frame.timing_command_buffers().is_none(),
            "GPU timestamps on"
        );
        let stage = vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT;
        // SAFETY: nothing is submitted: the empty list is refused first.
        let refused = unsafe { h.swapchain().submit(frame, Submission::batches(&[], stage)) };
        ensure!(
            matches!(&refused, Err(Error::InvalidConfig(why)) if why.contains("at least one")),
            "an empty list of batches was not refused: {refused:?}"
        );
        let frame = acquire(&mut h)?;
        ensure!(frame.number() == number, "the refused frame was not held");
        // SAFETY: nothing was submitted, and the declaration is refused before it is believed.
        let refused = unsafe {
            h.swapchain()
                .submitted_by_renderer(frame, vkpace::RendererTiming::Timed)
        };
        ensure!(
            matches!(&refused, Err(Error::InvalidConfig(why)) if why.contains("gpu_timestamps")),
            "a timed declaration without GPU timestamps was not refused: {refused:?}"
        );
        let frame = acquire(&mut h)?;
        ensure!(frame.number() == number, "the refused frame was not held");
        let submitted = submit(&mut h, frame)?;
        h.swapchain().present(submitted)?;
        h.check_canary("after the refused submissions")?;
        h.finish()?;
    }
    Ok(())
}

/// A renderer that submits frames itself, with vkpace's timing command buffers first and last
/// (`Frame::timing_command_buffers`), signalling the frame's completion as the backend in use
/// asks (`Frame::fence` or `Frame::timeline_signal`): every frame's GPU start and end reach the
/// telemetry, zero validation messages, both sync paths.
#[test]
fn own_submissions_keep_gpu_timestamps() -> Result<()> {
    for m1 in [false, true] {
        let mut h = Harness::headless(config(vk::PresentModeKHR::FIFO, 2, m1))?;
        for _ in 0..60 {
            let frame = acquire(&mut h)?;
            let submitted = submit_own(&mut h, frame)?;
            h.swapchain().present(submitted)?;
            h.frames += 1;
            h.check_canary("after presenting")?;
        }
        let mut timed = 0;
        for t in h.swapchain().telemetry() {
            let Some(done) = t.completion_observed else {
                continue;
            };
            let (Some(start), Some(end)) = (t.gpu_start, t.gpu_end) else {
                bail!("completed frame {} has no GPU times: {t:?}", t.frame);
            };
            let tolerance = std::time::Duration::from_micros(200);
            ensure!(start <= end && end <= done + tolerance, "{t:?}");
            timed += 1;
        }
        ensure!(timed >= 55, "only {timed} frames timed");
        h.finish()?;
    }
    Ok(())
}

/// The renderer's own `vkQueueSubmit` of `frame`: vkpace's timing command buffers around the
/// scene's, the acquire wait, the present semaphore and the frame's completion signal.
fn submit_own(h: &mut Harness, frame: Frame) -> Result<vkpace::SubmittedFrame> {
    let (Some(sc), Some(r), Some(ctx)) =
        (h.swapchain.as_mut(), h.renderer.as_mut(), h.ctx.as_ref())
    else {
        bail!("harness finished");
    };
    let cmd = r.record(RenderTarget::of(sc, &frame), 0.0, 0.0, &h.history)?;
    let (begin, end) = frame
        .timing_command_buffers()
        .context("GPU timestamps are on")?;
    let buffers = [begin, cmd, end];
    let waits = [frame.acquire_semaphore()];
    let stages = [vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT];
    let (timeline, value) = frame
        .timeline_signal()
        .unwrap_or((vk::Semaphore::null(), 0));
    let signals = [frame.present_semaphore(), timeline];
    let values = [0, value];
    let n = if value == 0 { 1 } else { 2 };
    let mut values_info =
        vk::TimelineSemaphoreSubmitInfo::default().signal_semaphore_values(&values[..n]);
    let submit = vk::SubmitInfo::default()
        .wait_semaphores(&waits)
        .wait_dst_stage_mask(&stages)
        .command_buffers(&buffers)
        .signal_semaphores(&signals[..n])
        .push_next(&mut values_info);
    // SAFETY: the frame's objects as vkpace handed them out; `cmd` was recorded for the frame's
    // free slot; the timing buffers are vkpace's for this slot.
    unsafe { ctx.device.queue_submit(ctx.queue, &[submit], frame.fence()) }?;
    // SAFETY: the submission above waited on the acquire semaphore, signalled the present
    // semaphore and the frame's completion, and included the timing buffers first and last.
    Ok(unsafe { sc.submitted_by_renderer(frame, vkpace::RendererTiming::Timed) }?)
}

/// What a frame says about recreation, compared with the last frame submitted: the first frame
/// is a change of everything; a new extent is a new swapchain and a new extent, not a new
/// format; a recreation at the same extent is a new swapchain only; a frame dropped unsubmitted
/// and handed out again still says so; frames between say nothing changed. `Swapchain::images` lists the new
/// images, the frame's image and view among them. Both sync paths.
#[test]
fn frames_say_what_changed_and_images_lists_the_new_ones() -> Result<()> {
    for m1 in [false, true] {
        let mut h = Harness::headless(with(|c| c.paths.swapchain_maintenance1 = m1_if(m1)))?;
        // (new extent, recreation asked, the frame dropped once first, changed flags wanted)
        type Step = (Option<(u32, u32)>, bool, bool, [bool; 3]);
        let steps: [Step; 6] = [
            (None, false, false, [true, true, true]),
            (None, false, false, [false, false, false]),
            (Some((320, 200)), false, false, [true, true, false]),
            (None, true, false, [true, false, false]),
            // Dropped unsubmitted: the change is still reported when it comes back.
            (Some((400, 240)), false, true, [true, true, false]),
            (None, false, false, [false, false, false]),
        ];
        for (k, (extent, recreate, drop_first, want)) in steps.into_iter().enumerate() {
            if let Some((width, height)) = extent {
                h.swapchain().resize(vk::Extent2D { width, height });
            }
            if recreate {
                h.swapchain().request_recreate();
            }
            if drop_first {
                drop(acquire(&mut h)?);
            }
            let frame = acquire(&mut h)?;
            let got = [
                frame.swapchain_changed(),
                frame.extent_changed(),
                frame.format_changed(),
            ];
            ensure!(
                got == want,
                "m1 {m1} step {k}: changed/extent/format {got:?}, want {want:?}"
            );
            let images = h.swapchain().images();
            ensure!(
                images.contains(&(frame.image(), frame.image_view())),
                "step {k}: the frame's image is not among images() {images:?}"
            );
            let submitted = submit(&mut h, frame)?;
            h.swapchain().present(submitted)?;
        }
        h.check_canary("after the recreations")?;
        h.finish()?;
    }
    Ok(())
}
