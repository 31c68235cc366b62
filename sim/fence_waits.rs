//! The second door's sim shell and its fences: the core's `vkpace_core::FencePool` decides,
//! the world checks. A wait is made as the layer's shared door makes it: on a fence lent out
//! of the pool and waited on without the pacer's lock, so that another thread's call may look
//! at the fences meanwhile (half of the waits here): a fence it sees signalled while lent must
//! be parked, not reset, or the world refuses the reset (`World::reset_fence`: host access to
//! a fence under `vkResetFences` must be externally synchronized).

use vkpace_core::{Serial, Signalled};

use crate::driver::SimError;
use crate::own_swapchain::run_world_until;
use crate::pacer_driver::SimPacer;
use crate::world::Fence;

/// Percent of lent waits during which another thread's call looks at the fences.
const P_LOOK_DURING_WAIT: u32 = 50;

impl SimPacer {
    /// `f` was seen signalled: it leaves the pending lists, and is reset and freed unless the
    /// pool parks it (lent).
    pub(crate) fn seen_signalled(&mut self, f: Fence) -> Result<Option<Signalled>, SimError> {
        let what = self.fences.signalled(f);
        if what.is_some() {
            let due = self.fences.recycle(f);
            self.reset(due)?;
        }
        Ok(what)
    }

    /// A present fence seen signalled: the machine is told.
    pub(crate) fn present_fence_seen(&mut self, f: Fence) -> Result<(), SimError> {
        if let Some(Signalled::Present(id)) = self.seen_signalled(f)? {
            self.truth.present_fences_signalled += 1;
            let _known = self.machine.present_fence_signalled(id);
        }
        Ok(())
    }

    /// Resets `due`, the fence the pool says may be reset now, and frees it.
    fn reset(&mut self, due: Option<Fence>) -> Result<(), SimError> {
        if let Some(f) = due {
            self.world.reset_fence(f)?;
            self.fences.untake(f);
        }
        Ok(())
    }

    /// A bounded wait on `f`, lent out of the pool, made without the pacer: another thread's
    /// call may look at the fences before it returns; then the loan is back. Whether `f`
    /// signalled.
    fn wait_lent(&mut self, f: Fence) -> Result<bool, SimError> {
        self.world.begin_host_wait(f)?;
        let signalled = run_world_until(&mut self.world, |w| w.fence_signaled(f))?;
        if self.world.rng.chance(P_LOOK_DURING_WAIT) {
            self.observe()?;
        }
        self.world.end_host_wait(f)?;
        let due = self.fences.give_back(f);
        self.reset(due)?;
        Ok(signalled)
    }

    /// Waits (bounded) on the fence that proves `serial`: whether it completed.
    pub(crate) fn wait_serial(&mut self, serial: Serial) -> Result<bool, SimError> {
        let now = self.world.now;
        match self.fences.lend(serial) {
            // Nothing pending at or after it: it completed already.
            None => self.machine.serial_completed(serial, now)?,
            Some(f) => {
                if self.wait_lent(f)? {
                    for f in self.fences.complete_through(serial) {
                        self.reset(Some(f))?;
                    }
                    let now = self.world.now;
                    self.machine.serial_completed(serial, now)?;
                }
            }
        }
        self.observe()?;
        Ok(serial <= self.machine.completed())
    }

    /// The pacing sleep's watch of `serial`'s ready time (`vkpace_core::SleepWatch::Ready`), as
    /// the Vulkan shell makes it: on the serial's own fence, lent out of the pool, until
    /// `until` at the latest; what it saw is told to the machine and kept in the truth.
    pub(crate) fn watch_ready(&mut self, serial: Serial, until: u64) -> Result<(), SimError> {
        let Some(f) = self.fences.lend_exact(serial) else {
            // Seen complete already (the machine learns nothing from a serial it was not
            // told complete).
            self.truth.ready_times.bounded += 1;
            self.machine.frame_ready_by(serial, self.world.now);
            return Ok(());
        };
        let first_look = self.world.fence_signaled(f)?;
        self.world.begin_host_wait(f)?;
        let signalled = run_world_until(&mut self.world, |w| {
            Ok(w.fence_signaled(f)? || w.now >= until)
        })? && self.world.fence_signaled(f)?;
        if self.world.rng.chance(P_LOOK_DURING_WAIT) {
            self.observe()?;
        }
        self.world.end_host_wait(f)?;
        let due = self.fences.give_back(f);
        self.reset(due)?;
        let now = self.world.now;
        if !signalled {
            self.truth.ready_times.not_by_end += 1;
            self.machine.frame_not_ready_by(serial, now);
            return Ok(());
        }
        for f in self.fences.complete_through(serial) {
            self.reset(Some(f))?;
        }
        self.machine.serial_completed(serial, now)?;
        match first_look {
            true => {
                self.truth.ready_times.bounded += 1;
                self.machine.frame_ready_by(serial, now);
            }
            false => {
                self.truth.ready_times.exact += 1;
                self.machine.frame_ready(serial, now);
            }
        }
        Ok(())
    }

    /// Waits (bounded) on present fence `id`: whether it signalled.
    pub(crate) fn wait_present_fence(&mut self, id: u64) -> Result<bool, SimError> {
        let f = self.fences.lend_present(id).ok_or_else(|| {
            SimError::Broken(format!("a wait for present fence {id}, never added"))
        })?;
        let signalled = self.wait_lent(f)?;
        if signalled && self.fences.present_fence_by_id(id) == Some(f) {
            self.present_fence_seen(f)?;
        }
        self.observe()?;
        Ok(signalled)
    }

    /// The teardown's fences: all of them where it proved everything idle, as the Vulkan shell
    /// destroys them; otherwise only the free ones (what is not proven idle stays alive).
    pub(crate) fn destroy_fences(&mut self) -> Result<(), SimError> {
        let doomed = match self.clean_teardown {
            true => self.fences.drain_all(),
            false => std::iter::from_fn(|| self.fences.take()).collect(),
        };
        for f in doomed {
            self.world.destroy_fence(f)?;
        }
        Ok(())
    }
}
