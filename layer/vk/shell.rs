//! The Vulkan side of a [`super::Swapchain`]: it owns the handles and carries out the frame
//! machine's requests, one Vulkan call each, and reports what the call returned. It holds no
//! decision: which object, when, and what a result means are the core's.

use ash::vk;

use super::clock::Clock;
use super::error::{Error, Result, VkContext};
use super::gpu_timer::GpuTimer;
use super::images::ImageTable;
use super::maintenance1::{compatible_present_modes, Maintenance1Fns};
use super::names::Namer;
use super::present_wait2::{DisplayFeedback, DisplayFns};
use super::registry::{swapchain_create, PresentId2KHR, PresentTimingsInfoEXT};
use super::sleep;
use crate::core::{
    CreateSwapchain, DisplayTiming, Extent, PresentInfo, PresentMode, SemaphoreRole, SubmitSignal,
    SurfaceFormat, SurfaceInfo, TimingReport, VkStatus,
};

/// The handles and entry points of one swapchain object.
pub(crate) struct Shell {
    /// The timeline semaphore of the timeline completion backend: submission serial `s`
    /// signals value `s`.
    pub(crate) timeline: Option<vk::Semaphore>,
    pub(crate) device: ash::Device,
    pub(crate) swapchain_fn: ash::khr::swapchain::Device,
    pub(crate) surface_fn: ash::khr::surface::Instance,
    pub(crate) physical: vk::PhysicalDevice,
    pub(crate) surface: vk::SurfaceKHR,
    pub(crate) queue: vk::Queue,
    pub(crate) m1: Option<Maintenance1Fns>,
    /// Display feedback (present_wait or present_wait2), chosen once per swapchain object.
    pub(crate) display: Option<DisplayFns>,
    pub(crate) timer: Option<GpuTimer>,
    pub(crate) namer: Namer,
    pub(crate) clock: Clock,
    pub(crate) images: ImageTable,
    pub(crate) deferred_memory: bool,
    /// Objects created so far, for their debug names.
    pub(crate) created: u64,
    /// Host timelines registered with the swapchain (their frames may wait for them).
    pub(crate) timelines: Vec<std::sync::Arc<super::host_timeline::TimelineState>>,
    /// The device enabled synchronization2 (`vkQueueSubmit2`).
    pub(crate) sync2: bool,
    /// Reused by batched submissions, so a steady frame does not allocate.
    pub(crate) batch_scratch: super::batch::Scratch,
    /// Host-timeline values the submitted, unpresented frame waits for on the GPU: each must be
    /// signalled before the frame is presented.
    pub(crate) frame_host_waits: Vec<(std::sync::Arc<super::host_timeline::TimelineState>, u64)>,
    /// The bound of vkpace's waits (`SwapchainConfig::wait_timeout`).
    pub(crate) wait_timeout: std::time::Duration,
    /// `SwapchainConfig::hdr_metadata`, given to every swapchain made.
    pub(crate) hdr: Option<HdrMetadata>,
    /// Present timing: the refresh of a swapchain just made, for the core.
    pub(crate) new_display_timing: Option<Option<crate::core::DisplayTiming>>,
    /// Present timing, where asked for and the surface supports it.
    pub(crate) timing: Option<super::timing_shell::TimingShell>,
}

/// `vkSetHdrMetadataEXT` and the metadata of [`super::SwapchainConfig::hdr_metadata`].
pub(crate) struct HdrMetadata {
    fns: ash::ext::hdr_metadata::Device,
    metadata: vk::HdrMetadataEXT<'static>,
}

impl HdrMetadata {
    /// Loads `vkSetHdrMetadataEXT`; an error if the device did not enable VK_EXT_hdr_metadata
    /// (a device returns no entry point for an extension it did not enable: vkGetDeviceProcAddr,
    /// "NULL ... if pName is ... a device-level command of an extension not enabled"). The
    /// metadata's `p_next` is cleared: nothing it points to is known to live long enough.
    pub(crate) fn load(
        instance: &ash::Instance,
        device: &ash::Device,
        metadata: &vk::HdrMetadataEXT<'static>,
    ) -> Result<Self> {
        // SAFETY: valid device of `instance` (constructor contract of the swapchain).
        let loaded = unsafe {
            instance.get_device_proc_addr(device.handle(), c"vkSetHdrMetadataEXT".as_ptr())
        };
        if loaded.is_none() {
            return Err(Error::InvalidConfig(
                "hdr_metadata needs VK_EXT_hdr_metadata enabled on the device",
            ));
        }
        Ok(Self {
            fns: ash::ext::hdr_metadata::Device::new(instance, device),
            metadata: vk::HdrMetadataEXT {
                p_next: std::ptr::null(),
                ..*metadata
            },
        })
    }

    /// Gives the metadata to `swapchain`.
    fn set(&self, swapchain: vk::SwapchainKHR) {
        // SAFETY: the device enabled the extension (checked at load); `swapchain` was just
        // created on it and is alive (VUID-vkSetHdrMetadataEXT-pSwapchains-parameter); one
        // metadata per swapchain, `p_next` null (VUID-VkHdrMetadataEXT-pNext-pNext).
        unsafe { self.fns.set_hdr_metadata(&[swapchain], &[self.metadata]) };
    }
}

/// What a `vkQueueSubmit` signals: a binary semaphore (if any), then a tracked submission's
/// timeline value (timeline backend), in the arrays `VkSubmitInfo` and
/// `VkTimelineSemaphoreSubmitInfo` take (the value given for a binary semaphore is ignored).
pub(crate) struct SubmitSignals {
    semaphores: [vk::Semaphore; 2],
    values: [u64; 2],
    len: usize,
    timeline: bool,
}

impl SubmitSignals {
    /// `binary`, and `timeline` as [`Shell::timeline_signal`] gives it (value 0: none).
    pub(crate) fn new(binary: Option<vk::Semaphore>, timeline: (vk::Semaphore, u64)) -> Self {
        let mut s = Self {
            semaphores: [vk::Semaphore::null(); 2],
            values: [0; 2],
            len: 0,
            timeline: timeline.1 != 0,
        };
        if let Some(b) = binary {
            s.semaphores[0] = b;
            s.len = 1;
        }
        if s.timeline {
            (s.semaphores[s.len], s.values[s.len]) = timeline;
            s.len += 1;
        }
        s
    }

    /// `submit` with these signals; `values_info` is chained only with a timeline value, so a
    /// device without timeline semaphores (Vulkan 1.1) never sees the structure.
    pub(crate) fn apply<'a>(
        &'a self,
        submit: vk::SubmitInfo<'a>,
        values_info: &'a mut vk::TimelineSemaphoreSubmitInfo<'a>,
    ) -> vk::SubmitInfo<'a> {
        let submit = submit.signal_semaphores(&self.semaphores[..self.len]);
        if !self.timeline {
            return submit;
        }
        *values_info = vk::TimelineSemaphoreSubmitInfo::default()
            .signal_semaphore_values(&self.values[..self.len]);
        submit.push_next(values_info)
    }
}

/// A `vk::Result` as the core's status code.
pub(crate) fn status(r: vk::Result) -> VkStatus {
    VkStatus(r.as_raw())
}

impl Shell {
    pub(crate) fn create_semaphore(&mut self, role: SemaphoreRole) -> Result<vk::Semaphore> {
        // SAFETY: plain binary semaphore on a valid device.
        let s = unsafe {
            self.device
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
        }
        .during("vkCreateSemaphore")?;
        self.created += 1;
        let n = self.created;
        let role = match role {
            SemaphoreRole::Acquire => "acquire",
            SemaphoreRole::Present => "present",
        };
        self.namer
            .name(s, format_args!("vkpace {role} semaphore #{n}"));
        Ok(s)
    }

    pub(crate) fn create_fence(&mut self) -> Result<vk::Fence> {
        // SAFETY: valid device, default create info (unsignalled).
        let f = unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }
        .during("vkCreateFence")?;
        self.created += 1;
        let n = self.created;
        self.namer.name(f, format_args!("vkpace fence #{n}"));
        Ok(f)
    }

    pub(crate) fn destroy_semaphore(&mut self, s: vk::Semaphore) {
        // SAFETY: the core proved no signal or wait on `s` is pending
        // (VUID-vkDestroySemaphore-semaphore-01137).
        unsafe { self.device.destroy_semaphore(s, None) };
    }

    pub(crate) fn destroy_fence(&mut self, f: vk::Fence) {
        // SAFETY: the core hands a fence out for destruction only once nothing pending refers
        // to it (VUID-vkDestroyFence-fence-01120).
        unsafe { self.device.destroy_fence(f, None) };
    }

    pub(crate) fn destroy_swapchain(&mut self, w: vk::SwapchainKHR) {
        self.images.remove(&self.device, w);
        if let Some(t) = self.timing.as_mut() {
            t.swapchain_destroyed(w);
        }
        // SAFETY: the core proved every present to it processed and every submission using its
        // images completed (VUID-vkDestroySwapchainKHR-swapchain-01282).
        unsafe { self.swapchain_fn.destroy_swapchain(w, None) };
    }

    fn reset_fence(&self, f: vk::Fence) -> Result<()> {
        // SAFETY: the fence signalled, so no queue operation still refers to it
        // (VUID-vkResetFences-pFences-01123).
        unsafe { self.device.reset_fences(&[f]) }.during("vkResetFences")
    }

    pub(crate) fn sleep_until(&self, at: u64) {
        sleep::sleep_until(self.clock.instant_at(at));
    }

    /// `vkGetFenceStatus`; a signalled fence is reset for reuse.
    pub(crate) fn fence_signalled(&self, f: vk::Fence) -> Result<bool> {
        // SAFETY: the fence belongs to this device and is alive.
        let signalled = unsafe { self.device.get_fence_status(f) }.during("vkGetFenceStatus")?;
        if signalled {
            self.reset_fence(f)?;
        }
        Ok(signalled)
    }

    /// `vkWaitForFences` of one fence, bounded: `false` when it timed out; a signalled fence is
    /// reset for reuse.
    pub(crate) fn wait_fence(&self, f: vk::Fence, timeout_ns: u64) -> Result<bool> {
        // SAFETY: the fence belongs to this device and is alive; the timeout is finite.
        match unsafe { self.device.wait_for_fences(&[f], true, timeout_ns) } {
            Ok(()) => self.reset_fence(f).map(|()| true),
            Err(vk::Result::TIMEOUT) => Ok(false),
            Err(e) => Err(Error::vk("vkWaitForFences", e)),
        }
    }

    /// The surface's capabilities, formats and present modes.
    pub(crate) fn query_surface(&self) -> Result<SurfaceInfo> {
        // SAFETY: valid physical device and surface (constructor contract).
        let caps = unsafe {
            self.surface_fn
                .get_physical_device_surface_capabilities(self.physical, self.surface)
        }
        .during("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")?;
        // SAFETY: as above.
        let formats = unsafe {
            self.surface_fn
                .get_physical_device_surface_formats(self.physical, self.surface)
        }
        .during("vkGetPhysicalDeviceSurfaceFormatsKHR")?;
        // SAFETY: as above.
        let modes = unsafe {
            self.surface_fn
                .get_physical_device_surface_present_modes(self.physical, self.surface)
        }
        .during("vkGetPhysicalDeviceSurfacePresentModesKHR")?;
        let extent = |e: vk::Extent2D| Extent {
            width: e.width,
            height: e.height,
        };
        Ok(SurfaceInfo {
            min_image_count: caps.min_image_count,
            max_image_count: caps.max_image_count,
            current_extent: (caps.current_extent.width != u32::MAX)
                .then(|| extent(caps.current_extent)),
            min_extent: extent(caps.min_image_extent),
            max_extent: extent(caps.max_image_extent),
            supported_usage: caps.supported_usage_flags.as_raw(),
            supported_composite_alpha: caps.supported_composite_alpha.as_raw(),
            current_transform: caps.current_transform.as_raw(),
            formats: formats
                .iter()
                .map(|f| SurfaceFormat {
                    format: f.format.as_raw(),
                    color_space: f.color_space.as_raw(),
                })
                .collect(),
            present_modes: modes.iter().map(|m| PresentMode(m.as_raw())).collect(),
        })
    }

    /// maintenance1: the modes compatible with `mode`.
    pub(crate) fn compatible_modes(&self, mode: PresentMode) -> Result<Vec<PresentMode>> {
        let Some(m1) = &self.m1 else {
            return Ok(Vec::new());
        };
        let mode = vk::PresentModeKHR::from_raw(mode.0);
        // SAFETY: valid handles; the instance enabled the maintenance1 instance extensions
        // (`swapchain_maintenance1` contract).
        let modes =
            unsafe { compatible_present_modes(&m1.caps2, self.physical, self.surface, mode) }?;
        Ok(modes.into_iter().map(|m| PresentMode(m.as_raw())).collect())
    }

    /// `vkCreateSwapchainKHR` of the plan, then its images and views. A failure after creation
    /// destroys the new swapchain again and reports the error.
    pub(crate) fn create_swapchain(
        &mut self,
        c: &CreateSwapchain<vk::SwapchainKHR>,
        generation: u64,
    ) -> Result<Result<(vk::SwapchainKHR, u32), VkStatus>> {
        let compatible: Vec<vk::PresentModeKHR> = c
            .plan
            .compatible_modes
            .iter()
            .map(|m| vk::PresentModeKHR::from_raw(m.0))
            .collect();
        let mut modes_info =
            vk::SwapchainPresentModesCreateInfoEXT::default().present_modes(&compatible);
        let mut info = self.create_info(c);
        if !compatible.is_empty() {
            // VUID-VkSwapchainPresentModesCreateInfoEXT-presentMode-07764: includes the
            // present mode, and all are compatible with it (queried for it).
            info = info.push_next(&mut modes_info);
        }
        // SAFETY: `old` is the non-retired current swapchain of this surface or null
        // (VUID-VkSwapchainCreateInfoKHR-oldSwapchain-01933); the other fields were checked
        // against the surface's capabilities by the core's plan.
        let handle = match unsafe { self.swapchain_fn.create_swapchain(&info, None) } {
            Ok(h) => h,
            Err(e) => return Ok(Err(status(e))),
        };
        self.namer.name(
            handle,
            format_args!("vkpace swapchain (generation {generation})"),
        );
        if let Some(hdr) = &self.hdr {
            // HDR metadata is per swapchain: each new one gets it before its first present.
            hdr.set(handle);
        }
        let format = vk::Format::from_raw(c.plan.format.format);
        match self
            .register_images(handle, format, generation)
            .and_then(|count| self.timing_created(handle).map(|()| count))
        {
            Ok(count) => Ok(Ok((handle, count))),
            Err(e) => {
                self.images.remove(&self.device, handle);
                if let Some(t) = self.timing.as_mut() {
                    t.swapchain_destroyed(handle);
                }
                // SAFETY: just created, never used.
                unsafe { self.swapchain_fn.destroy_swapchain(handle, None) };
                Err(e)
            }
        }
    }

    /// Present timing: sets up the new swapchain's results queue, domain and refresh, kept
    /// for the executor to tell the core ([`Self::take_display_timing`]).
    fn timing_created(&mut self, handle: vk::SwapchainKHR) -> Result<()> {
        let Some(t) = self.timing.as_mut() else {
            return Ok(());
        };
        // SAFETY: `handle` was just made by this device with the PRESENT_TIMING flag.
        let refresh = unsafe { t.swapchain_created(self.device.handle(), handle, &self.clock) }?;
        self.new_display_timing = Some(refresh);
        Ok(())
    }

    /// The refresh the core has not been told about yet.
    pub(crate) fn take_display_timing(&mut self) -> Option<Option<DisplayTiming>> {
        self.new_display_timing.take()
    }

    /// Present timing: reads the live swapchain's results (none without present timing) and
    /// the refresh cycle when it changed, for the executor to hand to the core.
    pub(crate) fn read_present_timings(
        &mut self,
        swapchain: vk::SwapchainKHR,
    ) -> (&[TimingReport], Result<Option<Option<DisplayTiming>>>) {
        let Some(t) = self.timing.as_mut() else {
            return (&[], Ok(None));
        };
        // SAFETY: the core asks only about the live swapchain, which is not destroyed.
        unsafe { t.read(self.device.handle(), swapchain, &self.clock) }
    }

    /// The create info of the plan, with `oldSwapchain`.
    fn create_info<'a>(
        &self,
        c: &CreateSwapchain<vk::SwapchainKHR>,
    ) -> vk::SwapchainCreateInfoKHR<'a> {
        let p = &c.plan;
        let mut flags = if self.deferred_memory {
            vk::SwapchainCreateFlagsKHR::DEFERRED_MEMORY_ALLOCATION_EXT
        } else {
            vk::SwapchainCreateFlagsKHR::empty()
        };
        if self.feedback() == DisplayFeedback::PresentWait2 {
            // Every swapchain of a present_wait2 swapchain object, recreations included: ids
            // through VkPresentId2KHR need PRESENT_ID_2 (VUID-VkPresentId2KHR-None-10820) and
            // vkWaitForPresent2KHR needs PRESENT_WAIT_2 (VUID-vkWaitForPresent2KHR-None-10816).
            flags |= swapchain_create::PRESENT_ID_2_KHR | swapchain_create::PRESENT_WAIT_2_KHR;
        }
        if self.timing.is_some() {
            // vkSetSwapchainPresentTimingQueueSizeEXT and the other present timing commands
            // need PRESENT_TIMING (VUID-vkSetSwapchainPresentTimingQueueSizeEXT-swapchain-12229);
            // results name presents by VkPresentId2KHR ids, which need PRESENT_ID_2
            // (VUID-VkPresentId2KHR-None-10820).
            flags |= swapchain_create::PRESENT_TIMING_EXT | swapchain_create::PRESENT_ID_2_KHR;
        }
        vk::SwapchainCreateInfoKHR::default()
            .flags(flags)
            .surface(self.surface)
            .min_image_count(p.image_count)
            .image_format(vk::Format::from_raw(p.format.format))
            .image_color_space(vk::ColorSpaceKHR::from_raw(p.format.color_space))
            .image_extent(vk::Extent2D {
                width: p.extent.width,
                height: p.extent.height,
            })
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::from_raw(p.usage))
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(vk::SurfaceTransformFlagsKHR::from_raw(p.transform))
            .composite_alpha(vk::CompositeAlphaFlagsKHR::from_raw(p.composite_alpha))
            .present_mode(vk::PresentModeKHR::from_raw(p.present_mode.0))
            .clipped(true)
            .old_swapchain(c.old.unwrap_or_default())
    }

    fn register_images(
        &mut self,
        handle: vk::SwapchainKHR,
        format: vk::Format,
        generation: u64,
    ) -> Result<u32> {
        // SAFETY: `handle` was just created on this device.
        let images = unsafe { self.swapchain_fn.get_swapchain_images(handle) }
            .during("vkGetSwapchainImagesKHR")?;
        let count = u32::try_from(images.len()).unwrap_or(u32::MAX);
        let meta = (format, generation, self.deferred_memory);
        self.images
            .register(&self.device, &self.namer, handle, images, meta)?;
        Ok(count)
    }

    /// `vkAcquireNextImageKHR`.
    pub(crate) fn acquire(
        &self,
        swapchain: vk::SwapchainKHR,
        semaphore: vk::Semaphore,
        timeout_ns: u64,
    ) -> Result<(u32, bool), VkStatus> {
        // SAFETY: the semaphore is unsignalled with nothing pending (the core handed it out:
        // VUID-vkAcquireNextImageKHR-semaphore-01286/01779); the timeout is finite
        // (VUID-vkAcquireNextImageKHR-surface-07783); the swapchain is not retired.
        unsafe {
            self.swapchain_fn.acquire_next_image(
                swapchain,
                timeout_ns,
                semaphore,
                vk::Fence::null(),
            )
        }
        .map_err(status)
    }

    /// An empty submission waiting on `wait` (if any) at all commands and signalling `signal`.
    pub(crate) fn submit_empty(
        &self,
        wait: Option<vk::Semaphore>,
        signal: SubmitSignal<vk::Fence>,
    ) -> Result<(), VkStatus> {
        let waits: Vec<vk::Semaphore> = wait.into_iter().collect();
        let stages = [vk::PipelineStageFlags::ALL_COMMANDS];
        let mut submit = vk::SubmitInfo::default();
        if !waits.is_empty() {
            submit = submit
                .wait_semaphores(&waits)
                .wait_dst_stage_mask(&stages[..waits.len()]);
        }
        let signals = SubmitSignals::new(None, self.timeline_signal(signal));
        let mut values_info = vk::TimelineSemaphoreSubmitInfo::default();
        let submit = signals.apply(submit, &mut values_info);
        let fence = signal.fence().unwrap_or_default();
        // SAFETY: a semaphore waited on has a pending signal from a successful acquire and no
        // wait yet; the fence is unsignalled and unused (the core's pool); a timeline value is
        // the next serial, above every value signalled before
        // (VUID-VkSubmitInfo-pSignalSemaphores-03242).
        unsafe { self.device.queue_submit(self.queue, &[submit], fence) }.map_err(status)
    }

    /// The timeline semaphore and value a tracked submission signals; value 0 for a fence.
    pub(crate) fn timeline_signal(&self, signal: SubmitSignal<vk::Fence>) -> (vk::Semaphore, u64) {
        match (signal, self.timeline) {
            (SubmitSignal::Timeline(v), Some(t)) => (t, v),
            _ => (vk::Semaphore::null(), 0),
        }
    }

    /// `vkGetSemaphoreCounterValue` of the timeline.
    pub(crate) fn read_timeline(&self) -> Result<u64> {
        let Some(t) = self.timeline else {
            return Err(Error::InvalidConfig(
                "a timeline read without the timeline backend",
            ));
        };
        // SAFETY: the timeline semaphore belongs to this device and is alive.
        unsafe { self.device.get_semaphore_counter_value(t) }.during("vkGetSemaphoreCounterValue")
    }

    /// `vkWaitSemaphores` for the timeline to reach `value`, bounded; returns the counter
    /// read afterwards (below `value` when the wait timed out).
    pub(crate) fn wait_timeline(&self, value: u64, timeout_ns: u64) -> Result<u64> {
        let Some(t) = self.timeline else {
            return Err(Error::InvalidConfig(
                "a timeline wait without the timeline backend",
            ));
        };
        let (semaphores, values) = ([t], [value]);
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&semaphores)
            .values(&values);
        // SAFETY: the semaphore is alive; the core waits only for values a submission made on
        // this queue signals (a wait can end), and the timeout is finite.
        match unsafe { self.device.wait_semaphores(&info, timeout_ns) } {
            Ok(()) | Err(vk::Result::TIMEOUT) => self.read_timeline(),
            Err(e) => Err(Error::vk("vkWaitSemaphores", e)),
        }
    }

    /// `vkQueuePresentKHR` with the extension structures the present needs.
    pub(crate) fn present(
        &self,
        p: &PresentInfo<vk::Semaphore, vk::SwapchainKHR, vk::Fence>,
    ) -> VkStatus {
        let waits = [p.semaphore];
        let swapchains = [p.swapchain];
        let indices = [p.image];
        let mut info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        let fences = [p.fence.unwrap_or_default()];
        let mut fence_info = vk::SwapchainPresentFenceInfoEXT::default().fences(&fences);
        if p.fence.is_some() {
            info = info.push_next(&mut fence_info);
        }
        let ids = [p.present_id.unwrap_or(0)];
        let mut id_info = vk::PresentIdKHR::default().present_ids(&ids);
        let mut id2_info = PresentId2KHR::default().present_ids(&ids);
        let timing_info = self.timing_info(p);
        let timing_infos = [timing_info.unwrap_or_default()];
        let mut timings = PresentTimingsInfoEXT::default().timing_infos(&timing_infos);
        if timing_info.is_some() {
            // One VkPresentTimingInfoEXT per swapchain (VUID-VkPresentTimingsInfoEXT-swapchainCount-12233).
            info = info.push_next(&mut timings);
        }
        let timed = self.timing.is_some();
        match (p.present_id, self.feedback()) {
            (None, _) => {}
            // Present timing results name presents by these ids; the swapchain has
            // PRESENT_ID_2 (create_info) on a surface with presentId2Supported (checked when
            // present timing was chosen).
            (Some(_), _) if timed => info = info.push_next(&mut id2_info),
            (Some(_), DisplayFeedback::None) => {}
            // VUID-VkPresentId2KHR-presentIds-10819: larger than any id given before; the
            // swapchain was made with PRESENT_ID_2 (create_info) for a surface that supports
            // it (VUID-VkPresentInfoKHR-presentId2Supported-10822, checked at creation).
            (Some(_), DisplayFeedback::PresentWait2) => info = info.push_next(&mut id2_info),
            // VUID-VkPresentIdKHR-presentIds-04999: larger than any id given before.
            (Some(_), _) => info = info.push_next(&mut id_info),
        }
        let modes = [vk::PresentModeKHR::from_raw(p.mode.map_or(0, |m| m.0))];
        let mut mode_info = vk::SwapchainPresentModeInfoEXT::default().present_modes(&modes);
        if p.mode.is_some() {
            // VUID-VkSwapchainPresentModeInfoEXT-pPresentModes-07761: a mode given at creation.
            info = info.push_next(&mut mode_info);
        }
        // SAFETY: the image was acquired from the swapchain and not yet presented; the
        // semaphore has a signal pending from the frame's submission
        // (VUID-vkQueuePresentKHR-pWaitSemaphores-03268); a present fence is unsignalled and
        // unused (VUID-VkSwapchainPresentFenceInfoEXT-pFences-07759).
        match unsafe { self.swapchain_fn.queue_present(self.queue, &info) } {
            Ok(false) => VkStatus::SUCCESS,
            Ok(true) => VkStatus::SUBOPTIMAL,
            Err(e) => status(e),
        }
    }

    /// The present timing structure of a present, if it asks for one.
    fn timing_info(
        &self,
        p: &PresentInfo<vk::Semaphore, vk::SwapchainKHR, vk::Fence>,
    ) -> Option<super::registry::PresentTimingInfoEXT<'static>> {
        self.timing
            .as_ref()?
            .present_info(p.swapchain, p.timing.as_ref()?)
    }

    /// present_wait or present_wait2: whether present `id` was shown.
    pub(crate) fn poll_present_id(&self, swapchain: vk::SwapchainKHR, id: u64) -> VkStatus {
        match &self.display {
            // SAFETY: the core asks only about the live (non-retired) swapchain's presents,
            // which this shell made with the path's create flags.
            Some(d) => status(unsafe { d.poll(swapchain, id) }),
            None => VkStatus::TIMEOUT,
        }
    }

    /// The display feedback path in use.
    pub(crate) fn feedback(&self) -> DisplayFeedback {
        self.display
            .as_ref()
            .map_or(DisplayFeedback::None, DisplayFns::feedback)
    }

    /// GPU timestamps of a completed frame's slot.
    pub(crate) fn read_gpu_ticks(&self, slot: usize) -> Option<(u64, u64)> {
        let timer = self.timer.as_ref()?;
        // SAFETY: the core asks only once the frame's submission completed.
        unsafe { timer.read(&self.device, slot) }
    }

    /// GPU timestamps: the device clock against this shell's clock.
    pub(crate) fn calibrate(&self) -> Result<(u64, u64)> {
        match &self.timer {
            Some(t) => t.calibrate(&self.clock),
            None => Ok((0, self.clock.now_ns())),
        }
    }
}
