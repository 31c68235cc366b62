//! Fences keyed by submission serial: the shell's completion counter.
//!
//! Every submission vkpace makes or hands out signals one fence. Because a queue-submit fence
//! covers "all commands that occur earlier in submission order" (spec, *Fence Signaling*),
//! polling the oldest pending fence first gives the highest completed serial in order.

use std::time::Duration;

use ash::vk;

use super::error::{Error, Result, VkContext};
use super::names::Namer;
use crate::core::{remove_first, Serial};

/// A pool of fences and the serials they stand for. `repr(C)`: the two queues, which every
/// frame touches, share a cache line.
#[repr(C)]
pub(crate) struct FencePool {
    /// Oldest first. A `Vec`, not a `VecDeque`: it holds a few fences (the frames in flight),
    /// so taking the oldest shifts a few words, and `Vec::push` inlines into the frame path
    /// where `VecDeque::push_back` stayed an out-of-line call on a code page of its own.
    pending: Vec<(Serial, vk::Fence)>,
    free: Vec<vk::Fence>,
    pub(crate) created: u64,
    pub(crate) max_alive: usize,
}

impl FencePool {
    pub(crate) fn new() -> Self {
        Self {
            pending: Vec::with_capacity(16),
            free: Vec::with_capacity(16),
            created: 0,
            max_alive: 0,
        }
    }

    fn alive(&self) -> usize {
        self.pending.len() + self.free.len()
    }

    /// An unsignalled fence, reused when one is free. The caller submits with it, then calls
    /// [`FencePool::submitted`].
    #[inline(always)]
    pub(crate) fn take(&mut self, device: &ash::Device, namer: &Namer) -> Result<vk::Fence> {
        match self.free.pop() {
            Some(f) => Ok(f),
            None => self.create(device, namer),
        }
    }

    /// A new fence (the pool grows to what the pacing needs in the first frames, then stays).
    #[cold]
    #[inline(never)]
    fn create(&mut self, device: &ash::Device, namer: &Namer) -> Result<vk::Fence> {
        // SAFETY: `device` is a valid device; the create info is a plain default.
        let f = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
            .during("vkCreateFence")?;
        self.created += 1;
        namer.name(f, || format!("vkpace submission fence {}", self.created));
        self.max_alive = self.max_alive.max(self.alive() + 1);
        Ok(f)
    }

    /// Gives back a fence that was taken but never submitted (still unsignalled).
    pub(crate) fn untake(&mut self, fence: vk::Fence) {
        self.free.push(fence);
    }

    /// Records that `fence` was submitted as serial `serial`.
    #[inline(always)]
    pub(crate) fn submitted(&mut self, serial: Serial, fence: vk::Fence) {
        self.pending.push((serial, fence));
        self.max_alive = self.max_alive.max(self.alive());
    }

    /// Retires signalled fences in order; returns the highest serial known complete, if it moved.
    #[inline(always)]
    pub(crate) fn poll(&mut self, device: &ash::Device) -> Result<Option<Serial>> {
        let mut done = None;
        while let Some(&(serial, fence)) = self.pending.first() {
            // SAFETY: `fence` belongs to `device` and is alive (owned by this pool).
            let signalled = unsafe { device.get_fence_status(fence) }.during("vkGetFenceStatus")?;
            if !signalled {
                break;
            }
            self.recycle(device, fence)?;
            remove_first(&mut self.pending);
            done = Some(serial);
        }
        Ok(done)
    }

    #[inline(always)]
    fn recycle(&mut self, device: &ash::Device, fence: vk::Fence) -> Result<()> {
        // SAFETY: the fence signalled, so no queue operation still refers to it
        // (`VUID-vkResetFences-pFences-01123`).
        unsafe { device.reset_fences(&[fence]) }.during("vkResetFences")?;
        self.free.push(fence);
        Ok(())
    }

    /// Waits, at most `timeout`, until `serial` has completed; returns the highest serial then
    /// known complete.
    pub(crate) fn wait(
        &mut self,
        device: &ash::Device,
        serial: Serial,
        timeout: Duration,
    ) -> Result<Serial> {
        // The first pending fence at or after `serial`: once it signals, `serial` has too.
        let fence = self
            .pending
            .iter()
            .find(|(s, _)| *s >= serial)
            .map(|&(_, f)| f);
        if let Some(fence) = fence {
            let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
            // SAFETY: `fence` is alive and owned by this pool.
            match unsafe { device.wait_for_fences(&[fence], true, nanos) } {
                Ok(()) => {}
                Err(vk::Result::TIMEOUT) => {
                    return Err(Error::Timeout {
                        what: "a submission fence",
                        timeout,
                    })
                }
                Err(e) => return Err(Error::vk("vkWaitForFences", e)),
            }
        }
        let polled = self.poll(device)?;
        Ok(polled.unwrap_or(serial).max(serial))
    }

    /// The highest pending serial, if any.
    pub(crate) fn last_pending(&self) -> Option<Serial> {
        self.pending.last().map(|&(s, _)| s)
    }

    /// Destroys every fence. Call only when none is pending on the GPU.
    pub(crate) fn destroy(&mut self, device: &ash::Device) {
        for f in self
            .free
            .drain(..)
            .chain(self.pending.drain(..).map(|(_, f)| f))
        {
            // SAFETY: the caller guarantees no submission referring to `f` is pending.
            unsafe { device.destroy_fence(f, None) };
        }
    }
}
