//! The pacer's fences, on the device: the core's [`FencePool`] decides which fence stands for
//! which serial or present fence, when one is lent to a wait made without the pacer and when it
//! may be reset; this file makes the Vulkan calls it names (create, look, wait, reset,
//! destroy). Submission fences signal in submission order on the queue, so one signalled fence
//! completes every serial up to its own: the oldest pending is looked at first.

use ash::vk;

use crate::vk::error::{Result, VkContext};
use vkpace_core::{FencePool, Serial, SubmitSignal};

/// The pool, and the Vulkan calls on its fences.
#[derive(Debug, Default)]
pub(super) struct Fences {
    pub(super) pool: FencePool<vk::Fence>,
}

impl Fences {
    /// An unsignalled fence with nothing pending, made if none is free.
    pub(super) fn take(&mut self, device: &ash::Device) -> Result<vk::Fence> {
        if let Some(f) = self.pool.take() {
            return Ok(f);
        }
        // SAFETY: a plain fence on a valid device.
        let f = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
            .during("vkCreateFence")?;
        self.pool.created(f);
        self.pool.take_this(f);
        Ok(f)
    }

    /// The highest serial seen complete without blocking (the oldest pending fences first),
    /// each signalled fence reset and freed (or parked where lent).
    pub(super) fn poll_submitted(&mut self, device: &ash::Device) -> Result<Option<Serial>> {
        let mut done = None;
        while let Some((serial, SubmitSignal::Fence(f))) = self.pool.oldest_submitted() {
            // SAFETY: the fence is alive and was submitted.
            if !unsafe { device.get_fence_status(f) }.during("vkGetFenceStatus")? {
                break;
            }
            self.seen_signalled(device, f)?;
            done = Some(serial);
        }
        Ok(done)
    }

    /// Present fence `id` was seen signalled by a wait on its lent fence (given back first):
    /// reset and freed, unless another look saw it first.
    pub(super) fn present_waited(&mut self, device: &ash::Device, id: u64) -> Result<()> {
        if let Some(f) = self.pool.present_fence_by_id(id) {
            self.seen_signalled(device, f)?;
        }
        Ok(())
    }

    /// A loan of `fence` is back: a fence seen signalled meanwhile is reset and freed once no
    /// other loan of it is out.
    pub(super) fn give_back(&mut self, device: &ash::Device, fence: vk::Fence) -> Result<()> {
        let due = self.pool.give_back(fence);
        self.reset(device, due)
    }

    /// Every submission up to `serial` completed: their fences are reset and freed (where a
    /// reset fails, it and the rest are kept for teardown's destruction).
    pub(super) fn complete_through(&mut self, device: &ash::Device, serial: Serial) -> Result<()> {
        let mut due = self.pool.complete_through(serial).into_iter();
        while let Some(f) = due.next() {
            if let Err(e) = self.reset(device, Some(f)) {
                due.for_each(|f| self.pool.lost(f));
                return Err(e);
            }
        }
        Ok(())
    }

    /// Whether present fence `id` signalled (a look, no wait); a signalled one is reset and
    /// freed. An id vkpace holds no fence for (its creation failed) never counts as signalled:
    /// nothing is freed on a proof that does not exist.
    pub(super) fn present_signalled(&mut self, device: &ash::Device, id: u64) -> Result<bool> {
        let Some(f) = self.pool.present_fence_by_id(id) else {
            return Ok(false);
        };
        // SAFETY: the fence is alive (the pool holds it). It may be lent to a destruction's
        // bounded wait on another thread: vkGetFenceStatus, like vkWaitForFences, does not
        // require its fence externally synchronized, and one seen signalled while lent is
        // parked, not reset (`seen_signalled`).
        if !unsafe { device.get_fence_status(f) }.during("vkGetFenceStatus")? {
            return Ok(false);
        }
        self.seen_signalled(device, f)?;
        Ok(true)
    }

    /// `f` was seen signalled: it leaves the pending lists, and is reset and freed unless the
    /// pool parks it (lent).
    fn seen_signalled(&mut self, device: &ash::Device, f: vk::Fence) -> Result<()> {
        if self.pool.signalled(f).is_none() {
            return Ok(());
        }
        let due = self.pool.recycle(f);
        self.reset(device, due)
    }

    /// Resets `due`, the fence the pool says may be reset now, and frees it; where the reset
    /// fails, the fence is kept among the lost ones, destroyed at teardown, never reused.
    fn reset(&mut self, device: &ash::Device, due: Option<vk::Fence>) -> Result<()> {
        let Some(f) = due else { return Ok(()) };
        // SAFETY: signalled, so no queue operation uses it any more; not lent (the pool parks
        // a lent one), so no wait of another thread is on it (vkResetFences: host access to
        // each fence externally synchronized).
        if let Err(e) = unsafe { device.reset_fences(&[f]) }.during("vkResetFences") {
            self.pool.lost(f);
            return Err(e);
        }
        self.pool.untake(f);
        Ok(())
    }

    /// Destroys every fence. Only once nothing pending will signal one (teardown after its
    /// waits; a fence of a failed present is never signalled).
    pub(super) fn destroy_all(&mut self, device: &ash::Device) {
        for f in self.pool.drain_all() {
            // SAFETY: the caller waited for every pending signal (VUID-vkDestroyFence-fence-01120).
            unsafe { device.destroy_fence(f, None) };
        }
    }
}

#[cfg(test)]
mod tests {
    //! The loan of a fence, on the machine's Vulkan driver (lavapipe here; skipped where no
    //! Vulkan device is found).

    use super::*;

    /// A device with one queue of family 0, or `None` where the machine has no Vulkan.
    fn device() -> Option<(ash::Entry, ash::Instance, ash::Device, vk::Queue)> {
        // SAFETY: loading the system's Vulkan loader.
        let entry = unsafe { ash::Entry::load() }.ok()?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
        // SAFETY: a plain instance and device; destroyed by the test.
        unsafe {
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .ok()?;
            let Some(&physical) = instance.enumerate_physical_devices().ok()?.first() else {
                instance.destroy_instance(None);
                return None;
            };
            let queues = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(0)
                .queue_priorities(&[1.0])];
            let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
            let device = instance.create_device(physical, &info, None).ok()?;
            let queue = device.get_device_queue(0, 0);
            Some((entry, instance, device, queue))
        }
    }

    /// A fence seen signalled while lent is neither reset nor freed until the loan is back.
    #[test]
    fn a_lent_fence_is_reset_only_once_given_back() -> Result<()> {
        let Some((_entry, instance, device, queue)) = device() else {
            eprintln!("no Vulkan device: skipped");
            return Ok(());
        };
        let mut fences = Fences::default();
        let f = fences.take(&device)?;
        // SAFETY: an empty submission signalling an unsignalled fence of this device.
        unsafe { device.queue_submit(queue, &[], f) }.during("vkQueueSubmit")?;
        let serial = Serial(1);
        fences.pool.submitted(serial, SubmitSignal::Fence(f));
        assert_eq!(fences.pool.lend(serial), Some(f));
        assert_eq!(
            fences.pool.lend(Serial(2)),
            None,
            "nothing pending at or after it"
        );
        // SAFETY: the fence is alive; a finite timeout.
        unsafe { device.wait_for_fences(&[f], true, 2_000_000_000) }.during("wait")?;
        assert_eq!(fences.poll_submitted(&device)?, Some(serial));
        // SAFETY: the fence is alive.
        let signalled = || unsafe { device.get_fence_status(f) }.during("status");
        assert!(signalled()?, "reset while lent");
        assert_eq!(fences.pool.free_count(), 0, "freed while lent");
        fences.give_back(&device, f)?;
        assert!(!signalled()?, "not reset once given back");
        assert_eq!(fences.pool.take(), Some(f), "freed once given back");
        fences.pool.untake(f);
        fences.destroy_all(&device);
        // SAFETY: nothing of the device is in use any more.
        unsafe {
            device.destroy_device(None);
            instance.destroy_instance(None);
        }
        Ok(())
    }
}
