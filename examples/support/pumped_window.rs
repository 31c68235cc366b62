//! A window for a loop that keeps its own frame loop (as an engine does): winit's event loop
//! pumped once per frame, without waiting, so the window's events arrive between frames.
//! (Only own_swapchain uses it.)
#![allow(dead_code)]

use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use ash::vk;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::platform::pump_events::EventLoopExtPumpEvents;
use winit::window::{Window, WindowId};

use super::WindowHandles;

/// Which window system; `Any` is winit's choice (Wayland where `WAYLAND_DISPLAY` is set).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum System {
    Any,
    X11,
    Wayland,
}

#[derive(Default)]
struct App {
    window: Option<Window>,
    error: Option<anyhow::Error>,
    size: PhysicalSize<u32>,
    resized: bool,
    closed: bool,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_none() {
            let attributes = Window::default_attributes()
                .with_title("own_swapchain")
                .with_inner_size(PhysicalSize::new(640, 480));
            match event_loop.create_window(attributes) {
                Ok(w) => {
                    self.size = w.inner_size();
                    self.window = Some(w);
                }
                Err(e) => self.error = Some(e.into()),
            }
        }
    }

    fn window_event(&mut self, _: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::Resized(size) => {
                self.size = size;
                self.resized = true;
            }
            WindowEvent::CloseRequested => self.closed = true,
            _ => {}
        }
    }
}

/// A 640x480 window and its event loop (one per process, on the main thread).
pub struct PumpedWindow {
    app: App,
    event_loop: EventLoop<()>,
}

impl PumpedWindow {
    /// Opens the window on `system` (waits at most 5 s for it).
    pub fn open(system: System) -> Result<Self> {
        let mut builder = EventLoop::builder();
        match system {
            System::Any => {}
            System::X11 => {
                winit::platform::x11::EventLoopBuilderExtX11::with_x11(&mut builder);
            }
            System::Wayland => {
                winit::platform::wayland::EventLoopBuilderExtWayland::with_wayland(&mut builder);
            }
        }
        let mut me = Self {
            app: App::default(),
            event_loop: builder.build()?,
        };
        let start = Instant::now();
        while me.app.window.is_none() {
            me.pump();
            if let Some(e) = me.app.error.take() {
                return Err(e);
            }
            if start.elapsed() > Duration::from_secs(5) {
                bail!("no window after 5 s");
            }
        }
        Ok(me)
    }

    fn window(&self) -> Result<&Window> {
        self.app.window.as_ref().context("no window")
    }

    /// The window's handles, for its surface.
    pub fn handles(&self) -> Result<WindowHandles> {
        let w = self.window()?;
        Ok(Some((
            w.display_handle()?.as_raw(),
            w.window_handle()?.as_raw(),
        )))
    }

    /// `"x11"` or `"wayland"`.
    pub fn system(&self) -> Result<&'static str> {
        Ok(match self.window()?.display_handle()?.as_raw() {
            raw_window_handle::RawDisplayHandle::Wayland(_) => "wayland",
            _ => "x11",
        })
    }

    /// Handles the events that arrived; returns whether the window was resized since the last
    /// call, and whether it was asked to close.
    pub fn pump(&mut self) -> (bool, bool) {
        let _ = self
            .event_loop
            .pump_app_events(Some(Duration::ZERO), &mut self.app);
        (std::mem::take(&mut self.app.resized), self.app.closed)
    }

    /// The window's size.
    pub fn size(&self) -> vk::Extent2D {
        vk::Extent2D {
            width: self.app.size.width,
            height: self.app.size.height,
        }
    }

    /// Asks the window system for a new size (it may say no).
    pub fn request_size(&self, size: vk::Extent2D) {
        if let Some(w) = self.app.window.as_ref() {
            let _ = w.request_inner_size(PhysicalSize::new(size.width, size.height));
        }
    }
}
