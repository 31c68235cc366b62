//! vkpace's own CPU cost per frame, measured against a textbook loop doing the same work.
//!
//! Both loops render the demo's scene with the demo's renderer into a headless swapchain of
//! the same size and present mode, 3 frames in flight, no validation, each on its own device.
//! The textbook loop is the usual raw-ash one (a fence and an acquire semaphore per frame in
//! flight, a present semaphore per image, wait on the frame's fence before reusing its slot);
//! the other goes through [`vkpace::Swapchain`]. Their frames alternate one by one in one
//! thread, and each frame's thread CPU time is added to its loop: whatever the machine does
//! (the driver's worker threads, the hypervisor) hits both alike, so the difference is
//! vkpace's. Measured run to run instead, the noise was larger than the whole effect.

mod alternating;
mod noise;

use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};
use ash::vk;
use vkpace::{Acquired, Swapchain, SwapchainConfig, SwapchainCreateDesc};

use crate::driver_meter::{self, Meter};
use crate::frame_history::FrameHistory;
use crate::renderer::{RenderTarget, Renderer};
use crate::textbook_objects::TextbookObjects;
use crate::vulkan_context::{SurfaceSource, VulkanContext};

use alternating::alternate_frames;
pub use noise::textbook_against_itself;

/// Frames before the measurement starts (pipeline first use, swapchain creation).
const WARMUP: u64 = 60;
const FRAMES_IN_FLIGHT: usize = 3;
const EXTENT: vk::Extent2D = vk::Extent2D {
    width: 640,
    height: 480,
};
/// Bound of the textbook loop's waits (ns).
const TIMEOUT_NS: u64 = 2_000_000_000;

/// Which vkpace configuration the vkpace loop uses: the library defaults (proof-based path, no
/// GPU timestamps) with 3 frames in flight, plus the options named here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VkpaceVariant {
    /// Present fences of VK_EXT_swapchain_maintenance1.
    pub maintenance1: bool,
    /// GPU timestamps (VK_EXT_calibrated_timestamps).
    pub gpu_timestamps: bool,
    /// The timeline completion backend instead of fences.
    pub timeline: bool,
}

/// One interleaved run: thread CPU microseconds per frame of each loop, and each loop's own
/// time per frame (outside the driver and the renderer).
#[derive(Debug, Clone, Default)]
pub struct Pair {
    pub textbook_us: f64,
    pub vkpace_us: f64,
    /// Per frame, nanoseconds of the loop's own code: the wall time of its steps other than
    /// recording, less the time inside hooked driver calls.
    pub textbook_own_ns: Vec<u64>,
    pub vkpace_own_ns: Vec<u64>,
    /// Hooked driver calls per frame (mean).
    pub textbook_calls: f64,
    pub vkpace_calls: f64,
}

/// Frames dropped from the top of each loop's own-time distribution: those where the OS
/// descheduled the thread inside a step (the VM does, for up to milliseconds), which would say
/// nothing about the loop's code. The same share is dropped from both loops.
const TRIM: f64 = 0.01;

/// Mean of `ns` without its highest `TRIM` share, in microseconds.
fn trimmed_mean_us(ns: &[u64]) -> f64 {
    let mut v = ns.to_vec();
    v.sort_unstable();
    let keep = v.len() - (v.len() as f64 * TRIM) as usize;
    let kept = &v[..keep.max(1).min(v.len())];
    if kept.is_empty() {
        return 0.0;
    }
    kept.iter().sum::<u64>() as f64 / kept.len() as f64 / 1000.0
}

impl Pair {
    /// vkpace's own code per frame (trimmed mean, microseconds), less the clock reads the
    /// measurement itself adds: one per metered driver call and one per timed step.
    pub fn vkpace_own_us(&self, clock_read_ns: f64) -> f64 {
        trimmed_mean_us(&self.vkpace_own_ns) - (self.vkpace_calls + STEPS) * clock_read_ns / 1000.0
    }

    /// The textbook loop's own code per frame, measured and corrected the same way.
    pub fn textbook_own_us(&self, clock_read_ns: f64) -> f64 {
        trimmed_mean_us(&self.textbook_own_ns)
            - (self.textbook_calls + STEPS) * clock_read_ns / 1000.0
    }
}

/// Metered driver calls of one textbook frame.
const TEXTBOOK_CALLS_PER_FRAME: u64 = 5;

/// Timed steps per frame of either loop (before and after recording).
const STEPS: f64 = 2.0;

/// What one frame of a loop cost outside the renderer's recording.
#[derive(Debug, Clone, Copy)]
struct Steps {
    /// Wall time of the loop's steps other than recording.
    wall_ns: u64,
    /// Driver calls within them.
    driver: Meter,
}

impl Steps {
    fn own_ns(self) -> u64 {
        self.wall_ns.saturating_sub(self.driver.inside_ns)
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Runs both loops, frames alternating (the order flips every frame), and returns each one's
/// thread CPU per frame over `frames` frames after the warm-up.
pub fn interleaved(frames: u64, variant: VkpaceVariant) -> Result<Pair> {
    let (text_ctx, vk_ctx) = contexts(variant)?;
    let result = interleaved_on(&text_ctx, &vk_ctx, frames, variant);
    vk_ctx.destroy();
    text_ctx.destroy();
    result
}

/// A headless context for each loop, without validation; vkpace's with maintenance1 when
/// `variant` asks for it.
fn contexts(variant: VkpaceVariant) -> Result<(VulkanContext, VulkanContext)> {
    let text_ctx = VulkanContext::new(SurfaceSource::Headless, false, false)?;
    match VulkanContext::new(SurfaceSource::Headless, false, variant.maintenance1) {
        Ok(vk_ctx) => Ok((text_ctx, vk_ctx)),
        Err(e) => {
            text_ctx.destroy();
            Err(e)
        }
    }
}

/// Both loops on metered copies of their contexts' function tables (the loops keep their own
/// copies of the device table, so the returned pair is all they need).
fn loops(
    text_ctx: &VulkanContext,
    vk_ctx: &VulkanContext,
    variant: VkpaceVariant,
) -> Result<(TextbookLoop, VkpaceLoop)> {
    // SAFETY: the contexts are alive for the whole run; the copies only make calls.
    let text_fns =
        unsafe { driver_meter::hooked(&text_ctx.entry, &text_ctx.instance, &text_ctx.device) }?;
    // SAFETY: as above.
    let vk_fns = unsafe { driver_meter::hooked(&vk_ctx.entry, &vk_ctx.instance, &vk_ctx.device) }?;
    let mut text = TextbookLoop::new(text_ctx, &text_fns)?;
    match VkpaceLoop::new(vk_ctx, &vk_fns, variant) {
        Ok(vkp) => Ok((text, vkp)),
        Err(e) => {
            text.destroy()?;
            Err(e)
        }
    }
}

fn interleaved_on(
    text_ctx: &VulkanContext,
    vk_ctx: &VulkanContext,
    frames: u64,
    variant: VkpaceVariant,
) -> Result<Pair> {
    let (mut text, mut vkp) = loops(text_ctx, vk_ctx, variant)?;
    let outcome = alternate_frames(&mut text, &mut vkp, frames);
    let closed = vkp.destroy().and(text.destroy());
    let [text_sums, vk_sums] = outcome?;
    closed?;
    let per = |d: Duration| d.as_secs_f64() * 1e6 / frames as f64;
    let pair = Pair {
        textbook_us: per(text_sums.cpu),
        vkpace_us: per(vk_sums.cpu),
        textbook_calls: text_sums.calls as f64 / frames as f64,
        vkpace_calls: vk_sums.calls as f64 / frames as f64,
        textbook_own_ns: text_sums.own_ns,
        vkpace_own_ns: vk_sums.own_ns,
    };
    // The textbook frame makes exactly five metered calls (wait, acquire, reset, submit,
    // present): anything else means the metering missed calls and the own times are wrong.
    if text_sums.calls != TEXTBOOK_CALLS_PER_FRAME * frames {
        anyhow::bail!(
            "driver metering saw {} calls per textbook frame, not {TEXTBOOK_CALLS_PER_FRAME}",
            pair.textbook_calls
        );
    }
    Ok(pair)
}

/// One loop alone (`vkpace` or the textbook one) for [`WARMUP`] and then `frames` measured
/// frames, on its own headless context with the driver's own function tables: what
/// `instructions.rs` has callgrind count (the measured frames only: they alone go through
/// [`measured_textbook_frame`] or [`measured_vkpace_frame`]).
pub fn run_alone(vkpace: bool, frames: u64) -> Result<()> {
    let ctx = VulkanContext::new(SurfaceSource::Headless, false, false)?;
    let result = run_alone_on(&ctx, vkpace, frames);
    ctx.destroy();
    result
}

fn run_alone_on(ctx: &VulkanContext, vkpace: bool, frames: u64) -> Result<()> {
    let fns = (ctx.instance.clone(), ctx.device.clone());
    if vkpace {
        let mut l = VkpaceLoop::new(ctx, &fns, VkpaceVariant::default())?;
        let outcome = warm_then_measure(&mut l, frames, VkpaceLoop::frame, measured_vkpace_frame);
        l.destroy()?;
        outcome
    } else {
        let mut l = TextbookLoop::new(ctx, &fns)?;
        let outcome =
            warm_then_measure(&mut l, frames, TextbookLoop::frame, measured_textbook_frame);
        l.destroy()?;
        outcome
    }
}

/// One frame of a loop, as its `frame` method or its measured wrapper.
type FrameFn<L> = fn(&mut L, f32, &FrameHistory) -> Result<Steps>;

/// [`WARMUP`] frames through `frame`, then `frames` through `measured`.
fn warm_then_measure<L>(
    l: &mut L,
    frames: u64,
    frame: FrameFn<L>,
    measured: FrameFn<L>,
) -> Result<()> {
    let history = FrameHistory::default();
    let t = |f: u64| f as f32 / 60.0;
    (0..WARMUP).try_for_each(|f| frame(l, t(f), &history).map(drop))?;
    (WARMUP..WARMUP + frames).try_for_each(|f| measured(l, t(f), &history).map(drop))
}

/// A measured frame of the textbook loop: callgrind collects from this function's entry to its
/// return (`--toggle-collect`), so it is never inlined.
#[inline(never)]
fn measured_textbook_frame(l: &mut TextbookLoop, t: f32, history: &FrameHistory) -> Result<Steps> {
    l.frame(t, history)
}

/// A measured frame of vkpace's loop (as [`measured_textbook_frame`]).
#[inline(never)]
fn measured_vkpace_frame(l: &mut VkpaceLoop, t: f32, history: &FrameHistory) -> Result<Steps> {
    l.frame(t, history)
}

/// The textbook loop's objects.
struct TextbookLoop {
    sc_fn: ash::khr::swapchain::Device,
    device: ash::Device,
    queue: vk::Queue,
    swapchain: vk::SwapchainKHR,
    format: vk::Format,
    objects: TextbookObjects,
    renderer: Option<Renderer>,
    frame: u64,
}

impl TextbookLoop {
    /// `fns` are the context's instance and device tables (metered copies).
    fn new(ctx: &VulkanContext, fns: &(ash::Instance, ash::Device)) -> Result<Self> {
        let d = &fns.1;
        let sc_fn = ash::khr::swapchain::Device::new(&fns.0, d);
        // SAFETY: valid handles of the context.
        let caps = unsafe {
            ctx.surface_fn
                .get_physical_device_surface_capabilities(ctx.physical, ctx.surface)
        }?;
        // SAFETY: as above.
        let formats = unsafe {
            ctx.surface_fn
                .get_physical_device_surface_formats(ctx.physical, ctx.surface)
        }?;
        let format = formats
            .iter()
            .find(|f| f.format == vk::Format::B8G8R8A8_UNORM)
            .or(formats.first())
            .copied()
            .context("no surface format")?;
        let mut count = caps.min_image_count + 1;
        if caps.max_image_count > 0 {
            count = count.min(caps.max_image_count);
        }
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(ctx.surface)
            .min_image_count(count)
            .image_format(format.format)
            .image_color_space(format.color_space)
            .image_extent(EXTENT)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true);
        // SAFETY: the device enabled VK_KHR_swapchain; the surface supports these (queried).
        let swapchain = unsafe { sc_fn.create_swapchain(&info, None) }?;
        let mut l = Self {
            sc_fn,
            device: d.clone(),
            queue: ctx.queue,
            swapchain,
            format: format.format,
            objects: TextbookObjects::default(),
            renderer: None,
            frame: 0,
        };
        if let Err(e) = l.make_objects(ctx) {
            let _ = l.destroy();
            return Err(e);
        }
        Ok(l)
    }

    fn make_objects(&mut self, ctx: &VulkanContext) -> Result<()> {
        let d = &self.device;
        self.objects.create(
            d,
            &self.sc_fn,
            self.swapchain,
            self.format,
            FRAMES_IN_FLIGHT,
        )?;
        self.renderer = Some(Renderer::new(
            &ctx.instance,
            ctx.physical,
            d,
            ctx.queue_family,
            self.format,
            FRAMES_IN_FLIGHT,
        )?);
        Ok(())
    }

    fn frame(&mut self, t: f32, history: &FrameHistory) -> Result<Steps> {
        let meter = driver_meter::now();
        let t0 = Instant::now();
        let d = &self.device;
        let slot = (self.frame % FRAMES_IN_FLIGHT as u64) as usize;
        self.frame += 1;
        let fence = self.objects.fences[slot];
        let acquire = self.objects.acquire_sems[slot];
        // SAFETY: the fence belongs to this device; the wait is bounded.
        unsafe { d.wait_for_fences(&[fence], true, TIMEOUT_NS) }?;
        // SAFETY: the acquire semaphore's last wait (the slot's previous submission) completed.
        let (index, _) = unsafe {
            self.sc_fn
                .acquire_next_image(self.swapchain, TIMEOUT_NS, acquire, vk::Fence::null())
        }?;
        // SAFETY: the fence is signalled and not in use.
        unsafe { d.reset_fences(&[fence]) }?;
        let i = index as usize;
        let target = RenderTarget {
            image: self.objects.images[i],
            image_view: self.objects.views[i],
            extent: EXTENT,
            slot,
            image_index: index,
            // One swapchain for the whole run, not vkpace's.
            frame: None,
        };
        let renderer = self.renderer.as_mut().context("renderer gone")?;
        let t1 = Instant::now();
        let cmd = renderer.record(target, t, 0.0, history)?;
        let t2 = Instant::now();
        let waits = [acquire];
        let stages = [vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT];
        let cmds = [cmd];
        let signals = [self.objects.present_sems[i]];
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .command_buffers(&cmds)
            .signal_semaphores(&signals);
        // SAFETY: the slot's fence is unsignalled; the command buffer's previous use completed.
        unsafe { d.queue_submit(self.queue, &[submit], fence) }?;
        let scs = [self.swapchain];
        let idx = [index];
        let present = vk::PresentInfoKHR::default()
            .wait_semaphores(&signals)
            .swapchains(&scs)
            .image_indices(&idx);
        // SAFETY: the image was acquired and its rendering submitted.
        unsafe { self.sc_fn.queue_present(self.queue, &present) }?;
        let t3 = Instant::now();
        Ok(Steps {
            wall_ns: nanos((t1 - t0) + (t3 - t2)),
            driver: driver_meter::now().since(meter),
        })
    }

    fn destroy(&mut self) -> Result<()> {
        // SAFETY: benchmark teardown: wait for everything, then destroy in reverse order.
        unsafe { self.device.device_wait_idle() }?;
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
        let d = &self.device;
        // SAFETY: the device is idle; nothing below is in use; each handle is destroyed once
        // (the vectors are drained).
        unsafe {
            self.objects.destroy(d);
            self.sc_fn.destroy_swapchain(self.swapchain, None);
        }
        self.swapchain = vk::SwapchainKHR::null();
        Ok(())
    }
}

/// The same loop through vkpace.
struct VkpaceLoop {
    swapchain: Option<Swapchain>,
    renderer: Option<Renderer>,
}

impl VkpaceLoop {
    /// `fns` are the context's instance and device tables (metered copies).
    fn new(
        ctx: &VulkanContext,
        fns: &(ash::Instance, ash::Device),
        variant: VkpaceVariant,
    ) -> Result<Self> {
        if variant.maintenance1 && !ctx.maintenance1 || variant.gpu_timestamps && !ctx.gpu_timing {
            anyhow::bail!("{variant:?} asked for, but the device does not offer it");
        }
        let mut config = SwapchainConfig::default();
        config.frames_in_flight = FRAMES_IN_FLIGHT;
        config.extent = EXTENT;
        config.swapchain_maintenance1 = ctx.maintenance1_names.filter(|_| variant.maintenance1);
        config.gpu_timestamps = variant.gpu_timestamps;
        if variant.timeline {
            config.completion = vkpace::CompletionBackend::TimelineSemaphore;
        }
        // SAFETY: the context's handles are valid and outlive the swapchain (destroyed in
        // `destroy`, before the context); the options are set only where the context
        // enabled them (checked above).
        let swapchain = unsafe {
            Swapchain::new(SwapchainCreateDesc {
                entry: &ctx.entry,
                instance: &fns.0,
                physical_device: ctx.physical,
                device: &fns.1,
                queue: ctx.queue,
                queue_family: ctx.queue_family,
                surface: ctx.surface,
                config,
            })
        }?;
        let format = swapchain.info().format().context("format")?;
        let renderer = ctx.renderer(format)?;
        Ok(Self {
            swapchain: Some(swapchain),
            renderer: Some(renderer),
        })
    }

    fn frame(&mut self, t: f32, history: &FrameHistory) -> Result<Steps> {
        let (Some(sc), Some(r)) = (self.swapchain.as_mut(), self.renderer.as_mut()) else {
            anyhow::bail!("loop destroyed");
        };
        let meter = driver_meter::now();
        let t0 = Instant::now();
        let frame = match sc.acquire()? {
            Acquired::Frame(frame) => frame,
            _ => anyhow::bail!("a headless surface reported a zero extent"),
        };
        let t1 = Instant::now();
        let cmd = r.record(RenderTarget::of(sc, &frame), t, 0.0, history)?;
        let t2 = Instant::now();
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
        sc.present(submitted)?;
        let t3 = Instant::now();
        Ok(Steps {
            wall_ns: nanos((t1 - t0) + (t3 - t2)),
            driver: driver_meter::now().since(meter),
        })
    }

    fn destroy(&mut self) -> Result<()> {
        if let Some(sc) = self.swapchain.take() {
            sc.destroy()?;
        }
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trimmed_mean_drops_the_top_percent() {
        let mut ns: Vec<u64> = vec![1000; 99];
        ns.push(1_000_000);
        assert!((trimmed_mean_us(&ns) - 1.0).abs() < 1e-9);
        assert!((trimmed_mean_us(&[3000]) - 3.0).abs() < 1e-9);
        assert_eq!(trimmed_mean_us(&[]), 0.0);
    }
}
