//! One run of the demo on one surface: the frame loop body shared by the headless and the
//! windowed paths, and the figures it reports.

use std::time::Instant;

use anyhow::{Context as _, Result};
use ash::vk;
use vkpace::{Acquired, Batch, Frame, SubmittedFrame, Swapchain};

use crate::alloc_counter::{counted, thread_allocations, AllocCounts, AllocRates};
use crate::cli::Args;
use crate::display_time::DisplayTimeEstimate;
use crate::frame_history::FrameHistory;
use crate::hud_view::HudView;
use crate::producer::Producer;
use crate::renderer::{RenderTarget, Renderer, Scene};
use crate::report::{IntervalStats, Percentiles, Report};
use crate::resize_log::ResizeLog;
use crate::vulkan_context::VulkanContext;

mod controls;
mod frame_figures;
mod hud_facts;
mod swapchain;

use hud_facts::hud_facts;

use swapchain::{
    note_present_mode_fallback, offered_mode_cycle, swapchain_config, swapchain_report,
};

/// The `n`-th extent `--resize-every` (and the R key) asks for: 4:3 sizes from 320x240 up to
/// 828x621, none repeated within 128 resizes, so every resize of a storm is a new size (a
/// swapchain per size is what a storm may cost, no more).
pub fn resize_extent(n: u64) -> vk::Extent2D {
    let step = (n % 128) as u32;
    vk::Extent2D {
        width: 320 + 4 * step,
        height: 240 + 3 * step,
    }
}

/// What one call of [`Session::frame`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Rendered,
    ZeroExtent,
    /// No image within the wait bound (hidden window, compositor not repainting): skipped.
    NotReady,
}

/// The swapchain, the renderer and the measurements of one run.
pub struct Session {
    swapchain: Option<Swapchain>,
    /// The producer thread frames wait for on the GPU (none with `--single-submit`). Declared
    /// after the swapchain: dropped after it, since the swapchain's teardown may wait for it.
    producer: Option<Producer>,
    renderer: Option<Renderer>,
    args: Args,
    start: Instant,
    last_frame_start: Option<Instant>,
    frame_times_ms: Vec<f64>,
    cpu_waits_ms: Vec<f64>,
    frames: u64,
    warmup: u64,
    /// Allocation counts at the steady loop's start and at its latest frame.
    alloc_mark: Option<AllocCounts>,
    alloc_end: Option<AllocCounts>,
    /// Allocations made by the frame code (this file's frame function, on its thread), all
    /// frames.
    frame_allocations: u64,
    /// Of those, the ones inside vkpace's acquire, submit and present.
    vkpace_allocations: u64,
    /// The modes `--switch-present-mode-every` and the M key cycle through (those offered).
    mode_cycle: Vec<vk::PresentModeKHR>,
    /// What the live graph draws.
    history: FrameHistory,
    /// The text drawn over the scene.
    hud: HudView,
    display: DisplayTimeEstimate,
    /// Extra GPU work per frame (starts at `--gpu-load`, changed by +/-).
    gpu_load: f32,
    /// Resize every frame regardless of `--resize-every` (the R key).
    resize_storm: bool,
    /// `--resize-log`: when each resize was asked for and first presented.
    resize_log: Option<ResizeLog>,
    /// Time spent paused, taken out of the pattern's clock so it resumes where it stopped.
    paused_total: std::time::Duration,
    paused_since: Option<Instant>,
    /// From vkpace's telemetry: intervals between frame starts, and start-to-completion.
    intervals_ms: Vec<f64>,
    latencies_ms: Vec<f64>,
    /// GPU end minus GPU start, for frames with timestamps.
    gpu_ms: Vec<f64>,
    last_cpu_start: Option<std::time::Duration>,
    /// The next frame whose completion has not been read from the telemetry.
    latency_cursor: u64,
}

/// vkpace's state dump taken when a frame failed.
static STATE_AT_FAILURE: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// The state dump of the frame that failed, if one did (taken once).
pub fn take_state_at_failure() -> Option<String> {
    STATE_AT_FAILURE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()
}

impl Session {
    /// Makes the swapchain and renderer on `ctx`.
    pub fn new(ctx: &VulkanContext, args: &Args, initial: vk::Extent2D) -> Result<Self> {
        let config = swapchain_config(args, initial)?;
        let no_timing = args.no_present_timing;
        let mut swapchain = ctx.swapchain_with(config, |c| c.paths.present_timing &= !no_timing)?;
        let producer = if args.single_submit {
            None
        } else {
            let work = std::time::Duration::from_micros(args.producer_us);
            // SAFETY: the context enables timeline semaphores; the session stops the producer
            // before the context is destroyed (`finish`, or its drop order).
            Some(unsafe { Producer::start(&ctx.device, &mut swapchain, work) }?)
        };
        let format = swapchain.info().format().context("no swapchain format")?;
        note_present_mode_fallback(args, &swapchain);
        let mode_cycle = offered_mode_cycle(ctx)?;
        // On error the swapchain is dropped here, and its Drop tears it down.
        let renderer = ctx.renderer(format)?;
        let expected = args.frames.unwrap_or(10_000).min(1_000_000) as usize;
        Ok(Self {
            swapchain: Some(swapchain),
            producer,
            renderer: Some(renderer),
            args: args.clone(),
            start: Instant::now(),
            last_frame_start: None,
            frame_times_ms: Vec::with_capacity(expected + 1),
            cpu_waits_ms: Vec::with_capacity(expected + 1),
            frames: 0,
            warmup: (args.frames.unwrap_or(600) / 5).max(10),
            alloc_mark: None,
            alloc_end: None,
            frame_allocations: 0,
            vkpace_allocations: 0,
            mode_cycle,
            history: FrameHistory::default(),
            hud: HudView::default(),
            display: DisplayTimeEstimate::default(),
            gpu_load: args.gpu_load,
            resize_storm: false,
            resize_log: args
                .resize_log
                .clone()
                .map(|path| ResizeLog::new(path, expected)),
            paused_total: std::time::Duration::ZERO,
            paused_since: None,
            intervals_ms: Vec::with_capacity(expected + 1),
            latencies_ms: Vec::with_capacity(expected + 1),
            gpu_ms: Vec::with_capacity(expected + 1),
            last_cpu_start: None,
            latency_cursor: 0,
        })
    }

    /// Frames rendered so far.
    pub fn frames(&self) -> u64 {
        self.frames
    }

    /// The live swapchain.
    pub fn swapchain_mut(&mut self) -> Option<&mut Swapchain> {
        self.swapchain.as_mut()
    }

    /// vkpace's state dump (what it waits for), or a line saying there is no swapchain.
    pub fn debug_state(&self) -> String {
        match &self.swapchain {
            Some(sc) => format!("vkpace's state:\n{sc:?}"),
            None => "no swapchain".to_string(),
        }
    }

    /// Renders and presents one frame (or reports a zero extent). A failure keeps vkpace's
    /// state dump, taken while the objects it names still exist, for `main` to print after the
    /// error line ([`take_state_at_failure`]).
    pub fn frame(&mut self) -> Result<Step> {
        let step = self.render_frame();
        if step.is_err() {
            let dump = self.debug_state().replacen(
                "vkpace's state:",
                "vkpace's state when the run failed:",
                1,
            );
            *STATE_AT_FAILURE.lock().unwrap_or_else(|e| e.into_inner()) = Some(dump);
        }
        step
    }

    fn render_frame(&mut self) -> Result<Step> {
        let now = Instant::now();
        let allocs_at_start = thread_allocations();
        self.apply_scheduled_changes()?;
        let (Some(sc), Some(renderer)) = (self.swapchain.as_mut(), self.renderer.as_mut()) else {
            anyhow::bail!("session already finished");
        };
        let frame = match counted(&mut self.vkpace_allocations, || sc.acquire())? {
            Acquired::Frame(f) => f,
            Acquired::NotReady => return Ok(Step::NotReady),
            _ => return Ok(Step::ZeroExtent),
        };
        let paused = self.paused_total;
        let start_s = (now - self.start).saturating_sub(paused).as_secs_f64();
        let t = self.display.display_time(start_s) as f32;
        let facts = hud_facts(sc, &frame, self.gpu_load, self.producer.is_some());
        self.hud.update(now, &self.history, &facts);
        let scene = Scene {
            time_s: t,
            gpu_load: self.gpu_load,
            history: &self.history,
            hud: Some(self.hud.text()),
            readback: None,
        };
        let cmd = renderer.record_scene(RenderTarget::of(sc, &frame), &scene)?;
        let extent = frame.extent();
        let cpu_wait = frame.cpu_wait();
        let submitted = counted(&mut self.vkpace_allocations, || {
            match self.producer.as_mut() {
                // SAFETY: `cmd` was just recorded by the renderer for this frame's slot, whose
                // previous submission completed; it stays valid until the renderer is destroyed,
                // after the swapchain waited for its submissions.
                None => unsafe {
                    sc.submit(
                        frame,
                        vkpace::Submission::command_buffers(
                            &[cmd],
                            vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
                        ),
                    )
                }
                .map_err(anyhow::Error::from),
                // SAFETY: as above; the producer's timeline is registered and alive.
                Some(p) => unsafe { submit_with_producer(sc, p, frame, cmd) },
            }
        })?;
        counted(&mut self.vkpace_allocations, || sc.present(submitted))?;
        if let Some(log) = self.resize_log.as_mut() {
            log.presented(extent);
        }
        self.record_frame_figures(now, cpu_wait, allocs_at_start);
        Ok(Step::Rendered)
    }

    /// The changes the command line schedules for this frame: a resize (`--resize-every`, the
    /// R key's storm) and a present mode switch (`--switch-present-mode-every`).
    fn apply_scheduled_changes(&mut self) -> Result<()> {
        if let Some(extent) = self.resize_target(self.frames) {
            if let Some(log) = self.resize_log.as_mut() {
                log.requested(extent);
            }
            if self.args.virtual_display {
                // The virtual display decides its extent, as a window system does.
                crate::virtual_display::set_extent(0, extent.width, extent.height)?;
            } else if let Some(sc) = self.swapchain.as_mut() {
                sc.resize(extent);
            }
        }
        let k = self.args.switch_present_mode_every;
        if k > 0 && self.frames > 0 && self.frames.is_multiple_of(k) {
            self.next_present_mode();
        }
        Ok(())
    }

    /// Reads the newest frames' times from vkpace's telemetry: the interval since the previous
    /// frame start, and the latency of frames whose completion was seen since the last look
    /// (completions are seen in order, so the newest few frames cover them; no allocation).
    fn read_telemetry(&mut self) {
        let Some(sc) = self.swapchain.as_ref() else {
            return;
        };
        if let Some(newest) = sc.telemetry().next_back() {
            if let Some(prev) = self.last_cpu_start {
                // Warm-up frames (pipeline and swapchain first use) are not intervals of the
                // steady loop.
                if self.frames > self.warmup {
                    self.intervals_ms
                        .push((newest.cpu_start.saturating_sub(prev)).as_secs_f64() * 1e3);
                }
            }
            self.last_cpu_start = Some(newest.cpu_start);
        }
        let mut newest_done = None;
        for t in sc.telemetry().rev().take(8) {
            if t.frame < self.latency_cursor {
                break;
            }
            if let Some(done) = t.completion_observed {
                // Start to GPU end where timestamps were recorded; else start to the fence
                // seen signalled, an upper bound.
                let end = t.gpu_end.unwrap_or(done);
                if let (Some(s), Some(e)) = (t.gpu_start, t.gpu_end) {
                    self.gpu_ms.push(e.saturating_sub(s).as_secs_f64() * 1e3);
                }
                self.latencies_ms
                    .push(end.saturating_sub(t.cpu_start).as_secs_f64() * 1e3);
                newest_done = Some(newest_done.map_or(t.frame, |n: u64| n.max(t.frame)));
            }
        }
        if let Some(n) = newest_done {
            self.latency_cursor = n + 1;
        }
    }

    /// Tears the swapchain and renderer down (vkpace waits for its own work) and builds the
    /// report. The context's validation count is read by the caller after destroying it.
    pub fn finish(mut self) -> Result<Report> {
        let steady = match (self.alloc_mark, self.alloc_end) {
            (Some(start), Some(end)) => end.per_frame_since(&start),
            _ => AllocRates::default(),
        };
        if let Some(log) = &self.resize_log {
            log.write()?;
        }
        let sc = self.swapchain.take().context("session already finished")?;
        let of_swapchain = swapchain_report(&sc);
        let interval_ms = IntervalStats::of(&self.intervals_ms);
        let fps = if interval_ms.mean > 0.0 {
            1e3 / interval_ms.mean
        } else {
            0.0
        };
        sc.destroy().context("destroying the swapchain")?;
        let submission = self.stop_producer()?;
        let (sets_made, sets_retired) = self.renderer.as_ref().map_or((0, 0), |r| r.target_sets());
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
        Ok(Report {
            frames: self.frames,
            validation_messages: 0,
            frame_time_ms: Percentiles::of(&self.frame_times_ms),
            cpu_wait_ms: Percentiles::of(&self.cpu_waits_ms),
            allocations_per_frame_steady: steady.process,
            frame_thread_allocations_per_frame_steady: steady.frame_thread,
            frame_code_allocations_per_frame_steady: steady.frame_code,
            vkpace_allocations_per_frame_steady: steady.vkpace,
            hidden_ms: 0.0,
            hidden_episodes: 0,
            latency_ms: Percentiles::of(&self.latencies_ms),
            gpu_ms: Percentiles::of(&self.gpu_ms),
            latency_source: if self.gpu_ms.is_empty() {
                "fence-observed"
            } else {
                "gpu-timestamps"
            },
            interval_ms,
            fps,
            submission,
            ended_by: if crate::stop_signal::requested() {
                "signal"
            } else {
                "run"
            },
            // The caller says where the frames went (main.rs, window.rs).
            window_system: "headless",
            render_target_sets_made: sets_made,
            render_target_sets_retired: sets_retired,
            ..of_swapchain
        })
    }

    /// Stops the producer thread, if the session has one, once the swapchain is gone; returns
    /// how frames were submitted, for the report.
    fn stop_producer(&mut self) -> Result<&'static str> {
        Ok(match self.producer.take() {
            Some(p) => {
                // The swapchain is gone: nothing waits for the timeline any more.
                p.stop(None)?;
                "batches+producer"
            }
            None => "single",
        })
    }
}

/// The demo's default submission: the frame in two batches of one `vkQueueSubmit2`. The first
/// holds the renderer's commands and waits on the GPU, at the fragment shader, for the
/// producer's value for this frame (the producer stands in for data the shader reads); the
/// second has no commands of its own and carries the frame's signals (vkpace adds the present
/// semaphore and the frame's token to the last batch). No allocation: the arrays are on the
/// stack and vkpace reuses its own.
///
/// # Safety
///
/// `cmd` is recorded for the frame's slot and stays valid until the frame's token is reached;
/// the producer's timeline is registered with `sc`.
unsafe fn submit_with_producer(
    sc: &mut Swapchain,
    producer: &mut Producer,
    frame: Frame,
    cmd: vk::CommandBuffer,
) -> Result<SubmittedFrame> {
    let token = producer.next()?;
    let waits = [(token, vk::PipelineStageFlags2::FRAGMENT_SHADER)];
    let commands = [cmd];
    let batches = [Batch::new(&commands).waits(&waits), Batch::new(&[])];
    let stage = vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT;
    // SAFETY: caller contract.
    Ok(unsafe { sc.submit(frame, vkpace::Submission::batches(&batches, stage)) }?)
}
