//! Creating and destroying the application's swapchains through the pacer: the create info is
//! copied with only the flags the chosen display path needs added, and a destruction is
//! deferred until the swapchain is provably idle (the machine's `destroy` rules), or done
//! after a bounded wait before the call returns. Both run as steps of a [`super::PacerCall`]
//! (the driver's calls made with a shared pacer's lock released); the pacer learns of a new
//! swapchain before the application can use its handle.

use std::marker::PhantomData;

use ash::prelude::VkResult;
use ash::vk;

use super::{Driver, Made, PresentPacer};
use crate::vk::display::{self, DisplayFns, DisplayRequest, Paths, TimingShell, TIMING_SLOTS};
use crate::vk::error::Result;
use vkpace_core::{DestroyOutcome, DisplayFeedback, DisplayPaths, PresentMode};

/// A destruction the machine asked for, carried out without the lock.
pub(super) enum Doomed {
    Semaphore(vk::Semaphore),
    Swapchain(vk::SwapchainKHR, Option<vk::AllocationCallbacks<'static>>),
}

/// A swapchain the driver made, for the pacer to record.
pub(super) struct Created {
    pub(super) handle: vk::SwapchainKHR,
    images: u32,
    display: Option<DisplayFns>,
    /// Present timing set up for it, and the display's timing it read (or why not).
    timing: Option<(TimingShell, Result<vkpace_core::DisplayRefresh>)>,
}

impl PresentPacer {
    /// `vkCreateSwapchainKHR`, through the pacer: the swapchain is paced from its first
    /// present. The create flags the display path chosen for the surface needs are added:
    /// `PRESENT_ID_2` and `PRESENT_WAIT_2` for present_wait2 feedback, `PRESENT_TIMING` and
    /// `PRESENT_ID_2` for present timing; nothing else of `info` changes, and its extension
    /// chain is passed as it is. An `old_swapchain` made through the pacer joins
    /// the new one's lineage: the same gate, pacing and telemetry. A swapchain in a shared
    /// present mode passes through unpaced: a shared image is acquired once and presented again
    /// and again, so no later acquire separates two presents and the repair's proof
    /// (docs/design.md) does not hold. [`Self::create_call`] is the same in steps.
    ///
    /// # Safety
    ///
    /// As `vkCreateSwapchainKHR`: `info` valid for the pacer's device, its surface supported by
    /// the pacer's queue family, `allocator` valid until the swapchain is destroyed (by the
    /// pacer, at the latest in [`Self::destroy`]).
    pub unsafe fn create_swapchain(
        &mut self,
        info: &vk::SwapchainCreateInfoKHR<'_>,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> VkResult<vk::SwapchainKHR> {
        // SAFETY: the caller's contract.
        let call = unsafe { Self::create_call(info, allocator) };
        let made = self.run(call).finish();
        made.unwrap_or(Err(vk::Result::ERROR_UNKNOWN))
    }

    /// Whether a swapchain of `info` is made (and paced) by the pacer; not in a shared present
    /// mode (the driver's creation as the application asked it).
    pub(super) fn paced_creation(&self, info: &vk::SwapchainCreateInfoKHR<'_>) -> bool {
        let shared = matches!(
            info.present_mode,
            vk::PresentModeKHR::SHARED_DEMAND_REFRESH
                | vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH
        );
        if shared {
            log::info!("vkpace: a swapchain in a shared present mode passes through unpaced");
        }
        !shared
    }

    /// Records the swapchain the driver made for `info` (`in_call`: made with the pacer
    /// borrowed, counted): the machine paces it, present timing's slots and refresh told to it
    /// (a swapchain whose timing failed is paced by the CPU limiter, logged).
    pub(super) fn created(
        &mut self,
        info: &vk::SwapchainCreateInfoKHR<'_>,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
        got: VkResult<Created>,
        in_call: bool,
    ) -> VkResult<vk::SwapchainKHR> {
        let c = got?;
        let handle = c.handle;
        let old = Some(info.old_swapchain).filter(|o| *o != vk::SwapchainKHR::null());
        let mode = PresentMode(info.present_mode.as_raw());
        self.calls_down.count(in_call);
        if let Err(e) = self.machine.swapchain_created(handle, c.images, old, mode) {
            log::error!("vkpace: swapchain {handle:?} not paced: {e}");
        }
        // The display feedback's ids; present timing's (`VkPresentId2KHR`) once its setup
        // below succeeds (the machine switches them). Where it fails, the feedback's stay:
        // the feedback waits for them.
        let feedback = DisplayPaths {
            feedback: c
                .display
                .as_ref()
                .map_or(DisplayFeedback::None, DisplayFns::feedback),
            timing: None,
        };
        self.machine
            .set_present_ids(handle, feedback.id_structure());
        let timing = c.timing.and_then(|(t, refresh)| {
            let set = refresh.and_then(|r| {
                self.machine
                    .set_present_timing(handle, TIMING_SLOTS, r)
                    .map_err(Into::into)
            });
            match set {
                Ok(()) => Some(t),
                Err(e) => {
                    log::warn!("vkpace: present timing not set up for swapchain {handle:?}, the CPU limiter paces it: {e}");
                    None
                }
            }
        });
        self.swapchains.push(Made {
            handle,
            display: c.display,
            timing,
            allocator: allocator.map(keep),
        });
        Ok(handle)
    }

    /// `vkDestroySwapchainKHR`, through the pacer: deferred until the swapchain is provably
    /// idle (its present fences signalled, or a present to a newer swapchain of its lineage
    /// proven processed). One with no newer swapchain alive (a window closed, shutdown) is
    /// destroyed before this returns, after a bounded wait, so the surface may be destroyed
    /// next (VUID-vkDestroySurfaceKHR-surface-01266); if that wait runs out (logged), the
    /// swapchain stays alive until its presents are proven done, at the latest in
    /// [`Self::destroy`]. Never a device or queue idle wait. [`Self::destroy_call`] is the same
    /// in steps.
    ///
    /// # Safety
    ///
    /// As `vkDestroySwapchainKHR`, except that the swapchain's presents may still be pending
    /// (the pacer waits for them): its acquired images are no longer used by the application,
    /// and `allocator` stays valid until the pacer destroys the swapchain (at the latest in
    /// [`Self::destroy`]; VUID-vkDestroySwapchainKHR-swapchain-01283).
    pub unsafe fn destroy_swapchain(
        &mut self,
        swapchain: vk::SwapchainKHR,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) {
        // SAFETY: the caller's contract.
        let call = unsafe { Self::destroy_call(swapchain, allocator) };
        let _ = self.run(call).finish();
    }

    /// The machine's answer to a destruction (logged where it refused).
    pub(super) fn destroy_asked(
        &mut self,
        swapchain: vk::SwapchainKHR,
        allocator: Option<vk::AllocationCallbacks<'static>>,
    ) -> Option<DestroyOutcome> {
        if let Some(m) = self.swapchains.iter_mut().find(|m| m.handle == swapchain) {
            m.allocator = allocator;
        }
        match self.machine.destroy_requested(swapchain) {
            Ok(DestroyOutcome::Unpaced) => {
                self.swapchains.retain(|m| m.handle != swapchain);
                Some(DestroyOutcome::Unpaced)
            }
            Ok(outcome) => Some(outcome),
            Err(e) => {
                log::error!("vkpace: destroying swapchain {swapchain:?}: {e}");
                None
            }
        }
    }

    /// The machine's actions, handed out in order (forgotten by the pacer) for the caller to
    /// carry out without the lock.
    pub(super) fn doomed(&mut self) -> Vec<Doomed> {
        let mut doomed = Vec::new();
        while let Some(action) = self.machine.poll_action() {
            doomed.push(match action {
                vkpace_core::DestroyAction::DestroySemaphore(s) => Doomed::Semaphore(s),
                vkpace_core::DestroyAction::DestroySwapchain(w) => {
                    let at = self.swapchains.iter().position(|m| m.handle == w);
                    let allocator = at.and_then(|i| self.swapchains.swap_remove(i).allocator);
                    Doomed::Swapchain(w, allocator)
                }
            });
        }
        doomed
    }
}

impl Driver {
    /// Carries out the machine's destructions, the pacer done with each, in its order (a
    /// swapchain before the repair semaphores it held: a layer that implements the swapchain
    /// may still be done with them only when it is destroyed); whether a swapchain was among
    /// them.
    ///
    /// # Safety
    ///
    /// `doomed` was handed out by this driver's pacer ([`PresentPacer::doomed`]), or is a
    /// swapchain the application destroys that the pacer does not pace.
    pub(super) unsafe fn destroy(&self, doomed: &[Doomed]) -> bool {
        let mut swapchains = false;
        for d in doomed {
            match d {
                // SAFETY: the machine hands a semaphore out only once nothing will signal or
                // wait on it; the pacer forgot it under the lock.
                Doomed::Semaphore(s) => unsafe { self.device.destroy_semaphore(*s, None) },
                Doomed::Swapchain(w, a) => {
                    swapchains = true;
                    // SAFETY: the application asked for its destruction (or, one the pacer
                    // does not pace, asks now), and the pacer proved every present to it
                    // processed (VUID-vkDestroySwapchainKHR-swapchain-01282); the pacer forgot
                    // it under the lock, so nothing of the pacer's uses it; the callbacks are
                    // the application's for it.
                    unsafe { self.swapchain_fn.destroy_swapchain(*w, a.as_ref()) };
                }
            }
        }
        swapchains
    }

    /// The driver's calls of a creation, made without the pacer: the display paths chosen for
    /// the surface, the swapchain made with their flags, its images counted, present timing
    /// set up.
    ///
    /// # Safety
    ///
    /// As [`PresentPacer::create_swapchain`].
    pub(super) unsafe fn create(
        &self,
        info: &vk::SwapchainCreateInfoKHR<'_>,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> VkResult<Created> {
        let request = DisplayRequest {
            entry: &self.entry,
            instance: &self.instance,
            physical_device: self.physical_device,
            device: &self.device,
            surface: info.surface,
            paths: self.paths,
        };
        // The display paths for the surface, as door 1 chooses them; none (logged) where
        // choosing failed.
        // SAFETY: the caller's contract; the config's flags say what the device enabled.
        let chosen = unsafe { display::choose(&request) }.unwrap_or_else(|e| {
            log::warn!("vkpace: display feedback not available for a swapchain: {e}");
            Paths::default()
        });
        let Paths {
            display, timing, ..
        } = chosen;
        let mut ours = *info;
        let wait2 = matches!(display, Some(DisplayFns::Wait2(..)));
        ours.flags |= display::path_flags(wait2, timing.is_some());
        // SAFETY: the caller's contract is vkCreateSwapchainKHR's; only flags the device
        // enabled and the surface supports were added.
        let handle = unsafe { self.swapchain_fn.create_swapchain(&ours, allocator) }?;
        // SAFETY: just made.
        let images = match unsafe { self.swapchain_fn.get_swapchain_images(handle) } {
            Ok(images) => images.len() as u32,
            Err(e) => {
                // SAFETY: just made, never used.
                unsafe { self.swapchain_fn.destroy_swapchain(handle, allocator) };
                return Err(e);
            }
        };
        let timing = timing.map(|mut t| {
            // SAFETY: `handle` was just made by this device with the PRESENT_TIMING flag.
            let refresh = unsafe { t.swapchain_created(self.device.handle(), handle, &self.clock) };
            (t, refresh)
        });
        Ok(Created {
            handle,
            images,
            display,
            timing,
        })
    }
}

/// The application's callbacks, kept for a later destroy: the same pointers, which the
/// caller keeps valid until then (the safety contract of the destroy).
pub(super) fn keep(a: &vk::AllocationCallbacks<'_>) -> vk::AllocationCallbacks<'static> {
    vk::AllocationCallbacks {
        p_user_data: a.p_user_data,
        pfn_allocation: a.pfn_allocation,
        pfn_reallocation: a.pfn_reallocation,
        pfn_free: a.pfn_free,
        pfn_internal_allocation: a.pfn_internal_allocation,
        pfn_internal_free: a.pfn_internal_free,
        _marker: PhantomData,
    }
}
