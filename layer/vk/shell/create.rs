//! Making a shell: the Vulkan objects and entry points one swapchain object needs, from the
//! user's description (maintenance1, display feedback, present timing, HDR metadata, debug names,
//! the GPU timer and the completion timeline).

use super::*;
use crate::vk::config::SwapchainCreateDesc;
use vkpace_core::CompletionBackend;

impl Shell {
    /// # Safety
    /// As [`Swapchain::new`].
    pub(crate) unsafe fn new(
        desc: &SwapchainCreateDesc<'_>,
        surface_fn: ash::khr::surface::Instance,
    ) -> Result<Self> {
        let (instance, device, config) = (desc.instance, desc.device, &desc.config);
        let m1 = config
            .paths
            .swapchain_maintenance1
            .map(|names| Maintenance1Fns::load(desc.entry, instance, names));
        // SAFETY: caller contract (handles valid; each display option only where enabled).
        let crate::vk::display::Paths {
            display,
            timing,
            ids,
        } = unsafe { crate::vk::display::choose(&crate::vk::display::DisplayRequest::of(desc)) }?;
        let hdr = match &config.hdr_metadata {
            Some(metadata) => Some(HdrMetadata::load(instance, device, metadata)?),
            None => None,
        };
        let namer = Namer::new(instance, device, config.debug_utils);
        // SAFETY: caller contract.
        let (timer, timeline) = unsafe { Self::timer_and_timeline(desc, &namer) }?;
        Ok(Shell {
            timeline,
            device: device.clone(),
            swapchain_fn: ash::khr::swapchain::Device::new(instance, device),
            surface_fn,
            physical: desc.physical_device,
            surface: desc.surface,
            queue: desc.queue,
            m1,
            display,
            timer,
            namer,
            clock: Clock::new(),
            images: ImageTable::default(),
            deferred_memory: config.deferred_memory_allocation,
            created: 0,
            timelines: Vec::new(),
            retired_timelines: Vec::new(),
            sync2: config.synchronization2,
            batch_scratch: crate::vk::batch::Scratch::default(),
            wait_timeout: config.pacing.wait_timeout,
            hdr,
            timing,
            ids,
            new_display_timing: None,
        })
    }

    /// The GPU timer (`config.gpu_timestamps`) and the timeline semaphore
    /// (`config.completion`), each where asked for; if the second cannot be made, the first is
    /// destroyed again.
    ///
    /// # Safety
    /// As [`Swapchain::new`].
    unsafe fn timer_and_timeline(
        desc: &SwapchainCreateDesc<'_>,
        namer: &Namer,
    ) -> Result<(Option<GpuTimer>, Option<vk::Semaphore>)> {
        let (device, config) = (desc.device, &desc.config);
        let timer = if config.gpu_timestamps {
            // SAFETY: the device enabled the extension (caller contract); the timer is
            // destroyed at teardown once nothing is pending.
            Some(unsafe {
                GpuTimer::new(
                    desc.instance,
                    desc.physical_device,
                    device,
                    desc.queue_family,
                    namer,
                )
            }?)
        } else {
            None
        };
        if config.completion != CompletionBackend::TimelineSemaphore {
            return Ok((timer, None));
        }
        // SAFETY: the device enabled `timelineSemaphore` (caller contract).
        match unsafe { own_timeline(device, namer) } {
            Ok(t) => Ok((timer, Some(t))),
            Err(e) => {
                if let Some(mut t) = timer {
                    // SAFETY: just made, never used.
                    unsafe { t.destroy(device) };
                }
                Err(e)
            }
        }
    }
}

impl Shell {
    /// Destroys the GPU timer and the completion timeline, if made (teardown's last step).
    ///
    /// # Safety
    ///
    /// Every submission of vkpace's has completed.
    pub(crate) unsafe fn destroy_timer_and_timeline(&mut self) {
        if let Some(mut timer) = self.timer.take() {
            // SAFETY: nothing that uses it is pending (caller contract).
            unsafe { timer.destroy(&self.device) };
        }
        if let Some(timeline) = self.timeline.take() {
            // SAFETY: every submission of vkpace's that signals or waits on it completed
            // (caller contract, VUID-vkDestroySemaphore-semaphore-05149): GPU waits on the
            // swapchain's tokens made through `Batch::waits` are vkpace's submissions; waits
            // the renderer made itself on other queues are its to have finished
            // (`Frame::timeline_signal` says so).
            unsafe { self.device.destroy_semaphore(timeline, None) };
        }
    }
}

/// The swapchain's own timeline semaphore (timeline backend), at value 0.
///
/// # Safety
///
/// The device enabled the `timelineSemaphore` feature.
unsafe fn own_timeline(device: &ash::Device, namer: &Namer) -> Result<vk::Semaphore> {
    // SAFETY: valid device with the feature (caller contract).
    let s = unsafe { crate::vk::host_timeline::create_timeline_semaphore(device) }?;
    namer.name(s, format_args!("vkpace timeline (completion tokens)"));
    Ok(s)
}
