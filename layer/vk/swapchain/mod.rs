//! [`Swapchain`]: the public face of vkpace. Each call starts an operation of the core's frame
//! machine and carries out its requests through the [`Shell`] until the operation ends.

mod create;
mod frame_path;
mod getters;
mod settings;

use std::sync::atomic::{AtomicU64, Ordering};

use ash::vk;

use super::config::{SwapchainConfig, SwapchainCreateDesc};
use super::error::{Error, Result, VkContext};
use super::frame::{Acquired, Frame, Presented, SubmittedFrame};
use super::gpu_timer::GpuTimer;
use super::shell::{Shell, SubmitSignals};
use super::submission::{RendererTiming, Submission};
use vkpace_core::{
    Extent, FrameMachine, FrameTimes, MachineConfig, PresentMode, PresentStatus, Request,
    SurfaceFormat, SurfaceWishes, SwapchainStats,
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
/// # fn frame_loop(desc: vkpace::SwapchainCreateDesc,
/// #     record: impl Fn(&vkpace::Frame) -> vk::CommandBuffer) -> Result<(), vkpace::Error> {
/// use vkpace::{Acquired, Submission, Swapchain};
/// // SAFETY: the handles in `desc` are valid, its queue belongs to its family, and they
/// // outlive the swapchain.
/// let mut swapchain = unsafe { Swapchain::new(desc)? };
/// for _ in 0..100 {
///     match swapchain.acquire()? {
///         Acquired::Frame(frame) => {
///             let cmd = record(&frame); // writes frame.image(), leaves it in PRESENT_SRC_KHR
///             // SAFETY: `cmd` is a valid, recorded command buffer of the queue's family, not
///             // pending, and stays valid until the frame's token is reached.
///             let work = [cmd];
///             let stage = vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT;
///             let submitted =
///                 unsafe { swapchain.submit(frame, Submission::command_buffers(&work, stage))? };
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
    /// the device enabled the extension [`super::Support::device_extensions`] lists for it,
    /// `config.paths.present_wait` only
    /// with the `presentId` and `presentWait` features, `config.paths.present_wait2` only with the
    /// `presentId2` and `presentWait2` features (VUID-vkWaitForPresent2KHR-presentWait2-10814),
    /// `config.paths.swapchain_maintenance1` only with the instance extensions and the
    /// `swapchainMaintenance1` feature (the device extensions themselves vkpace checks, with a
    /// typed error, as it checks `VK_EXT_hdr_metadata` for `config.hdr_metadata`),
    /// `config.completion = TimelineSemaphore` only if the device enabled the
    /// `timelineSemaphore` feature (VUID-VkSemaphoreTypeCreateInfo-timelineSemaphore-03252).
    pub unsafe fn new(mut desc: SwapchainCreateDesc<'_>) -> Result<Self> {
        // From here on the display options say what this swapchain takes, not what the
        // device enabled.
        desc.config.paths.narrow(desc.config.display)?;
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
        if config.deferred_memory_allocation && config.paths.swapchain_maintenance1.is_none() {
            return Err(Error::InvalidConfig(
                "deferred_memory_allocation needs swapchain_maintenance1",
            ));
        }
        // The settings are checked before any Vulkan object is made, so a bad one leaks nothing.
        let asked = config.paths.may_carry_present_ids();
        Machine::new(Self::machine_config(
            config,
            None,
            asked,
            config.paths.present_timing,
        )?)?;
        // SAFETY: caller contract (handles valid; options only where enabled).
        let shell = unsafe { Shell::new(&desc, surface_fn) }?;
        let timed = shell.present_timing_in_use().is_some();
        let present_ids = shell.carries_ids();
        let machine_config = Self::machine_config(config, shell.timer(), present_ids, timed)?;
        let mut s = Self {
            machine: Machine::new(machine_config)?,
            shell,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            destroyed: false,
        };
        // Setup: on failure, Drop releases what was made.
        let now = s.shell.now_ns();
        s.drive(now)?;
        Ok(s)
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
        self.destroyed = true;
        let now = self.shell.now_ns();
        self.machine.begin_shutdown(now);
        self.drive(now)?;
        // SAFETY: every submission of vkpace's completed: the teardown above waited for them.
        unsafe { self.shell.destroy_timer_and_timeline() };
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
