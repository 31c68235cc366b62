//! The windowed path: winit 0.30, a surface through ash-window, the same session as headless,
//! plus what only a window has: keys, a title with live figures, and hidden states.
//!
//! Hidden means nothing can be seen: zero size (minimized on some systems), covered entirely
//! (X11 reports it as `Occluded`, Wayland and macOS also when minimized) or minimized by the
//! window manager (X11: `_NET_WM_STATE_HIDDEN`, which winit does not report as an event, so it
//! is polled a few times a second). While hidden or paused nothing is rendered and the event
//! loop sleeps until an event or the next poll, so the demo uses next to no CPU.

use std::time::{Duration, Instant};

use anyhow::{anyhow, Result};
use ash::vk;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle, RawDisplayHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, StartCause, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

use crate::cli::{present_mode_name, Args};
use crate::keys::{self, Command};
use crate::report::Report;
use crate::session::{Session, Step};
use crate::vulkan_context::{SurfaceSource, VulkanContext};

/// How often the title is refreshed (and window-manager minimizing checked while rendering).
const TITLE_EVERY: Duration = Duration::from_millis(500);
/// How often a hidden or paused demo wakes to re-check the window-manager state.
const HIDDEN_POLL: Duration = Duration::from_millis(250);

struct Running {
    // Field order is drop order: session, then context, then window.
    session: Option<Session>,
    ctx: Option<VulkanContext>,
    window: Window,
    title_at: Instant,
    frames_at_title: u64,
}

#[derive(Default)]
struct Visibility {
    zero_size: bool,
    occluded: bool,
    wm_minimized: bool,
    /// The swapchain reported a zero extent.
    zero_extent: bool,
    since: Option<Instant>,
    total: Duration,
    episodes: u64,
}

impl Visibility {
    fn hidden(&self) -> bool {
        self.zero_size || self.occluded || self.wm_minimized || self.zero_extent
    }

    /// Books the time spent hidden; returns true when the window just became visible again.
    fn update(&mut self) -> bool {
        match (self.hidden(), self.since) {
            (true, None) => {
                self.since = Some(Instant::now());
                self.episodes += 1;
                false
            }
            (false, Some(t)) => {
                self.total += t.elapsed();
                self.since = None;
                true
            }
            _ => false,
        }
    }

    fn total(&self) -> Duration {
        self.total + self.since.map_or(Duration::ZERO, |t| t.elapsed())
    }
}

struct App {
    args: Args,
    running: Option<Running>,
    report: Option<Result<Report>>,
    visibility: Visibility,
}

/// The event loop, or why no window system is reachable.
pub fn event_loop() -> Result<EventLoop<()>> {
    let event_loop = EventLoop::new().map_err(|e| anyhow!("{e}"))?;
    if let Ok(RawDisplayHandle::Xlib(_)) = event_loop.display_handle().map(|h| h.as_raw()) {
        crate::x11_connection::install_io_error_handler();
    }
    Ok(event_loop)
}

/// Whether the environment names a window system (a non-empty DISPLAY or WAYLAND_DISPLAY): the
/// user then asked for a window, and not getting one is an error, not a headless run.
pub fn display_named() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// The report's name of the window system winit connected to.
fn window_system_name(event_loop: &EventLoop<()>) -> &'static str {
    match event_loop.display_handle().map(|h| h.as_raw()) {
        Ok(RawDisplayHandle::Xlib(_) | RawDisplayHandle::Xcb(_)) => "x11",
        Ok(RawDisplayHandle::Wayland(_)) => "wayland",
        _ => "other",
    }
}

/// Runs the demo in a window until `--frames`, Esc, or the window closes.
pub fn run(args: &Args, event_loop: EventLoop<()>) -> Result<Report> {
    let window_system = window_system_name(&event_loop);
    let mut app = App {
        args: args.clone(),
        running: None,
        report: None,
        visibility: Visibility::default(),
    };
    println!("{}", keys::HELP);
    if let Err(e) = event_loop.run_app(&mut app) {
        // winit ends its loop when the connection breaks (the compositor or X server died),
        // often before a Vulkan call reports the surface lost.
        app.teardown(Some(anyhow!(
            "the connection to the window system was lost (the compositor or X server is \
             gone): {e}"
        )));
    }
    let hidden = app.visibility.total();
    let episodes = app.visibility.episodes;
    let mut report = app
        .report
        .unwrap_or_else(|| Err(anyhow!("the window closed before the demo started")))?;
    report.hidden_ms = hidden.as_secs_f64() * 1e3;
    report.hidden_episodes = episodes;
    report.window_system = window_system;
    Ok(report)
}

impl App {
    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<()> {
        let attrs = Window::default_attributes()
            .with_title("vkpace")
            .with_inner_size(PhysicalSize::new(640, 480));
        let window = event_loop.create_window(attrs)?;
        let source = SurfaceSource::Window {
            display: window.display_handle()?.as_raw(),
            window: window.window_handle()?.as_raw(),
            _marker: std::marker::PhantomData,
        };
        let ctx = VulkanContext::new(source, self.args.validation, !self.args.no_maintenance1)?;
        crate::headless::log_device(&ctx);
        let size = window.inner_size();
        let session = Session::new(
            &ctx,
            &self.args,
            vk::Extent2D {
                width: size.width,
                height: size.height,
            },
        );
        let session = match session {
            Ok(s) => s,
            Err(e) => {
                ctx.destroy();
                return Err(e);
            }
        };
        self.running = Some(Running {
            session: Some(session),
            ctx: Some(ctx),
            window,
            title_at: Instant::now(),
            frames_at_title: 0,
        });
        Ok(())
    }

    fn stop(&mut self, event_loop: &ActiveEventLoop, error: Option<anyhow::Error>) {
        self.teardown(error);
        event_loop.exit();
    }

    /// Ends the session, if one runs: vkpace's objects, then the device, destroyed in order
    /// (also after the event loop itself failed), and the report or the error kept.
    fn teardown(&mut self, error: Option<anyhow::Error>) {
        if let Some(mut r) = self.running.take() {
            let report = r.session.take().map(Session::finish);
            let messages = r.ctx.as_ref().map(|c| c.messages.clone());
            if let Some(ctx) = r.ctx.take() {
                ctx.destroy();
            }
            let report = match (error, report) {
                (Some(e), _) => {
                    // Said after the device is gone: what teardown cost is counted too.
                    let n = messages.map_or(0, |m| m.count());
                    eprintln!("vkpace demo: the run failed; everything destroyed, {n} validation messages");
                    Err(e)
                }
                (None, Some(Ok(mut rep))) => {
                    rep.validation_messages = messages.map_or(0, |m| m.count());
                    Ok(rep)
                }
                (None, Some(Err(e))) => Err(e),
                (None, None) => Err(anyhow!("no session")),
            };
            self.report = Some(report);
        } else if let Some(e) = error {
            // A run that already ended keeps its report or its first error.
            if self.report.is_none() {
                self.report = Some(Err(e));
            }
        }
    }

    fn session(&mut self) -> Option<&mut Session> {
        self.running.as_mut().and_then(|r| r.session.as_mut())
    }

    fn command(&mut self, event_loop: &ActiveEventLoop, command: Command) {
        let Some(session) = self.session() else {
            return;
        };
        let result = match command {
            Command::Quit => return self.stop(event_loop, None),
            Command::FramesInFlight(n) => session
                .set_frames_in_flight(n)
                .map(|()| format!("frames in flight: {n}")),
            Command::NextPresentMode => Ok(match session.next_present_mode() {
                Some(m) => format!("present mode: {}", present_mode_name(m)),
                None => "present mode: no other mode offered".to_string(),
            }),
            Command::GpuLoad(delta) => Ok(format!("GPU load: {}", session.adjust_gpu_load(delta))),
            Command::ResizeStorm => Ok(format!(
                "resize storm: {}",
                if session.toggle_resize_storm() {
                    "on"
                } else {
                    "off"
                }
            )),
            Command::Policy => Ok(match session.toggle_policy() {
                Some(p) => format!("pacing policy: {}", crate::cli::policy_name(p)),
                None => "pacing policy: no swapchain".to_string(),
            }),
            Command::FrameLimit => session.toggle_frame_limit().map(|l| match l {
                Some(fps) => format!("frame limit: {fps} fps"),
                None => "frame limit: off".to_string(),
            }),
            Command::DumpState => Ok(session.debug_state()),
            Command::Pause => {
                let paused = !session.paused();
                session.set_paused(paused);
                Ok(if paused { "paused" } else { "resumed" }.to_string())
            }
        };
        match result {
            Ok(line) => println!("vkpace demo: {line}"),
            Err(e) => self.stop(event_loop, Some(e)),
        }
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let hidden = self.visibility.hidden();
        let Some(r) = self.running.as_mut() else {
            return;
        };
        let Some(session) = r.session.as_mut() else {
            return;
        };
        if hidden || session.paused() {
            return;
        }
        let i = session.frames();
        if let Some(extent) = session.resize_target(i) {
            let _ = r
                .window
                .request_inner_size(PhysicalSize::new(extent.width, extent.height));
        }
        let k = self.args.window_state_every;
        if k > 0 && i > 0 && i % k == 0 {
            next_window_state(&r.window, i / k);
        }
        match session.frame() {
            Ok(Step::Rendered) => self.visibility.zero_extent = false,
            Ok(Step::ZeroExtent) => self.visibility.zero_extent = true,
            // The acquire waited its bound: the next redraw tries again.
            Ok(Step::NotReady) => {}
            Err(e) => return self.stop(event_loop, Some(e)),
        }
        if self.visibility.update() {
            session.break_interval();
        }
        if r.title_at.elapsed() >= TITLE_EVERY {
            let elapsed = r.title_at.elapsed().as_secs_f64();
            let fps = (session.frames() - r.frames_at_title) as f64 / elapsed;
            r.title_at = Instant::now();
            r.frames_at_title = session.frames();
            set_title(&r.window, session, fps);
            // Window-manager minimizing has no winit event on X11: look now and then.
            self.visibility.wm_minimized = r.window.is_minimized() == Some(true);
            self.visibility.update();
        }
        if self.args.frames.is_some_and(|n| session.frames() >= n) {
            self.stop(event_loop, None);
        }
    }

    /// Re-reads the window-manager state while hidden; true when rendering should resume.
    fn poll_hidden(&mut self) -> bool {
        let Some(r) = self.running.as_mut() else {
            return false;
        };
        self.visibility.wm_minimized = r.window.is_minimized() == Some(true);
        // A zero extent is retried: the next acquire says whether it is still zero.
        self.visibility.zero_extent = false;
        let visible_again = self.visibility.update();
        if visible_again {
            if let Some(s) = r.session.as_mut() {
                s.break_interval();
            }
        }
        !self.visibility.hidden()
    }
}

/// Step `n` of `--window-state-every`: maximized on odd steps, fullscreen on even ones.
fn next_window_state(window: &Window, n: u64) {
    if n % 2 == 1 {
        window.set_fullscreen(None);
        window.set_maximized(true);
    } else {
        window.set_fullscreen(Some(winit::window::Fullscreen::Borderless(None)));
    }
}

fn set_title(window: &Window, session: &mut Session, fps: f64) {
    let frames = session.frames();
    if let Some(sc) = session.swapchain_mut() {
        let mode = present_mode_name(sc.info().present_mode.unwrap_or(vk::PresentModeKHR::FIFO));
        let path = if sc.info().maintenance1.is_some() {
            "maintenance1"
        } else {
            "legacy"
        };
        window.set_title(&format!(
            "vkpace: {fps:.0} fps | {mode} | {} in flight | {path} | {frames} frames",
            sc.info().frames_in_flight,
        ));
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.running.is_none() && self.report.is_none() {
            if let Err(e) = self.start(event_loop) {
                self.stop(event_loop, Some(e));
            }
        }
    }

    fn new_events(&mut self, _event_loop: &ActiveEventLoop, cause: StartCause) {
        if let StartCause::ResumeTimeReached { .. } = cause {
            self.poll_hidden();
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => self.stop(event_loop, None),
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        logical_key,
                        state: ElementState::Pressed,
                        repeat: false,
                        ..
                    },
                ..
            } => {
                if let Some(c) = keys::command(&logical_key) {
                    self.command(event_loop, c);
                }
            }
            WindowEvent::Resized(size) => {
                self.visibility.zero_size = size.width == 0 || size.height == 0;
                self.visibility.zero_extent = false;
                if self.visibility.update() {
                    if let Some(s) = self.session() {
                        s.break_interval();
                    }
                }
                if let Some(s) = self.session() {
                    s.window_resized(size.width, size.height);
                }
            }
            WindowEvent::Occluded(occluded) => {
                self.visibility.occluded = occluded;
                if self.visibility.update() {
                    if let Some(s) = self.session() {
                        s.break_interval();
                    }
                }
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        // A hidden or paused window wakes at least every HIDDEN_POLL to see this.
        if crate::stop_signal::requested() && self.running.is_some() {
            return self.stop(event_loop, None);
        }
        let paused = self
            .running
            .as_ref()
            .and_then(|r| r.session.as_ref())
            .is_some_and(Session::paused);
        if self.visibility.hidden() || paused {
            // Nothing to render: sleep until an event, or the next look at the WM state.
            event_loop.set_control_flow(ControlFlow::WaitUntil(Instant::now() + HIDDEN_POLL));
        } else {
            event_loop.set_control_flow(ControlFlow::Poll);
            if let Some(r) = &self.running {
                r.window.request_redraw();
            }
        }
    }
}
