//! The windowed path: winit 0.30, a surface through ash-window, the same session as headless.

use std::time::Instant;

use anyhow::{anyhow, Result};
use ash::vk;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, KeyEvent, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{Key, NamedKey};
use winit::window::{Window, WindowId};

use crate::cli::{present_mode_name, Args};
use crate::report::Report;
use crate::session::{Session, Step};
use crate::vulkan_context::{SurfaceSource, VulkanContext};

struct Running {
    // Field order is drop order: session, then context, then window.
    session: Option<Session>,
    ctx: Option<VulkanContext>,
    window: Window,
    title_at: Instant,
}

struct App {
    args: Args,
    running: Option<Running>,
    report: Option<Result<Report>>,
    minimized: bool,
}

/// Whether a window system is reachable (checked by creating the event loop).
pub fn event_loop() -> Result<EventLoop<()>> {
    EventLoop::new().map_err(|e| anyhow!("{e}"))
}

/// Runs the demo in a window until `--frames` or the window closes.
pub fn run(args: &Args, event_loop: EventLoop<()>) -> Result<Report> {
    let mut app = App {
        args: args.clone(),
        running: None,
        report: None,
        minimized: false,
    };
    println!("vkpace demo: Esc quits.");
    event_loop
        .run_app(&mut app)
        .map_err(|e| anyhow!("event loop: {e}"))?;
    app.report
        .unwrap_or_else(|| Err(anyhow!("the window closed before the demo started")))
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
        });
        Ok(())
    }

    fn stop(&mut self, event_loop: &ActiveEventLoop, error: Option<anyhow::Error>) {
        if let Some(mut r) = self.running.take() {
            let report = r.session.take().map(Session::finish);
            let messages = r.ctx.as_ref().map(|c| c.messages.clone());
            if let Some(ctx) = r.ctx.take() {
                ctx.destroy();
            }
            let report = match (error, report) {
                (Some(e), _) => Err(e),
                (None, Some(Ok(mut rep))) => {
                    rep.validation_messages = messages.map_or(0, |m| m.count());
                    Ok(rep)
                }
                (None, Some(Err(e))) => Err(e),
                (None, None) => Err(anyhow!("no session")),
            };
            self.report = Some(report);
        } else if let Some(e) = error {
            self.report = Some(Err(e));
        }
        event_loop.exit();
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let Some(r) = self.running.as_mut() else {
            return;
        };
        let Some(session) = r.session.as_mut() else {
            return;
        };
        let i = session.frames();
        if let Some(extent) = session.resize_target(i) {
            let _ = r
                .window
                .request_inner_size(PhysicalSize::new(extent.width, extent.height));
        }
        match session.frame() {
            Ok(Step::Rendered) => self.minimized = false,
            Ok(Step::ZeroExtent) => self.minimized = true,
            Err(e) => return self.stop(event_loop, Some(e)),
        }
        if r.title_at.elapsed().as_millis() >= 500 {
            r.title_at = Instant::now();
            let frames = session.frames();
            if let Some(sc) = session.swapchain_mut() {
                let mode = present_mode_name(sc.present_mode().unwrap_or(vk::PresentModeKHR::FIFO));
                r.window.set_title(&format!(
                    "vkpace: {} frames, {mode}, {} in flight, {} path",
                    frames,
                    sc.frames_in_flight(),
                    if sc.uses_maintenance1() {
                        "maintenance1"
                    } else {
                        "legacy"
                    }
                ));
            }
        }
        if self.args.frames.is_some_and(|n| session.frames() >= n) {
            self.stop(event_loop, None);
        }
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

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => self.stop(event_loop, None),
            WindowEvent::KeyboardInput {
                event:
                    KeyEvent {
                        logical_key: Key::Named(NamedKey::Escape),
                        state: ElementState::Pressed,
                        ..
                    },
                ..
            } => self.stop(event_loop, None),
            WindowEvent::Resized(size) => {
                self.minimized = size.width == 0 || size.height == 0;
                if let Some(sc) = self
                    .running
                    .as_mut()
                    .and_then(|r| r.session.as_mut())
                    .and_then(Session::swapchain_mut)
                {
                    sc.request_recreate();
                }
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.minimized {
            // Zero extent: nothing to render, sleep until the window system wakes us.
            event_loop.set_control_flow(ControlFlow::Wait);
        } else {
            event_loop.set_control_flow(ControlFlow::Poll);
            if let Some(r) = &self.running {
                r.window.request_redraw();
            }
        }
    }
}
