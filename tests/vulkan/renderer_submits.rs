//! A renderer that submits its frames itself and declares them with
//! `Swapchain::submitted_by_renderer(frame, RendererTiming::Untimed)`: one batch per frame that
//! waits on `Frame::acquire_semaphore`, signals `Frame::present_semaphore` and the frame's
//! completion (`Frame::fence` on the fence backend, `Frame::timeline_signal` on the timeline
//! one), through resizes, on both sync paths (maintenance1 and the proof-based one), with the
//! Khronos validation layer (synchronization validation on) failing the run on its first message
//! and a leak check at teardown. `scripts/test` runs it once per completion backend
//! (`VKPACE_COMPLETION`).

use crate::common;

use anyhow::{bail, ensure, Result};
use ash::vk;
use common::{Harness, RenderTarget};
use vkpace::{Acquired, Frame, SwapchainConfig};

/// Frames per sync path.
const FRAMES: u64 = 100;
/// Frames at which the extent changes (each a recreation).
const RESIZES: [(u64, u32, u32); 2] = [(30, 320, 200), (70, 400, 240)];

/// The renderer's own `vkQueueSubmit` of `frame`: the scene's command buffer, the acquire wait,
/// the present semaphore and the frame's completion signal (the fence or the timeline value,
/// whichever the backend in use hands out); then the declaration.
fn submit_own(h: &mut Harness, frame: Frame) -> Result<vkpace::SubmittedFrame> {
    let (Some(sc), Some(r), Some(ctx)) =
        (h.swapchain.as_mut(), h.renderer.as_mut(), h.ctx.as_ref())
    else {
        bail!("harness finished");
    };
    let cmd = r.record(RenderTarget::of(sc, &frame), 0.0, 0.0, &h.history)?;
    let buffers = [cmd];
    let waits = [frame.acquire_semaphore()];
    let stages = [vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT];
    let (timeline, value) = frame
        .timeline_signal()
        .unwrap_or((vk::Semaphore::null(), 0));
    ensure!(
        (value != 0) != (frame.fence() != vk::Fence::null()),
        "frame {}: a fence or a timeline value, exactly one",
        frame.number()
    );
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
    // free slot and lives until the renderer is destroyed, after the swapchain waited.
    unsafe { ctx.device.queue_submit(ctx.queue, &[submit], frame.fence()) }?;
    // SAFETY: the submission above waited on the acquire semaphore and signalled the present
    // semaphore and the frame's completion; it included no timing command buffers.
    Ok(unsafe { sc.submitted_by_renderer(frame, vkpace::RendererTiming::Untimed) }?)
}

/// [`FRAMES`] frames on the `m1` sync path, resized at [`RESIZES`]; checks what vkpace learnt
/// from the declarations.
fn run(m1: bool) -> Result<String> {
    let mut config = SwapchainConfig::default();
    config.present_mode = vk::PresentModeKHR::FIFO;
    config.paths.swapchain_maintenance1 = m1.then_some(vkpace::Maintenance1Names::Ext);
    let mut h = Harness::headless(config)?;
    ensure!(
        h.swapchain().info().maintenance1.is_some() == m1,
        "sync path"
    );
    let backend = h.swapchain().info().completion;
    for i in 0..FRAMES {
        if let Some(&(_, width, height)) = RESIZES.iter().find(|(at, ..)| *at == i) {
            h.swapchain().resize(vk::Extent2D { width, height });
        }
        let frame = match h.swapchain().acquire()? {
            Acquired::Frame(f) => f,
            _ => bail!("zero extent on a headless surface"),
        };
        let submitted = submit_own(&mut h, frame)?;
        h.swapchain().present(submitted)?;
        h.frames += 1;
        h.check_canary("after presenting")?;
    }
    // vkpace saw the renderer's completion signals: every frame but the last few (still in
    // flight) has its completion observed, and none has GPU times it was never given.
    let mut complete = 0;
    for t in h.swapchain().telemetry() {
        ensure!(
            t.gpu_start.is_none() && t.gpu_end.is_none(),
            "untimed frame {} has GPU times: {t:?}",
            t.frame
        );
        if let (Some(done), Some(submitted)) = (t.completion_observed, t.submitted) {
            ensure!(
                submitted <= done,
                "frame {} complete before submitted",
                t.frame
            );
            complete += 1;
        }
    }
    ensure!(
        complete + 4 >= FRAMES,
        "completion seen for {complete} of {FRAMES} frames"
    );
    let stats = h.finish()?;
    ensure!(
        stats.frames_presented == FRAMES,
        "{} of {FRAMES} frames presented",
        stats.frames_presented
    );
    ensure!(
        stats.swapchains_created > RESIZES.len() as u64,
        "every resize recreates: {stats:?}"
    );
    Ok(format!(
        "m1 {m1}, {backend:?}: {FRAMES} frames, {complete} seen complete, {} swapchains",
        stats.swapchains_created
    ))
}

#[test]
fn renderer_submits_its_frames_legacy() -> Result<()> {
    println!("renderer_submits: {}", run(false)?);
    Ok(())
}

#[test]
fn renderer_submits_its_frames_maintenance1() -> Result<()> {
    println!("renderer_submits: {}", run(true)?);
    Ok(())
}
