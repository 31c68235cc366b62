//! The Vulkan shell: owns the swapchain, its images, views, semaphores and fences, feeds events
//! to the [`crate::core::Presenter`] and carries out what it decides.

use std::time::{Duration, Instant};

use ash::vk;

use super::clock::Clock;
use super::config::SwapchainConfig;
use super::error::{Error, Result, VkContext};
use super::fences::FencePool;
use super::frame::{Acquired, Frame, Presented};
use super::gpu_timer::GpuTimer;
use super::maintenance1::compatible_present_modes;
use super::names::Namer;
use super::present_fences::PresentFencePool;
use super::present_wait::DisplayFeedback;
use super::sleep;
use super::stats::SwapchainStats;
use super::telemetry::{FrameTimes, Telemetry, UNSET};
use crate::core::{cold_path, rare};
use crate::core::{
    Action, FrameGate, FrameLimit, Pacing, PacingPolicy, PresentOutcome, PresentSemaphoreChoice,
    Presenter, PresenterConfig, Serial,
};

/// A present fence given to a present: its id in the present fence pool and its handle.
type PresentFence = (u64, vk::Fence);

/// Command buffers [`Swapchain::submit`] frames with GPU timestamps without allocating.
pub const MAX_TIMED_COMMAND_BUFFERS: usize = 14;

/// The swapchain that is being presented to.
struct Live {
    handle: vk::SwapchainKHR,
    images: Vec<LiveImage>,
    extent: vk::Extent2D,
    format: vk::Format,
    present_mode: vk::PresentModeKHR,
}

/// One image of the live swapchain and its view (null until made, with deferred memory
/// allocation). Together in one vector because a frame reads both: one data line and page
/// rather than two (see the type's layout note).
#[derive(Clone, Copy)]
struct LiveImage {
    image: vk::Image,
    view: vk::ImageView,
}

/// The entry points of the maintenance1 path.
struct Maintenance1Fns {
    swapchain: ash::ext::swapchain_maintenance1::Device,
    caps2: ash::khr::get_surface_capabilities2::Instance,
}

/// A paced swapchain with stall-free recreation. See the crate README for the scheme.
///
/// # Example
///
/// ```no_run
/// # use ash::vk;
/// # fn frame_loop(entry: &ash::Entry, instance: &ash::Instance, physical: vk::PhysicalDevice,
/// #     device: &ash::Device, queue: vk::Queue, family: u32, surface: vk::SurfaceKHR,
/// #     record: impl Fn(&vkpace::vk::Frame) -> vk::CommandBuffer) -> Result<(), vkpace::vk::Error> {
/// use vkpace::vk::{Acquired, Swapchain, SwapchainConfig};
/// // SAFETY: the handles are valid, `queue` belongs to `family` on `device`, and they outlive
/// // the swapchain.
/// let mut swapchain = unsafe {
///     Swapchain::new(entry, instance, physical, device, queue, family, surface,
///                    SwapchainConfig::default())?
/// };
/// for _ in 0..100 {
///     match swapchain.acquire()? {
///         Acquired::Frame(frame) => {
///             let cmd = record(&frame); // write frame.image, leave it in PRESENT_SRC_KHR
///             swapchain.submit(&frame, &[cmd], vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT)?;
///             swapchain.present(frame)?;
///         }
///         Acquired::ZeroExtent => { /* minimized: wait for a window event */ }
///     }
/// }
/// # Ok(()) }
/// ```
//
// Between two frames the driver's rendering evicts vkpace's code and data from the caches and
// TLBs, so what a frame costs is mostly how much code and data it touches, not how many
// instructions it runs. Measured on lavapipe (README, "Where vkpace's time goes";
// `vkpace-bench --calibrate-footprint`): a jump to a code page of its own costs 40 to 130 ns
// depending on the VM's phase, a code line 4 to 15 ns, a data line on a page of its own about
// 15 ns. So:
// - The frame path is compiled into the three entry points (`acquire`, `submit`,
//   `present`): the per-frame functions of this shell and of the core it calls are
//   `#[inline(always)]`, and what is rare or optional (object creation, recreation, error
//   handling, actions to carry out, retired swapchains, the policies' sleeps, the options'
//   polls and extension structures) is out of line, `#[cold]` where rare. That took the code
//   run every frame from 184 lines on 19 pages to about 128 on 10 (`scripts/cachesim`) and
//   vkpace's own time per frame from about 2.9 to 1.8 us in paired runs.
// - Inside those three functions the rare branches are marked (`core::cold_path`) and
//   loops that only rare cases run (waits, retries, slow present-semaphore choices) are out of
//   line: the compiler then lays more of the rare blocks apart from the hot ones (not all:
//   some still sit between them), so the hot code fills the lines it runs better. With the other steps of that session (one out-of-line clock read,
//   the core's two rarest paths out of line) the three went from 85 hot lines holding about
//   59 lines' worth of hot bytes to 67 holding about 52 (about 9 and 11 hot instructions per
//   line; callgrind `--dump-instr` on a line-tables build), and vkpace's own time per frame
//   fell by 0.16 to 0.29 us in paired runs.
// - On ELF targets the three entry points share the section `.text.hot.vkpace`: linkers
//   place `.text.hot.*` together (GNU ld groups them; the benchmark's LLD keeps them
//   adjacent in `.text`), so the frame path's code is contiguous (9 code pages
//   instead of 10 in the benchmark binary; how many depends on where the section lands).
// - The fields are laid out by use (`repr(C)`): those every frame touches come first and
//   sit in a few cache lines; the large and rarely used parts (options off by default,
//   creation settings) come last or behind a `Box`.
#[repr(C)]
pub struct Swapchain {
    // ----- every frame ---------------------------------------------------------------------
    queue: vk::Queue,
    frame_fence: Option<vk::Fence>,
    next_serial: Serial,
    /// Number of the next frame to begin.
    next_frame: u64,
    /// Zero of every telemetry and pacing time, and the reading of it.
    clock: Clock,
    /// `config.wait_timeout` in nanoseconds, as the acquire takes it (the config's timeout is
    /// fixed at creation, so the copy cannot go stale).
    wait_timeout_ns: u64,
    /// The entry points of the maintenance1 path, when enabled.
    m1: Option<Box<Maintenance1Fns>>,
    /// Timestamp queries around [`Swapchain::submit`]'s command buffers (`gpu_timestamps`).
    gpu_timer: Option<Box<GpuTimer>>,
    /// Present ids and display polling (`present_wait`).
    display: Option<Box<DisplayFeedback>>,
    /// A mode to switch to with the next present (`VkSwapchainPresentModeInfoEXT`).
    next_present_mode: Option<vk::PresentModeKHR>,
    needs_recreate: bool,
    /// Whether the frame being built has passed the pacing policy's wait.
    frame_started: bool,
    /// The current handle was passed as `oldSwapchain` to a creation that failed: it is retired
    /// (spec: "even if creation of the new swapchain fails") and must not be passed again.
    current_retired: bool,
    destroyed: bool,
    current: Option<Live>,
    telemetry: Telemetry,
    fences: FencePool,
    core: Presenter<vk::Semaphore, vk::SwapchainKHR>,
    stats: SwapchainStats,
    /// The pacing policy and frame limit (decisions in the core, waits here).
    pacing: Pacing,
    swapchain_fn: ash::khr::swapchain::Device,
    device: ash::Device,
    // ----- creation, recreation, options -------------------------------------------------
    surface_fn: ash::khr::surface::Instance,
    physical: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    config: SwapchainConfig,
    namer: Namer,
    retired_views: Vec<(vk::SwapchainKHR, Vec<LiveImage>)>,
    wanted_extent: vk::Extent2D,
    present_fences: PresentFencePool,
    /// Modes the current swapchain can switch to per present (maintenance1).
    compatible_modes: Vec<vk::PresentModeKHR>,
}

impl Swapchain {
    /// Makes the first swapchain for `surface`.
    ///
    /// # Safety
    ///
    /// `instance`, `physical`, `device`, `queue` and `surface` must be valid, `device` created
    /// from `physical` with `VK_KHR_swapchain` enabled, `queue` a queue of family
    /// `queue_family` of `device`, and all of them must outlive the returned value. The queue
    /// must be externally synchronized with vkpace's calls (vkpace submits to it and presents
    /// on it). `config.debug_utils` may be true only if the instance enabled
    /// `VK_EXT_debug_utils`, `config.gpu_timestamps` only if the device enabled
    /// [`super::GPU_TIMING_DEVICE_EXTENSION`], and `config.present_wait` only if it enabled the
    /// `presentId` and `presentWait` features with [`super::PRESENT_WAIT_DEVICE_EXTENSIONS`]
    /// (without the extensions vkpace returns [`Error::InvalidConfig`]; the features it cannot
    /// query on a device).
    #[allow(clippy::too_many_arguments)] // Vulkan's own set of handles, each needed.
    pub unsafe fn new(
        entry: &ash::Entry,
        instance: &ash::Instance,
        physical: vk::PhysicalDevice,
        device: &ash::Device,
        queue: vk::Queue,
        queue_family: u32,
        surface: vk::SurfaceKHR,
        config: SwapchainConfig,
    ) -> Result<Self> {
        let surface_fn = ash::khr::surface::Instance::new(entry, instance);
        // SAFETY: the caller guarantees the handles are valid.
        let supported = unsafe {
            surface_fn.get_physical_device_surface_support(physical, queue_family, surface)
        }
        .during("vkGetPhysicalDeviceSurfaceSupportKHR")?;
        if !supported {
            return Err(Error::QueueCannotPresent(queue_family));
        }
        if config.wait_timeout.is_zero() {
            return Err(Error::InvalidConfig("wait_timeout must be non-zero"));
        }
        if config.deferred_memory_allocation && !config.swapchain_maintenance1 {
            return Err(Error::InvalidConfig(
                "deferred_memory_allocation needs swapchain_maintenance1",
            ));
        }
        let m1 = config.swapchain_maintenance1.then(|| {
            Box::new(Maintenance1Fns {
                swapchain: ash::ext::swapchain_maintenance1::Device::new(instance, device),
                caps2: ash::khr::get_surface_capabilities2::Instance::new(entry, instance),
            })
        });
        let core = Presenter::new(PresenterConfig {
            frames_in_flight: config.frames_in_flight,
            max_retired_swapchains: config.max_retired_swapchains,
        })?;
        let display = if config.present_wait {
            Some(Box::new(DisplayFeedback::new(instance, device)?))
        } else {
            None
        };
        let (pacing, frame_limit) = (config.pacing, config.frame_limit);
        let mut s = Self {
            device: device.clone(),
            surface_fn,
            swapchain_fn: ash::khr::swapchain::Device::new(instance, device),
            physical,
            surface,
            queue,
            namer: Namer::new(instance, device, config.debug_utils),
            wanted_extent: config.extent,
            wait_timeout_ns: u64::try_from(config.wait_timeout.as_nanos()).unwrap_or(u64::MAX),
            config,
            core,
            fences: FencePool::new(),
            current: None,
            current_retired: false,
            retired_views: Vec::with_capacity(8),
            next_serial: Serial(1),
            needs_recreate: true,
            frame_fence: None,
            stats: SwapchainStats {
                maintenance1: m1.is_some(),
                ..SwapchainStats::default()
            },
            destroyed: false,
            m1,
            present_fences: PresentFencePool::new(),
            compatible_modes: Vec::with_capacity(4),
            next_present_mode: None,
            pacing: Pacing::new(pacing, frame_limit),
            clock: Clock::new(),
            next_frame: 0,
            frame_started: false,
            telemetry: Telemetry::default(),
            gpu_timer: None,
            display,
        };
        if s.config.gpu_timestamps {
            // SAFETY: the device enabled the extension (caller contract); the timer is
            // destroyed in teardown after the queue is idle.
            s.gpu_timer = Some(Box::new(unsafe {
                GpuTimer::new(instance, physical, device, queue_family, &s.namer)
            }?));
        }
        // Objects the frame loop needs are made up front, so the steady loop neither creates
        // nor names (allocates) any: N + 1 present semaphores and, with maintenance1, N + 1
        // present fences (one per frame in flight plus the one being presented).
        let n = s.core.frames_in_flight() + 1;
        for _ in 0..n {
            let sem =
                s.create_semaphore_named(|k| format!("vkpace present semaphore #{k} (pooled)"))?;
            if let Err(sem) = s.core.add_free_present_semaphore(sem) {
                // SAFETY: just created, never used.
                unsafe { s.device.destroy_semaphore(sem, None) };
                s.stats.semaphores_alive -= 1;
            }
        }
        if s.m1.is_some() {
            s.present_fences.prewarm(&s.device, &s.namer, n)?;
        }
        s.recreate()?;
        Ok(s)
    }

    /// Asks for a new extent (used when the surface lets the application choose it, as
    /// headless surfaces do; window surfaces report their own size). Coalesced: the swapchain
    /// is recreated at most once, at the next [`Swapchain::acquire`].
    pub fn resize(&mut self, extent: vk::Extent2D) {
        if extent != self.wanted_extent {
            self.wanted_extent = extent;
            self.needs_recreate = true;
        }
    }

    /// Marks the swapchain for recreation at the next acquire (for example after the window
    /// system reported a resize whose size the surface will tell).
    pub fn request_recreate(&mut self) {
        self.needs_recreate = true;
    }

    /// Counters since creation.
    #[must_use]
    pub fn stats(&self) -> SwapchainStats {
        let mut s = self.stats;
        s.old_swapchains_max_pending = self.core.stats().retired_max_pending;
        s.fallback_waits = self.core.stats().fallback_waits;
        // Submission fences plus present fences (the sum of the two pools' maxima).
        s.fences_created = self.fences.created + self.present_fences.created;
        s.fences_max_alive = self.fences.max_alive + self.present_fences.max_alive;
        s
    }

    /// Whether display feedback (`VK_KHR_present_wait`) is in use.
    #[must_use]
    pub fn uses_present_wait(&self) -> bool {
        self.display.is_some()
    }

    /// Whether the `VK_EXT_swapchain_maintenance1` path is in use.
    #[must_use]
    pub fn uses_maintenance1(&self) -> bool {
        self.m1.is_some()
    }

    /// Switches the present mode. On the maintenance1 path a mode compatible with the current
    /// swapchain (`VkSurfacePresentModeCompatibilityEXT`) is switched with the next present
    /// (`VkSwapchainPresentModeInfoEXT`), without recreation; otherwise the swapchain is
    /// recreated at the next acquire. A mode the surface lacks falls back to FIFO then.
    pub fn set_present_mode(&mut self, mode: vk::PresentModeKHR) {
        self.config.present_mode = mode;
        let current = self.next_present_mode.or(self.present_mode());
        if current == Some(mode) {
            self.next_present_mode = None;
            return;
        }
        if self.m1.is_some() && self.compatible_modes.contains(&mode) {
            self.next_present_mode = Some(mode);
        } else {
            self.next_present_mode = None;
            self.needs_recreate = true;
            self.stats.present_mode_recreations += 1;
        }
    }

    /// The present modes the surface offers.
    pub fn surface_present_modes(&self) -> Result<Vec<vk::PresentModeKHR>> {
        // SAFETY: valid physical device and surface (constructor contract).
        unsafe {
            self.surface_fn
                .get_physical_device_surface_present_modes(self.physical, self.surface)
        }
        .during("vkGetPhysicalDeviceSurfacePresentModesKHR")
    }

    /// The present mode in use.
    #[must_use]
    pub fn present_mode(&self) -> Option<vk::PresentModeKHR> {
        self.current.as_ref().map(|l| l.present_mode)
    }

    /// The extent of the current swapchain.
    #[must_use]
    pub fn extent(&self) -> Option<vk::Extent2D> {
        self.current.as_ref().map(|l| l.extent)
    }

    /// The image format of the swapchain (the same across recreations).
    #[must_use]
    pub fn format(&self) -> Option<vk::Format> {
        self.current.as_ref().map(|l| l.format)
    }

    /// Frames in flight N.
    #[must_use]
    pub fn frames_in_flight(&self) -> usize {
        self.core.frames_in_flight()
    }

    /// Changes frames in flight (1..=3) at run time; the next acquire paces by the new value.
    /// [`Frame::slot`] stays safe across the change (it is chosen by completion).
    pub fn set_frames_in_flight(&mut self, frames_in_flight: usize) -> Result<()> {
        self.core.set_frames_in_flight(frames_in_flight)?;
        Ok(())
    }

    /// The pacing policy in use.
    #[must_use]
    pub fn pacing_policy(&self) -> PacingPolicy {
        self.pacing.policy()
    }

    /// Switches the pacing policy; takes effect at the next frame (low latency learns from
    /// then on: see [`Pacing::set_policy`]).
    pub fn set_pacing_policy(&mut self, policy: PacingPolicy) {
        self.pacing.set_policy(policy);
    }

    /// The frame limit in use.
    #[must_use]
    pub fn frame_limit(&self) -> Option<FrameLimit> {
        self.pacing.frame_limit()
    }

    /// Sets or removes the frame limit; takes effect at the next frame.
    pub fn set_frame_limit(&mut self, limit: Option<FrameLimit>) {
        self.pacing.set_frame_limit(limit);
    }

    /// The recent frames' timelines, oldest first (at most
    /// [`super::TELEMETRY_FRAMES`]).
    pub fn telemetry(
        &self,
    ) -> impl DoubleEndedIterator<Item = FrameTimes> + ExactSizeIterator + '_ {
        self.telemetry.iter()
    }

    /// The instant the telemetry's times count from (to within the tens of nanoseconds
    /// between two clock readings: the times are read from the same monotonic clock).
    #[must_use]
    pub fn telemetry_epoch(&self) -> Instant {
        self.clock.epoch()
    }

    /// Retired swapchains not yet destroyed.
    #[must_use]
    pub fn old_swapchains_pending(&self) -> usize {
        self.core.retired_pending()
    }

    // ----- per frame ---------------------------------------------------------------------------

    /// Waits (bounded) until the frame may begin, recreates the swapchain if needed, and
    /// acquires an image. `VK_ERROR_OUT_OF_DATE_KHR` is handled inside: recreate, retry once.
    #[cfg_attr(
        any(target_os = "linux", target_os = "android"),
        link_section = ".text.hot.vkpace"
    )]
    pub fn acquire(&mut self) -> Result<Acquired> {
        // One clock reading serves the completions seen now and, when nothing blocks before
        // it, the frame's start.
        let started = self.now_ns();
        self.poll_completions(started)?;
        let mut unblocked = true;
        if self.needs_recreate {
            cold_path();
            unblocked = false;
            if !self.recreate()? {
                self.stats.zero_extent_skips += 1;
                return Ok(Acquired::ZeroExtent);
            }
        }
        if self.pace()? {
            unblocked = false;
        }
        self.begin_frame(unblocked.then_some(started));
        if let Some(timer) = self.gpu_timer.as_mut() {
            cold_path();
            timer.calibrate_if_due(&self.clock)?;
        }
        let image = match self.core.frame() {
            Some(held) => {
                cold_path();
                held.image
            }
            None => match self.acquire_image()? {
                Some(i) => i,
                None => {
                    cold_path();
                    match self.reacquire_out_of_date()? {
                        Some(i) => i,
                        None => {
                            self.stats.zero_extent_skips += 1;
                            return Ok(Acquired::ZeroExtent);
                        }
                    }
                }
            },
        };
        self.ensure_view(image)?;
        let present_semaphore = self.present_semaphore(image)?;
        self.carry_out_actions()?;
        let fence = match self.frame_fence {
            Some(f) => {
                // Kept from a held frame.
                cold_path();
                f
            }
            None => {
                let f = self.fences.take(&self.device, &self.namer)?;
                self.frame_fence = Some(f);
                f
            }
        };
        let (acquire_semaphore, slot) =
            self.core
                .frame()
                .map(|f| (f.acquire, f.slot))
                .ok_or_else(|| {
                    rare(Error::Core(crate::core::CoreError::OutOfOrder(
                        "frame vanished",
                    )))
                })?;
        // One clock read serves the telemetry and the frame's wait time.
        let acquired_at = self.now_ns();
        self.telemetry.acquired(acquired_at);
        let live = self.live()?;
        Ok(Acquired::Frame(Frame {
            image_index: image,
            image: live.images[image as usize].image,
            image_view: live.images[image as usize].view,
            extent: live.extent,
            format: live.format,
            acquire_semaphore,
            present_semaphore,
            fence,
            slot,
            cpu_wait: Duration::from_nanos(acquired_at.saturating_sub(started)),
            generation: self.core.generation(),
        }))
    }

    /// Submits `command_buffers` for `frame`: waits on its acquire semaphore at `wait_stage`,
    /// signals its present semaphore and fence. Optional: a renderer may make this submission
    /// itself with the same three objects (it then gets no GPU times in the telemetry).
    ///
    /// With [`SwapchainConfig::gpu_timestamps`] the batch is framed by two small command
    /// buffers of vkpace's that write the frame's GPU start and end timestamps. Up to
    /// [`MAX_TIMED_COMMAND_BUFFERS`] command buffers this allocates nothing.
    #[cfg_attr(
        any(target_os = "linux", target_os = "android"),
        link_section = ".text.hot.vkpace"
    )]
    pub fn submit(
        &mut self,
        frame: &Frame,
        command_buffers: &[vk::CommandBuffer],
        wait_stage: vk::PipelineStageFlags,
    ) -> Result<()> {
        self.frame_submitted_now();
        if self.gpu_timer.is_some() {
            return self.submit_timed(frame, command_buffers, wait_stage);
        }
        self.queue_submit(frame, command_buffers, wait_stage)
    }

    /// [`Swapchain::submit`] with GPU timestamps: the batch framed by the timer's two command
    /// buffers. Apart, so that the usual path's code stays small (see the type's layout
    /// note); `#[cold]` because the option is off by default (with it on, this costs a jump).
    #[cold]
    #[inline(never)]
    fn submit_timed(
        &mut self,
        frame: &Frame,
        command_buffers: &[vk::CommandBuffer],
        wait_stage: vk::PipelineStageFlags,
    ) -> Result<()> {
        let mut framed = [vk::CommandBuffer::null(); MAX_TIMED_COMMAND_BUFFERS + 2];
        let mut framed_vec = Vec::new();
        let timer = self
            .gpu_timer
            .as_ref()
            .and_then(|t| t.command_buffers(frame.slot));
        let buffers: &[vk::CommandBuffer] = match timer {
            None => command_buffers,
            Some((begin, end)) => {
                let n = command_buffers.len();
                if n <= MAX_TIMED_COMMAND_BUFFERS {
                    framed[0] = begin;
                    framed[1..=n].copy_from_slice(command_buffers);
                    framed[n + 1] = end;
                    &framed[..n + 2]
                } else {
                    framed_vec.reserve_exact(n + 2);
                    framed_vec.push(begin);
                    framed_vec.extend_from_slice(command_buffers);
                    framed_vec.push(end);
                    &framed_vec
                }
            }
        };
        if timer.is_some() {
            self.telemetry.timed(frame.slot);
        }
        self.queue_submit(frame, buffers, wait_stage)
    }

    /// The frame's `vkQueueSubmit` of `buffers`.
    #[inline(always)]
    fn queue_submit(
        &self,
        frame: &Frame,
        buffers: &[vk::CommandBuffer],
        wait_stage: vk::PipelineStageFlags,
    ) -> Result<()> {
        let waits = [frame.acquire_semaphore];
        let stages = [wait_stage];
        let signals = [frame.present_semaphore];
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .command_buffers(buffers)
            .signal_semaphores(&signals);
        // SAFETY: the semaphores and fence come from this swapchain's bookkeeping, which proved
        // the acquire semaphore has a pending signal and no other wait, the present semaphore
        // and the fence unsignalled with nothing pending (VUID-vkQueueSubmit-fence-00063,
        // VUID-vkQueueSubmit-pSignalSemaphores-00067). The caller owns the command buffers.
        unsafe { self.device.queue_submit(self.queue, &[submit], frame.fence) }
            .during("vkQueueSubmit")
    }

    /// Presents a frame whose submission was made (through [`Swapchain::submit`] or by the
    /// renderer). `SUBOPTIMAL` and `OUT_OF_DATE` schedule a recreation for the next acquire.
    #[cfg_attr(
        any(target_os = "linux", target_os = "android"),
        link_section = ".text.hot.vkpace"
    )]
    pub fn present(&mut self, frame: Frame) -> Result<Presented> {
        let held = self.core.frame().ok_or_else(|| rare(Error::ForeignFrame))?;
        let handle = self.live()?.handle;
        if held.image != frame.image_index
            || held.acquire != frame.acquire_semaphore
            || Some(frame.fence) != self.frame_fence
        {
            return Err(rare(Error::ForeignFrame));
        }
        let serial = self.take_serial();
        self.core.frame_submitted(serial)?;
        self.fences.submitted(serial, frame.fence);
        self.frame_fence = None;
        self.stats.frames_presented += 1;
        // The renderer may have made the submission itself: then it happened by now.
        self.frame_submitted_now();

        let (result, present_fence) =
            if self.m1.is_none() && self.display.is_none() && self.next_present_mode.is_none() {
                let waits = [frame.present_semaphore];
                let swapchains = [handle];
                let indices = [frame.image_index];
                let info = vk::PresentInfoKHR::default()
                    .wait_semaphores(&waits)
                    .swapchains(&swapchains)
                    .image_indices(&indices);
                // SAFETY: the image was acquired from `handle` and not yet presented; the
                // present semaphore has a signal pending from the frame's submission
                // (VUID-vkQueuePresentKHR-pWaitSemaphores-03268).
                let result = unsafe { self.swapchain_fn.queue_present(self.queue, &info) };
                (result, None)
            } else {
                cold_path();
                self.queue_present_extended(&frame, handle)?
            };
        let queued = matches!(
            result,
            Ok(_)
                | Err(vk::Result::ERROR_OUT_OF_DATE_KHR)
                | Err(vk::Result::ERROR_SURFACE_LOST_KHR)
        );
        if let Some(display) = self.display.as_mut() {
            cold_path();
            display.presented(handle, self.next_frame, queued);
        }
        if let Some(mode) = self.next_present_mode.take() {
            cold_path();
            if queued {
                if let Some(live) = self.current.as_mut() {
                    live.present_mode = mode;
                }
                self.stats.present_mode_switches += 1;
            }
        }
        let (outcome, ret) = match result {
            Ok(false) => (PresentOutcome::Queued, Ok(Presented::Queued)),
            Ok(true) | Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                cold_path();
                self.needs_recreate = true;
                self.stats.out_of_date_or_suboptimal += 1;
                (PresentOutcome::QueuedStale, Ok(Presented::Recreating))
            }
            Err(vk::Result::ERROR_SURFACE_LOST_KHR) => {
                cold_path();
                (PresentOutcome::QueuedStale, Err(Error::SurfaceLost))
            }
            Err(e) => {
                cold_path();
                self.needs_recreate = true;
                (
                    PresentOutcome::Failed,
                    Err(Error::vk("vkQueuePresentKHR", e)),
                )
            }
        };
        self.core
            .frame_presented_with_fence(outcome, present_fence.map(|(id, _)| id))?;
        let presented = self.now_ns();
        self.telemetry.presented(serial, presented);
        self.pacing.frame_presented(self.next_frame);
        self.next_frame += 1;
        self.frame_started = false;
        self.carry_out_actions()?;
        ret
    }

    /// `vkQueuePresentKHR` with the extension structures in use: a present fence
    /// (maintenance1), a present id (present_wait), a present mode switch. Apart, so that the
    /// usual path's code stays small (see the type's layout note). Returns the present's
    /// result and the present fence given to it. `#[cold]` because the options are off by
    /// default (with one on, this costs a jump).
    #[cold]
    #[inline(never)]
    fn queue_present_extended(
        &mut self,
        frame: &Frame,
        handle: vk::SwapchainKHR,
    ) -> Result<(ash::prelude::VkResult<bool>, Option<PresentFence>)> {
        let waits = [frame.present_semaphore];
        let swapchains = [handle];
        let indices = [frame.image_index];
        let mut info = vk::PresentInfoKHR::default()
            .wait_semaphores(&waits)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // maintenance1: a present fence tells when the semaphore and swapchain are free.
        let present_fence = match self.m1 {
            Some(_) => Some(self.present_fences.take(&self.device, &self.namer)?),
            None => None,
        };
        let fences = [present_fence.map_or(vk::Fence::null(), |(_, f)| f)];
        let mut fence_info = vk::SwapchainPresentFenceInfoEXT::default().fences(&fences);
        if present_fence.is_some() {
            info = info.push_next(&mut fence_info);
        }
        let present_ids = [self.display.as_ref().map_or(0, |d| d.next_id())];
        let mut id_info = vk::PresentIdKHR::default().present_ids(&present_ids);
        if self.display.is_some() {
            // VUID-VkPresentIdKHR-presentIds-04999: larger than any id given before on this
            // swapchain (one growing counter for all swapchains).
            info = info.push_next(&mut id_info);
        }
        let modes = [self.next_present_mode.unwrap_or(vk::PresentModeKHR::FIFO)];
        let mut mode_info = vk::SwapchainPresentModeInfoEXT::default().present_modes(&modes);
        if self.next_present_mode.is_some() {
            // VUID-VkSwapchainPresentModeInfoEXT-pPresentModes-07761: one of the modes given
            // in VkSwapchainPresentModesCreateInfoEXT (`compatible_modes`).
            info = info.push_next(&mut mode_info);
        }
        // SAFETY: the image was acquired from `handle` and not yet presented; the present
        // semaphore has a signal pending from the frame's submission
        // (VUID-vkQueuePresentKHR-pWaitSemaphores-03268); the present fence is unsignalled and
        // unused (VUID-VkSwapchainPresentFenceInfoEXT-pFences-07759).
        let result = unsafe { self.swapchain_fn.queue_present(self.queue, &info) };
        Ok((result, present_fence))
    }

    // ----- internals ---------------------------------------------------------------------------

    #[inline(always)]
    fn live(&self) -> Result<&Live> {
        self.current
            .as_ref()
            .ok_or_else(|| rare(Error::Core(crate::core::CoreError::NoSwapchain)))
    }

    #[inline(always)]
    fn take_serial(&mut self) -> Serial {
        let s = self.next_serial;
        self.next_serial = s.next();
        s
    }

    /// Nanoseconds since the epoch: the time base of telemetry and pacing. One copy next to
    /// the frame path's code, which reads the clock four times a frame, rather than four
    /// inlined ones (see the type's layout note).
    #[inline(never)]
    #[cfg_attr(
        any(target_os = "linux", target_os = "android"),
        link_section = ".text.hot.vkpace"
    )]
    fn now_ns(&self) -> u64 {
        self.clock.now_ns()
    }

    fn nanos(d: Duration) -> u64 {
        u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
    }

    /// The frame's CPU work may begin once the frames-in-flight gate opened (done) and the
    /// pacing policy's time came (low latency, frame limit): sleep, then spin, until then.
    /// A held frame (kept from before) already began. `now` is a clock reading taken since
    /// the last blocking call, if there is one.
    #[inline(always)]
    fn begin_frame(&mut self, now: Option<u64>) {
        if self.frame_started {
            return;
        }
        let mut start = match now {
            Some(t) => t,
            None => {
                // Something blocked since the reading: the frame had time to spare.
                cold_path();
                self.now_ns()
            }
        };
        if let Some(at) = self.pacing.start_at(start) {
            cold_path();
            start = self.sleep_until(at);
        }
        self.pacing.frame_started(self.next_frame, start);
        self.telemetry.begin(self.next_frame, start);
        self.frame_started = true;
    }

    /// Sleeps (then spins) until `at` on the epoch's clock; returns the time then. Out of
    /// line: the sleep takes milliseconds, the call nothing, and the frame path without a
    /// policy wait stays small.
    #[inline(never)]
    fn sleep_until(&self, at: u64) -> u64 {
        sleep::sleep_until(self.clock.instant_at(at));
        self.now_ns()
    }

    #[inline(always)]
    fn frame_submitted_now(&mut self) {
        if self.telemetry.submission_recorded() {
            // `present` after `submit`: nothing new, and no clock read.
            return;
        }
        let now = self.now_ns();
        if self.telemetry.submitted(now) {
            self.pacing.frame_submitted(self.next_frame, now);
        }
    }

    /// Serial `done` was seen complete now: telemetry records which frames finished. The
    /// default configuration needs nothing more; GPU timestamps and the low-latency policy
    /// also want each frame's GPU times ([`Swapchain::observed_complete_measured`]).
    #[inline(always)]
    fn observed_complete(&mut self, done: Serial, now: u64) {
        if self.gpu_timer.is_none() && !self.pacing.wants_gpu_times() {
            self.telemetry.completed(done, now, |_, _, _| {});
        } else {
            // Options: the default frame path stays small (see the type's layout note).
            cold_path();
            self.observed_complete_measured(done, now);
        }
    }

    /// [`Swapchain::observed_complete`] with GPU start and end from the timestamp queries
    /// where the frame wrote them, given to pacing. Without them a frame's GPU time is
    /// estimated as submit to observed completion (an upper bound).
    #[inline(never)]
    fn observed_complete_measured(&mut self, done: Serial, now: u64) {
        let pacing = &mut self.pacing;
        let timer = self.gpu_timer.as_ref();
        let device = &self.device;
        self.telemetry.completed(done, now, |frame, times, slot| {
            // SAFETY: the frame's submission completed (its serial is at most `done`).
            let gpu = slot
                .zip(timer)
                .and_then(|(slot, t)| unsafe { t.read(device, slot) })
                .map(|(start, end)| (Self::nanos(start), Self::nanos(end)));
            if let Some((start, end)) = gpu {
                times.gpu_start = start;
                times.gpu_end = end;
            }
            let submitted = if times.submitted == UNSET {
                times.cpu_start
            } else {
                times.submitted
            };
            let (start, end) = gpu.unwrap_or((submitted, now));
            pacing.gpu_done(frame, start, end);
        });
    }

    /// Takes in what completed by `now` (a clock reading taken just before).
    #[inline(always)]
    fn poll_completions(&mut self, now: u64) -> Result<()> {
        if let Some(done) = self.fences.poll(&self.device)? {
            self.core.serial_completed(done)?;
            self.observed_complete(done, now);
        }
        if self.display.is_some() || self.m1.is_some() {
            cold_path();
            self.poll_options(now)?;
        }
        Ok(())
    }

    /// The per-frame polls of the options: present_wait's displayed frames, maintenance1's
    /// present fences. Out of line, so that the default frame path stays small.
    #[inline(never)]
    fn poll_options(&mut self, now: u64) -> Result<()> {
        if let Some(display) = self.display.as_mut() {
            let (pacing, telemetry) = (&mut self.pacing, &mut self.telemetry);
            display.poll(|frame| {
                pacing.frame_displayed(frame, now);
                telemetry.displayed(frame, now);
            })?;
        }
        if self.m1.is_some() {
            let core = &mut self.core;
            // A fence the core does not track (a failed present's) is simply recycled.
            self.present_fences.poll(&self.device, |id| {
                let _ = core.present_fence_signaled(id);
            })?;
            self.carry_out_actions()?;
        }
        Ok(())
    }

    /// With deferred memory allocation an image's view is made at its first acquire
    /// (the image has no memory before, VUID-VkImageViewCreateInfo-image-01020).
    #[inline(always)]
    fn ensure_view(&mut self, image: u32) -> Result<()> {
        let Some(live) = self.current.as_ref() else {
            return Ok(());
        };
        let i = image as usize;
        if live.images[i].view != vk::ImageView::null() {
            return Ok(());
        }
        self.make_deferred_view(i)
    }

    #[cold]
    #[inline(never)]
    fn make_deferred_view(&mut self, i: usize) -> Result<()> {
        let Some(live) = self.current.as_ref() else {
            return Ok(());
        };
        let view = self.make_view(live.images[i].image, live.format, i)?;
        if let Some(live) = self.current.as_mut() {
            live.images[i].view = view;
        }
        Ok(())
    }

    #[inline(never)]
    fn wait_serial(&mut self, serial: Serial) -> Result<()> {
        let done = self
            .fences
            .wait(&self.device, serial, self.config.wait_timeout)?;
        self.core.serial_completed(done)?;
        self.observed_complete(done, self.now_ns());
        Ok(())
    }

    /// Frame F may begin once frame F-N's submission completed. Returns whether it waited.
    #[inline(always)]
    fn pace(&mut self) -> Result<bool> {
        if let FrameGate::WaitFor(serial) = self.core.begin_frame() {
            // A frame that waits for the GPU has time to spare.
            cold_path();
            self.wait_for_gate(serial)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Waits until the pacing gate opens, starting with `serial`. Out of line: the loop
    /// stays out of the frame path (see the type's layout note).
    #[inline(never)]
    fn wait_for_gate(&mut self, mut serial: Serial) -> Result<()> {
        loop {
            self.wait_serial(serial)?;
            match self.core.begin_frame() {
                FrameGate::WaitFor(next) => serial = next,
                FrameGate::Ready => return Ok(()),
            }
        }
    }

    /// One `vkAcquireNextImageKHR`. `Ok(None)` for `OUT_OF_DATE` (nothing signalled).
    #[inline(always)]
    fn acquire_image(&mut self) -> Result<Option<u32>> {
        let semaphore = match self.core.take_acquire_semaphore() {
            Some(s) => s,
            None => {
                cold_path();
                self.new_acquire_semaphore()?
            }
        };
        let handle = self.live()?.handle;
        let timeout = self.wait_timeout_ns;
        // SAFETY: the semaphore is unsignalled with nothing pending (the core handed it out:
        // VUID-vkAcquireNextImageKHR-semaphore-01286/01779); the timeout is finite
        // (VUID-vkAcquireNextImageKHR-surface-07783); `handle` is not retired.
        let result = unsafe {
            self.swapchain_fn
                .acquire_next_image(handle, timeout, semaphore, vk::Fence::null())
        };
        match result {
            Ok((index, suboptimal)) => {
                self.core.image_acquired(semaphore, index)?;
                if index < 64 {
                    self.stats.images_acquired_mask |= 1 << index;
                }
                if suboptimal {
                    cold_path();
                    // Render and present this image; recreate afterwards.
                    self.stats.out_of_date_or_suboptimal += 1;
                    self.needs_recreate = true;
                }
                Ok(Some(index))
            }
            Err(e) => {
                cold_path();
                self.acquire_failed(semaphore, e)
            }
        }
    }

    /// The acquire found the swapchain out of date: recreate it, pace again and acquire once
    /// more. `Ok(None)` when the surface has zero extent; out of date twice in a row is an
    /// error. Out of line: no loop in the frame path (see the type's layout note).
    #[cold]
    #[inline(never)]
    fn reacquire_out_of_date(&mut self) -> Result<Option<u32>> {
        if !self.recreate()? {
            return Ok(None);
        }
        self.pace()?;
        match self.acquire_image()? {
            Some(i) => Ok(Some(i)),
            None => Err(Error::vk(
                "vkAcquireNextImageKHR",
                vk::Result::ERROR_OUT_OF_DATE_KHR,
            )),
        }
    }

    /// A new acquire semaphore, registered with the core (the ring grows to what the pacing
    /// needs in the first frames, then stays).
    #[cold]
    #[inline(never)]
    fn new_acquire_semaphore(&mut self) -> Result<vk::Semaphore> {
        let s = self.create_semaphore("acquire")?;
        self.core.acquire_semaphore_created(s);
        Ok(s)
    }

    /// `vkAcquireNextImageKHR` returned `e`: `Ok(None)` for `OUT_OF_DATE`, else the error.
    #[cold]
    #[inline(never)]
    fn acquire_failed(&mut self, semaphore: vk::Semaphore, e: vk::Result) -> Result<Option<u32>> {
        // On failure the acquire signals nothing: the semaphore is free again.
        self.core.acquire_failed(semaphore)?;
        match e {
            vk::Result::ERROR_OUT_OF_DATE_KHR => {
                self.stats.out_of_date_or_suboptimal += 1;
                self.needs_recreate = true;
                Ok(None)
            }
            vk::Result::TIMEOUT | vk::Result::NOT_READY => Err(Error::Timeout {
                what: "vkAcquireNextImageKHR",
                timeout: self.config.wait_timeout,
            }),
            e => Err(Error::vk("vkAcquireNextImageKHR", e)),
        }
    }

    /// The frame's present semaphore: nearly always one the core can reuse now.
    #[inline(always)]
    fn present_semaphore(&mut self, image: u32) -> Result<vk::Semaphore> {
        match self.core.choose_present_semaphore()? {
            PresentSemaphoreChoice::Reuse(s) => Ok(s),
            choice => {
                cold_path();
                self.present_semaphore_slow(image, choice)
            }
        }
    }

    /// The present semaphore when the core says create one or wait first (the first frames,
    /// or an image acquired again before its presents are proven). Out of line: the loop
    /// stays out of the frame path (see the type's layout note).
    #[cold]
    #[inline(never)]
    fn present_semaphore_slow(
        &mut self,
        image: u32,
        mut choice: PresentSemaphoreChoice<vk::Semaphore>,
    ) -> Result<vk::Semaphore> {
        loop {
            match choice {
                PresentSemaphoreChoice::Reuse(s) => return Ok(s),
                PresentSemaphoreChoice::Create => return self.new_present_semaphore(image),
                PresentSemaphoreChoice::WaitFor(serial) => self.wait_serial(serial)?,
            }
            choice = self.core.choose_present_semaphore()?;
        }
    }

    /// A new present semaphore for the frame in progress (the pool ran dry: the first frames,
    /// or an image that is acquired again before its presents are proven).
    #[cold]
    #[inline(never)]
    fn new_present_semaphore(&mut self, image: u32) -> Result<vk::Semaphore> {
        let s = self.create_semaphore_named(|n| {
            format!("vkpace present semaphore #{n} (first used by image {image})")
        })?;
        self.core.present_semaphore_created(s)?;
        Ok(s)
    }

    fn create_semaphore(&mut self, role: &'static str) -> Result<vk::Semaphore> {
        self.create_semaphore_named(|n| format!("vkpace {role} semaphore #{n}"))
    }

    fn create_semaphore_named(
        &mut self,
        name: impl FnOnce(u64) -> String,
    ) -> Result<vk::Semaphore> {
        // SAFETY: plain binary semaphore on a valid device.
        let s = unsafe {
            self.device
                .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
        }
        .during("vkCreateSemaphore")?;
        self.stats.semaphores_created += 1;
        self.stats.semaphores_alive += 1;
        self.stats.semaphores_max_alive = self
            .stats
            .semaphores_max_alive
            .max(self.stats.semaphores_alive);
        let n = self.stats.semaphores_created;
        self.namer.name(s, || name(n));
        Ok(s)
    }

    /// Submits an empty batch that waits on `semaphore`, consuming the pending signal of an
    /// image acquired but never presented (GUIDE section 2: "never re-acquire with the same
    /// semaphore while it is pending"; a binary semaphore's signal must be waited on before it
    /// can be signalled again, VUID-vkAcquireNextImageKHR-semaphore-01286).
    fn consume(&mut self, semaphore: vk::Semaphore) -> Result<()> {
        let fence = self.fences.take(&self.device, &self.namer)?;
        let waits = [semaphore];
        let stages = [vk::PipelineStageFlags::ALL_COMMANDS];
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages);
        // SAFETY: the semaphore has a pending signal from a successful acquire and no wait yet;
        // the fence is unsignalled and unused.
        if let Err(e) = unsafe { self.device.queue_submit(self.queue, &[submit], fence) } {
            self.fences.untake(fence);
            return Err(Error::vk("vkQueueSubmit", e));
        }
        let serial = self.take_serial();
        self.fences.submitted(serial, fence);
        self.core.consume_submitted(semaphore, serial)?;
        Ok(())
    }

    /// Creates a swapchain for the surface's current state, retiring the old one. Returns
    /// `Ok(false)` when the surface has zero extent (minimized): nothing is created.
    fn recreate(&mut self) -> Result<bool> {
        // SAFETY: valid physical device and surface (constructor contract).
        let caps = unsafe {
            self.surface_fn
                .get_physical_device_surface_capabilities(self.physical, self.surface)
        }
        .during("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")?;
        let extent = if caps.current_extent.width == u32::MAX
            && self.wanted_extent.width * self.wanted_extent.height == 0
        {
            // The application chooses the extent and asked for none (minimized).
            vk::Extent2D::default()
        } else if caps.current_extent.width == u32::MAX {
            vk::Extent2D {
                width: self
                    .wanted_extent
                    .width
                    .clamp(caps.min_image_extent.width, caps.max_image_extent.width),
                height: self
                    .wanted_extent
                    .height
                    .clamp(caps.min_image_extent.height, caps.max_image_extent.height),
            }
        } else {
            caps.current_extent
        };
        if extent.width == 0 || extent.height == 0 {
            // VUID-VkSwapchainCreateInfoKHR-imageExtent-01689: a zero extent cannot be created.
            self.needs_recreate = true;
            return Ok(false);
        }
        let (format, color_space) = self.choose_format()?;
        let present_mode = self.choose_present_mode()?;
        let mut min_images = caps.min_image_count + self.config.extra_images;
        if caps.max_image_count != 0 {
            min_images = min_images.min(caps.max_image_count);
        }
        let composite = [
            vk::CompositeAlphaFlagsKHR::OPAQUE,
            vk::CompositeAlphaFlagsKHR::INHERIT,
            vk::CompositeAlphaFlagsKHR::PRE_MULTIPLIED,
            vk::CompositeAlphaFlagsKHR::POST_MULTIPLIED,
        ]
        .into_iter()
        .find(|c| caps.supported_composite_alpha.contains(*c))
        .unwrap_or(vk::CompositeAlphaFlagsKHR::OPAQUE);
        let old = match (&self.current, self.current_retired) {
            (Some(live), false) => live.handle,
            _ => vk::SwapchainKHR::null(),
        };
        // maintenance1: the modes this swapchain may switch to per present.
        let mut compatible = Vec::new();
        if let Some(m1) = &self.m1 {
            let offered = self.surface_present_modes()?;
            // SAFETY: valid handles; the instance enabled the maintenance1 instance extensions
            // (`swapchain_maintenance1` contract).
            compatible = unsafe {
                compatible_present_modes(&m1.caps2, self.physical, self.surface, present_mode)
            }?;
            compatible.retain(|m| offered.contains(m));
        }
        let mut modes_info =
            vk::SwapchainPresentModesCreateInfoEXT::default().present_modes(&compatible);
        let flags = if self.config.deferred_memory_allocation {
            vk::SwapchainCreateFlagsKHR::DEFERRED_MEMORY_ALLOCATION_EXT
        } else {
            vk::SwapchainCreateFlagsKHR::empty()
        };
        let mut info = vk::SwapchainCreateInfoKHR::default()
            .flags(flags)
            .surface(self.surface)
            .min_image_count(min_images)
            .image_format(format)
            .image_color_space(color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(self.config.image_usage & caps.supported_usage_flags)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(composite)
            .present_mode(present_mode)
            .clipped(true)
            .old_swapchain(old);
        if !compatible.is_empty() {
            // VUID-VkSwapchainPresentModesCreateInfoEXT-presentMode-07764: includes
            // `present_mode`, and all are compatible with it (queried above).
            info = info.push_next(&mut modes_info);
        }
        self.release_held_image(old)?;
        if let Some(display) = self.display.as_mut() {
            // From here `old` is retired, even if creation fails: no more waits on it.
            display.retired();
        }
        // SAFETY: `old` is the non-retired current swapchain of this surface or null
        // (VUID-VkSwapchainCreateInfoKHR-oldSwapchain-01933); the other fields were checked
        // against the surface capabilities just queried.
        let handle = match unsafe { self.swapchain_fn.create_swapchain(&info, None) } {
            Ok(h) => h,
            Err(e) => {
                // The old swapchain is retired even though creation failed: an image held from
                // it must not be rendered to any more; consume its acquire semaphore.
                self.current_retired = self.current.is_some();
                if let Some(f) = self.frame_fence.take() {
                    self.fences.untake(f);
                }
                if let Some(sem) = self.core.release_held() {
                    self.consume(sem)?;
                }
                return Err(Error::vk("vkCreateSwapchainKHR", e));
            }
        };
        self.stats.swapchains_created += 1;
        let generation = self.stats.swapchains_created;
        self.namer.name(handle, || {
            format!("vkpace swapchain (generation {generation})")
        });
        let live = match self.make_live(handle, extent, format, present_mode) {
            Ok(l) => l,
            Err(e) => {
                // SAFETY: just created, never used.
                unsafe { self.swapchain_fn.destroy_swapchain(handle, None) };
                self.current_retired = self.current.is_some();
                return Err(e);
            }
        };
        let image_count = u32::try_from(live.images.len()).unwrap_or(u32::MAX);
        if let Some(f) = self.frame_fence.take() {
            // A held frame's fence was never submitted.
            self.fences.untake(f);
        }
        if self
            .current
            .as_ref()
            .is_some_and(|l| l.present_mode != present_mode)
        {
            // A present-mode change that needed a new swapchain.
            self.stats.present_mode_switches += 1;
        }
        let consume = self.core.swapchain_created(handle, image_count)?;
        if let Some(old_live) = self.current.replace(live) {
            self.retired_views.push((old_live.handle, old_live.images));
        }
        self.current_retired = false;
        self.needs_recreate = false;
        self.stats.image_count = image_count;
        self.compatible_modes = compatible;
        self.next_present_mode = None;
        if let Some(sem) = consume {
            self.consume(sem)?;
        }
        self.carry_out_actions()?;
        if let Some(serial) = self.core.retired_over_cap() {
            self.fallback_wait(serial)?;
        }
        Ok(true)
    }

    /// Too many retired swapchains: the bounded fallback. The fence wait is bounded by
    /// `wait_timeout`; after it every submission is complete, so the queue holds only present
    /// operations whose semaphores are already signalled, and `vkQueueWaitIdle` returns as soon
    /// as the engine has taken them. This is the only place outside teardown that idles the
    /// queue, and it runs only past the cap.
    ///
    /// What the wait proves is an assumption, not a spec rule: the spec defines
    /// `vkQueueWaitIdle` as "equivalent to having submitted a valid fence to every previously
    /// executed queue submission command that accepts a fence", and `vkQueuePresentKHR` accepts
    /// none without maintenance1. ANGLE relies on the same wait here, and the validation layer
    /// treats it as retiring present waits; the maintenance1 path avoids it (present fences).
    fn fallback_wait(&mut self, serial: Serial) -> Result<()> {
        if self.m1.is_some() {
            // maintenance1: wait (bounded) for the retired swapchains' own present fences.
            let ids: Vec<u64> = self.core.retired_present_fences().collect();
            match self
                .present_fences
                .wait(&self.device, ids.into_iter(), self.config.wait_timeout)
            {
                Ok(()) => {}
                Err(Error::Timeout { .. }) => log::warn!(
                    "vkpace: present fences of retired swapchains did not signal within {:?}; \
                     falling back to the queue-idle proof (the fences are destroyed at teardown)",
                    self.config.wait_timeout
                ),
                Err(e) => return Err(e),
            }
            self.poll_completions(self.now_ns())?;
            if self.core.retired_over_cap().is_none() {
                return Ok(());
            }
        }
        self.wait_serial(serial)?;
        // SAFETY: the queue is externally synchronized with our calls (constructor contract).
        unsafe { self.device.queue_wait_idle(self.queue) }.during("vkQueueWaitIdle")?;
        self.core.fallback_waited(serial)?;
        self.carry_out_actions()
    }

    fn make_live(
        &mut self,
        handle: vk::SwapchainKHR,
        extent: vk::Extent2D,
        format: vk::Format,
        present_mode: vk::PresentModeKHR,
    ) -> Result<Live> {
        // SAFETY: `handle` was just created on this device.
        let images = unsafe { self.swapchain_fn.get_swapchain_images(handle) }
            .during("vkGetSwapchainImagesKHR")?;
        let mut live = Live {
            handle,
            images: images
                .into_iter()
                .map(|image| LiveImage {
                    image,
                    view: vk::ImageView::null(),
                })
                .collect(),
            extent,
            format,
            present_mode,
        };
        let generation = self.stats.swapchains_created;
        for (i, image) in live.images.iter().enumerate() {
            self.namer.name(image.image, || {
                format!("vkpace swapchain image {i} (generation {generation})")
            });
        }
        if self.config.deferred_memory_allocation {
            // Views are made at each image's first acquire (`ensure_view`).
            return Ok(live);
        }
        for i in 0..live.images.len() {
            match self.make_view(live.images[i].image, format, i) {
                Ok(v) => live.images[i].view = v,
                Err(e) => {
                    for made in &live.images[..i] {
                        // SAFETY: created above and never used.
                        unsafe { self.device.destroy_image_view(made.view, None) };
                    }
                    return Err(e);
                }
            }
        }
        Ok(live)
    }

    fn make_view(&self, image: vk::Image, format: vk::Format, i: usize) -> Result<vk::ImageView> {
        let info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: 0,
                level_count: 1,
                base_array_layer: 0,
                layer_count: 1,
            });
        // SAFETY: `image` is a swapchain image of this device with this format, bound to
        // memory (created without deferred allocation, or acquired at least once).
        let view =
            unsafe { self.device.create_image_view(&info, None) }.during("vkCreateImageView")?;
        let generation = self.stats.swapchains_created;
        self.namer.name(view, || {
            format!("vkpace image view {i} (generation {generation})")
        });
        Ok(view)
    }

    /// maintenance1: gives an acquired, never-submitted image of `swapchain` back to the
    /// engine before the swapchain is retired (`vkReleaseSwapchainImagesEXT`; no device work used
    /// it, VUID-VkReleaseSwapchainImagesInfoEXT-pImageIndices-07786). Its acquire semaphore is
    /// still consumed by the core's usual empty submission.
    fn release_held_image(&mut self, swapchain: vk::SwapchainKHR) -> Result<()> {
        let (Some(m1), Some(held)) = (&self.m1, self.core.frame()) else {
            return Ok(());
        };
        if held.submitted.is_some() || swapchain == vk::SwapchainKHR::null() {
            return Ok(());
        }
        let indices = [held.image];
        let info = vk::ReleaseSwapchainImagesInfoEXT::default()
            .swapchain(swapchain)
            .image_indices(&indices);
        // SAFETY: the image was acquired from `swapchain` and not presented or used
        // (VUID-VkReleaseSwapchainImagesInfoEXT-pImageIndices-07785/07786).
        unsafe { m1.swapchain.release_swapchain_images(&info) }
            .during("vkReleaseSwapchainImagesEXT")
    }

    fn choose_format(&self) -> Result<(vk::Format, vk::ColorSpaceKHR)> {
        if let Some(l) = &self.current {
            // Keep the format across recreations so pipelines stay valid.
            return Ok((l.format, vk::ColorSpaceKHR::SRGB_NONLINEAR));
        }
        // SAFETY: valid physical device and surface.
        let formats = unsafe {
            self.surface_fn
                .get_physical_device_surface_formats(self.physical, self.surface)
        }
        .during("vkGetPhysicalDeviceSurfaceFormatsKHR")?;
        self.config
            .preferred_formats
            .iter()
            .find_map(|want| {
                formats.iter().find(|f| {
                    f.format == *want && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR
                })
            })
            .or_else(|| formats.first())
            .map(|f| (f.format, f.color_space))
            .ok_or(Error::NoSurfaceFormat)
    }

    fn choose_present_mode(&self) -> Result<vk::PresentModeKHR> {
        // SAFETY: valid physical device and surface.
        let modes = unsafe {
            self.surface_fn
                .get_physical_device_surface_present_modes(self.physical, self.surface)
        }
        .during("vkGetPhysicalDeviceSurfacePresentModesKHR")?;
        Ok(if modes.contains(&self.config.present_mode) {
            self.config.present_mode
        } else {
            // FIFO is the one mode every surface must support.
            vk::PresentModeKHR::FIFO
        })
    }

    /// Carries out the core's decisions: destroy what is provably idle.
    ///
    /// Called twice per frame, nearly always with nothing to do: only the check is inlined
    /// into the frame path, the loop is out of line.
    #[inline(always)]
    fn carry_out_actions(&mut self) -> Result<()> {
        if self.core.has_actions() {
            cold_path();
            self.carry_out_pending_actions()
        } else {
            Ok(())
        }
    }

    #[cold]
    #[inline(never)]
    fn carry_out_pending_actions(&mut self) -> Result<()> {
        while let Some(action) = self.core.poll_action() {
            match action {
                Action::DestroySemaphore(s) => {
                    // SAFETY: the core proved no signal or wait on `s` is pending
                    // (VUID-vkDestroySemaphore-semaphore-01137).
                    unsafe { self.device.destroy_semaphore(s, None) };
                    self.stats.semaphores_alive -= 1;
                }
                Action::DestroySwapchain(handle) => {
                    let images = match self.retired_views.iter().position(|(h, _)| *h == handle) {
                        Some(i) => self.retired_views.swap_remove(i).1,
                        None => match self.current.take_if(|l| l.handle == handle) {
                            Some(l) => l.images,
                            None => Vec::new(),
                        },
                    };
                    let views = images.into_iter().map(|i| i.view);
                    for v in views.filter(|v| *v != vk::ImageView::null()) {
                        // SAFETY: the swapchain is idle, so no command using its views is
                        // pending.
                        unsafe { self.device.destroy_image_view(v, None) };
                    }
                    // SAFETY: the core proved every present to it was processed and every
                    // submission using its images completed
                    // (VUID-vkDestroySwapchainKHR-swapchain-01282).
                    unsafe { self.swapchain_fn.destroy_swapchain(handle, None) };
                }
            }
        }
        Ok(())
    }

    /// Releases everything: waits (bounded) for vkpace's own submissions, then for the queue to
    /// finish its presents, then destroys. On a timeout the objects are left alive (leaked
    /// rather than destroyed while in use) and the error says so. `Drop` calls this and logs.
    pub fn destroy(mut self) -> Result<()> {
        self.teardown()
    }

    fn teardown(&mut self) -> Result<()> {
        if self.destroyed {
            return Ok(());
        }
        self.destroyed = true;
        if let Some(sem) = self.core.release_held() {
            self.consume(sem)?;
        }
        if let Some(f) = self.frame_fence.take() {
            self.fences.untake(f);
        }
        if let Some(last) = self.fences.last_pending() {
            self.wait_serial(last)?;
        }
        if self.m1.is_some() {
            // maintenance1: the present fences prove every present done.
            let ids: Vec<u64> = self.core.tracked_present_fences().collect();
            if let Err(e) =
                self.present_fences
                    .wait(&self.device, ids.into_iter(), self.config.wait_timeout)
            {
                log::error!(
                    "vkpace: present fences did not signal at teardown ({e}); the swapchain, its \
                     semaphores and fences are left alive rather than destroyed while in use"
                );
                return Err(e);
            }
            self.poll_completions(self.now_ns())?;
        }
        // Teardown is the one place a queue-wide wait is allowed (never per frame or on
        // resize). Without present fences nothing else proves the engine consumed the last
        // presents' waits; as in `fallback_wait`, that the idle wait covers presents is an
        // assumption shared with ANGLE and the validation layer, not a spec guarantee.
        // With maintenance1 the present fences above already prove it, but the validation
        // layer (1.3.239) learns that a submission completed from vkGetFenceStatus on a worker
        // thread of its own: a semaphore destroyed right after can race that bookkeeping and be
        // reported in use (VUID-vkDestroySemaphore-semaphore-01137, seen once in CI). The idle
        // wait makes the layer retire everything before anything is destroyed.
        // SAFETY: externally synchronized queue (constructor contract).
        unsafe { self.device.queue_wait_idle(self.queue) }.during("vkQueueWaitIdle")?;
        self.core.shutdown_waited()?;
        self.carry_out_actions()?;
        self.fences.destroy(&self.device);
        if let Some(mut timer) = self.gpu_timer.take() {
            // SAFETY: the queue is idle, so none of the timer's command buffers is pending.
            unsafe { timer.destroy(&self.device) };
        }
        // Fences the core no longer tracks (of presents proven by the queue-idle fallback, or
        // failed ones) are destroyed too: the idle wait ended their use.
        self.present_fences.destroy(&self.device);
        Ok(())
    }
}

impl Drop for Swapchain {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            log::error!("vkpace: swapchain teardown failed, Vulkan objects left alive: {e}");
        }
    }
}
