//! Present fences (`VkSwapchainPresentFenceInfoEXT`): one per present on the maintenance1
//! path, pooled. Unlike submission fences they are not ordered by a serial: each is polled on
//! its own, and one that never signals (seen for retired swapchains on some systems) holds up
//! nothing but itself.

use std::time::Duration;

use ash::vk;

use super::error::{Error, Result, VkContext};
use super::names::Namer;

/// Pending present fences by id, and free ones.
pub(crate) struct PresentFencePool {
    pending: Vec<(u64, vk::Fence)>,
    free: Vec<vk::Fence>,
    next_id: u64,
    pub(crate) created: u64,
    pub(crate) max_alive: usize,
}

impl PresentFencePool {
    pub(crate) fn new() -> Self {
        Self {
            pending: Vec::with_capacity(32),
            free: Vec::with_capacity(32),
            next_id: 1,
            created: 0,
            max_alive: 0,
        }
    }

    /// Creates `count` free fences up front, so the steady frame loop never grows the pool
    /// (creating and naming a fence allocates).
    pub(crate) fn prewarm(
        &mut self,
        device: &ash::Device,
        namer: &Namer,
        count: usize,
    ) -> Result<()> {
        while self.free.len() < count {
            // SAFETY: valid device, default create info.
            let f = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
                .during("vkCreateFence")?;
            self.created += 1;
            namer.name(f, || format!("vkpace present fence {}", self.created));
            self.free.push(f);
        }
        self.max_alive = self.max_alive.max(self.pending.len() + self.free.len());
        Ok(())
    }

    /// An unsignalled fence and its id for the next present.
    pub(crate) fn take(&mut self, device: &ash::Device, namer: &Namer) -> Result<(u64, vk::Fence)> {
        let fence = match self.free.pop() {
            Some(f) => f,
            None => {
                // SAFETY: valid device, default create info.
                let f = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
                    .during("vkCreateFence")?;
                self.created += 1;
                namer.name(f, || format!("vkpace present fence {}", self.created));
                f
            }
        };
        let id = self.next_id;
        self.next_id += 1;
        self.pending.push((id, fence));
        self.max_alive = self.max_alive.max(self.pending.len() + self.free.len());
        Ok((id, fence))
    }

    /// Calls `signaled` for every pending fence that has signalled, recycling it.
    pub(crate) fn poll(
        &mut self,
        device: &ash::Device,
        mut signaled: impl FnMut(u64),
    ) -> Result<()> {
        let mut i = 0;
        while i < self.pending.len() {
            let (id, fence) = self.pending[i];
            // SAFETY: the fence is alive and owned by this pool.
            if unsafe { device.get_fence_status(fence) }.during("vkGetFenceStatus")? {
                // SAFETY: signalled, so no pending operation refers to it.
                unsafe { device.reset_fences(&[fence]) }.during("vkResetFences")?;
                self.pending.swap_remove(i);
                self.free.push(fence);
                signaled(id);
            } else {
                i += 1;
            }
        }
        Ok(())
    }

    /// Waits, at most `timeout` in all, for the fences with the given ids.
    pub(crate) fn wait(
        &mut self,
        device: &ash::Device,
        ids: impl Iterator<Item = u64>,
        timeout: Duration,
    ) -> Result<()> {
        let mut fences = [vk::Fence::null(); 64];
        let mut n = 0;
        for id in ids {
            if let Some(&(_, f)) = self.pending.iter().find(|(p, _)| *p == id) {
                if n < fences.len() {
                    fences[n] = f;
                    n += 1;
                }
            }
        }
        if n == 0 {
            return Ok(());
        }
        let nanos = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: the fences are alive and owned by this pool.
        match unsafe { device.wait_for_fences(&fences[..n], true, nanos) } {
            Ok(()) => Ok(()),
            Err(vk::Result::TIMEOUT) => Err(Error::Timeout {
                what: "present fences",
                timeout,
            }),
            Err(e) => Err(Error::vk("vkWaitForFences", e)),
        }
    }

    /// Destroys every fence. Call only once none can be signalled any more: after the
    /// queue went idle (a fence of a failed present may never signal, and the idle wait ends
    /// any use a pending present still had of it).
    pub(crate) fn destroy(&mut self, device: &ash::Device) {
        for f in self
            .free
            .drain(..)
            .chain(self.pending.drain(..).map(|(_, f)| f))
        {
            // SAFETY: the caller guarantees nothing will signal `f` any more.
            unsafe { device.destroy_fence(f, None) };
        }
    }
}
