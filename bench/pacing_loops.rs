//! The loops the pacing comparison runs over the virtual display, one per worker process (the
//! vdisplay layer is loaded through the loader's environment, so it needs a process of its own):
//! the textbook loop (3 frames in flight, a fence per frame, no vkpace code) and vkpace with a
//! pacing policy. Both draw the demo's scene with the same extra GPU work (the demo's
//! `--gpu-load`), present IMMEDIATE, and stamp each frame's start (its image in hand, the
//! renderer about to record) on CLOCK_MONOTONIC, the clock of vdisplay's present log.

use anyhow::{Context as _, Result};
use ash::vk;
use vkpace::PacingPolicy;
use vkpace::{Acquired, Swapchain, SwapchainConfig};

use crate::frame_history::FrameHistory;
use crate::renderer::{RenderTarget, Renderer};
use crate::textbook_objects::TextbookObjects;
use crate::vulkan_context::VulkanContext;

/// Frames in flight of the textbook loop (as in the simulator's textbook policy).
pub const TEXTBOOK_FRAMES_IN_FLIGHT: usize = 3;
/// Bound of the textbook loop's waits (ns).
const TIMEOUT_NS: u64 = 2_000_000_000;

/// The loop's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The textbook loop, 3 frames in flight.
    Textbook,
    /// vkpace, frames-in-flight policy with N frames.
    Frames(usize),
    /// vkpace, low-latency policy (N = 2).
    LowLatency,
}

/// Which loop a worker runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loop {
    pub kind: Kind,
    /// vkpace with GPU timestamps (`SwapchainConfig::gpu_timestamps`); otherwise the library's
    /// default, which estimates GPU time from submission to completion seen.
    pub gpu_timestamps: bool,
    /// vkpace with display feedback (present-wait, which the virtual display offers); off only
    /// in the diagnostic run that shows what the feedback does to the low-latency policy.
    pub present_wait: bool,
}

const fn plain(kind: Kind) -> Loop {
    Loop {
        kind,
        gpu_timestamps: false,
        present_wait: true,
    }
}

const fn timed(kind: Kind) -> Loop {
    Loop {
        kind,
        gpu_timestamps: true,
        present_wait: true,
    }
}

impl Loop {
    /// The textbook loop.
    pub const TEXTBOOK: Loop = plain(Kind::Textbook);
    /// vkpace low latency with the library's defaults.
    pub const LOW_LATENCY: Loop = plain(Kind::LowLatency);
    /// vkpace low latency with GPU timestamps.
    pub const LOW_LATENCY_TIMED: Loop = timed(Kind::LowLatency);

    /// Low latency with GPU timestamps and without display feedback (diagnostic).
    pub const LOW_LATENCY_TIMED_BLIND: Loop = Loop {
        kind: Kind::LowLatency,
        gpu_timestamps: true,
        present_wait: false,
    };

    /// The loops compared: the simulator's four (vkpace with its defaults), vkpace's three again
    /// with GPU timestamps, and low latency with GPU timestamps without display feedback.
    pub const ALL: [Loop; 8] = [
        Loop::TEXTBOOK,
        plain(Kind::Frames(2)),
        plain(Kind::Frames(1)),
        Loop::LOW_LATENCY,
        timed(Kind::Frames(2)),
        timed(Kind::Frames(1)),
        Loop::LOW_LATENCY_TIMED,
        Loop::LOW_LATENCY_TIMED_BLIND,
    ];

    /// The simulator's name of the policy.
    pub fn sim_name(self) -> String {
        match self.kind {
            Kind::Textbook => "textbook".into(),
            Kind::Frames(n) => format!("frames-{n}"),
            Kind::LowLatency => "low-latency".into(),
        }
    }

    /// The name in the report: the simulator's, `+gpu-timestamps` with them, `-present-wait`
    /// without display feedback.
    pub fn name(self) -> String {
        let ts = if self.gpu_timestamps {
            "+gpu-timestamps"
        } else {
            ""
        };
        let pw = if self.present_wait {
            ""
        } else {
            "-present-wait"
        };
        format!("{}{ts}{pw}", self.sim_name())
    }

    /// The loop named `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// What a worker saw, per frame in present order.
#[derive(Debug, Default)]
pub struct Frames {
    /// Frame start (CLOCK_MONOTONIC ns).
    pub start_ns: Vec<u64>,
    /// vkpace only: when present-wait told vkpace the frame was shown (CLOCK_MONOTONIC ns,
    /// vkpace's telemetry `displayed`: polled once per frame, so up to about a frame late).
    pub displayed_ns: Vec<Option<u64>>,
    /// vkpace only: GPU time of the frame from its timestamps (ns).
    pub gpu_ns: Vec<Option<u64>>,
}

/// CLOCK_MONOTONIC now, in nanoseconds (Rust's `Instant` reads the same clock on Linux).
pub fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Runs `which` for `frames` frames with `gpu_load` on `ctx` (a headless surface of the
/// virtual display).
pub fn run(ctx: &VulkanContext, which: Loop, frames: u64, gpu_load: f32) -> Result<Frames> {
    let (policy, n) = match which.kind {
        Kind::Textbook => {
            return run_textbook(ctx, vk::PresentModeKHR::IMMEDIATE, frames, gpu_load)
        }
        Kind::Frames(n) => (PacingPolicy::FramesInFlight, n),
        Kind::LowLatency => (PacingPolicy::LowLatency, 2),
    };
    if which.gpu_timestamps && !ctx.gpu_timing {
        anyhow::bail!("GPU timestamps asked for; the device does not offer them");
    }
    run_vkpace(ctx, policy, n, which, (frames, gpu_load))
}

/// The vkpace loop: acquire, record, submit, present; the telemetry read every frame.
fn run_vkpace(
    ctx: &VulkanContext,
    policy: PacingPolicy,
    n: usize,
    which: Loop,
    (frames, gpu_load): (u64, f32),
) -> Result<Frames> {
    let mut config = SwapchainConfig::default();
    config.pacing.frames_in_flight = n;
    config.pacing.policy = policy;
    config.present_mode = vk::PresentModeKHR::IMMEDIATE;
    config.debug_utils = ctx.debug_utils;
    config.paths.swapchain_maintenance1 = ctx.maintenance1_names;
    config.paths.present_wait = ctx.present_wait && which.present_wait;
    config.gpu_timestamps = which.gpu_timestamps;
    // SAFETY: the options needing an extension are set only where the context enabled it.
    let mut sc = unsafe { ctx.swapchain_as_given(config) }?;
    anyhow::ensure!(
        sc.info().present_mode == Some(vk::PresentModeKHR::IMMEDIATE),
        "IMMEDIATE not offered"
    );
    let mut renderer = ctx.renderer(sc.info().format().context("format")?)?;
    let result = vkpace_frames(&mut sc, &mut renderer, frames, gpu_load);
    let closed = sc.destroy();
    renderer.destroy();
    let out = result?;
    closed?;
    Ok(out)
}

/// The frames of a vkpace loop on `sc` (made by the caller, with any configuration), each
/// frame's start stamped once its image is in hand; also used by `pacing_display.rs`.
pub(crate) fn vkpace_frames(
    sc: &mut Swapchain,
    renderer: &mut Renderer,
    frames: u64,
    gpu_load: f32,
) -> Result<Frames> {
    let history = FrameHistory::default();
    let n = usize::try_from(frames)?;
    let mut out = Frames {
        start_ns: Vec::with_capacity(n),
        displayed_ns: vec![None; n],
        gpu_ns: vec![None; n],
    };
    let epoch_ns = monotonic_ns() - u64::try_from(sc.info().telemetry_epoch.elapsed().as_nanos())?;
    for i in 0..frames {
        let frame = match sc.acquire()? {
            Acquired::Frame(f) => f,
            _ => anyhow::bail!("the virtual display reported a zero extent"),
        };
        anyhow::ensure!(frame.number() == i, "frame numbers skip");
        out.start_ns.push(monotonic_ns());
        let cmd = renderer.record(
            RenderTarget::of(sc, &frame),
            i as f32 / 60.0,
            gpu_load,
            &history,
        )?;
        // SAFETY: `cmd` was recorded for this frame's free slot and lives until the renderer
        // is destroyed, after the swapchain waited for its submissions.
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
        for t in sc.telemetry().rev().take(16) {
            let Some(f) = usize::try_from(t.frame).ok().filter(|f| *f < n) else {
                continue;
            };
            let to_ns = |d: std::time::Duration| epoch_ns + d.as_nanos() as u64;
            out.displayed_ns[f] = t.displayed.map(to_ns);
            if let (Some(s), Some(e)) = (t.gpu_start, t.gpu_end) {
                out.gpu_ns[f] = Some(e.saturating_sub(s).as_nanos() as u64);
            }
        }
    }
    Ok(out)
}

/// Runs the textbook loop (3 frames in flight) for `frames` frames with `gpu_load`, presenting
/// in `mode`: IMMEDIATE here, FIFO in `pacing_display.rs` (the loop most FIFO games run).
pub fn run_textbook(
    ctx: &VulkanContext,
    mode: vk::PresentModeKHR,
    frames: u64,
    gpu_load: f32,
) -> Result<Frames> {
    Textbook::new(ctx, mode)?.run(frames, gpu_load)
}

/// The textbook loop's objects (as in `overhead.rs`, presenting with the GPU load).
struct Textbook<'a> {
    ctx: &'a VulkanContext,
    sc_fn: ash::khr::swapchain::Device,
    swapchain: vk::SwapchainKHR,
    extent: vk::Extent2D,
    objects: TextbookObjects,
    renderer: Option<Renderer>,
}

impl<'a> Textbook<'a> {
    fn new(ctx: &'a VulkanContext, mode: vk::PresentModeKHR) -> Result<Self> {
        let sc_fn = ash::khr::swapchain::Device::new(&ctx.instance, &ctx.device);
        // SAFETY: valid handles of the context.
        let caps = unsafe {
            ctx.surface_fn
                .get_physical_device_surface_capabilities(ctx.physical, ctx.surface)
        }?;
        let format = vk::Format::B8G8R8A8_UNORM;
        let mut count = caps.min_image_count + 1;
        if caps.max_image_count > 0 {
            count = count.min(caps.max_image_count);
        }
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(ctx.surface)
            .min_image_count(count)
            .image_format(format)
            .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR)
            .image_extent(caps.current_extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(mode)
            .clipped(true);
        // SAFETY: the device enabled VK_KHR_swapchain; the virtual display offers this format,
        // every present mode and its current extent.
        let swapchain = unsafe { sc_fn.create_swapchain(&info, None) }?;
        let mut t = Self {
            ctx,
            sc_fn,
            swapchain,
            extent: caps.current_extent,
            objects: TextbookObjects::default(),
            renderer: None,
        };
        if let Err(e) = t.make_objects(format) {
            t.destroy();
            return Err(e);
        }
        Ok(t)
    }

    fn make_objects(&mut self, format: vk::Format) -> Result<()> {
        let d = &self.ctx.device;
        self.objects.create(
            d,
            &self.sc_fn,
            self.swapchain,
            format,
            TEXTBOOK_FRAMES_IN_FLIGHT,
        )?;
        self.renderer = Some(self.ctx.renderer(format)?);
        Ok(())
    }

    fn run(mut self, frames: u64, gpu_load: f32) -> Result<Frames> {
        let mut out = Frames::default();
        let history = FrameHistory::default();
        let result = (0..frames).try_for_each(|i| {
            out.start_ns.push(self.frame(i, gpu_load, &history)?);
            Ok(())
        });
        self.destroy();
        result.map(|()| out)
    }

    /// One frame: wait for the slot's fence, acquire, record, submit, present. Returns the
    /// frame's start (its image in hand).
    fn frame(&mut self, i: u64, gpu_load: f32, history: &FrameHistory) -> Result<u64> {
        let d = &self.ctx.device;
        let slot = (i % TEXTBOOK_FRAMES_IN_FLIGHT as u64) as usize;
        let (fence, acquire) = (self.objects.fences[slot], self.objects.acquire_sems[slot]);
        // SAFETY: the fence belongs to this device; the wait is bounded.
        unsafe { d.wait_for_fences(&[fence], true, TIMEOUT_NS) }?;
        // SAFETY: the acquire semaphore's last wait (the slot's previous submission) completed.
        let (index, _) = unsafe {
            self.sc_fn
                .acquire_next_image(self.swapchain, TIMEOUT_NS, acquire, vk::Fence::null())
        }?;
        let start = monotonic_ns();
        // SAFETY: the fence is signalled and not in use.
        unsafe { d.reset_fences(&[fence]) }?;
        let target = RenderTarget {
            image: self.objects.images[index as usize],
            image_view: self.objects.views[index as usize],
            extent: self.extent,
            slot,
            image_index: index,
            // One swapchain for the whole run, not vkpace's.
            frame: None,
        };
        let renderer = self.renderer.as_mut().context("renderer gone")?;
        let cmd = renderer.record(target, i as f32 / 60.0, gpu_load, history)?;
        let (waits, stages) = ([acquire], [vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT]);
        let (cmds, signals) = ([cmd], [self.objects.present_sems[index as usize]]);
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .command_buffers(&cmds)
            .signal_semaphores(&signals);
        // SAFETY: the slot's fence is unsignalled; its command buffer's previous use completed.
        unsafe { d.queue_submit(self.ctx.queue, &[submit], fence) }?;
        let (scs, idx) = ([self.swapchain], [index]);
        let present = vk::PresentInfoKHR::default()
            .wait_semaphores(&signals)
            .swapchains(&scs)
            .image_indices(&idx);
        // SAFETY: the image was acquired and its rendering submitted.
        unsafe { self.sc_fn.queue_present(self.ctx.queue, &present) }?;
        Ok(start)
    }

    /// Waits for everything (device idle: a benchmark's teardown), then destroys in reverse
    /// order.
    fn destroy(&mut self) {
        let d = &self.ctx.device;
        // SAFETY: a valid device; teardown waits for all its work.
        let _ = unsafe { d.device_wait_idle() };
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
        // SAFETY: the device is idle; each handle is destroyed once (the vectors are drained).
        unsafe {
            self.objects.destroy(d);
            self.sc_fn.destroy_swapchain(self.swapchain, None);
        }
        self.swapchain = vk::SwapchainKHR::null();
    }
}
