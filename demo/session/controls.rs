//! What changes a running session from outside its frame loop: the keys (present mode,
//! frames in flight, pacing policy, frame limit, GPU load, resize storm, pause), the
//! `--resize-every` schedule and the window system's new sizes. Separate from the frame loop:
//! each only sets what the next frame picks up.

use std::time::Instant;

use anyhow::Result;
use ash::vk;
use vkpace::{FrameLimit, PacingPolicy};

use super::{resize_extent, Session};

impl Session {
    /// Switches to the next present mode the surface offers; returns it.
    pub fn next_present_mode(&mut self) -> Option<vk::PresentModeKHR> {
        let sc = self.swapchain.as_mut()?;
        if self.mode_cycle.is_empty() {
            return None;
        }
        let current = sc.info().present_mode.unwrap_or(vk::PresentModeKHR::FIFO);
        let at = self
            .mode_cycle
            .iter()
            .position(|m| *m == current)
            .unwrap_or(0);
        let next = self.mode_cycle[(at + 1) % self.mode_cycle.len()];
        sc.set(vkpace::Setting::PresentMode(next)).ok()?;
        Some(next)
    }

    /// Changes frames in flight at run time (1..=3).
    pub fn set_frames_in_flight(&mut self, n: usize) -> Result<()> {
        if let Some(sc) = self.swapchain.as_mut() {
            sc.set(vkpace::Setting::FramesInFlight(n))?;
        }
        Ok(())
    }

    /// Switches between the frames-in-flight and low-latency policies; returns the new one.
    pub fn toggle_policy(&mut self) -> Option<PacingPolicy> {
        let sc = self.swapchain.as_mut()?;
        let next = match sc.info().pacing {
            PacingPolicy::FramesInFlight => PacingPolicy::LowLatency,
            // LowLatency, and any policy a later vkpace adds, toggles back to the default.
            _ => PacingPolicy::FramesInFlight,
        };
        sc.set(vkpace::Setting::Pacing(next)).ok()?;
        Some(next)
    }

    /// Turns the frame limit off, or on at `--fps` (60 when not given); returns the limit.
    pub fn toggle_frame_limit(&mut self) -> Result<Option<f64>> {
        let Some(sc) = self.swapchain.as_mut() else {
            return Ok(None);
        };
        if sc.info().frame_limit.is_some() {
            sc.set(vkpace::Setting::FrameLimit(None))?;
            return Ok(None);
        }
        let fps = self.args.fps.unwrap_or(60.0);
        sc.set(vkpace::Setting::FrameLimit(Some(FrameLimit::fps(fps)?)))?;
        Ok(Some(fps))
    }

    /// Adds `delta` units of GPU load (never below zero); returns the new load.
    pub fn adjust_gpu_load(&mut self, delta: f32) -> f32 {
        self.gpu_load = (self.gpu_load + delta).clamp(0.0, 64.0);
        self.gpu_load
    }

    /// Turns the every-frame resize storm on or off; returns whether it is on.
    pub fn toggle_resize_storm(&mut self) -> bool {
        self.resize_storm = !self.resize_storm;
        self.resize_storm
    }

    /// Stops or restarts the pattern's clock (Space): while paused no frame is rendered.
    pub fn set_paused(&mut self, paused: bool) {
        match (paused, self.paused_since) {
            (true, None) => self.paused_since = Some(Instant::now()),
            (false, Some(t)) => {
                self.paused_total += t.elapsed();
                self.paused_since = None;
                // The pause is not a frame interval.
                self.last_frame_start = None;
            }
            _ => {}
        }
    }

    /// Whether Space paused the demo.
    pub fn paused(&self) -> bool {
        self.paused_since.is_some()
    }

    /// Forgets the last frame start, so time spent not rendering (minimized, covered) is not
    /// counted as one long frame interval.
    pub fn break_interval(&mut self) {
        self.last_frame_start = None;
    }

    /// The extent `--resize-every` asks for at frame `i`, if it is a resize frame.
    pub fn resize_target(&self, i: u64) -> Option<vk::Extent2D> {
        let k = if self.resize_storm {
            1
        } else {
            self.args.resize_every
        };
        if k == 0 || i == 0 || !i.is_multiple_of(k) {
            return None;
        }
        Some(resize_extent(i / k))
    }

    /// The window system gave the window a new size (an X11 resize, a Wayland configure): the
    /// swapchain follows it at the next acquire. On Wayland the surface leaves the size to the
    /// application (its current extent is the special value 0xFFFFFFFF), so the size must come
    /// from here; the size of the live swapchain makes no new one. A zero size (minimized) only
    /// asks for a recreation: the surface then says whether it is still zero.
    pub fn window_resized(&mut self, width: u32, height: u32) {
        let Some(sc) = self.swapchain.as_mut() else {
            return;
        };
        if width == 0 || height == 0 {
            sc.request_recreate();
            return;
        }
        let extent = vk::Extent2D { width, height };
        if sc.info().extent != Some(extent) {
            if let Some(log) = self.resize_log.as_mut() {
                log.requested(extent);
            }
            sc.resize(extent);
            // Also when the size was asked for already: on X11 a swapchain recreated before
            // the window manager applied it took the surface's old size.
            sc.request_recreate();
        }
    }
}
