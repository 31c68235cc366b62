//! The sim's shell in the world's load mode (the pacing model): time moves from event to
//! event instead of tick by tick, sleeps wake late as a busy CPU's do, and an acquire waits
//! for a free image as a driver that blocks in `vkAcquireNextImageKHR` does.

use crate::driver::{SimError, SimSwapchain};
use crate::rng::Rng;
use crate::world::{Gen, World};

/// Each wake-up from a sleep is late by a uniform `0..max_ns` drawn from its own stream.
#[derive(Debug, Clone)]
pub struct WakeLateness {
    pub rng: Rng,
    pub max_ns: f64,
}

impl SimSwapchain {
    /// Virtual time moves on to `t`: in load mode the GPU and the engine run up to it.
    pub fn move_to(&mut self, t: u64) -> Result<(), SimError> {
        if self.world.load.is_some() {
            self.world.run_to(t.max(self.now))?;
        }
        self.advance(t);
        Ok(())
    }

    /// `Request::SleepUntil(t)`: the thread wakes at `t`, late by the lateness drawn for it.
    pub(crate) fn sleep_until(&mut self, t: u64) -> Result<(), SimError> {
        let late = match self.wake.as_mut() {
            Some(w) if w.max_ns > 0.0 => (w.rng.unit() * w.max_ns).round() as u64,
            _ => 0,
        };
        self.move_to(t.saturating_add(late))
    }

    /// Load mode: before an acquire, wait up to `timeout_ns` for an image of `swapchain` to be
    /// free (the random world hands images out early instead).
    pub(crate) fn wait_for_free_image(
        &mut self,
        swapchain: Gen,
        timeout_ns: u64,
    ) -> Result<(), SimError> {
        if self.world.load.is_none() {
            return Ok(());
        }
        let until = self.now.saturating_add(timeout_ns);
        self.run_until(until, |w| Ok(w.free_image(swapchain).is_some()))?;
        Ok(())
    }

    /// Load mode's `run_until`: from event to event until `done` holds or time reaches
    /// `until` (`false`: timed out).
    pub(crate) fn run_events_until(
        &mut self,
        until: u64,
        mut done: impl FnMut(&mut World) -> Result<bool, String>,
    ) -> Result<bool, SimError> {
        loop {
            self.move_to(self.now)?;
            if done(&mut self.world)? {
                return Ok(true);
            }
            if self.now >= until {
                return Ok(false);
            }
            let next = self.world.next_event(self.now).unwrap_or(until);
            self.move_to(next.min(until))?;
        }
    }
}
