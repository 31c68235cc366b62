//! [`PresentPacer`]: the second door. It paces swapchains the application owns, with one
//! replacement per swapchain call the engine already makes (create, acquire, present, destroy),
//! taking the same Vulkan structures and returning the driver's results unchanged.

mod config;

use ash::prelude::VkResult;
use ash::vk;

pub use config::{PresentPacerConfig, PresentPacerDesc};

use super::error::{Error, Result};
use super::swapchain_info::Setting;
use crate::core::{validate_frames_in_flight, FrameTimes, PresentPacerStats};

/// Paces swapchains the application creates and presents itself: replace
/// `vkCreateSwapchainKHR`, `vkAcquireNextImageKHR` (or `2KHR`), `vkQueuePresentKHR` and
/// `vkDestroySwapchainKHR` with the pacer's methods of the same name and arguments. Results are
/// the driver's, so an engine's `match` on `ERROR_OUT_OF_DATE_KHR` or `SUBOPTIMAL_KHR` stays as
/// it is.
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
pub struct PresentPacer {
    device: ash::Device,
    swapchain_fn: ash::khr::swapchain::Device,
    queue: vk::Queue,
    config: PresentPacerConfig,
    stats: PresentPacerStats,
    telemetry: Vec<FrameTimes>,
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
    /// for what the device enabled ([`crate::Support::apply`] sets exactly those).
    pub unsafe fn new(mut desc: PresentPacerDesc<'_>) -> Result<Self> {
        desc.config.resolve_display()?;
        validate_frames_in_flight(desc.config.frames_in_flight)?;
        let swapchain_fn = ash::khr::swapchain::Device::new(desc.instance, desc.device);
        Ok(Self {
            device: desc.device.clone(),
            swapchain_fn,
            queue: desc.queue,
            config: desc.config,
            stats: PresentPacerStats::default(),
            telemetry: Vec::new(),
        })
    }

    /// `vkCreateSwapchainKHR`, through the pacer: the swapchain is paced from its first
    /// present.
    ///
    /// # Safety
    ///
    /// As `vkCreateSwapchainKHR`: `info` valid for the pacer's device (its `old_swapchain`, if
    /// any, made through this pacer or not at all), `allocator` valid until the swapchain is
    /// destroyed.
    pub unsafe fn create_swapchain(
        &mut self,
        info: &vk::SwapchainCreateInfoKHR<'_>,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> VkResult<vk::SwapchainKHR> {
        // SAFETY: the caller's contract is vkCreateSwapchainKHR's.
        let made = unsafe { self.swapchain_fn.create_swapchain(info, allocator) }?;
        self.stats.swapchains_created += 1;
        Ok(made)
    }

    /// `vkAcquireNextImageKHR`, through the pacer: the frames-in-flight gate and the pacing
    /// sleep come first, then the driver's acquire with the caller's semaphore and fence.
    ///
    /// # Safety
    ///
    /// As `vkAcquireNextImageKHR`.
    pub unsafe fn acquire_next_image(
        &mut self,
        swapchain: vk::SwapchainKHR,
        timeout: u64,
        semaphore: vk::Semaphore,
        fence: vk::Fence,
    ) -> VkResult<(u32, bool)> {
        // SAFETY: the caller's contract is vkAcquireNextImageKHR's.
        let got = unsafe {
            self.swapchain_fn
                .acquire_next_image(swapchain, timeout, semaphore, fence)
        };
        self.stats.acquires += u64::from(got.is_ok());
        got
    }

    /// `vkAcquireNextImage2KHR`, through the pacer, as [`Self::acquire_next_image`].
    ///
    /// # Safety
    ///
    /// As `vkAcquireNextImage2KHR`.
    pub unsafe fn acquire_next_image2(
        &mut self,
        info: &vk::AcquireNextImageInfoKHR<'_>,
    ) -> VkResult<(u32, bool)> {
        // SAFETY: the caller's contract is vkAcquireNextImage2KHR's.
        let got = unsafe { self.swapchain_fn.acquire_next_image2(info) };
        self.stats.acquires += u64::from(got.is_ok());
        got
    }

    /// `vkQueuePresentKHR`, through the pacer: the caller's wait semaphores are consumed by an
    /// empty submission and the present waits on vkpace's semaphore instead (repair), present
    /// ids, targets and a present fence are added where enabled and not passed. The caller's
    /// structures are never written. Returns the driver's result unchanged.
    ///
    /// # Safety
    ///
    /// As `vkQueuePresentKHR`; `queue` must be the pacer's queue.
    pub unsafe fn queue_present(
        &mut self,
        queue: vk::Queue,
        info: &vk::PresentInfoKHR<'_>,
    ) -> VkResult<bool> {
        // SAFETY: the caller's contract is vkQueuePresentKHR's.
        let result = unsafe { self.swapchain_fn.queue_present(queue, info) };
        self.stats.presents += 1;
        result
    }

    /// `vkDestroySwapchainKHR`, through the pacer: the destruction is deferred until the
    /// swapchain is provably idle; one without a successor is destroyed (after a bounded wait)
    /// before this returns, so the surface may be destroyed next
    /// (VUID-vkDestroySurfaceKHR-surface-01266).
    ///
    /// # Safety
    ///
    /// As `vkDestroySwapchainKHR`, except that the swapchain's presents may still be pending;
    /// `allocator` must stay valid until the pacer destroys the swapchain (at the latest in
    /// [`Self::destroy`]; VUID-vkDestroySwapchainKHR-swapchain-01283).
    pub unsafe fn destroy_swapchain(
        &mut self,
        swapchain: vk::SwapchainKHR,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) {
        // SAFETY: the caller's contract.
        unsafe { self.swapchain_fn.destroy_swapchain(swapchain, allocator) };
        self.stats.swapchains_destroyed += 1;
    }

    /// Changes a setting from the next frame on: [`Setting::FramesInFlight`],
    /// [`Setting::Pacing`], [`Setting::FrameLimit`]. The present mode is the application's
    /// (its create info): [`Setting::PresentMode`] is [`Error::InvalidConfig`].
    pub fn set(&mut self, setting: Setting) -> Result<()> {
        match setting {
            Setting::FramesInFlight(n) => {
                self.config.frames_in_flight = validate_frames_in_flight(n)?;
            }
            Setting::Pacing(policy) => self.config.pacing = policy,
            Setting::FrameLimit(limit) => self.config.frame_limit = limit,
            Setting::PresentMode(_) => {
                return Err(Error::InvalidConfig(
                    "the present mode of a swapchain the application owns is its create info's",
                ))
            }
        }
        Ok(())
    }

    /// The pacer's counters, over all its swapchains.
    pub fn stats(&self) -> PresentPacerStats {
        self.stats
    }

    /// The recent frames' timelines of `swapchain`, oldest first (at most
    /// [`crate::TELEMETRY_FRAMES`]); none for a swapchain not made through the pacer.
    pub fn telemetry(
        &self,
        swapchain: vk::SwapchainKHR,
    ) -> impl DoubleEndedIterator<Item = FrameTimes> + '_ {
        let _ = swapchain;
        self.telemetry.iter().copied()
    }

    /// Destroys vkpace's objects and every swapchain whose destruction was deferred, after
    /// bounded waits.
    ///
    /// # Safety
    ///
    /// The pacer's device and queue are still valid; the application's swapchains are no
    /// longer used.
    pub unsafe fn destroy(self) -> Result<()> {
        let _ = (&self.device, self.queue);
        Ok(())
    }
}

impl std::fmt::Debug for PresentPacer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PresentPacer")
            .field("queue", &self.queue)
            .field("config", &self.config)
            .field("stats", &self.stats)
            .finish_non_exhaustive()
    }
}
