//! Destroys beside a present: the layer's shared door makes the driver's present with its lock
//! released, so another thread's `vkDestroySwapchainKHR` of another swapchain may reach the
//! machine while a present is between its plan (`before_present`) and its result
//! (`present_returned`). The sim's application is one thread; this shell draws that order for
//! it: the destroy of a swapchain it recreated (it names that swapchain no more, and the
//! spec's host synchronization lets another thread destroy it while this one presents the new
//! one) is held and carried out during its next present, before or after the world's present.
//! The destroy's bounded waits overlap the present without holding it up (the other thread
//! waits with the lock released), so they are carried out once the present returned; the
//! machine's first answer is looked at then (`BoundedWait::PresentInFlight` where the proof
//! submission must wait for the present). Any other call carries held destroys out first, in
//! order.

use crate::driver::SimError;
use crate::pacer_driver::SimPacer;
use crate::rng::Rng;
use crate::world::Gen;

use vkpace_core::{BoundedWait, DestroyOutcome};

/// What the shell holds for the next present.
#[derive(Debug, Default)]
pub struct Beside {
    /// Percent of eligible destroys held.
    percent: u32,
    /// Swapchains the application recreated (named as `oldSwapchain`).
    recreated: Vec<Gen>,
    /// Destroys held for the next present.
    held: Vec<Gen>,
    /// A held destroy's bounded waits met the present in flight: they go on after it.
    waits_after: bool,
    /// Destroys carried out beside a present, and waits that met the present in flight.
    pub destroys: u64,
    pub waits_for_present: u64,
}

impl Beside {
    pub fn new(percent: u32) -> Self {
        Self {
            percent,
            ..Self::default()
        }
    }

    /// A swapchain was made with `old` as its `oldSwapchain`.
    pub fn recreated(&mut self, old: Option<Gen>) {
        self.recreated.extend(old);
    }

    /// Whether the application's destroy of `swapchain` is held for the next present.
    pub fn hold(&mut self, swapchain: Gen, rng: &mut Rng) -> bool {
        let eligible = self.percent > 0 && self.recreated.contains(&swapchain);
        if eligible && rng.chance(self.percent) {
            self.held.push(swapchain);
            return true;
        }
        false
    }

    /// Whether the application's destroy of `swapchain` is held (not made yet, as the door
    /// sees it: the other thread's call has not reached it).
    pub fn is_held(&self, swapchain: Gen) -> bool {
        self.held.contains(&swapchain)
    }

    /// Whether a destroy is held.
    pub fn due(&self) -> bool {
        !self.held.is_empty()
    }
}

impl SimPacer {
    /// Carries out the held destroys as a call of the application's would, before another.
    pub(crate) fn destroys_held(&mut self) -> Result<(), SimError> {
        // Not held again.
        let percent = std::mem::take(&mut self.beside.percent);
        let held = std::mem::take(&mut self.beside.held);
        let done = held
            .into_iter()
            .try_for_each(|g| crate::own_swapchain::SwapchainCalls::destroy_swapchain(self, g));
        self.beside.percent = percent;
        done
    }

    /// Carries out the held destroys while a present is in progress.
    pub(crate) fn destroys_beside(&mut self) -> Result<(), SimError> {
        for g in std::mem::take(&mut self.beside.held) {
            self.beside.destroys += 1;
            self.observe()?;
            match self.machine.destroy_requested(g)? {
                DestroyOutcome::Unpaced => {
                    return Err(SimError::Broken(format!("{g:?} held, not paced")));
                }
                DestroyOutcome::Deferred => {}
                DestroyOutcome::Now => {
                    // The other thread's waits overlap the present without holding it up:
                    // they are carried out once it returned (its result's time is the
                    // present's). What the first one is, is the machine's answer now.
                    if self.machine.bounded_wait() == Some(BoundedWait::PresentInFlight) {
                        self.beside.waits_for_present += 1;
                    }
                    self.beside.waits_after = true;
                }
            }
            self.carry_out()?;
        }
        Ok(())
    }

    /// The present returned: the waits that met it go on.
    pub(crate) fn waits_after_present(&mut self) -> Result<(), SimError> {
        if std::mem::take(&mut self.beside.waits_after) && self.waits()? {
            return Err(SimError::Broken(
                "a present in flight after the present returned".into(),
            ));
        }
        Ok(())
    }
}
