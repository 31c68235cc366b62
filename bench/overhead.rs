//! vkpace's own CPU cost per frame, measured against a textbook loop doing the same work.
//!
//! Both loops render the demo's scene with the demo's renderer into a headless swapchain of
//! the same size and present mode, 3 frames in flight, no validation, each on its own device.
//! The textbook loop is the usual raw-ash one (a fence and an acquire semaphore per frame in
//! flight, a present semaphore per image, wait on the frame's fence before reusing its slot);
//! the other goes through `vkpace::Swapchain`. Their frames alternate one by one in one
//! thread, and each frame's thread CPU time is added to its loop: whatever the machine does
//! (the driver's worker threads, the hypervisor) hits both alike, so the difference is
//! vkpace's. Measured run to run instead, the noise was larger than the whole effect.

mod alternating;
mod noise;
mod textbook_loop;
mod vkpace_loop;

use std::time::Duration;

use anyhow::Result;
use ash::vk;

use crate::driver_meter::{self, Meter};
use crate::frame_history::FrameHistory;
use crate::vulkan_context::{SurfaceSource, VulkanContext};

use alternating::alternate_frames;
pub use noise::textbook_against_itself;
use textbook_loop::TextbookLoop;
use vkpace_loop::VkpaceLoop;

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
