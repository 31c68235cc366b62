//! Completion tokens on lavapipe over the virtual display (vdisplay), where frames really
//! overlap, under the Khronos validation layer (synchronization validation on):
//!
//! - a renderer that draws into image views of its own, rebuilt whenever the swapchain
//!   changes (a new display extent every frame), retires the old views after the frame's
//!   submission with [`Swapchain::last_submitted`] and destroys them once
//!   [`Swapchain::completed`] says so:
//!   zero validation messages, on both sync paths, and the views really had to wait.
//!   Neither validation layer here (1.3.239, 1.4.363) reports an image view destroyed while a
//!   pending command buffer renders to it with dynamic rendering (tried: 60 such destructions,
//!   unproven, no message), and destroying them at once crashed lavapipe: the proof that a
//!   token is never reported reached early is the core's property test
//!   (`sim/tests/core_properties.rs`, against the simulated GPU's truth);
//! - the calls themselves: a frame's token is reached after [`Swapchain::wait`], earlier
//!   tokens with it; a token of another swapchain and a zero bound are refused, typed; the
//!   state dump ([`Swapchain::debug_state`]) then shows the stream complete.

use crate::common;
use crate::vdisplay_support;

use std::time::Duration;

use anyhow::{ensure, Context as _, Result};
use ash::vk;
use common::Harness;
use vkpace::{Acquired, DeferredRelease, Error, Swapchain, SwapchainConfig, SyncToken};
use vkpace_demo::virtual_display::set_extent;

/// Frames of a retired-views run, each at a new display extent, per path. A recreation's old
/// views are retired right after the frame's submission, with its token, so they still wait
/// when looked at (the GPU has just been given that frame). Not every frame recreates (a new
/// display extent reaches the swapchain at a later acquire), so the guard asks for a quarter.
fn retired_views_frames(m1: bool) -> u64 {
    if m1 {
        30
    } else {
        60
    }
}

/// Frames of the run that only collects tokens.
const TOKEN_FRAMES: u64 = 10;
/// Extents cycled through.
const SIZES: [(u32, u32); 4] = [(480, 360), (512, 384), (448, 336), (416, 312)];
/// Extra GPU work per frame (the demo's `--gpu-load` units): the frame just submitted is still
/// running when its retired views are looked at.
const GPU_LOAD: f32 = 12.0;

/// What a run saw.
#[derive(Debug, Default)]
struct Seen {
    views_made: u64,
    views_destroyed: u64,
    /// Frames after which some retired view still waited for its token.
    frames_with_waiting_views: u64,
    /// Times the retired-swapchain cap made vkpace wait for the GPU (which leaves no view
    /// waiting after that frame).
    fallback_waits: u64,
    messages: u64,
    tokens: Vec<SyncToken>,
}

fn config(m1: bool) -> SwapchainConfig {
    let mut c = SwapchainConfig::default();
    c.pacing.frames_in_flight = 3;
    c.present_mode = vk::PresentModeKHR::IMMEDIATE;
    c.paths.swapchain_maintenance1 = m1.then_some(vkpace::Maintenance1Names::Ext);
    c.pacing.wait_timeout = Duration::from_secs(5);
    c
}

/// The renderer's own views of the current swapchain's images.
struct OwnViews {
    device: ash::Device,
    format: vk::Format,
    current: Vec<vk::ImageView>,
    /// Views of the swapchain before this frame's, retired once the frame is submitted.
    stale: Vec<vk::ImageView>,
    retired: DeferredRelease<vk::ImageView>,
}

impl OwnViews {
    fn view_of(&self, image: vk::Image) -> Result<vk::ImageView> {
        let info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(self.format)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                level_count: 1,
                layer_count: 1,
                ..Default::default()
            });
        // SAFETY: `image` is a live swapchain image of this device; the view is destroyed
        // before the swapchain (retired with its token, or at the end after a wait).
        Ok(unsafe { self.device.create_image_view(&info, None) }?)
    }

    /// The swapchain changed: new views; the old ones wait for this frame's submission.
    fn rebuild(&mut self, sc: &Swapchain, seen: &mut Seen) -> Result<()> {
        self.stale.append(&mut self.current);
        for (image, _) in sc.images() {
            let view = self.view_of(image)?;
            self.current.push(view);
            seen.views_made += 1;
        }
        Ok(())
    }

    /// After the frame's submission: the old views are retired with the newest token, which
    /// comes after every submission that used them (the frame just submitted has the new
    /// swapchain's views; retiring with its token rather than the one before is later than
    /// needed, and does not depend on how far the GPU lags when the views are next looked at).
    fn retire_stale(&mut self, sc: &Swapchain) {
        let token = sc.last_submitted();
        for old in self.stale.drain(..) {
            self.retired.defer(token, old);
        }
    }

    /// Destroys every retired view whose token is reached (never blocks).
    fn release_reached(&mut self, sc: &mut Swapchain, seen: &mut Seen) -> Result<()> {
        let device = &self.device;
        let n = self.retired.release_reached(
            |t| sc.completed(t),
            // SAFETY: the view's token is reached: no pending submission uses it.
            |view| unsafe { device.destroy_image_view(view, None) },
        )?;
        seen.views_destroyed += n as u64;
        seen.frames_with_waiting_views += u64::from(!self.retired.is_empty());
        Ok(())
    }

    /// After the swapchain waited for its last token: everything is unused.
    fn destroy_all(&mut self) {
        let device = &self.device;
        // SAFETY: the caller waited for the last submission's token.
        let destroy = |view| unsafe { device.destroy_image_view(view, None) };
        self.retired.release_all(destroy);
        self.stale.drain(..).for_each(destroy);
        self.current.drain(..).for_each(destroy);
    }
}

/// One frame drawn into the renderer's own view of the acquired image.
fn frame(h: &mut Harness, views: &mut OwnViews, seen: &mut Seen) -> Result<()> {
    let sc = h.swapchain();
    let Acquired::Frame(frame) = sc.acquire()? else {
        anyhow::bail!("zero extent on the virtual display");
    };
    if frame.swapchain_changed() || views.current.is_empty() {
        views.rebuild(sc, seen)?;
    }
    let view = *views
        .current
        .get(frame.image_index() as usize)
        .context("image index past the images")?;
    seen.tokens.push(h.render(frame, Some(view), GPU_LOAD)?);
    views.retire_stale(h.swapchain());
    views.release_reached(h.swapchain(), seen)
}

fn resize_and_draw(
    h: &mut Harness,
    views: &mut OwnViews,
    seen: &mut Seen,
    (w, hgt): (u32, u32),
) -> Result<()> {
    ensure!(set_extent(0, w, hgt)? == 1, "one virtual display expected");
    frame(h, views, seen)
}

/// `frames` frames, each at a new display extent; returns what it saw.
fn run(m1: bool, frames: u64) -> Result<Seen> {
    let settings = vec![("extent", "320x240".to_string())];
    vdisplay_support::run(&settings, move || -> Result<Seen> {
        let mut h = Harness::headless(config(m1))?;
        ensure!(
            h.swapchain().info().maintenance1.is_some() == m1,
            "sync path"
        );
        let mut views = OwnViews {
            device: h.ctx.as_ref().context("context")?.device.clone(),
            format: h.swapchain().info().format().context("format")?,
            current: Vec::new(),
            stale: Vec::new(),
            retired: DeferredRelease::new(),
        };
        let mut seen = Seen::default();
        let mut result = Ok(());
        for i in 0..frames {
            let (w, hgt) = SIZES[i as usize % SIZES.len()];
            result = resize_and_draw(&mut h, &mut views, &mut seen, (w, hgt));
            if result.is_err() {
                break;
            }
        }
        let last = h.swapchain().last_submitted();
        let waited = h.swapchain().wait(last, Duration::from_secs(5));
        views.destroy_all();
        seen.messages = h.ctx.as_ref().map_or(0, |c| c.messages.count());
        result?;
        waited?;
        seen.fallback_waits = h.finish()?.fallback_waits;
        Ok(seen)
    })
}

fn retired_views_wait_for_their_tokens(m1: bool) -> Result<()> {
    let frames = retired_views_frames(m1);
    let seen = run(m1, frames)?;
    println!(
        "{} views made, {} destroyed, {} frames with views waiting, {} fallback waits",
        seen.views_made, seen.views_destroyed, seen.frames_with_waiting_views, seen.fallback_waits
    );
    ensure!(
        seen.messages == 0,
        "{} validation message(s)",
        seen.messages
    );
    ensure!(
        seen.views_made > frames,
        "a new extent every frame: {seen:?}"
    );
    ensure!(
        seen.frames_with_waiting_views >= frames / 4,
        "retired views waited after only {} of {frames} frames: the test would hardly notice an \
         early destruction",
        seen.frames_with_waiting_views
    );
    Ok(())
}

#[test]
fn retired_views_wait_for_their_tokens_legacy() -> Result<()> {
    retired_views_wait_for_their_tokens(false)
}

#[test]
fn retired_views_wait_for_their_tokens_maintenance1() -> Result<()> {
    retired_views_wait_for_their_tokens(true)
}

/// The calls: tokens are reached in order, after a wait; a token of another swapchain and a
/// zero bound are refused, typed.
#[test]
fn tokens_are_reached_in_order_and_foreign_ones_refused() -> Result<()> {
    let seen = run(true, TOKEN_FRAMES)?;
    ensure!(
        seen.messages == 0,
        "{} validation message(s)",
        seen.messages
    );
    let values: Vec<u64> = seen.tokens.iter().map(SyncToken::value).collect();
    ensure!(
        values.windows(2).all(|w| w[0] < w[1]),
        "frame tokens must increase: {values:?}"
    );
    let settings = vec![("extent", "320x240".to_string())];
    let foreign = *seen.tokens.last().context("no frame")?;
    vdisplay_support::run(&settings, move || tokens_in_order_and_refusals(foreign))
}

/// On a swapchain of its own: five frames' tokens reached in order after a wait, the state
/// dump showing the stream complete, and `foreign` (another swapchain's token) and a zero
/// bound refused, typed.
fn tokens_in_order_and_refusals(foreign: SyncToken) -> Result<()> {
    let mut h = Harness::headless(config(false))?;
    h.frame()?;
    let first = h.swapchain().last_submitted();
    for _ in 0..4 {
        h.frame()?;
    }
    let sc = h.swapchain();
    let last = sc.last_submitted();
    ensure!(last.value() > first.value(), "{first} then {last}");
    sc.wait(last, Duration::from_secs(5))?;
    ensure!(sc.completed(last)?, "{last} not reached after its wait");
    ensure!(
        sc.completed(first)?,
        "{first} not reached with the later {last}"
    );
    let dump = format!("{sc:?}");
    println!("{dump}");
    for line in [
        format!(
            "stream {}, submitted #{}, completed #{}",
            last.stream(),
            last.value(),
            last.value()
        ),
        "submissions pending: none".to_string(),
        "acquire semaphores:".to_string(),
        "  image 0: ".to_string(),
    ] {
        ensure!(
            dump.contains(&line),
            "the state dump lacks {line:?}:\n{dump}"
        );
    }
    match sc.completed(foreign) {
        Err(Error::ForeignToken(t)) if t == foreign => {}
        other => anyhow::bail!("a foreign token was not refused: {other:?}"),
    }
    match sc.wait(foreign, Duration::from_secs(1)) {
        Err(Error::ForeignToken(_)) => {}
        other => anyhow::bail!("a wait on a foreign token was not refused: {other:?}"),
    }
    match sc.wait(last, Duration::ZERO) {
        Err(Error::ZeroTimeout) => {}
        other => anyhow::bail!("a zero bound was not refused: {other:?}"),
    }
    h.finish().map(|_| ())
}
