//! A textbook ash frame loop that owns its swapchain, as tutorials teach it, and a switch
//! (`--vkpace`) that hands its swapchain calls to vkpace's `PresentPacer`. The lines the switch
//! adds or changes are the door's adoption cost: each ends in `// vkpace` or lies between
//! `// vkpace {` and `// vkpace }`; the lines that only read the pacer's statistics for the
//! summary are marked `vkpace stats` the same way. `tests/own_swapchain.rs` counts both; the
//! README gives the figures.
//!
//! The loop, unchanged by the switch:
//! - two frames in flight, each with an acquire semaphore, a "render finished" semaphore and a
//!   fence; the render-finished semaphore is reused per *frame*, not per image: the frame's
//!   fence proves its submission done, not that the present waiting on the semaphore is, so
//!   its next signal may race that wait (VUID-vkQueueSubmit-pSignalSemaphores-00067);
//! - the render: a clear of the swapchain image to a color that changes per frame;
//! - recreation on `ERROR_OUT_OF_DATE_KHR`, `SUBOPTIMAL_KHR` or a resize, with `oldSwapchain`,
//!   destroying the old swapchain right after creating the new one and with no
//!   `vkDeviceWaitIdle` (its images may still be in use by the GPU or a pending present: the
//!   pacer defers that destruction until provably idle).
//!
//! ```text
//! cargo run --release --example own_swapchain -- --x11 --frames 300 --vkpace --fps 30 --json
//! ```
//! Flags: `--headless` | `--x11` | `--wayland` (default: a window, winit's choice),
//! `--frames N` (120), `--fps F` (a frame limit; without `--vkpace` a plain sleep),
//! `--resize-storm N` (a new size for each of the first N frames), `--no-maintenance1`,
//! `--validation`, `--vkpace`, `--json` (a one-line summary). Exit code 1 on an error or a
//! validation message.

#[allow(dead_code)] // The other examples' frame loop (vkpace's `Swapchain`) is not used here.
mod support;

use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use ash::vk;
use support::pumped_window::{PumpedWindow, System};
use support::{idle_count, vulkan, Context, ContextOptions};

const FRAMES_IN_FLIGHT: usize = 2;

/// The flags.
#[derive(Clone, Debug, Default)]
struct Flags {
    /// `None`: headless.
    window: Option<System>,
    frames: u64,
    fps: Option<f64>,
    resize_storm: u64,
    no_maintenance1: bool,
    validation: bool,
    vkpace: bool,
    json: bool,
}

impl Flags {
    fn parse() -> Result<Self> {
        let mut f = Flags {
            window: Some(System::Any),
            frames: 120,
            ..Flags::default()
        };
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            let mut value = || it.next().with_context(|| format!("{flag} needs a value"));
            match flag.as_str() {
                "--headless" => f.window = None,
                "--x11" => f.window = Some(System::X11),
                "--wayland" => f.window = Some(System::Wayland),
                "--frames" => f.frames = value()?.parse()?,
                "--fps" => f.fps = Some(value()?.parse()?),
                "--resize-storm" => f.resize_storm = value()?.parse()?,
                "--no-maintenance1" => f.no_maintenance1 = true,
                "--validation" => f.validation = true,
                "--vkpace" => f.vkpace = true,
                "--json" => f.json = true,
                other => bail!("unknown flag {other} (see the example's documentation)"),
            }
        }
        Ok(f)
    }
}

/// The size the resize storm asks for at frame `i`: a different one for each of 100 frames.
fn storm_extent(i: u64) -> vk::Extent2D {
    vk::Extent2D {
        width: 320 + (i % 100) as u32 * 3,
        height: 240 + (i % 50) as u32 * 2,
    }
}

/// One frame in flight's objects.
struct InFlight {
    acquired: vk::Semaphore,
    rendered: vk::Semaphore,
    fence: vk::Fence,
    cmd: vk::CommandBuffer,
}

/// The swapchain and its images.
#[derive(Default)]
struct Chain {
    handle: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    extent: vk::Extent2D,
}

/// What the run did (the summary).
#[derive(Default)]
struct Counts {
    frames: u64,
    created: u64,
    destroyed: u64,
    out_of_date: u64,
    suboptimal: u64,
    /// The frame of each `destroy_swapchain` call.
    destroy_calls: Vec<u64>,
    /// How many of them the pacer's stats showed done, and the most frames one took (the
    /// pacer destroys deferred swapchains in the order they were handed over).
    destroys_seen: usize,
    max_frames_to_destroy: u64,
}

impl Counts {
    /// The pacer's stats say `destroyed` swapchains were destroyed by frame `self.frames`.
    fn destroys_done(&mut self, destroyed: u64) {
        while self.destroys_seen < (destroyed as usize).min(self.destroy_calls.len()) {
            let frames = self.frames - self.destroy_calls[self.destroys_seen];
            self.max_frames_to_destroy = self.max_frames_to_destroy.max(frames);
            self.destroys_seen += 1;
        }
    }
}

struct Renderer {
    device: ash::Device,
    queue: vk::Queue,
    physical: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    surface_fn: ash::khr::surface::Instance,
    swapchain_fn: ash::khr::swapchain::Device,
    pool: vk::CommandPool,
    frames: Vec<InFlight>,
    chain: Chain,
    /// The swapchain must be recreated before the next acquire.
    stale: bool,
    frame: usize,
    counts: Counts,
    pacer: Option<vkpace::PresentPacer>, // vkpace
}

impl Renderer {
    fn new(ctx: &Context, flags: &Flags) -> Result<Self> {
        // Every vkDeviceWaitIdle / vkQueueWaitIdle through this device is counted.
        let device = idle_count::counting(&ctx.device);
        let (pool, cmds) = vulkan::command_buffers(&device, ctx.queue_family, FRAMES_IN_FLIGHT)?;
        let mut frames = Vec::new();
        for cmd in cmds {
            let signaled = vk::FenceCreateInfo::default().flags(vk::FenceCreateFlags::SIGNALED);
            // SAFETY: valid device; destroyed in `destroy`.
            frames.push(unsafe {
                InFlight {
                    acquired: device.create_semaphore(&Default::default(), None)?,
                    rendered: device.create_semaphore(&Default::default(), None)?,
                    fence: device.create_fence(&signaled, None)?,
                    cmd,
                }
            });
        }
        let pacer = make_pacer(ctx, &device, flags)?; // vkpace
        Ok(Self {
            queue: ctx.queue,
            physical: ctx.physical,
            surface: ctx.surface,
            surface_fn: ash::khr::surface::Instance::new(&ctx.entry, &ctx.instance),
            swapchain_fn: ash::khr::swapchain::Device::new(&ctx.instance, &device),
            device,
            pool,
            frames,
            chain: Chain::default(),
            stale: true,
            frame: 0,
            counts: Counts::default(),
            pacer, // vkpace
        })
    }

    /// One frame: wait for the frame's fence, acquire, record, submit, present. Recreates the
    /// swapchain first after a resize or an out-of-date / suboptimal result. Returns whether
    /// a frame was presented.
    fn draw(&mut self, resized: bool, wanted: vk::Extent2D) -> Result<bool> {
        if (resized || self.stale) && !self.recreate(wanted)? {
            return Ok(false);
        }
        self.stale = false;
        let f = &self.frames[self.frame];
        let (acquired, rendered, fence, cmd) = (f.acquired, f.rendered, f.fence, f.cmd);
        // SAFETY: the frame's fence, of this device.
        unsafe { self.device.wait_for_fences(&[fence], true, u64::MAX) }?;
        let null = vk::Fence::null();
        // SAFETY: a live swapchain; the acquire semaphore is unsignaled (the submission that
        // waited on it completed: the fence above).
        let acquire = unsafe {
            // vkpace {
            match self.pacer.as_mut() {
                Some(p) => p.acquire_next_image(self.chain.handle, u64::MAX, acquired, null),
                None => self.swapchain_fn.acquire_next_image(
                    self.chain.handle,
                    u64::MAX,
                    acquired,
                    null,
                ),
            }
            // vkpace }
        };
        let (index, suboptimal) = match acquire {
            Ok(r) => r,
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                self.counts.out_of_date += 1;
                self.stale = true;
                return Ok(false);
            }
            Err(e) => return Err(e.into()),
        };
        // SAFETY: the fence is not in use (waited above).
        unsafe { self.device.reset_fences(&[fence]) }?;
        self.record(cmd, self.chain.images[index as usize])?;
        let (waits, stages) = ([acquired], [vk::PipelineStageFlags::TRANSFER]);
        let (cmds, signals) = ([cmd], [rendered]);
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .command_buffers(&cmds)
            .signal_semaphores(&signals);
        // SAFETY: recorded above; `rendered` is signaled again here while the present of two
        // frames ago may still wait on it (the textbook's race, 00067).
        unsafe { self.device.queue_submit(self.queue, &[submit], fence) }?;
        let (swapchains, indices) = ([self.chain.handle], [index]);
        let info = vk::PresentInfoKHR::default()
            .wait_semaphores(&signals)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // SAFETY: the image was acquired and its rendering submitted to signal `rendered`.
        let presented = unsafe {
            // vkpace {
            match self.pacer.as_mut() {
                Some(p) => p.queue_present(self.queue, &info),
                None => self.swapchain_fn.queue_present(self.queue, &info),
            }
            // vkpace }
        };
        self.frame = (self.frame + 1) % FRAMES_IN_FLIGHT;
        self.counts.frames += 1;
        // vkpace stats {
        if let Some(p) = &self.pacer {
            self.counts.destroys_done(p.stats().swapchains_destroyed);
        }
        // vkpace stats }
        match presented {
            Ok(false) if !suboptimal => {}
            Ok(_) => {
                self.counts.suboptimal += 1;
                self.stale = true;
            }
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                self.counts.out_of_date += 1;
                self.stale = true;
            }
            Err(e) => return Err(e.into()),
        }
        Ok(true)
    }

    /// Records `cmd`: `image` cleared to a color that changes per frame, left for presenting.
    fn record(&self, cmd: vk::CommandBuffer, image: vk::Image) -> Result<()> {
        use vk::{AccessFlags2 as A, ImageLayout as L, PipelineStageFlags2 as S};
        let t = self.counts.frames as f32 * 0.05;
        let color = vk::ClearColorValue {
            float32: [0.5 + 0.5 * t.sin(), 0.3, 0.5 + 0.5 * t.cos(), 1.0],
        };
        let barriers = [
            vulkan::image_barrier(
                image,
                ((S::TRANSFER, A::NONE), (S::TRANSFER, A::TRANSFER_WRITE)),
                (L::UNDEFINED, L::TRANSFER_DST_OPTIMAL),
            ),
            vulkan::image_barrier(
                image,
                ((S::TRANSFER, A::TRANSFER_WRITE), (S::NONE, A::NONE)),
                (L::TRANSFER_DST_OPTIMAL, L::PRESENT_SRC_KHR),
            ),
        ];
        let d = &self.device;
        // SAFETY: the frame's command buffer, not pending (its fence was waited); the image is
        // the acquired one, the clear ordered after the acquire by the semaphore's TRANSFER
        // stage and the first barrier.
        unsafe {
            vulkan::begin(d, cmd)?;
            let first = vk::DependencyInfo::default().image_memory_barriers(&barriers[..1]);
            d.cmd_pipeline_barrier2(cmd, &first);
            let range = [vulkan::COLOR];
            d.cmd_clear_color_image(cmd, image, L::TRANSFER_DST_OPTIMAL, &color, &range);
            let second = vk::DependencyInfo::default().image_memory_barriers(&barriers[1..]);
            d.cmd_pipeline_barrier2(cmd, &second);
            d.end_command_buffer(cmd)?;
        }
        Ok(())
    }

    /// A new swapchain of `wanted` size (where the surface lets the application choose), made
    /// with the old one as `oldSwapchain`, which is destroyed right after. Returns false for
    /// a zero extent (minimized): nothing to draw.
    fn recreate(&mut self, wanted: vk::Extent2D) -> Result<bool> {
        // SAFETY: the surface belongs to the context's physical device.
        let caps = unsafe {
            self.surface_fn
                .get_physical_device_surface_capabilities(self.physical, self.surface)
        }?;
        let extent = match caps.current_extent.width {
            u32::MAX => wanted,
            _ => caps.current_extent,
        };
        if extent.width == 0 || extent.height == 0 {
            return Ok(false);
        }
        let count = match caps.max_image_count {
            0 => caps.min_image_count + 1,
            max => (caps.min_image_count + 1).min(max),
        };
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(self.surface)
            .min_image_count(count)
            .image_format(vk::Format::B8G8R8A8_UNORM)
            .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true)
            .old_swapchain(self.chain.handle);
        // SAFETY: a valid create info for this surface; the old swapchain is this surface's.
        let handle = unsafe {
            // vkpace {
            match self.pacer.as_mut() {
                Some(p) => p.create_swapchain(&info, None),
                None => self.swapchain_fn.create_swapchain(&info, None),
            }
            // vkpace }
        }?;
        self.counts.created += 1;
        let old = std::mem::replace(&mut self.chain.handle, handle);
        if old != vk::SwapchainKHR::null() {
            // Right away, no idle: the textbook shortcut (vkpace defers it until provably idle).
            // SAFETY: no image of `old` is acquired and not presented (each acquired one was
            // presented); its images' pending uses are what the pacer waits out.
            unsafe {
                // vkpace {
                match self.pacer.as_mut() {
                    Some(p) => p.destroy_swapchain(old, None),
                    None => self.swapchain_fn.destroy_swapchain(old, None),
                }
                // vkpace }
            }
            self.counts.destroyed += 1;
            self.counts.destroy_calls.push(self.counts.frames);
        }
        // SAFETY: a live swapchain of this device.
        self.chain.images = unsafe { self.swapchain_fn.get_swapchain_images(handle) }?;
        self.chain.extent = extent;
        Ok(true)
    }
}

impl Renderer {
    /// Tears down: a bounded wait for the frames' submissions, then (the textbook) device idle
    /// and the swapchain, or (vkpace) the swapchain through the pacer, which waits for its
    /// presents, and the pacer; then the frames' objects.
    fn destroy(mut self) -> Result<Counts> {
        let fences: Vec<_> = self.frames.iter().map(|f| f.fence).collect();
        let handle = self.chain.handle;
        // SAFETY: every object is this device's; after the waits nothing uses them.
        unsafe {
            self.device.wait_for_fences(&fences, true, 2_000_000_000)?;
            // vkpace {
            if self.pacer.is_none() {
                self.device.device_wait_idle()?;
            }
            // vkpace }
            if handle != vk::SwapchainKHR::null() {
                // vkpace {
                match self.pacer.as_mut() {
                    Some(p) => p.destroy_swapchain(handle, None),
                    None => self.swapchain_fn.destroy_swapchain(handle, None),
                }
                // vkpace }
                self.counts.destroyed += 1;
            }
            // vkpace {
            if let Some(p) = self.pacer.take() {
                p.destroy()?;
            }
            // vkpace }
            for f in &self.frames {
                self.device.destroy_semaphore(f.acquired, None);
                self.device.destroy_semaphore(f.rendered, None);
                self.device.destroy_fence(f.fence, None);
            }
            self.device.destroy_command_pool(self.pool, None);
        }
        Ok(self.counts)
    }
}

// vkpace {
/// With `--vkpace`, the pacer: the context's handles, the paths its device enabled, the limit.
fn make_pacer(
    ctx: &Context,
    device: &ash::Device,
    flags: &Flags,
) -> Result<Option<vkpace::PresentPacer>> {
    let mut config = vkpace::PresentPacerConfig::default();
    ctx.support.apply(&mut config);
    config.frame_limit = flags.fps.map(vkpace::FrameLimit::fps).transpose()?;
    let desc = vkpace::PresentPacerDesc {
        entry: &ctx.entry,
        instance: &ctx.instance,
        physical_device: ctx.physical,
        device,
        queue: ctx.queue,
        queue_family: ctx.queue_family,
        config,
    };
    // SAFETY: the handles are valid and outlive the pacer (destroyed first, in `destroy`).
    Ok(flags
        .vkpace
        .then(|| unsafe { vkpace::PresentPacer::new(desc) })
        .transpose()?)
}
// vkpace }

/// Frames until `--frames` were presented: the window's events, the resize storm, the plain
/// frame limit (without vkpace), a frame.
fn frame_loop(
    r: &mut Renderer,
    mut window: Option<&mut PumpedWindow>,
    flags: &Flags,
) -> Result<()> {
    let fps = flags.fps.filter(|_| !flags.vkpace); // vkpace
    let period = fps.map(|f| Duration::from_secs_f64(1.0 / f));
    let mut next = Instant::now();
    let mut iterations = 0u64;
    while r.counts.frames < flags.frames {
        let (mut resized, closed) = window
            .as_deref_mut()
            .map_or((false, false), PumpedWindow::pump);
        if closed {
            bail!("the window was closed");
        }
        let mut wanted = window.as_deref().map_or(
            vk::Extent2D {
                width: 640,
                height: 480,
            },
            PumpedWindow::size,
        );
        if r.counts.frames < flags.resize_storm {
            wanted = storm_extent(r.counts.frames);
            if let Some(w) = window.as_deref() {
                w.request_size(wanted);
            }
            resized = true;
        }
        if let Some(p) = period {
            next = (next + p).max(Instant::now() - p);
            std::thread::sleep(next.saturating_duration_since(Instant::now()));
        }
        if !r.draw(resized, wanted)? {
            std::thread::sleep(Duration::from_millis(5));
        }
        iterations += 1;
        if iterations > 4 * flags.frames + 1000 {
            bail!(
                "{} of {} frames after {iterations} tries",
                r.counts.frames,
                flags.frames
            );
        }
    }
    Ok(())
}

/// What the summary says besides the counts.
struct Run<'a> {
    flags: &'a Flags,
    system: &'static str,
    maintenance1: &'static str,
    seconds: f64,
    /// The pacer's statistics (JSON), or `null`.
    pacer: String,
}

/// The summary, after teardown: a JSON object on one line (`--json`), else a sentence.
fn summary(c: &Counts, run: &Run<'_>) -> String {
    let (device_idle, queue_idle) = idle_count::counts();
    let messages = support::MESSAGES.load(std::sync::atomic::Ordering::SeqCst);
    let (system, m1, seconds, vkpace) =
        (run.system, run.maintenance1, run.seconds, run.flags.vkpace);
    if !run.flags.json {
        return format!(
            "own_swapchain: {} frames in {seconds:.2} s on {system}, vkpace {vkpace}, {} \
             swapchains created, {} destroyed, {device_idle} device / {queue_idle} queue idles, \
             maintenance1 {m1}, {messages} validation messages",
            c.frames, c.created, c.destroyed
        );
    }
    format!(
        "{{\"example\":\"own_swapchain\",\"vkpace\":{vkpace},\"window_system\":\"{system}\",\
         \"frames\":{},\"seconds\":{seconds:.3},\"swapchains_created\":{},\
         \"swapchains_destroyed\":{},\"out_of_date\":{},\"suboptimal\":{},\
         \"device_wait_idle\":{device_idle},\"queue_wait_idle\":{queue_idle},\
         \"maintenance1\":\"{m1}\",\"validation_messages\":{messages},\"pacer\":{}}}",
        c.frames, c.created, c.destroyed, c.out_of_date, c.suboptimal, run.pacer
    )
}

// vkpace stats {
/// The pacer's statistics in the summary, and what the example measured from them.
fn pacer_json(s: &vkpace::PresentPacerStats, c: &Counts) -> String {
    let undestroyed = c.destroy_calls.len() - c.destroys_seen;
    format!(
        "{{\"swapchains_destroyed\":{},\"max_frames_to_destroy\":{},\"undestroyed\":{undestroyed},\
         \"retired_max_pending\":{},\"fallback_waits\":{},\"presents\":{},\
         \"repair_submits\":{},\"pacing_sleeps\":{}}}",
        s.swapchains_destroyed,
        c.max_frames_to_destroy,
        s.retired_max_pending,
        s.fallback_waits,
        s.presents,
        s.repair_submits,
        s.pacing_sleeps,
    )
}
// vkpace stats }

fn run(flags: &Flags) -> Result<String> {
    let mut window = flags.window.map(PumpedWindow::open).transpose()?;
    let system = match &window {
        Some(w) => w.system()?,
        None => "headless",
    };
    let handles = window
        .as_ref()
        .map(PumpedWindow::handles)
        .transpose()?
        .flatten();
    let options = ContextOptions {
        no_maintenance1: flags.no_maintenance1,
        validation: flags.validation,
        display_paths: true,
    };
    // SAFETY: the window outlives the context (destroyed below, before `window` drops).
    let ctx = unsafe { Context::with_options(handles, options) }?;
    let started = Instant::now();
    let counts = Renderer::new(&ctx, flags).and_then(|mut r| {
        let looped = frame_loop(&mut r, window.as_mut(), flags);
        let stats = r.pacer.as_ref().map(|p| p.stats()); // vkpace stats
        let pacer = stats.map_or("null".into(), |s| pacer_json(&s, &r.counts)); // vkpace stats
        let counts = r.destroy();
        looped.and(counts).map(|c| (c, pacer))
    });
    let run = Run {
        flags,
        system,
        maintenance1: ctx.support.maintenance1.map_or("legacy", |n| n.label()),
        seconds: started.elapsed().as_secs_f64(),
        pacer: String::new(),
    };
    ctx.destroy();
    drop(window);
    let (counts, pacer) = counts?;
    Ok(summary(&counts, &Run { pacer, ..run }))
}

fn main() -> std::process::ExitCode {
    let result = Flags::parse().and_then(|f| run(&f));
    let messages = support::MESSAGES.load(std::sync::atomic::Ordering::SeqCst);
    match result {
        Ok(line) if messages == 0 => {
            println!("{line}");
            std::process::ExitCode::SUCCESS
        }
        Ok(line) => {
            println!("{line}");
            eprintln!("own_swapchain: failed: {messages} validation messages");
            std::process::ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("own_swapchain: failed: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
