//! The Vulkan side of a [`super::Swapchain`]: it owns the handles and carries out the frame
//! machine's requests, one Vulkan call each, and reports what the call returned. It holds no
//! decision: which object, when, and what a result means are the core's.

mod create;
mod drain;
mod host_waits;
mod queue;
mod swapchains;

use ash::vk;

use super::clock::Clock;
use super::display::{DisplayFeedback, DisplayFns};
use super::error::{Error, Result, VkContext};
use super::gpu_timer::GpuTimer;
use super::images::ImageTable;
use super::maintenance1::{compatible_present_modes, Maintenance1Fns, Maintenance1Names};
use super::names::Namer;
use super::sleep;
use vkpace_core::{
    CreateSwapchain, DisplayRefresh, Extent, PresentIdStructure, PresentInfo, PresentMode,
    SemaphoreRole, SubmitSignal, SurfaceFormat, SurfaceInfo, TimingReport, VkStatus,
};

/// The handles and entry points of one swapchain object.
pub(crate) struct Shell {
    /// The timeline semaphore of the timeline completion backend: submission serial `s`
    /// signals value `s`.
    timeline: Option<vk::Semaphore>,
    device: ash::Device,
    swapchain_fn: ash::khr::swapchain::Device,
    surface_fn: ash::khr::surface::Instance,
    physical: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    queue: vk::Queue,
    m1: Option<Maintenance1Fns>,
    /// Display feedback (present_wait or present_wait2), chosen once per swapchain object.
    display: Option<DisplayFns>,
    timer: Option<GpuTimer>,
    namer: Namer,
    clock: Clock,
    images: ImageTable,
    deferred_memory: bool,
    /// Objects created so far, for their debug names.
    created: u64,
    /// Host timelines registered with the swapchain (their frames may wait for them).
    timelines: Vec<std::sync::Arc<super::host_timeline::TimelineState>>,
    /// Host timelines unregistered while a submitted frame may still wait for them: the
    /// machine may still ask for their signals before that frame's present.
    retired_timelines: Vec<std::sync::Arc<super::host_timeline::TimelineState>>,
    /// The device enabled synchronization2 (`vkQueueSubmit2`).
    sync2: bool,
    /// Reused by batched submissions, so a steady frame does not allocate.
    batch_scratch: super::batch::Scratch,
    /// The bound of vkpace's waits (`PacingConfig::wait_timeout`).
    wait_timeout: std::time::Duration,
    /// `SwapchainConfig::hdr_metadata`, given to every swapchain made.
    hdr: Option<HdrMetadata>,
    /// Present timing: the refresh of a swapchain just made, for the core.
    new_display_timing: Option<vkpace_core::DisplayRefresh>,
    /// Present timing, where asked for and the surface supports it.
    timing: Option<super::display::TimingShell>,
    /// The structure the presents carry vkpace's ids in (the core's rule,
    /// `DisplayPaths::id_structure`), or none.
    ids: PresentIdStructure,
}

/// What the rest of the shell reads of it: handles and settings fixed at creation, and the
/// clock. Everything that changes goes through a method of `Shell` itself.
impl Shell {
    /// The device.
    pub(crate) fn device(&self) -> &ash::Device {
        &self.device
    }

    /// The queue vkpace submits to and presents on.
    pub(crate) fn queue(&self) -> vk::Queue {
        self.queue
    }

    /// The shell's clock.
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Now on the shell's clock (ns).
    pub(crate) fn now_ns(&self) -> u64 {
        self.clock.now_ns()
    }

    /// The GPU timer, with GPU timestamps on.
    pub(crate) fn timer(&self) -> Option<&GpuTimer> {
        self.timer.as_ref()
    }

    /// The device enabled synchronization2.
    pub(crate) fn sync2(&self) -> bool {
        self.sync2
    }

    /// The maintenance1 names in use, if that path is.
    pub(crate) fn maintenance1_names(&self) -> Option<Maintenance1Names> {
        self.m1.as_ref().map(|m| m.names)
    }

    /// Whether the presents carry vkpace's present ids.
    pub(crate) fn carries_ids(&self) -> bool {
        self.ids != PresentIdStructure::None
    }

    /// The present timing in use, if any.
    pub(crate) fn present_timing_in_use(&self) -> Option<crate::vk::PresentTimingInUse> {
        self.timing.as_ref().map(|t| t.in_use())
    }

    /// The image and view of `image` of `swapchain`, the view made (and named) on first use.
    pub(crate) fn image_and_view(
        &mut self,
        swapchain: vk::SwapchainKHR,
        image: u32,
    ) -> Result<(vk::Image, vk::ImageView)> {
        self.images
            .image_and_view(&self.device, &self.namer, swapchain, image)
    }

    /// The images and views of `swapchain`.
    pub(crate) fn images_of(&self, swapchain: vk::SwapchainKHR) -> Vec<(vk::Image, vk::ImageView)> {
        self.images.of(swapchain)
    }

    /// The registered host timelines.
    pub(crate) fn timelines(&self) -> &[std::sync::Arc<crate::vk::host_timeline::TimelineState>] {
        &self.timelines
    }

    /// Registers a host timeline (once per stream).
    pub(crate) fn add_timeline(
        &mut self,
        state: std::sync::Arc<crate::vk::host_timeline::TimelineState>,
    ) {
        self.retired_timelines.retain(|t| t.stream != state.stream);
        if !self.timelines.iter().any(|t| t.stream == state.stream) {
            self.timelines.push(state);
        }
    }

    /// Forgets the host timeline of `stream` for new waits; it is kept for the signals the
    /// machine may still ask for, until `still_held` says the machine let go of its stream.
    pub(crate) fn remove_timeline(&mut self, stream: u64, still_held: impl Fn(u64) -> bool) {
        let (gone, kept) = self.timelines.drain(..).partition(|t| t.stream == stream);
        self.timelines = kept;
        self.retired_timelines.extend::<Vec<_>>(gone);
        self.retired_timelines.retain(|t| still_held(t.stream));
    }

    /// A registered or retired host timeline of `stream`, not destroyed.
    pub(crate) fn timeline_for_signal(
        &self,
        stream: u64,
    ) -> Option<&std::sync::Arc<crate::vk::host_timeline::TimelineState>> {
        self.timelines
            .iter()
            .chain(&self.retired_timelines)
            .find(|t| t.stream == stream && !t.destroyed())
    }

    /// The batched-submission arrays and the registered timelines, borrowed together.
    pub(crate) fn batch_parts(
        &mut self,
    ) -> (
        &mut crate::vk::batch::Scratch,
        &[std::sync::Arc<crate::vk::host_timeline::TimelineState>],
    ) {
        (&mut self.batch_scratch, &self.timelines)
    }

    /// The filled batch arrays.
    pub(crate) fn batch_scratch(&self) -> &crate::vk::batch::Scratch {
        &self.batch_scratch
    }
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
        unsafe {
            crate::vk::extensions::enabled_command(
                instance,
                device,
                &[c"vkSetHdrMetadataEXT"],
                "hdr_metadata needs VK_EXT_hdr_metadata enabled on the device",
            )
        }?;
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

    pub(super) fn reset_fence(&self, f: vk::Fence) -> Result<()> {
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
        let r = unsafe { self.device.wait_for_fences(&[f], true, timeout_ns) };
        match Error::fence_waited(r)? {
            true => self.reset_fence(f).map(|()| true),
            false => Ok(false),
        }
    }
}
