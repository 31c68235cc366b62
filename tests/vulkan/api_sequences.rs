//! Random sequences of vkpace's public calls on lavapipe, under the Khronos validation layer
//! with synchronization validation: acquire, drop a frame before or after submitting it,
//! submit, present, resize and request a recreation (also mid-frame), change frames in flight
//! and the present mode, minimize (headless), and tear down with a frame in progress. On the
//! headless surface and in a real X11 window, on both sync paths; every sequence must end with
//! zero validation messages, and the context's teardown reports no leak.
//!
//! `VKPACE_API_SEQUENCES` sets the number of sequences per surface and path (default 200).

use crate::common;

use std::ptr::NonNull;

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use common::{FrameHistory, RenderTarget, Renderer, SurfaceSource, VulkanContext};
use vkpace::{Acquired, Frame, SubmittedFrame, Swapchain, SwapchainConfig};
use vkpace_sim::rng::Rng;

fn sequences() -> u64 {
    std::env::var("VKPACE_API_SEQUENCES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

/// What the renderer holds between calls.
enum Held {
    Nothing,
    Acquired(Frame),
    Submitted(SubmittedFrame),
}

/// One surface: its context, the renderer, and what a sequence may do on it.
struct Bench {
    ctx: VulkanContext,
    renderer: Option<Renderer>,
    history: FrameHistory,
    headless: bool,
    modes: Vec<vk::PresentModeKHR>,
    calls: u64,
}

impl Bench {
    fn new(ctx: VulkanContext, headless: bool, m1: bool) -> Result<Self> {
        ensure!(
            !m1 || ctx.maintenance1,
            "maintenance1 asked for, not offered"
        );
        let mut b = Self {
            ctx,
            renderer: None,
            history: FrameHistory::default(),
            headless,
            modes: Vec::new(),
            calls: 0,
        };
        let sc = b.swapchain(2)?;
        b.modes = b.ctx.present_modes()?;
        let format = sc.info().format().context("no format")?;
        sc.destroy()?;
        b.renderer = Some(b.ctx.renderer(format)?);
        Ok(b)
    }

    fn swapchain(&self, n: usize) -> Result<Swapchain> {
        let mut config = SwapchainConfig::default();
        config.pacing.frames_in_flight = n;
        self.ctx.swapchain(config)
    }

    fn render(&mut self, sc: &mut Swapchain, frame: Frame) -> Result<SubmittedFrame> {
        let r = self.renderer.as_mut().context("renderer")?;
        let cmd = r.record(RenderTarget::of(sc, &frame), 0.0, 0.0, &self.history)?;
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

    /// One random sequence of calls on a new swapchain.
    fn sequence(&mut self, rng: &mut Rng) -> Result<()> {
        let mut sc = self.swapchain(1 + rng.below(3) as usize)?;
        let mut held = Held::Nothing;
        for _ in 0..(10 + rng.below(30)) {
            held = self.call(&mut sc, held, rng)?;
            self.calls += 1;
        }
        // Teardown, maybe with a frame in progress (`held` may still hold one).
        sc.destroy()?;
        let n = self.ctx.messages.count();
        ensure!(n == 0, "{n} validation message(s)");
        Ok(())
    }

    /// One call: the frame steps, or a setting changed (at any point, mid-frame too).
    fn call(&mut self, sc: &mut Swapchain, held: Held, rng: &mut Rng) -> Result<Held> {
        match rng.below(100) {
            0..=9 => self.change_setting(sc, rng)?,
            10..=14 => return Ok(Held::Nothing), // drop whatever is held
            _ => {}
        }
        Ok(match held {
            Held::Nothing => match sc.acquire()? {
                Acquired::Frame(f) => Held::Acquired(f),
                _ => Held::Nothing,
            },
            Held::Acquired(f) => Held::Submitted(self.render(sc, f)?),
            Held::Submitted(f) => {
                sc.present(f)?;
                Held::Nothing
            }
        })
    }

    fn change_setting(&mut self, sc: &mut Swapchain, rng: &mut Rng) -> Result<()> {
        match rng.below(5) {
            0 if self.headless => {
                // One in five resizes minimizes.
                let w = if rng.chance(20) {
                    0
                } else {
                    64 + rng.below(400)
                };
                sc.resize(vk::Extent2D {
                    width: w,
                    height: 48 + rng.below(300),
                });
            }
            0 | 1 => sc.request_recreate(),
            2 => sc.set(vkpace::Setting::FramesInFlight(1 + rng.below(3) as usize))?,
            _ => {
                let mode = self.modes[rng.below(self.modes.len() as u32) as usize];
                sc.set(vkpace::Setting::PresentMode(mode))?;
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Result<u64> {
        if let Some(r) = self.renderer.take() {
            r.destroy();
        }
        let messages = self.ctx.messages.clone();
        self.ctx.destroy();
        ensure!(
            messages.count() == 0,
            "{} message(s) at teardown",
            messages.count()
        );
        Ok(self.calls)
    }
}

fn run(ctx: VulkanContext, headless: bool, m1: bool, seed: u64) -> Result<()> {
    let mut bench = Bench::new(ctx, headless, m1)?;
    let mut rng = Rng::new(seed);
    let n = sequences();
    for i in 0..n {
        if let Err(e) = bench.sequence(&mut rng) {
            bail!("sequence {i} (seed {seed:#x}): {e:#}");
        }
    }
    let calls = bench.finish()?;
    println!("{n} sequences, {calls} calls, 0 validation messages");
    Ok(())
}

#[test]
fn headless_legacy() -> Result<()> {
    common::set_runtime_dir();
    run(
        VulkanContext::new(SurfaceSource::Headless, true, false)?,
        true,
        false,
        0xa1,
    )
}

#[test]
fn headless_maintenance1() -> Result<()> {
    common::set_runtime_dir();
    run(
        VulkanContext::new(SurfaceSource::Headless, true, true)?,
        true,
        true,
        0xa2,
    )
}

#[test]
fn x11_window_legacy() -> Result<()> {
    x11(false, 0xa3)
}

#[test]
fn x11_window_maintenance1() -> Result<()> {
    x11(true, 0xa4)
}

/// A plain Xlib window (no window manager needed), mapped, for the duration of the test.
fn x11(m1: bool, seed: u64) -> Result<()> {
    common::set_runtime_dir();
    let xlib = x11_dl::xlib::Xlib::open().context("libX11")?;
    // SAFETY: XOpenDisplay takes a null name (use $DISPLAY); the result is checked.
    let display = unsafe { (xlib.XOpenDisplay)(std::ptr::null()) };
    let Some(display_ptr) = NonNull::new(display) else {
        bail!("no X display (scripts/test starts Xvfb): set DISPLAY");
    };
    // SAFETY: `display` is an open connection; the window is created on its default screen.
    let window = unsafe {
        let screen = (xlib.XDefaultScreen)(display);
        let root = (xlib.XRootWindow)(display, screen);
        let w = (xlib.XCreateSimpleWindow)(display, root, 0, 0, 320, 240, 0, 0, 0);
        (xlib.XMapWindow)(display, w);
        (xlib.XSync)(display, 0);
        w
    };
    let result = (|| {
        // SAFETY: as above.
        let screen = unsafe { (xlib.XDefaultScreen)(display) };
        let raw_display = raw_window_handle::RawDisplayHandle::Xlib(
            raw_window_handle::XlibDisplayHandle::new(Some(display_ptr.cast()), screen),
        );
        let raw_window = raw_window_handle::RawWindowHandle::Xlib(
            raw_window_handle::XlibWindowHandle::new(window),
        );
        let source = SurfaceSource::Window {
            display: raw_display,
            window: raw_window,
            _marker: std::marker::PhantomData,
        };
        run(VulkanContext::new(source, true, m1)?, false, m1, seed)
    })();
    // SAFETY: the context (and its surface) is destroyed; the window and display are ours.
    unsafe {
        (xlib.XDestroyWindow)(display, window);
        (xlib.XCloseDisplay)(display);
    }
    result
}
