//! Recreation: query the surface, plan, give back an image held from the old swapchain,
//! create with the old one as `oldSwapchain`, and keep the retired backlog bounded.
//!
//! A retired swapchain is destroyed by the presenter once a present to a newer one is proven
//! processed (or its present fences signalled); past the cap of retired swapchains the bounded
//! fallback waits (maintenance1) for their present fences, then for an empty submission made
//! after everything: that its fence proves every earlier present's wait done is the same
//! assumption ANGLE makes of `vkQueueWaitIdle` (presents take no fence before maintenance1), not
//! a spec guarantee, and unlike the idle wait it is bounded.

use super::{Awaiting, Fallback, FrameMachine, Live, Recreation, WaitPurpose};
use crate::completion::SubmitSignal;
use crate::error::{CoreError, Failure};
use crate::surface_plan::{plan, SurfaceInfo};
use crate::vk_values::{PresentMode, VkStatus};

use super::request::{CreateSwapchain, Request};
use crate::handle::Handle;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// Recreates the swapchain when needed, and finishes a pending fallback first.
    pub(super) fn recreate_step(&mut self, now: u64) -> Option<Request<S, W, F>> {
        if let Some(r) = self.fallback_step(now) {
            return Some(r);
        }
        if !self.needs_recreate {
            return None;
        }
        let Some(info) = self.recreation.surface.as_ref() else {
            self.awaiting = Some(Awaiting::Surface);
            return Some(Request::QuerySurface);
        };
        if self.recreation.plan.is_none() {
            let keep = self.live.as_ref().map(|l| l.plan.format);
            match plan(info, &self.config.surface, keep) {
                Ok(Some(p)) => self.recreation.plan = Some(p),
                Ok(None) => {
                    // Minimized: nothing is created; ask the surface again next time.
                    self.recreation = Recreation::default();
                    return Some(Request::ZeroExtent);
                }
                Err(f) => {
                    self.recreation = Recreation::default();
                    return Some(Request::Failed(f));
                }
            }
        }
        if let Some(r) = self.give_back_held_image() {
            return Some(r);
        }
        let plan = self.recreation.plan.clone()?;
        if self.config.maintenance1 && !self.recreation.compatible_asked {
            self.awaiting = Some(Awaiting::CompatibleModes);
            return Some(Request::QueryCompatibleModes(plan.present_mode));
        }
        let old = self
            .live
            .as_ref()
            .filter(|_| !self.live_retired)
            .map(|l| l.handle);
        if let Some(r) = self.drain_step(old) {
            return Some(r);
        }
        if let Some(d) = self.display.as_mut() {
            // From here the old swapchain is retired, even if creation fails: its presents are
            // not asked about any more (VUID-vkWaitForPresentKHR-swapchain-04997).
            d.retired();
        }
        self.pacing.display_restarted();
        self.present_timing_swapchain_changed();
        self.awaiting = Some(Awaiting::Swapchain);
        Some(Request::CreateSwapchain(Box::new(CreateSwapchain {
            plan,
            old,
        })))
    }

    /// An image acquired and never submitted is given up before its swapchain is retired: its
    /// acquire semaphore's pending signal is consumed by an empty submission waiting on it (a
    /// binary semaphore's signal must be waited on before it is signalled again,
    /// `VUID-vkAcquireNextImageKHR-semaphore-01286`). The image itself goes with the retired
    /// swapchain: destroying a swapchain with an image acquired and never used is valid (no
    /// use of it is pending, `VUID-vkDestroySwapchainKHR-swapchain-01282`). vkpace does not
    /// call `vkReleaseSwapchainImagesEXT` here: it would only hand the image back to a
    /// swapchain that is being retired, and Mesa 25's headless surface implements it with a
    /// null function (a crash in the driver, seen on lavapipe).
    pub(super) fn give_back_held_image(&mut self) -> Option<Request<S, W, F>> {
        let held = self.presenter.frame().filter(|f| f.submitted.is_none())?;
        if cfg!(vkpace_mutation = "skip_consume") {
            // Deliberately wrong (`scripts/mutation-check`): the signal is left pending.
            let _ = self.presenter.release_held();
            return None;
        }
        let signal = match self.next_signal() {
            Ok(signal) => signal,
            Err(create) => return Some(create),
        };
        self.awaiting = Some(Awaiting::Consume(signal));
        Some(Request::SubmitWait {
            semaphore: held.acquire,
            signal,
        })
    }

    /// The answer to [`Request::SubmitWait`] or [`Request::SubmitEmpty`]: whether
    /// `vkQueueSubmit` succeeded (on failure nothing was submitted).
    pub fn handle_submitted(&mut self, result: Result<(), VkStatus>) -> Result<(), CoreError> {
        let asked = self.answer("a submission nobody asked for", |a| match a {
            Awaiting::Consume(_) | Awaiting::Proof(_) => Some(a),
            _ => None,
        })?;
        if let Err(s) = result {
            self.failure = Some(Failure::from_status("vkQueueSubmit", s));
            return Ok(());
        }
        let serial = self.take_serial();
        match asked {
            Awaiting::Consume(signal) => {
                self.track_submission(serial, signal);
                let semaphore = self
                    .presenter
                    .release_held()
                    .ok_or(CoreError::OutOfOrder("no held image to consume"))?;
                self.presenter.consume_submitted(semaphore, serial)?;
                // Given up, but still acquired: the drain counts it as taken.
                self.recreation.images_held += 1;
                self.drain_actions();
            }
            Awaiting::Proof(signal) => {
                self.track_submission(serial, signal);
                self.presenter.empty_submitted(serial)?;
                if let Some(fb) = self.fallback.as_mut() {
                    fb.proof = Some(serial);
                } else {
                    self.teardown.proof = Some(serial);
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// The answer to [`Request::QuerySurface`].
    pub fn handle_surface(&mut self, info: SurfaceInfo) -> Result<(), CoreError> {
        self.answer("a surface nobody asked about", |a| {
            (a == Awaiting::Surface).then_some(())
        })?;
        self.recreation.surface = Some(info);
        self.recreation.plan = None;
        Ok(())
    }

    /// The answer to [`Request::QueryCompatibleModes`]. Empty where the driver reports none
    /// (lavapipe's headless surface): then no per-present switching, and every switch recreates.
    pub fn handle_compatible_modes(&mut self, modes: Vec<PresentMode>) -> Result<(), CoreError> {
        self.answer("present modes nobody asked about", |a| {
            (a == Awaiting::CompatibleModes).then_some(())
        })?;
        let offered = self
            .recreation
            .surface
            .as_ref()
            .map(|s| s.present_modes.clone());
        if let Some(plan) = self.recreation.plan.as_mut() {
            let mut modes = modes;
            modes.retain(|m| offered.as_ref().is_some_and(|o| o.contains(m)));
            if !modes.is_empty() && !modes.contains(&plan.present_mode) {
                modes.push(plan.present_mode);
            }
            plan.compatible_modes = modes;
        }
        self.recreation.compatible_asked = true;
        Ok(())
    }

    /// The answer to [`Request::CreateSwapchain`]: the new handle and its image count, or the
    /// error code (the old swapchain is retired all the same, as the spec says).
    pub fn handle_swapchain_created(
        &mut self,
        result: Result<(W, u32), VkStatus>,
    ) -> Result<(), CoreError> {
        self.answer("a swapchain nobody asked for", |a| {
            (a == Awaiting::Swapchain).then_some(())
        })?;
        let plan = std::mem::take(&mut self.recreation).plan;
        let (handle, image_count) = match result {
            Ok(created) => created,
            Err(s) => {
                self.live_retired = self.live.is_some();
                self.failure = Some(Failure::from_status("vkCreateSwapchainKHR", s));
                return Ok(());
            }
        };
        let plan = plan.ok_or(CoreError::OutOfOrder("a swapchain without a plan"))?;
        if self
            .presenter
            .swapchain_created(handle, image_count)?
            .is_some()
        {
            return Err(CoreError::OutOfOrder("a held image survived recreation"));
        }
        if self
            .live
            .as_ref()
            .is_some_and(|l| l.plan.present_mode != plan.present_mode)
        {
            self.stats.present_mode_switches += 1;
        }
        self.stats.swapchains_created += 1;
        self.stats.image_count = image_count;
        self.pacing
            .set_display_queues(plan.present_mode.queues_frames());
        self.live = Some(Live {
            handle,
            plan,
            generation: self.stats.swapchains_created,
        });
        self.live_retired = false;
        self.needs_recreate = false;
        self.next_mode = None;
        self.drain_actions();
        Ok(())
    }

    /// Past the cap of retired swapchains, the bounded fallback: (maintenance1) their present
    /// fences, then an empty submission's fence, each wait bounded by the timeout.
    fn fallback_step(&mut self, now: u64) -> Option<Request<S, W, F>> {
        if self.presenter.retired_over_cap().is_none() {
            self.fallback = None;
            return None;
        }
        let fresh = Fallback {
            deadline: now.saturating_add(self.timeout()),
            fences_given_up: !self.config.maintenance1,
            proof: None,
        };
        let fb = *self.fallback.get_or_insert(fresh);
        if !fb.fences_given_up {
            let fences = &self.fences;
            let pending = self
                .presenter
                .retired_present_fences()
                .find_map(|id| fences.present_fence_by_id(id));
            if let Some(f) = pending {
                return Some(self.wait(
                    SubmitSignal::Fence(f),
                    WaitPurpose::RetiredPresentFences,
                    Some(fb.deadline),
                    now,
                ));
            }
        }
        self.fallback_proof(fb, now)
    }

    /// The empty submission made after everything, and the bounded wait for its fence.
    fn fallback_proof(&mut self, fb: Fallback, now: u64) -> Option<Request<S, W, F>> {
        match fb.proof {
            None => {
                let deadline = now.saturating_add(self.timeout());
                if let Some(f) = self.fallback.as_mut() {
                    // The proof gets a bound of its own.
                    f.deadline = deadline;
                }
                Some(self.submit_empty())
            }
            Some(serial) if serial > self.presenter.completed() => {
                let signal = self.fences.signal_for(serial)?;
                Some(self.wait(signal, WaitPurpose::Proof, Some(fb.deadline), now))
            }
            Some(serial) => {
                if let Err(e) = self.presenter.fallback_waited(serial) {
                    return Some(Request::Failed(e.into()));
                }
                self.drain_actions();
                self.fallback = None;
                None
            }
        }
    }

    /// An empty submission made after everything, signalling what the backend tracks.
    pub(super) fn submit_empty(&mut self) -> Request<S, W, F> {
        match self.next_signal() {
            Ok(signal) => {
                self.awaiting = Some(Awaiting::Proof(signal));
                Request::SubmitEmpty { signal }
            }
            Err(create) => create,
        }
    }
}
