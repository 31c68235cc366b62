//! The pacer shared between threads behind the caller's lock (a drop-in layer's one pacer per
//! device, an engine that acquires and presents from several threads): the swapchain command
//! replacements reach the pacer only through the caller's accessor, and sleep, wait and call
//! the driver between two of its runs, with the lock released. The steps are the plain
//! methods' ones ([`super::pause`], [`super::present`], [`super::waits`], the creation and
//! destruction in `create.rs`); only who holds the pacer between them differs.

use ash::prelude::VkResult;
use ash::vk;

use super::pause::{borrowed, through};
use super::PresentPacer;

impl PresentPacer {
    /// [`Self::queue_present`] for a pacer shared between threads: `with` runs its argument
    /// on the pacer under the caller's lock (or not at all, where there is no pacer any more).
    /// The present is planned in one run of `with` and reported in another; between them the
    /// repair submission and the driver's present are made without the pacer, and after them
    /// the pacing of the next frame (the frame limit's sleep, the frames-in-flight gate's
    /// bounded GPU wait) is carried out between runs, so another thread's call of the pacer
    /// is not held up by any of it. Returns `None` where `with` had no pacer when the present
    /// was planned: the caller then presents through the driver itself (once presented, the
    /// driver's result is returned even if the pacer went away meanwhile).
    ///
    /// The calls down are made without the lock because the application externally
    /// synchronizes the present's queue, its swapchains and its wait semaphores for the whole
    /// call (the spec's host synchronization list for `vkQueuePresentKHR`): no other thread's
    /// call of the pacer submits to that queue (a destruction's proof submission waits until
    /// no present is in flight) or uses those swapchains, and the repair semaphore, its fence,
    /// the present fences and the arrays the present reads were taken out of the pacer's pools
    /// when it was planned.
    ///
    /// Between two runs of `with` another thread may use the pacer: the machine is asked again
    /// after every pause (a frame another thread began meanwhile is not paced twice). A GPU
    /// wait is on one of the pacer's fences, which it lends out: it is not reset, reused or
    /// destroyed until the wait is reported (`vkResetFences` needs its fences externally
    /// synchronized; `vkWaitForFences` does not).
    ///
    /// # Example
    ///
    /// ```no_run
    /// # use ash::vk;
    /// use std::sync::Mutex;
    /// use vkpace::PresentPacer;
    /// # unsafe fn present(shared: &Mutex<Option<PresentPacer>>, queue: vk::Queue,
    /// #     info: &vk::PresentInfoKHR<'_>, driver: impl Fn() -> vk::Result) -> vk::Result {
    /// let with = |f: &mut dyn FnMut(&mut PresentPacer)| {
    ///     if let Some(pacer) = shared.lock().unwrap().as_mut() {
    ///         f(pacer);
    ///     }
    /// };
    /// // SAFETY: as vkQueuePresentKHR's valid usage.
    /// match unsafe { PresentPacer::queue_present_shared(queue, info, with) } {
    ///     Some(Ok(false)) => vk::Result::SUCCESS,
    ///     Some(Ok(true)) => vk::Result::SUBOPTIMAL_KHR,
    ///     Some(Err(e)) => e,
    ///     None => driver(), // no pacer: the present as the application made it
    /// }
    /// # }
    /// ```
    ///
    /// # Safety
    ///
    /// As [`Self::queue_present`]. Each call of `with` runs its argument at most once, on the
    /// same pacer every time (a GPU wait gives the fence back to the pacer that lent it).
    pub unsafe fn queue_present_shared(
        queue: vk::Queue,
        info: &vk::PresentInfoKHR<'_>,
        mut with: impl FnMut(&mut dyn FnMut(&mut PresentPacer)),
    ) -> Option<VkResult<bool>> {
        // SAFETY: the caller's contract.
        let (result, next) = unsafe { Self::present_through(queue, info, &mut with) }?;
        if let Some(w) = next {
            Self::pace_through(w, &mut with);
        }
        Some(result)
    }

    /// [`Self::acquire_next_image`] for a pacer shared between threads, as
    /// [`Self::queue_present_shared`]: the pacing first, between runs of `with`, then the
    /// driver's acquire outside `with`, then its result told to the pacer in one more run.
    /// The acquire blocks until an image is free (up to its timeout): made under the caller's
    /// lock, every other thread's call on the pacer (another swapchain's acquire or present)
    /// would wait as long. Nothing of the pacer's is used meanwhile: the
    /// application externally synchronizes the swapchain, the semaphore and the fence of
    /// `vkAcquireNextImageKHR` (the spec's host synchronization list for the command; sid's
    /// validation reports an overlapping present of the same swapchain as a threading error),
    /// and the pacer learns of the image before the caller can present
    /// it. `None`: `with` had no pacer for the acquire (the caller acquires through the driver).
    ///
    /// # Safety
    ///
    /// As [`Self::acquire_next_image`] and [`Self::queue_present_shared`].
    pub unsafe fn acquire_next_image_shared(
        swapchain: vk::SwapchainKHR,
        timeout: u64,
        semaphore: vk::Semaphore,
        fence: vk::Fence,
        mut with: impl FnMut(&mut dyn FnMut(&mut PresentPacer)),
    ) -> Option<VkResult<(u32, bool)>> {
        Self::pace_through(swapchain, &mut with);
        let driver = through(&mut with, |p| p.swapchain_fn.clone())?;
        // SAFETY: the caller's contract is vkAcquireNextImageKHR's.
        let got = unsafe { driver.acquire_next_image(swapchain, timeout, semaphore, fence) };
        let in_call = borrowed();
        let _ = through(&mut with, |p| p.record_acquire(swapchain, &got, in_call));
        Some(got)
    }

    /// [`Self::acquire_next_image2`] for a pacer shared between threads, as
    /// [`Self::acquire_next_image_shared`].
    ///
    /// # Safety
    ///
    /// As [`Self::acquire_next_image2`] and [`Self::queue_present_shared`].
    pub unsafe fn acquire_next_image2_shared(
        info: &vk::AcquireNextImageInfoKHR<'_>,
        mut with: impl FnMut(&mut dyn FnMut(&mut PresentPacer)),
    ) -> Option<VkResult<(u32, bool)>> {
        Self::pace_through(info.swapchain, &mut with);
        let driver = through(&mut with, |p| p.swapchain_fn.clone())?;
        // SAFETY: the caller's contract is vkAcquireNextImage2KHR's.
        let got = unsafe { driver.acquire_next_image2(info) };
        let in_call = borrowed();
        let _ = through(&mut with, |p| {
            p.record_acquire(info.swapchain, &got, in_call)
        });
        Some(got)
    }

    /// [`Self::create_swapchain`] for a pacer shared between threads, as
    /// [`Self::queue_present_shared`]: what the driver's calls need is copied out of the
    /// pacer in one run of `with`; the display paths' surface queries, the driver's
    /// `vkCreateSwapchainKHR` and the present timing set-up are made outside `with`; the new
    /// swapchain is recorded in one more run. Nothing of the pacer's is used meanwhile: the
    /// application externally synchronizes the create info's surface and `oldSwapchain` (the
    /// spec's host synchronization list for the command), and cannot use the new handle
    /// before this returns. `None`: `with` had no pacer (the caller creates through the
    /// driver).
    ///
    /// # Safety
    ///
    /// As [`Self::create_swapchain`] and [`Self::queue_present_shared`].
    pub unsafe fn create_swapchain_shared(
        info: &vk::SwapchainCreateInfoKHR<'_>,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
        mut with: impl FnMut(&mut dyn FnMut(&mut PresentPacer)),
    ) -> Option<VkResult<vk::SwapchainKHR>> {
        // SAFETY: the caller's contract.
        unsafe { Self::create_through(info, allocator, &mut with) }
    }

    /// [`Self::destroy_swapchain`] for a pacer shared between threads, as
    /// [`Self::queue_present_shared`]: the machine is asked in one run of `with`; its bounded
    /// waits (a destroyed swapchain's present fences, the proof submission's serial) are made
    /// between runs, on fences the pacer lends out; the driver's `vkDestroySwapchainKHR` of
    /// every swapchain found idle is made outside `with`, after the pacer forgot it. The
    /// proof submission (an empty `vkQueueSubmit` on the pacer's queue) is made in a run of
    /// `with`, once no present of this pacer is in flight on another thread (which the
    /// application's synchronization of that queue covers only for its own calls). Returns
    /// `false` where `with` had no pacer (the caller destroys through the driver).
    ///
    /// # Safety
    ///
    /// As [`Self::destroy_swapchain`] and [`Self::queue_present_shared`].
    pub unsafe fn destroy_swapchain_shared(
        swapchain: vk::SwapchainKHR,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
        mut with: impl FnMut(&mut dyn FnMut(&mut PresentPacer)),
    ) -> bool {
        // SAFETY: the caller's contract.
        unsafe { Self::destroy_through(swapchain, allocator, &mut with) }
    }
}
