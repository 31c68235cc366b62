//! A textbook ash frame loop that owns its swapchain, as tutorials teach it, and a switch
//! (`--vkpace`) that hands its swapchain calls to vkpace's `PresentPacer`. The lines the switch
//! adds or changes are the door's adoption cost: each ends in `// vkpace` or lies between
//! `// vkpace {` and `// vkpace }`; the lines that only read the pacer's statistics for the
//! summary are marked `vkpace stats` the same way. `tests/vulkan/own_swapchain.rs` counts both; the
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
//! Flags: `examples/support/own_cli.rs`. Exit code 1 on an error or a validation message.

#[allow(dead_code)] // The other examples' frame loop (vkpace's `Swapchain`) is not used here.
mod support;

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use ash::vk;
use support::own_cli::{self, storm_extent, summary, Counts, Flags, Run};
use support::pumped_window::PumpedWindow;
use support::{idle_count, vulkan, Context, ContextOptions};

const FRAMES_IN_FLIGHT: usize = 2;

/// One frame in flight's objects.
#[derive(Clone, Copy)]
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
}

/// The loop's objects: a device table whose idles are counted, the swapchain functions, the
/// frames in flight, the swapchain, and (`--vkpace`) the pacer.
struct Renderer {
    device: ash::Device,
    queue: vk::Queue,
    physical: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    surface_fn: ash::khr::surface::Instance,
    loader: ash::khr::swapchain::Device,
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
        let pacer = flags.vkpace.then(|| pacer(ctx, &device, flags.fps)); // vkpace
        Ok(Self {
            queue: ctx.queue,
            physical: ctx.physical,
            surface: ctx.surface,
            surface_fn: ash::khr::surface::Instance::new(&ctx.entry, &ctx.instance),
            loader: ash::khr::swapchain::Device::new(&ctx.instance, &device),
            device,
            pool,
            frames,
            chain: Chain::default(),
            stale: true,
            frame: 0,
            counts: Counts::default(),
            pacer: pacer.transpose()?, // vkpace
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
        let InFlight {
            acquired: sem,
            fence,
            ..
        } = self.frames[self.frame];
        // SAFETY: the frame's fence, of this device.
        unsafe { self.device.wait_for_fences(&[fence], true, u64::MAX) }?;
        let (sc, null) = (self.chain.handle, vk::Fence::null());
        // SAFETY: a live swapchain; the acquire semaphore is unsignaled (the submission that
        // waited on it completed: the fence above).
        let acquire = unsafe {
            // vkpace {
            match self.pacer.as_mut() {
                Some(p) => p.acquire_next_image(sc, u64::MAX, sem, null),
                None => self.loader.acquire_next_image(sc, u64::MAX, sem, null),
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
        self.submit_and_present(index, suboptimal)?;
        Ok(true)
    }

    /// Records, submits and presents the acquired image `index` with the frame's objects.
    fn submit_and_present(&mut self, index: u32, suboptimal: bool) -> Result<()> {
        let f = &self.frames[self.frame];
        let (acquired, rendered, fence, cmd) = (f.acquired, f.rendered, f.fence, f.cmd);
        // SAFETY: the fence is not in use (waited before the acquire).
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
                None => self.loader.queue_present(self.queue, &info),
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
        Ok(())
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
        let Some(info) = self.swapchain_info(wanted)? else {
            return Ok(false);
        };
        let info = info.old_swapchain(self.chain.handle);
        // SAFETY: a valid create info for this surface; the old swapchain is this surface's.
        let handle = unsafe {
            // vkpace {
            match self.pacer.as_mut() {
                Some(p) => p.create_swapchain(&info, None),
                None => self.loader.create_swapchain(&info, None),
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
                    None => self.loader.destroy_swapchain(old, None),
                }
                // vkpace }
            }
            self.counts.destroyed += 1;
            self.counts.destroy_calls.push(self.counts.frames);
        }
        // SAFETY: a live swapchain of this device.
        self.chain.images = unsafe { self.loader.get_swapchain_images(handle) }?;
        Ok(true)
    }

    /// The create info of a FIFO swapchain of the surface's size, or `wanted` where the surface
    /// lets the application choose; None for a zero extent.
    fn swapchain_info(
        &self,
        wanted: vk::Extent2D,
    ) -> Result<Option<vk::SwapchainCreateInfoKHR<'static>>> {
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
            return Ok(None);
        }
        let count = match caps.max_image_count {
            0 => caps.min_image_count + 1,
            max => (caps.min_image_count + 1).min(max),
        };
        Ok(Some(
            vk::SwapchainCreateInfoKHR::default()
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
                .clipped(true),
        ))
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
                    None => self.loader.destroy_swapchain(handle, None),
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
/// The pacer (`--vkpace`): the context's handles, the paths its device enabled, the limit.
fn pacer(ctx: &Context, device: &ash::Device, fps: Option<f64>) -> Result<vkpace::PresentPacer> {
    let mut config = vkpace::PresentPacerConfig::default();
    ctx.support.apply(&mut config);
    config.pacing.frame_limit = fps.map(vkpace::FrameLimit::fps).transpose()?;
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
    Ok(unsafe { vkpace::PresentPacer::new(desc) }?)
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
            next = (next + p).max(Instant::now());
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

// vkpace stats {
/// The pacer's statistics in the summary, and what the example measured from them.
fn pacer_json(s: &vkpace::PresentPacerStats, c: &Counts) -> String {
    let undestroyed = c.destroy_calls.len() - c.destroys_seen;
    format!(
        "{{\"destroyed\":{},\"max_frames_to_destroy\":{},\"undestroyed\":{undestroyed},\
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
        only_present_wait2: flags.only_present_wait2,
    };
    // SAFETY: the window outlives the context (destroyed below, before `window` drops).
    let ctx = unsafe { Context::with_options(handles, options) }?;
    let started = Instant::now();
    let counts = Renderer::new(&ctx, flags).and_then(|mut r| {
        let looped = frame_loop(&mut r, window.as_mut(), flags);
        if flags.exit_without_teardown && looped.is_ok() {
            // As many programs end: the process exits with the device and its objects alive.
            println!(
                "own_swapchain: {} frames, exit without teardown",
                r.counts.frames
            );
            std::process::exit(0);
        }
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
    own_cli::exit(Flags::parse().and_then(|f| run(&f)))
}
