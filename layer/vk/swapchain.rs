//! [`Swapchain`]: the public face of vkpace. Each call starts an operation of the core's frame
//! machine and carries out its requests through the [`Shell`] until the operation ends.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use ash::vk;

use super::clock::Clock;
use super::config::{SwapchainConfig, SwapchainCreateDesc};
use super::error::{Error, Result, VkContext};
use super::frame::{Acquired, Frame, Presented, SubmittedFrame};
use super::gpu_timer::GpuTimer;
use super::images::ImageTable;
use super::maintenance1::{Maintenance1Fns, Maintenance1Names};
use super::names::Namer;
use super::present_wait2::{DisplayFeedback, DisplayFns};
use super::shell::{HdrMetadata, Shell, SubmitSignals};
use crate::core::{
    CompletionBackend, DisplayPath, Extent, FrameLimit, FrameMachine, FrameTimes, MachineConfig,
    PacingPolicy, PresentMode, PresentStatus, Request, SurfaceFormat, SurfaceWishes,
    SwapchainStats,
};

/// Command buffers [`Swapchain::submit`] frames with GPU timestamps without allocating.
pub const MAX_TIMED_COMMAND_BUFFERS: usize = 14;

/// Tells swapchain objects apart, so a frame of one is refused by another.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

pub(super) type Machine = FrameMachine<vk::Semaphore, vk::SwapchainKHR, vk::Fence>;

/// A paced swapchain with stall-free recreation. See the crate documentation for the frame
/// loop, the integration contract and how it works.
///
/// # Example
///
/// ```no_run
/// # use ash::vk;
/// # fn frame_loop(desc: vkpace::vk::SwapchainCreateDesc,
/// #     record: impl Fn(&vkpace::vk::Frame) -> vk::CommandBuffer) -> Result<(), vkpace::vk::Error> {
/// use vkpace::vk::{Acquired, Swapchain};
/// // SAFETY: the handles in `desc` are valid, its queue belongs to its family, and they
/// // outlive the swapchain.
/// let mut swapchain = unsafe { Swapchain::new(desc)? };
/// for _ in 0..100 {
///     match swapchain.acquire()? {
///         Acquired::Frame(frame) => {
///             let cmd = record(&frame); // writes frame.image(), leaves it in PRESENT_SRC_KHR
///             // SAFETY: `cmd` is a valid, recorded command buffer of the queue's family, not
///             // pending, and stays valid until the frame's token is reached.
///             let submitted = unsafe {
///                 swapchain.submit(frame, &[cmd], vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT)?
///             };
///             swapchain.present(submitted)?;
///         }
///         Acquired::ZeroExtent => { /* minimized: wait for a window event */ }
///         Acquired::NotReady => { /* hidden, or the compositor paused: handle events, retry */ }
///         _ => {}
///     }
/// }
/// swapchain.destroy()
/// # }
/// ```
pub struct Swapchain {
    pub(super) machine: Machine,
    pub(super) shell: Shell,
    id: u64,
    destroyed: bool,
}

impl Swapchain {
    /// Makes the first swapchain for the surface (none while the surface has zero extent: the
    /// first acquire makes it then), and the semaphores and fences the frame loop needs.
    ///
    /// # Safety
    ///
    /// The handles in `desc` must be valid, `device` created from `physical_device` with
    /// `VK_KHR_swapchain` enabled, `queue` a queue of family `queue_family` of `device`, and all
    /// of them must outlive the returned value. The queue must be externally synchronized with
    /// vkpace's calls (vkpace submits to it and presents on it). `config.debug_utils` may be
    /// true only if the instance enabled `VK_EXT_debug_utils`, `config.gpu_timestamps` only if
    /// the device enabled [`super::GPU_TIMING_DEVICE_EXTENSION`], `config.present_wait` only
    /// with the `presentId` and `presentWait` features, `config.present_wait2` only with the
    /// `presentId2` and `presentWait2` features (VUID-vkWaitForPresent2KHR-presentWait2-10814),
    /// `config.swapchain_maintenance1` only with the instance extensions and the
    /// `swapchainMaintenance1` feature (the device extensions themselves vkpace checks, with a
    /// typed error, as it checks `VK_EXT_hdr_metadata` for `config.hdr_metadata`),
    /// `config.completion = TimelineSemaphore` only if the device enabled the
    /// `timelineSemaphore` feature (VUID-VkSemaphoreTypeCreateInfo-timelineSemaphore-03252).
    pub unsafe fn new(desc: SwapchainCreateDesc<'_>) -> Result<Self> {
        let config = &desc.config;
        // SAFETY: the caller guarantees the handles are valid.
        let surface_fn = ash::khr::surface::Instance::new(desc.entry, desc.instance);
        // SAFETY: as above.
        let supported = unsafe {
            surface_fn.get_physical_device_surface_support(
                desc.physical_device,
                desc.queue_family,
                desc.surface,
            )
        }
        .during("vkGetPhysicalDeviceSurfaceSupportKHR")?;
        if !supported {
            return Err(Error::QueueCannotPresent(desc.queue_family));
        }
        if config.deferred_memory_allocation && config.swapchain_maintenance1.is_none() {
            return Err(Error::InvalidConfig(
                "deferred_memory_allocation needs swapchain_maintenance1",
            ));
        }
        // The settings are checked before any Vulkan object is made, so a bad one leaks nothing.
        let asked = config.present_wait || config.present_wait2 || config.present_timing;
        Machine::new(Self::machine_config(
            config,
            None,
            asked,
            config.present_timing,
        )?)?;
        // SAFETY: caller contract (handles valid; options only where enabled).
        let shell = unsafe { Self::make_shell(&desc, surface_fn) }?;
        let timed = shell.timing.is_some();
        let present_ids = shell.feedback() != DisplayFeedback::None || timed;
        let machine_config =
            Self::machine_config(config, shell.timer.as_ref(), present_ids, timed)?;
        let mut s = Self {
            machine: Machine::new(machine_config)?,
            shell,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            destroyed: false,
        };
        // Setup: on failure, Drop releases what was made.
        let now = s.shell.clock.now_ns();
        s.drive(now)?;
        Ok(s)
    }

    /// # Safety
    /// As [`Swapchain::new`].
    unsafe fn make_shell(
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
        let timing = unsafe { super::timing_shell::TimingShell::choose(desc) }?;
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
            batch_scratch: super::batch::Scratch::default(),
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

    /// The core's settings; `present_ids`: a display feedback path is in use (ids and polls
    /// are the same on both).
    fn machine_config(
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
            m.present_timing_slots = present_timing.then_some(super::timing_shell::TIMING_SLOTS);
            m.gpu_clock = timer.map(|t| t.clock);
            m.pacing = config.pacing;
            m.frame_limit = config.frame_limit;
            m.completion = config.completion;
        }
        Ok(m)
    }

    // ----- the frame ---------------------------------------------------------------------

    /// Waits (bounded) until the frame may begin, recreates the swapchain if needed, and
    /// acquires an image. `VK_ERROR_OUT_OF_DATE_KHR` is handled inside (recreate, acquire once
    /// more). A frame dropped before submission is handed out again; one submitted and never
    /// presented is presented first.
    pub fn acquire(&mut self) -> Result<Acquired> {
        // A submitted frame dropped unpresented is presented by this acquire.
        self.shell.settle_host_waits()?;
        let now = self.shell.clock.now_ns();
        self.machine.begin_acquire(now);
        match self.drive(now)? {
            Request::FrameReady(info) => {
                let (image, view) = self.shell.images.image_and_view(
                    &self.shell.device,
                    &self.shell.namer,
                    info.swapchain,
                    info.image,
                )?;
                let (timeline, _) = self.shell.timeline_signal(info.signal);
                let timing = self
                    .shell
                    .timer
                    .as_ref()
                    .and_then(|t| t.command_buffers(info.slot));
                Ok(Acquired::Frame(Frame {
                    info,
                    image,
                    view,
                    timeline,
                    timing,
                    owner: self.id,
                }))
            }
            Request::NotReady => Ok(Acquired::NotReady),
            _ => Ok(Acquired::ZeroExtent),
        }
    }

    /// Submits `command_buffers` for `frame` in one batch that waits on its acquire semaphore at
    /// `wait_stage` and signals its present semaphore and its completion (the frame's fence, or
    /// the timeline value). With
    /// [`SwapchainConfig::gpu_timestamps`] the batch is framed by two command buffers of vkpace's
    /// that write the frame's GPU start and end (no allocation up to
    /// [`MAX_TIMED_COMMAND_BUFFERS`]). If the submission fails the frame's image stays held: the
    /// next acquire hands the same frame out again.
    ///
    /// # Safety
    ///
    /// The command buffers must be valid, recorded, of a pool of the queue's family, not
    /// pending (unless simultaneous use), and stay valid until the frame's token is reached
    /// (`vkQueueSubmit`'s rules). They must leave the image in `PRESENT_SRC_KHR`.
    pub unsafe fn submit(
        &mut self,
        frame: Frame,
        command_buffers: &[vk::CommandBuffer],
        wait_stage: vk::PipelineStageFlags,
    ) -> Result<SubmittedFrame> {
        self.check_frame(&frame)?;
        let timed = self
            .shell
            .timer
            .as_ref()
            .map(|t| t.command_buffers(frame.info.slot));
        let mut framed = [vk::CommandBuffer::null(); MAX_TIMED_COMMAND_BUFFERS + 2];
        let mut framed_vec = Vec::new();
        let buffers = match timed.flatten() {
            Some((begin, end)) if command_buffers.len() <= MAX_TIMED_COMMAND_BUFFERS => {
                let n = command_buffers.len();
                framed[0] = begin;
                framed[1..=n].copy_from_slice(command_buffers);
                framed[n + 1] = end;
                &framed[..n + 2]
            }
            Some((begin, end)) => {
                framed_vec.push(begin);
                framed_vec.extend_from_slice(command_buffers);
                framed_vec.push(end);
                &framed_vec[..]
            }
            None => command_buffers,
        };
        // The submission's time is taken before the call: the GPU may start during it.
        let at = self.shell.clock.now_ns();
        // SAFETY: caller contract.
        unsafe { self.queue_submit_frame(&frame, buffers, wait_stage) }?;
        let slot = timed.flatten().map(|_| frame.info.slot);
        self.record_submission(&frame, at, slot)
    }

    /// `vkQueueSubmit` of the frame's one batch: waits on its acquire semaphore at
    /// `wait_stage`, signals its present semaphore and its fence or timeline value.
    ///
    /// # Safety
    ///
    /// As [`Swapchain::submit`], for `buffers`.
    unsafe fn queue_submit_frame(
        &self,
        frame: &Frame,
        buffers: &[vk::CommandBuffer],
        wait_stage: vk::PipelineStageFlags,
    ) -> Result<()> {
        let waits = [frame.info.acquire_semaphore];
        let stages = [wait_stage];
        // With the timeline backend the submission also signals the frame's value.
        let signals = SubmitSignals::new(
            Some(frame.info.present_semaphore),
            self.shell.timeline_signal(frame.info.signal),
        );
        let mut values_info = vk::TimelineSemaphoreSubmitInfo::default();
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .command_buffers(buffers);
        let submit = signals.apply(submit, &mut values_info);
        let fence = frame.info.signal.fence().unwrap_or_default();
        // SAFETY: the core handed these out: the acquire semaphore has a pending signal and no
        // wait, the present semaphore and the fence are unsignalled with nothing pending
        // (VUID-vkQueueSubmit-fence-00063, VUID-vkQueueSubmit-pSignalSemaphores-00067); a
        // timeline value is the next serial, above every value signalled before
        // (VUID-VkSubmitInfo-pSignalSemaphores-03242). The caller vouches for the command
        // buffers.
        unsafe {
            self.shell
                .device
                .queue_submit(self.shell.queue, &[submit], fence)
        }
        .during("vkQueueSubmit")
    }

    /// Declares that the renderer submitted `frame` itself. Its submissions may be any number
    /// (all on this swapchain's queue, or on others as long as the last one runs after them);
    /// the first that touches the image waits on [`Frame::acquire_semaphore`], and the last,
    /// on this swapchain's queue, signals [`Frame::present_semaphore`] and [`Frame::fence`]
    /// (fence backend) or [`Frame::timeline_signal`] (timeline backend). Call it right after
    /// that last submission, before any other call to this swapchain.
    ///
    /// # Safety
    ///
    /// The submissions described above were made (vkpace reuses the semaphores and fence
    /// on the strength of this declaration).
    pub unsafe fn submitted_by_renderer(&mut self, frame: Frame) -> Result<SubmittedFrame> {
        self.check_frame(&frame)?;
        let now = self.shell.clock.now_ns();
        self.record_submission(&frame, now, None)
    }

    /// As [`Self::submitted_by_renderer`], for a frame whose submissions also included
    /// [`Frame::timing_command_buffers`], the first before all of its work and the second after
    /// it: the frame's GPU start and end reach the telemetry. Without GPU timestamps it is
    /// [`Error::InvalidConfig`].
    ///
    /// # Safety
    ///
    /// As [`Self::submitted_by_renderer`], and both timing command buffers were submitted, in
    /// that order, on this swapchain's queue.
    pub unsafe fn submitted_by_renderer_with_timing(
        &mut self,
        frame: Frame,
    ) -> Result<SubmittedFrame> {
        self.check_frame(&frame)?;
        if frame.timing.is_none() {
            return Err(Error::InvalidConfig(
                "submitted_by_renderer_with_timing needs SwapchainConfig::gpu_timestamps",
            ));
        }
        let now = self.shell.clock.now_ns();
        self.record_submission(&frame, now, Some(frame.info.slot))
    }

    pub(super) fn record_submission(
        &mut self,
        frame: &Frame,
        now: u64,
        timed_slot: Option<usize>,
    ) -> Result<SubmittedFrame> {
        let serial = self
            .machine
            .handle_frame_submitted(frame.info.number, now, timed_slot)?;
        Ok(SubmittedFrame {
            number: frame.info.number,
            owner: self.id,
            token: self.machine.token_of(serial),
        })
    }

    /// Presents a submitted frame. `SUBOPTIMAL` and `OUT_OF_DATE` schedule a recreation for the
    /// next acquire ([`Presented::Recreating`]).
    pub fn present(&mut self, frame: SubmittedFrame) -> Result<Presented> {
        self.check_owner(frame.owner)?;
        self.shell.settle_host_waits()?;
        let now = self.shell.clock.now_ns();
        self.machine.begin_present(frame.number, now)?;
        match self.drive(now)? {
            Request::Presented(PresentStatus::Recreating) => Ok(Presented::Recreating),
            _ => Ok(Presented::Queued),
        }
    }

    /// The frame is this swapchain's frame in progress, unsubmitted, with the objects the
    /// machine handed out for it now ([`Error::ForeignFrame`] otherwise).
    pub(super) fn check_frame(&self, frame: &Frame) -> Result<()> {
        self.check_owner(frame.owner)?;
        if self.machine.frame_matches(&frame.info) {
            Ok(())
        } else {
            Err(Error::ForeignFrame)
        }
    }

    pub(super) fn check_owner(&self, owner: u64) -> Result<()> {
        if owner == self.id && !self.destroyed {
            Ok(())
        } else {
            Err(Error::ForeignFrame)
        }
    }

    // ----- settings --------------------------------------------------------------------------

    /// Asks for a new extent (used where the surface lets the application choose it, as
    /// headless surfaces do; window surfaces report their own size). Coalesced: the swapchain
    /// is recreated at most once, at the next acquire. Safe mid-frame: nothing changes before
    /// the next acquire, which presents a submitted frame first.
    pub fn resize(&mut self, extent: vk::Extent2D) {
        self.machine.resize(Extent {
            width: extent.width,
            height: extent.height,
        });
    }

    /// Recreates the swapchain at the next acquire (for example after the window system
    /// reported a resize whose size the surface will tell).
    pub fn request_recreate(&mut self) {
        self.machine.request_recreate();
    }

    /// Switches the present mode. On the maintenance1 path a mode compatible with the current
    /// swapchain switches with the next present, without recreation; otherwise the swapchain is
    /// recreated at the next acquire (FIFO where the surface lacks the mode).
    pub fn set_present_mode(&mut self, mode: vk::PresentModeKHR) {
        self.machine.set_present_mode(PresentMode(mode.as_raw()));
    }

    /// Changes frames in flight (1..=3); the next acquire paces by it. [`Frame::slot`] stays
    /// safe across the change (chosen by completion).
    pub fn set_frames_in_flight(&mut self, frames_in_flight: usize) -> Result<()> {
        Ok(self.machine.set_frames_in_flight(frames_in_flight)?)
    }

    /// Switches the pacing policy from the next frame on.
    pub fn set_pacing_policy(&mut self, policy: PacingPolicy) {
        self.machine.set_pacing_policy(policy);
    }

    /// Sets or removes the frame limit from the next frame on.
    pub fn set_frame_limit(&mut self, limit: Option<FrameLimit>) {
        self.machine.set_frame_limit(limit);
    }

    // ----- getters ---------------------------------------------------------------------------

    /// The present modes the surface offers.
    pub fn surface_present_modes(&self) -> Result<Vec<vk::PresentModeKHR>> {
        // SAFETY: valid physical device and surface (constructor contract).
        unsafe {
            self.shell
                .surface_fn
                .get_physical_device_surface_present_modes(self.shell.physical, self.shell.surface)
        }
        .during("vkGetPhysicalDeviceSurfacePresentModesKHR")
    }

    /// The present mode in use.
    #[must_use]
    pub fn present_mode(&self) -> Option<vk::PresentModeKHR> {
        self.machine
            .present_mode()
            .map(|m| vk::PresentModeKHR::from_raw(m.0))
    }

    /// The extent of the current swapchain.
    #[must_use]
    pub fn extent(&self) -> Option<vk::Extent2D> {
        self.machine.extent().map(|e| vk::Extent2D {
            width: e.width,
            height: e.height,
        })
    }

    /// The format and color space of the swapchain images (kept across recreation while the
    /// surface offers it).
    #[must_use]
    pub fn surface_format(&self) -> Option<vk::SurfaceFormatKHR> {
        self.machine.surface_format().map(|f| vk::SurfaceFormatKHR {
            format: vk::Format::from_raw(f.format),
            color_space: vk::ColorSpaceKHR::from_raw(f.color_space),
        })
    }

    /// The image format of the swapchain.
    #[must_use]
    pub fn format(&self) -> Option<vk::Format> {
        self.surface_format().map(|f| f.format)
    }

    /// The current swapchain's images and their views (made by vkpace; they live until that
    /// swapchain is destroyed, once provably idle after a recreation).
    #[must_use]
    pub fn images(&self) -> Vec<(vk::Image, vk::ImageView)> {
        self.machine
            .swapchain()
            .map(|w| self.shell.images.of(w))
            .unwrap_or_default()
    }

    /// Frames in flight N.
    #[must_use]
    pub fn frames_in_flight(&self) -> usize {
        self.machine.frames_in_flight()
    }

    /// The pacing policy in use.
    #[must_use]
    pub fn pacing_policy(&self) -> PacingPolicy {
        self.machine.pacing_policy()
    }

    /// The frame limit in use.
    #[must_use]
    pub fn frame_limit(&self) -> Option<FrameLimit> {
        self.machine.frame_limit()
    }

    /// Counters since creation.
    #[must_use]
    pub fn stats(&self) -> SwapchainStats {
        self.machine.stats()
    }

    /// Everything vkpace is waiting for, as text (`Display`): the queue's submitted and
    /// completed values and pending fences, the frame in progress, the acquire semaphores,
    /// each image's present semaphores and what proves them free, every retired swapchain and
    /// the proof it waits for. Handles print in hex, as the validation layer names them. Print
    /// it when a loop seems stuck or with an error:
    ///
    /// ```no_run
    /// # fn f(swapchain: &mut vkpace::vk::Swapchain) {
    /// if let Err(e) = swapchain.acquire() {
    ///     eprintln!("acquire failed: {e}\n{}", swapchain.debug_state());
    /// }
    /// # }
    /// ```
    #[must_use]
    pub fn debug_state(
        &self,
    ) -> crate::core::DebugState<'_, vk::Semaphore, vk::SwapchainKHR, vk::Fence> {
        self.machine.debug_state()
    }

    /// Retired swapchains not yet destroyed.
    #[must_use]
    pub fn old_swapchains_pending(&self) -> usize {
        self.machine.retired_pending()
    }

    /// The present timing in use (`VK_EXT_present_timing`), or `None`: not asked for
    /// ([`SwapchainConfig::present_timing`]) or not supported by the surface, so frame limits
    /// are kept by the CPU limiter.
    #[must_use]
    pub fn present_timing(&self) -> Option<super::PresentTimingInUse> {
        self.shell.timing.as_ref().map(|t| t.in_use())
    }

    /// How frames are paced to the display now: [`DisplayPath::RefreshGrid`] with the swap
    /// interval while present timing targets refreshes (a frame limit on the grid, or the
    /// display or low-latency policy), else [`DisplayPath::Cpu`].
    #[must_use]
    pub fn display_path(&self) -> DisplayPath {
        self.machine.display_path()
    }

    /// Whether display feedback is in use, by either path ([`Self::display_feedback`] says
    /// which): present_wait (`VK_KHR_present_wait`) or present_wait2.
    #[must_use]
    pub fn uses_present_wait(&self) -> bool {
        self.shell.display.is_some()
    }

    /// Which display feedback this swapchain object uses, chosen at [`Self::new`] from
    /// [`SwapchainConfig::present_wait2`], [`SwapchainConfig::present_wait`] and what the
    /// surface supports, and kept for every swapchain made after a recreation.
    #[must_use]
    pub fn display_feedback(&self) -> DisplayFeedback {
        self.shell.feedback()
    }

    /// Which names of swapchain maintenance1 are in use, if the path is.
    #[must_use]
    pub fn maintenance1(&self) -> Option<Maintenance1Names> {
        self.shell.m1.as_ref().map(|m| m.names)
    }

    /// What backs the swapchain's completion tokens ([`SwapchainConfig::completion`]).
    #[must_use]
    pub fn completion_backend(&self) -> CompletionBackend {
        self.machine.completion_backend()
    }

    /// The recent frames' timelines, oldest first (at most [`crate::core::TELEMETRY_FRAMES`]).
    pub fn telemetry(&self) -> impl DoubleEndedIterator<Item = FrameTimes> + '_ {
        self.machine.telemetry()
    }

    /// The instant the telemetry's times count from.
    #[must_use]
    pub fn telemetry_epoch(&self) -> Instant {
        self.shell.clock.epoch()
    }

    // ----- teardown --------------------------------------------------------------------------

    /// Releases everything: presents a submitted frame, gives back a held image, waits
    /// (bounded) for vkpace's submissions, an empty submission after them and the present
    /// fences, then destroys. On a timeout the objects are left alive (leaked rather than
    /// destroyed while in use) and the error says so. `Drop` does the same and logs.
    pub fn destroy(mut self) -> Result<()> {
        self.teardown()
    }

    fn teardown(&mut self) -> Result<()> {
        if self.destroyed {
            return Ok(());
        }
        // Teardown presents a submitted frame dropped unpresented: its host values first.
        self.shell.settle_host_waits()?;
        self.destroyed = true;
        let now = self.shell.clock.now_ns();
        self.machine.begin_shutdown(now);
        self.drive(now)?;
        if let Some(mut timer) = self.shell.timer.take() {
            // SAFETY: every submission completed (the teardown waited for them).
            unsafe { timer.destroy(&self.shell.device) };
        }
        if let Some(timeline) = self.shell.timeline.take() {
            // SAFETY: every submission of vkpace's that signals or waits on it completed (the
            // teardown waited for them, VUID-vkDestroySemaphore-semaphore-05149): GPU waits on
            // the swapchain's tokens made through `Batch::waits` are vkpace's submissions;
            // waits the renderer made itself on other queues are its to have finished
            // (`Frame::timeline_signal` says so).
            unsafe { self.shell.device.destroy_semaphore(timeline, None) };
        }
        Ok(())
    }
}

/// The swapchain's own timeline semaphore (timeline backend), at value 0.
///
/// # Safety
///
/// The device enabled the `timelineSemaphore` feature.
unsafe fn own_timeline(device: &ash::Device, namer: &Namer) -> Result<vk::Semaphore> {
    // SAFETY: valid device with the feature (caller contract).
    let s = unsafe { super::host_timeline::create_timeline_semaphore(device) }?;
    namer.name(s, format_args!("vkpace timeline (completion tokens)"));
    Ok(s)
}

impl Drop for Swapchain {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            log::error!("vkpace: swapchain teardown failed, Vulkan objects left alive: {e}");
        }
    }
}
