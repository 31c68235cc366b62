//! Creating and destroying the application's swapchains through the pacer: the create info is
//! copied with only the flags the chosen display path needs added, and a destruction is
//! deferred until the swapchain is provably idle (the machine's `destroy` rules), or done
//! after a bounded wait before the call returns.

use std::marker::PhantomData;

use ash::prelude::VkResult;
use ash::vk;

use super::{Made, PresentPacer};
use crate::vk::display::{self, DisplayFns, DisplayRequest, Paths, TimingShell, TIMING_SLOTS};
use crate::vk::error::Result;
use vkpace_core::{BoundedWait, DestroyOutcome};
use vkpace_registry::swapchain_create;

impl PresentPacer {
    /// `vkCreateSwapchainKHR`, through the pacer: the swapchain is paced from its first
    /// present. The create flags the display path chosen for the surface needs are added:
    /// `PRESENT_ID_2` and `PRESENT_WAIT_2` for present_wait2 feedback, `PRESENT_TIMING` and
    /// `PRESENT_ID_2` for present timing; nothing else of `info` changes, and its extension
    /// chain is passed as it is. An `old_swapchain` made through the pacer joins
    /// the new one's lineage: the same gate, pacing and telemetry.
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
        if matches!(
            info.present_mode,
            vk::PresentModeKHR::SHARED_DEMAND_REFRESH
                | vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH
        ) {
            // A shared image is acquired once and presented again and again: no later acquire
            // of the image separates two presents, so the repair's proof (docs/design.md) does
            // not hold. Such a swapchain passes through unpaced.
            log::info!("vkpace: a swapchain in a shared present mode passes through unpaced");
            // SAFETY: the caller's contract, unchanged.
            return unsafe { self.swapchain_fn.create_swapchain(info, allocator) };
        }
        // SAFETY: the caller's contract; the flags the device enabled are the config's.
        let Paths { display, timing } = unsafe { self.paths_for(info.surface) };
        let mut ours = *info;
        ours.flags |= path_flags(display.as_ref(), timing.is_some());
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
        let old = Some(info.old_swapchain).filter(|o| *o != vk::SwapchainKHR::null());
        let fifo = matches!(
            info.present_mode,
            vk::PresentModeKHR::FIFO | vk::PresentModeKHR::FIFO_RELAXED
        );
        if let Err(e) = self.machine.swapchain_created(handle, images, old, fifo) {
            log::error!("vkpace: swapchain {handle:?} not paced: {e}");
        }
        self.machine.set_present_ids(handle, display.is_some());
        let timing = timing.and_then(|t| self.timing_created(t, handle, fifo));
        self.swapchains.push(Made {
            handle,
            display,
            timing,
            allocator: allocator.map(keep),
        });
        Ok(handle)
    }

    /// Sets up present timing for a swapchain just made with its flags: its results queue, time
    /// domain and refresh, told to the machine. None (logged) where that failed: the swapchain
    /// is then paced by the CPU limiter.
    fn timing_created(
        &mut self,
        mut timing: TimingShell,
        handle: vk::SwapchainKHR,
        fifo: bool,
    ) -> Option<TimingShell> {
        // SAFETY: `handle` was just made by this device with the PRESENT_TIMING flag.
        let refresh =
            unsafe { timing.swapchain_created(self.device.handle(), handle, &self.clock) };
        let set = refresh.and_then(|r| {
            self.machine
                .set_present_timing(handle, TIMING_SLOTS, r, fifo)
                .map_err(Into::into)
        });
        match set {
            Ok(()) => Some(timing),
            Err(e) => {
                log::warn!("vkpace: present timing not set up for swapchain {handle:?}, the CPU limiter paces it: {e}");
                None
            }
        }
    }

    /// `vkDestroySwapchainKHR`, through the pacer: deferred until the swapchain is provably
    /// idle (its present fences signalled, or a present to a newer swapchain of its lineage
    /// proven processed). One with no newer swapchain alive (a window closed, shutdown) is
    /// destroyed before this returns, after a bounded wait, so the surface may be destroyed
    /// next (VUID-vkDestroySurfaceKHR-surface-01266); if that wait runs out (logged), the
    /// swapchain stays alive until its presents are proven done, at the latest in
    /// [`Self::destroy`]. Never a device or queue idle wait.
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
        if swapchain == vk::SwapchainKHR::null() {
            return;
        }
        if let Some(m) = self.swapchains.iter_mut().find(|m| m.handle == swapchain) {
            m.allocator = allocator.map(keep);
        }
        match self.machine.destroy_requested(swapchain) {
            Ok(DestroyOutcome::Unpaced) => {
                self.swapchains.retain(|m| m.handle != swapchain);
                // SAFETY: not one of the pacer's: the caller's contract, as given.
                unsafe { self.swapchain_fn.destroy_swapchain(swapchain, allocator) };
            }
            Ok(DestroyOutcome::Deferred) => {}
            Ok(DestroyOutcome::Now) => {
                if let Err(e) = self.bounded_waits() {
                    log::error!("vkpace: waiting to destroy swapchain {swapchain:?}: {e}");
                }
            }
            Err(e) => log::error!("vkpace: destroying swapchain {swapchain:?}: {e}"),
        }
        self.drain_actions();
    }

    /// Destroys a swapchain the machine found idle.
    pub(super) fn destroy_now(&mut self, swapchain: vk::SwapchainKHR) {
        let at = self.swapchains.iter().position(|m| m.handle == swapchain);
        let allocator = at.and_then(|i| self.swapchains.swap_remove(i).allocator);
        // SAFETY: the application asked for its destruction, and every present to it is
        // proven processed (VUID-vkDestroySwapchainKHR-swapchain-01282); the callbacks are
        // the application's for it.
        unsafe {
            self.swapchain_fn
                .destroy_swapchain(swapchain, allocator.as_ref())
        };
    }

    /// Carries out the machine's bounded waits until it has none; a wait that runs out leaves
    /// what it was for alive (destroyed later, or at teardown) and is logged once.
    pub(super) fn bounded_waits(&mut self) -> Result<bool> {
        let mut deadline = self.now().saturating_add(self.timeout_ns());
        while let Some(wait) = self.machine.bounded_wait() {
            let left = deadline.saturating_sub(self.now());
            let done = match wait {
                BoundedWait::PresentFence(id) => {
                    let signalled = self.fences.present_signalled(&self.device, id, left)?;
                    if signalled {
                        self.machine.present_fence_signaled(id);
                    }
                    signalled
                }
                BoundedWait::SubmitProof => {
                    self.submit_tracked(&[], None)?;
                    true
                }
                BoundedWait::Serial(s) => {
                    let reached = self.fences.wait_serial(&self.device, s, left)?;
                    if reached {
                        self.machine.serial_completed(s, self.now())?;
                    }
                    reached
                }
            };
            if !done {
                if self.machine.bounded_wait_timed_out(wait) {
                    // A present fence gave up for the proof submission, which gets a bound of
                    // its own (as door 1's fallback).
                    deadline = self.now().saturating_add(self.timeout_ns());
                    continue;
                }
                if !std::mem::replace(&mut self.logged.destroy_timeout, true) {
                    log::warn!(
                        "vkpace: a swapchain's presents were not proven done within {:?}; it stays alive until they are (or until the pacer is destroyed)",
                        self.config.wait_timeout
                    );
                }
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The display paths for a swapchain of `surface`; none (logged) where choosing failed.
    ///
    /// # Safety
    ///
    /// As [`Self::display_for`].
    unsafe fn paths_for(&mut self, surface: vk::SurfaceKHR) -> Paths {
        // SAFETY: the caller's contract.
        match unsafe { self.display_for(surface) } {
            Ok(p) => p,
            Err(e) => {
                log::warn!("vkpace: display feedback not available for a swapchain: {e}");
                Paths {
                    display: None,
                    timing: None,
                }
            }
        }
    }

    /// The display paths (feedback, present timing) for swapchains of `surface`, as door 1
    /// chooses them.
    ///
    /// # Safety
    ///
    /// `surface` is valid; the config's flags say what the device enabled.
    unsafe fn display_for(&mut self, surface: vk::SurfaceKHR) -> Result<Paths> {
        let c = &self.config;
        if !(c.present_wait || c.present_wait2 || c.present_timing) {
            return Ok(Paths {
                display: None,
                timing: None,
            });
        }
        let request = DisplayRequest {
            entry: &self.entry,
            instance: &self.instance,
            physical_device: self.physical_device,
            device: &self.device,
            surface,
            present_wait: c.present_wait,
            present_wait2: c.present_wait2,
            present_timing: c.present_timing,
        };
        // SAFETY: the caller's contract.
        unsafe { display::choose(&request) }
    }
}

/// The create flags the display paths need.
fn path_flags(display: Option<&DisplayFns>, timing: bool) -> vk::SwapchainCreateFlagsKHR {
    let mut flags = vk::SwapchainCreateFlagsKHR::empty();
    if matches!(display, Some(DisplayFns::Wait2(_))) {
        // Ids given through VkPresentId2KHR and waited on with vkWaitForPresent2KHR need these
        // (VUID-VkPresentId2KHR-None-10820, VUID-vkWaitForPresent2KHR-None-10815).
        flags |= swapchain_create::PRESENT_ID_2_KHR | swapchain_create::PRESENT_WAIT_2_KHR;
    }
    if timing {
        // The present timing commands need PRESENT_TIMING
        // (VUID-vkSetSwapchainPresentTimingQueueSizeEXT-swapchain-12229); results name presents
        // by VkPresentId2KHR ids, which need PRESENT_ID_2 (VUID-VkPresentId2KHR-None-10820). The
        // surface supports both (checked when the path was chosen).
        flags |= swapchain_create::PRESENT_TIMING_EXT | swapchain_create::PRESENT_ID_2_KHR;
    }
    flags
}

/// The application's callbacks, kept for a later destroy: the same pointers, which the
/// caller keeps valid until then (the safety contract of the destroy).
fn keep(a: &vk::AllocationCallbacks<'_>) -> vk::AllocationCallbacks<'static> {
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
