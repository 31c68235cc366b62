//! Making a swapchain: the shell with its Vulkan objects, the GPU timer and completion
//! timeline, and the machine's configuration from the user's.

use super::*;

impl Swapchain {
    /// # Safety
    /// As [`Swapchain::new`].
    pub(super) unsafe fn make_shell(
        desc: &SwapchainCreateDesc<'_>,
        surface_fn: ash::khr::surface::Instance,
    ) -> Result<Shell> {
        let (instance, device, config) = (desc.instance, desc.device, &desc.config);
        let m1 = config
            .swapchain_maintenance1
            .map(|names| Maintenance1Fns::load(desc.entry, instance, names));
        // SAFETY: caller contract (handles valid; present_wait2 only where enabled).
        let display = unsafe { DisplayFns::choose(desc) }?;
        // SAFETY: as above (present timing only where the device enabled it).
        let timing = unsafe { crate::vk::timing_shell::TimingShell::choose(desc) }?;
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
            sync2: config.synchronization2,
            batch_scratch: crate::vk::batch::Scratch::default(),
            frame_host_waits: Vec::new(),
            wait_timeout: config.wait_timeout,
            hdr,
            timing,
            new_display_timing: None,
        })
    }

    /// The GPU timer (`config.gpu_timestamps`) and the timeline semaphore
    /// (`config.completion`), each where asked for; if the second cannot be made, the first is
    /// destroyed again.
    ///
    /// # Safety
    /// As [`Swapchain::new`].
    pub(super) unsafe fn timer_and_timeline(
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

    /// The core's settings; `present_ids`: a display feedback path is in use (ids and polls
    /// are the same on both).
    pub(super) fn machine_config(
        config: &SwapchainConfig,
        timer: Option<&GpuTimer>,
        present_ids: bool,
        present_timing: bool,
    ) -> Result<MachineConfig> {
        if config.wait_timeout.is_zero() {
            return Err(Error::InvalidConfig("wait_timeout must be non-zero"));
        }
        let surface = SurfaceWishes {
            formats: config
                .preferred_formats
                .iter()
                .map(|f| SurfaceFormat {
                    format: f.format.as_raw(),
                    color_space: f.color_space.as_raw(),
                })
                .collect(),
            any_format_if_none_offered: config.any_format_if_none_offered,
            present_mode: PresentMode(config.present_mode.as_raw()),
            usage: config.image_usage.as_raw(),
            extent: Extent {
                width: config.extent.width,
                height: config.extent.height,
            },
            extra_images: config.extra_images,
        };
        let mut m = MachineConfig::default();
        // MachineConfig is non-exhaustive: set field by field.
        #[allow(clippy::field_reassign_with_default)]
        {
            m.frames_in_flight = config.frames_in_flight;
            m.max_retired_swapchains = config.max_retired_swapchains;
            m.surface = surface;
            m.wait_timeout_ns = u64::try_from(config.wait_timeout.as_nanos()).unwrap_or(u64::MAX);
            m.maintenance1 = config.swapchain_maintenance1.is_some();
            m.present_ids = present_ids;
            m.present_timing_slots =
                present_timing.then_some(crate::vk::timing_shell::TIMING_SLOTS);
            m.gpu_clock = timer.map(|t| t.clock);
            m.pacing = config.pacing;
            m.frame_limit = config.frame_limit;
            m.completion = config.completion;
        }
        Ok(m)
    }
}
