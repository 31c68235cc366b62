//! [`PresentPacer`]: the second door. It paces swapchains the application owns, with one
//! replacement per swapchain call the engine already makes (create, acquire, present, destroy),
//! taking the same Vulkan structures and returning the driver's results unchanged.

mod acquire;
mod call;
mod call_state;
mod call_steps;
mod chain_walk;
mod config;
mod create;
mod display_watch;
mod fences;
mod pause;
mod present;
mod present_call;
mod present_plan;
mod teardown;
mod timing;
mod waits;

use std::sync::Arc;

use ash::vk;

pub use call::{CallsDown, CallsMade, PacerCall};
pub use config::{PresentPacerConfig, PresentPacerDesc};

use super::clock::Clock;
use super::display::{DisplayFns, TimingShell};
use super::error::{Error, Result};
use super::frame_limit::FrameLimit;
use super::swapchain_info::Setting;
use fences::Fences;
use vkpace_core::{FrameTimes, PacerConfig, PacerMachine, PresentPacerStats};

type Machine = PacerMachine<vk::Semaphore, vk::SwapchainKHR>;

/// Paces swapchains the application creates and presents itself: replace
/// `vkCreateSwapchainKHR`, `vkAcquireNextImageKHR` (or `2KHR`), `vkQueuePresentKHR` and
/// `vkDestroySwapchainKHR` with the pacer's methods of the same name and arguments. Results are
/// the driver's, so an engine's `match` on `ERROR_OUT_OF_DATE_KHR` or `SUBOPTIMAL_KHR` stays as
/// it is. The plain methods sleep and wait for the pacing inside the call; a caller that shares
/// one pacer between threads behind a lock runs the same calls in steps ([`PacerCall`]), which
/// sleep, wait and call the driver with the lock released.
///
/// # Example
///
/// ```no_run
/// # use ash::vk;
/// # unsafe fn engine(desc: vkpace::PresentPacerDesc, info: &vk::SwapchainCreateInfoKHR,
/// #     acquired: vk::Semaphore, rendered: vk::Semaphore,
/// #     render: impl Fn(u32)) -> Result<(), Box<dyn std::error::Error>> {
/// use vkpace::PresentPacer;
/// let queue = desc.queue;
/// // SAFETY: the handles in `desc` are valid and outlive the pacer.
/// let mut pacer = unsafe { PresentPacer::new(desc)? };
/// // SAFETY: `info` is valid for the device, as for vkCreateSwapchainKHR.
/// let swapchain = unsafe { pacer.create_swapchain(info, None)? };
/// for _ in 0..100 {
///     // SAFETY: as vkAcquireNextImageKHR's valid usage.
///     let (image, _suboptimal) =
///         unsafe { pacer.acquire_next_image(swapchain, u64::MAX, acquired, vk::Fence::null())? };
///     render(image); // waits on `acquired`, signals `rendered`, on `queue`
///     let (swapchains, images, waits) = ([swapchain], [image], [rendered]);
///     let present = vk::PresentInfoKHR::default()
///         .wait_semaphores(&waits)
///         .swapchains(&swapchains)
///         .image_indices(&images);
///     // SAFETY: as vkQueuePresentKHR's valid usage.
///     match unsafe { pacer.queue_present(queue, &present) } {
///         Ok(_) | Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {}
///         Err(e) => return Err(e.into()),
///     }
/// }
/// // SAFETY: the swapchain was made by the pacer; the surface may be destroyed after this.
/// unsafe { pacer.destroy_swapchain(swapchain, None) };
/// // SAFETY: no call of the pacer is in progress; its objects are no longer used.
/// unsafe { pacer.destroy()? };
/// # Ok(()) }
/// ```
///
/// # Drop
///
/// End a pacer with [`Self::destroy`]. Dropping it without that leaks its Vulkan objects (its
/// repair semaphores, present fences and the swapchains whose destruction it deferred): they
/// may still be in use by the GPU or the presentation engine, and freeing them needs bounded
/// waits on a device that must still be valid, which only the `unsafe` `destroy` can promise.
/// The drop logs a warning (`log`) saying so.
pub struct PresentPacer {
    /// The handles it calls down with, shared with its calls' steps.
    vk: Arc<Driver>,
    /// The settings it was made with. The pacing settings changed since ([`Self::set`]) live
    /// in the machine alone: the frame limit, policy and frames in flight are held once.
    config: PresentPacerConfig,
    machine: Machine,
    fences: Fences,
    /// The swapchains made through the pacer and not yet destroyed by it.
    swapchains: Vec<Made>,
    /// Reused by every present, so a steady frame does not allocate.
    scratch: present::Scratch,
    /// What was already said in the log once.
    logged: Logged,
    /// Pauses carried out, by where.
    pauses: pause::DownCounts,
    /// Calls down that may block, by where.
    calls_down: pause::DownCounts,
    /// Tells its [`PacerCall`]s' steps apart from another pacer's.
    id: u64,
    /// The repair submission's fence of a present planned and not yet reported (it left the
    /// pool with the plan): where the report never comes, the teardown destroys it.
    unreported_repair: Option<vk::Fence>,
    destroyed: bool,
}

/// The handles a pacer calls down with: a plan hands them to its calls down
/// ([`CallsDown`]), which run without the pacer (and the caller's lock).
struct Driver {
    entry: ash::Entry,
    instance: ash::Instance,
    physical_device: vk::PhysicalDevice,
    device: ash::Device,
    swapchain_fn: ash::khr::swapchain::Device,
    queue: vk::Queue,
    clock: Clock,
    /// The presentation paths the device enabled.
    paths: super::EnabledPaths,
}

/// What the shell keeps of a swapchain it made.
struct Made {
    handle: vk::SwapchainKHR,
    /// Display feedback chosen for its surface, if any.
    display: Option<DisplayFns>,
    /// Present timing, where chosen for its surface and set up.
    timing: Option<TimingShell>,
    /// The application's allocation callbacks, for the deferred destroy
    /// (VUID-vkDestroySwapchainKHR-swapchain-01283).
    allocator: Option<vk::AllocationCallbacks<'static>>,
}

/// Things logged once per pacer.
#[derive(Debug, Default)]
struct Logged {
    unpaced: bool,
    other_queue: bool,
    gate_timeout: bool,
    destroy_timeout: bool,
    timing_taken_over: bool,
    timing_read: bool,
}

impl PresentPacer {
    /// Loads what the pacer calls and checks the configuration; makes no Vulkan object yet.
    ///
    /// # Safety
    ///
    /// The handles in `desc` must be valid, `device` created from `physical_device` with
    /// `VK_KHR_swapchain` enabled, `queue` a queue of family `queue_family` of `device`, and all
    /// of them must outlive the pacer. The queue must be externally synchronized with the
    /// pacer's calls (the pacer submits to it). The path flags of `desc.config` may be set only
    /// for what the device enabled ([`crate::Support::apply`] sets exactly those):
    /// `present_wait` with the `presentId` and `presentWait` features, `present_wait2` with
    /// `presentId2` and `presentWait2`, `swapchain_maintenance1` with the
    /// `swapchainMaintenance1` feature.
    pub unsafe fn new(mut desc: PresentPacerDesc<'_>) -> Result<Self> {
        desc.config.paths.narrow(desc.config.display)?;
        desc.config.pacing.check()?;
        let c = &desc.config;
        let machine = Machine::new(PacerConfig {
            pacing: c.pacing.core(),
            repair: c.repair_present_semaphores,
            present_fences: c.paths.swapchain_maintenance1.is_some(),
            present_ids: c.paths.may_carry_present_ids(),
        })?;
        let vk = Driver {
            entry: desc.entry.clone(),
            instance: desc.instance.clone(),
            physical_device: desc.physical_device,
            device: desc.device.clone(),
            swapchain_fn: ash::khr::swapchain::Device::new(desc.instance, desc.device),
            queue: desc.queue,
            clock: Clock::new(),
            paths: c.paths,
        };
        Ok(Self {
            vk: Arc::new(vk),
            config: desc.config,
            machine,
            fences: Fences::default(),
            swapchains: Vec::with_capacity(4),
            scratch: present::Scratch::default(),
            logged: Logged::default(),
            pauses: pause::DownCounts::default(),
            calls_down: pause::DownCounts::default(),
            id: call::next_id(),
            unreported_repair: None,
            destroyed: false,
        })
    }

    /// Changes a setting from the next frame on: [`Setting::FramesInFlight`],
    /// [`Setting::Pacing`], [`Setting::FrameLimit`]. The present mode is the application's
    /// (its create info): [`Setting::PresentMode`] is [`Error::InvalidConfig`].
    pub fn set(&mut self, setting: Setting) -> Result<()> {
        match setting {
            Setting::FramesInFlight(n) => self.machine.set_frames_in_flight(n)?,
            Setting::Pacing(policy) => self.machine.set_pacing(policy),
            Setting::FrameLimit(limit) => self.machine.set_frame_limit(limit.map(FrameLimit::core)),
            Setting::PresentMode(_) => {
                return Err(Error::InvalidConfig(
                    "the present mode of a swapchain the application owns is its create info's",
                ))
            }
        }
        Ok(())
    }

    /// The pacer's counters, over all its swapchains (one pacer serves every swapchain the
    /// application makes through it).
    pub fn stats(&self) -> PresentPacerStats {
        let mut stats = self.machine.stats();
        stats.fences_created = self.fences.pool.counts().created;
        stats.pauses_in_calls = self.pauses.in_calls;
        stats.pauses_between_calls = self.pauses.between_calls;
        stats.calls_down_in_calls = self.calls_down.in_calls;
        stats.calls_down_between_calls = self.calls_down.between_calls;
        stats
    }

    /// The recent frames' timelines of `swapchain`'s lineage (it and the swapchains it was
    /// recreated from), oldest first, at most [`crate::TELEMETRY_FRAMES`]; none for a swapchain
    /// not made through the pacer.
    pub fn telemetry(
        &self,
        swapchain: vk::SwapchainKHR,
    ) -> impl DoubleEndedIterator<Item = FrameTimes> + '_ {
        self.machine.telemetry(swapchain)
    }

    /// Carries out the machine's destructions.
    fn drain_actions(&mut self) {
        let doomed = self.doomed();
        // SAFETY: handed out by this pacer's machine, forgotten by the pacer.
        unsafe { self.vk.destroy(&doomed) };
    }

    /// A clock reading.
    fn now(&self) -> u64 {
        self.vk.clock.now_ns()
    }

    /// The bound of every wait, in ns.
    fn timeout_ns(&self) -> u64 {
        self.config.pacing.wait_timeout_ns()
    }

    /// Reports serials seen complete without blocking.
    fn poll_completion(&mut self) -> Result<()> {
        if let Some(done) = self.fences.poll_submitted(&self.vk.device)? {
            self.machine.serial_completed(done, self.now())?;
        }
        Ok(())
    }
}

impl std::fmt::Debug for PresentPacer {
    /// The state dump: completion, every swapchain's images and the repair semaphores they hold
    /// with what proves each free, the destroyed swapchains waiting for proof, the counters.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}", self.machine.debug_state())?;
        writeln!(f, "{:?}", self.stats())
    }
}

#[cfg(test)]
mod tests {
    /// An engine moves its pacer to its render thread, as it does its swapchain.
    #[test]
    fn the_pacer_can_move_between_threads() {
        fn send<T: Send>() {}
        send::<super::PresentPacer>();
    }
}
