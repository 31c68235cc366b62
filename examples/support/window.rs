//! The windowed loop: winit 0.30 asks for a redraw, the example renders one frame per redraw.
//! `--resize-every-frame` asks the window system for a new size each frame; the surface then
//! reports it and vkpace recreates the swapchain at the next acquire. A zero extent (a
//! minimized window) renders nothing until the window changes.

use std::time::Duration;

use anyhow::{anyhow, Result};
use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{StartCause, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

use super::{extent_for, Args, Renderer, Session};

struct App<R: Renderer> {
    args: Args,
    // Field order is drop order: the session (and its surface) before the window.
    session: Option<Session<R>>,
    window: Option<Window>,
    result: Option<Result<String>>,
    /// The last acquire found a zero extent: wait for an event (or a while) before the next.
    hidden: bool,
}

/// Runs `R` in a 640x480 window until `--frames` were rendered; returns the summary line.
pub fn run<R: Renderer>(args: &Args) -> Result<String> {
    let event_loop = EventLoop::new()?;
    let mut app = App::<R> {
        args: args.clone(),
        session: None,
        window: None,
        result: None,
        hidden: false,
    };
    event_loop.run_app(&mut app)?;
    app.result
        .unwrap_or_else(|| Err(anyhow!("the event loop ended before the example started")))
}

impl<R: Renderer> App<R> {
    fn start(&mut self, event_loop: &ActiveEventLoop) -> Result<()> {
        let attributes = Window::default_attributes()
            .with_title(R::NAME)
            .with_inner_size(PhysicalSize::new(640, 480));
        let window = event_loop.create_window(attributes)?;
        let handles = (
            window.display_handle()?.as_raw(),
            window.window_handle()?.as_raw(),
        );
        // SAFETY: the window outlives the session (`self.window` is dropped after it, and
        // `stop` destroys the session first).
        self.session = Some(unsafe { Session::new(Some(handles), &self.args) }?);
        self.window = Some(window);
        Ok(())
    }

    /// Tears down (once) and leaves the event loop with the result.
    fn stop(&mut self, event_loop: &ActiveEventLoop, error: Option<anyhow::Error>) {
        let finished = self.session.take().map(Session::finish);
        if self.result.is_none() {
            self.result = Some(match (error, finished) {
                (Some(e), _) => Err(e),
                (None, Some(r)) => r,
                (None, None) => Err(anyhow!("no session")),
            });
        }
        event_loop.exit();
    }

    fn redraw(&mut self, event_loop: &ActiveEventLoop) {
        let (Some(session), Some(window)) = (self.session.as_mut(), self.window.as_ref()) else {
            return;
        };
        if self.args.resize_every_frame {
            let e = extent_for(session.iterations);
            let _ = window.request_inner_size(PhysicalSize::new(e.width, e.height));
        }
        let frames = session.frames;
        if let Err(e) = session.step(None) {
            return self.stop(event_loop, Some(e));
        }
        self.hidden = session.frames == frames;
        if session.frames >= self.args.frames {
            self.stop(event_loop, None);
        }
    }
}

impl<R: Renderer> ApplicationHandler for App<R> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.session.is_none() && self.result.is_none() {
            if let Err(e) = self.start(event_loop) {
                self.stop(event_loop, Some(e));
            }
        }
    }

    fn new_events(&mut self, _event_loop: &ActiveEventLoop, cause: StartCause) {
        if let StartCause::ResumeTimeReached { .. } = cause {
            self.hidden = false; // try again: the next acquire says whether it still is
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => self.stop(event_loop, None),
            WindowEvent::Resized(size) => {
                self.hidden = false;
                // Give vkpace the new size: a Wayland surface has none of its own (the
                // application picks it). Recreate at the next acquire unless the swapchain has
                // that size already (on X11, rather than after a present reports SUBOPTIMAL); a
                // zero size (minimized) only asks the surface again.
                if let Some(s) = self.session.as_mut() {
                    let extent = ash::vk::Extent2D {
                        width: size.width,
                        height: size.height,
                    };
                    if size.width > 0 && size.height > 0 {
                        s.swapchain.resize(extent);
                    }
                    if s.swapchain.info().extent != Some(extent) {
                        s.swapchain.request_recreate();
                    }
                }
            }
            WindowEvent::RedrawRequested => self.redraw(event_loop),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.hidden {
            event_loop.set_control_flow(ControlFlow::wait_duration(Duration::from_millis(100)));
        } else if let Some(w) = self.window.as_ref() {
            event_loop.set_control_flow(ControlFlow::Poll);
            w.request_redraw();
        }
    }
}
