//! The pacer's fences: one per tracked submission (repair and proof submissions), which stand
//! for their serials, and one per present fence vkpace adds (maintenance1). Submission fences
//! signal in submission order on the queue (a fence of `vkQueueSubmit` has "all commands that
//! occur earlier in submission order" in its first synchronization scope, spec *Fence
//! Signaling*), so one signalled fence completes every serial up to its own: the oldest pending
//! is looked at first. The decisions (which serial, which present fence) are the machine's.

use std::collections::VecDeque;

use ash::vk;

use crate::vk::error::{Result, VkContext};
use vkpace_core::Serial;

/// Free, submitted and present fences.
#[derive(Debug, Default)]
pub(super) struct Fences {
    free: Vec<vk::Fence>,
    /// Tracked submissions not yet seen complete, oldest first.
    submitted: VecDeque<(Serial, vk::Fence)>,
    /// Present fences vkpace added, by the machine's ids.
    presents: Vec<(u64, vk::Fence)>,
    /// Fences given to a present that failed (never signalled) or to a submission nothing
    /// tracks: destroyed at teardown, after its final proof.
    lost: Vec<vk::Fence>,
    /// Submission fences lent to a wait carried out without the pacer (once per loan).
    lent: Vec<vk::Fence>,
    /// Signalled fences seen complete while lent: reset and freed once every loan is back.
    parked: Vec<vk::Fence>,
    pub(super) created: u64,
}

impl Fences {
    /// An unsignalled fence with nothing pending, made if none is free.
    pub(super) fn take(&mut self, device: &ash::Device) -> Result<vk::Fence> {
        if let Some(f) = self.free.pop() {
            return Ok(f);
        }
        // SAFETY: a plain fence on a valid device.
        let f = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
            .during("vkCreateFence")?;
        self.created += 1;
        Ok(f)
    }

    /// A fence taken but not used (its submission failed: nothing will signal it).
    pub(super) fn untake(&mut self, fence: vk::Fence) {
        self.free.push(fence);
    }

    /// `fence` signals when the submission with `serial` completes.
    pub(super) fn submitted(&mut self, serial: Serial, fence: vk::Fence) {
        self.submitted.push_back((serial, fence));
    }

    /// `fence` was given to a present as present fence `id`.
    pub(super) fn presented(&mut self, id: u64, fence: vk::Fence) {
        self.presents.push((id, fence));
    }

    /// The highest serial seen complete without blocking (the oldest pending fences first),
    /// each signalled fence reset and freed.
    pub(super) fn poll_submitted(&mut self, device: &ash::Device) -> Result<Option<Serial>> {
        let mut done = None;
        while let Some(&(serial, f)) = self.submitted.front() {
            // SAFETY: the fence is alive and was submitted.
            if !unsafe { device.get_fence_status(f) }.during("vkGetFenceStatus")? {
                break;
            }
            self.recycle(device, f)?;
            self.submitted.pop_front();
            done = Some(serial);
        }
        Ok(done)
    }

    /// Lends the fence that proves `serial` to a wait carried out without the pacer; `None`
    /// where nothing is pending at or after it (it completed already). The fence is neither
    /// reset (vkResetFences needs it externally synchronized) nor destroyed nor reused until
    /// [`Self::give_back`].
    pub(super) fn lend(&mut self, serial: Serial) -> Option<vk::Fence> {
        let &(_, f) = self.submitted.iter().find(|(s, _)| *s >= serial)?;
        self.lent.push(f);
        Some(f)
    }

    /// Lends the fence of `serial`'s own submission (not a later one's, which would say when
    /// that one completed), as [`Self::lend`]; `None` where it is not pending (seen complete
    /// already, or never tracked).
    pub(super) fn lend_exact(&mut self, serial: Serial) -> Option<vk::Fence> {
        let &(_, f) = self.submitted.iter().find(|(s, _)| *s == serial)?;
        self.lent.push(f);
        Some(f)
    }

    /// Lends present fence `id`'s fence to a wait carried out without the pacer, as
    /// [`Self::lend`]; `None` where vkpace holds no fence for it (its creation failed, or it
    /// was seen signalled already).
    pub(super) fn lend_present(&mut self, id: u64) -> Option<vk::Fence> {
        let &(_, f) = self.presents.iter().find(|(i, _)| *i == id)?;
        self.lent.push(f);
        Some(f)
    }

    /// Present fence `id` was seen signalled by a wait on its lent fence (given back first):
    /// reset and freed, unless another look saw it first.
    pub(super) fn present_waited(&mut self, device: &ash::Device, id: u64) -> Result<()> {
        if let Some(at) = self.presents.iter().position(|(i, _)| *i == id) {
            let (_, f) = self.presents.swap_remove(at);
            self.recycle(device, f)?;
        }
        Ok(())
    }

    /// A loan of `fence` is back: once none is out, a fence seen signalled meanwhile is reset
    /// and freed.
    pub(super) fn give_back(&mut self, device: &ash::Device, fence: vk::Fence) -> Result<()> {
        if let Some(at) = self.lent.iter().position(|f| *f == fence) {
            self.lent.swap_remove(at);
        }
        if !self.lent.contains(&fence) {
            if let Some(at) = self.parked.iter().position(|f| *f == fence) {
                self.parked.swap_remove(at);
                self.recycle(device, fence)?;
            }
        }
        Ok(())
    }

    /// Every submission up to `serial` completed: their fences are reset and freed.
    pub(super) fn complete_through(&mut self, device: &ash::Device, serial: Serial) -> Result<()> {
        while let Some(&(s, f)) = self.submitted.front() {
            if s > serial {
                break;
            }
            self.recycle(device, f)?;
            self.submitted.pop_front();
        }
        Ok(())
    }

    /// `fence` went to a submission the machine does not track: never reused.
    pub(super) fn untracked(&mut self, fence: vk::Fence) {
        self.lost.push(fence);
    }

    /// Present fence `id` went to a present that failed: it may never signal.
    pub(super) fn lose_present(&mut self, id: u64) {
        if let Some(at) = self.presents.iter().position(|(i, _)| *i == id) {
            let (_, f) = self.presents.swap_remove(at);
            self.lost.push(f);
        }
    }

    /// Whether present fence `id` signalled, waiting at most `timeout_ns` (0: a look); a
    /// signalled one is reset and freed. An id vkpace holds no fence for (its creation failed)
    /// never counts as signalled: nothing is freed on a proof that does not exist.
    pub(super) fn present_signalled(
        &mut self,
        device: &ash::Device,
        id: u64,
        timeout_ns: u64,
    ) -> Result<bool> {
        let Some(at) = self.presents.iter().position(|(i, _)| *i == id) else {
            return Ok(false);
        };
        let f = self.presents[at].1;
        if !wait(device, f, timeout_ns)? {
            return Ok(false);
        }
        self.presents.swap_remove(at);
        self.recycle(device, f)?;
        Ok(true)
    }

    fn recycle(&mut self, device: &ash::Device, f: vk::Fence) -> Result<()> {
        if self.lent.contains(&f) {
            // Another thread may be waiting on it: reset once the loan is back.
            self.parked.push(f);
            return Ok(());
        }
        // SAFETY: signalled, so no queue operation uses it any more; not lent, so no wait
        // of another thread is on it (vkResetFences: host access to each fence externally
        // synchronized).
        unsafe { device.reset_fences(&[f]) }.during("vkResetFences")?;
        self.free.push(f);
        Ok(())
    }

    /// Destroys every fence. Only once nothing pending will signal one (teardown after its
    /// waits; a fence of a failed present is never signalled).
    pub(super) fn destroy_all(&mut self, device: &ash::Device) {
        let pending = self.submitted.drain(..).map(|(_, f)| f);
        let presents = self.presents.drain(..).map(|(_, f)| f);
        let all: Vec<vk::Fence> = pending
            .chain(presents)
            .chain(self.free.drain(..))
            .chain(self.lost.drain(..))
            .chain(self.parked.drain(..))
            .collect();
        self.lent.clear();
        for f in all {
            // SAFETY: the caller waited for every pending signal (VUID-vkDestroyFence-fence-01120).
            unsafe { device.destroy_fence(f, None) };
        }
    }
}

/// `vkWaitForFences` on one fence, bounded; whether it signalled.
fn wait(device: &ash::Device, f: vk::Fence, timeout_ns: u64) -> Result<bool> {
    // SAFETY: the fence is alive; the timeout is finite.
    match unsafe { device.wait_for_fences(&[f], true, timeout_ns) } {
        Ok(()) => Ok(true),
        Err(vk::Result::TIMEOUT) => Ok(false),
        Err(e) => Err(crate::vk::error::Error::vk("vkWaitForFences", e)),
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
        fences.submitted(serial, f);
        assert_eq!(fences.lend(serial), Some(f));
        assert_eq!(
            fences.lend(Serial(2)),
            None,
            "nothing pending at or after it"
        );
        // SAFETY: the fence is alive; a finite timeout.
        unsafe { device.wait_for_fences(&[f], true, 2_000_000_000) }.during("wait")?;
        assert_eq!(fences.poll_submitted(&device)?, Some(serial));
        // SAFETY: the fence is alive.
        let signalled = || unsafe { device.get_fence_status(f) }.during("status");
        assert!(signalled()?, "reset while lent");
        assert!(fences.free.is_empty(), "freed while lent");
        fences.give_back(&device, f)?;
        assert!(!signalled()?, "not reset once given back");
        assert_eq!(fences.free, [f]);
        fences.destroy_all(&device);
        // SAFETY: nothing of the device is in use any more.
        unsafe {
            device.destroy_device(None);
            instance.destroy_instance(None);
        }
        Ok(())
    }
}
