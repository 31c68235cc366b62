//! The pauses before a lineage's next frame (the frames-in-flight gate's GPU wait, the frame
//! limit's or policy's sleep), asked of the machine, carried out without the pacer and
//! reported: steps of a [`super::PacerCall`]. The decisions are the machine's
//! ([`vkpace_core::Gate`]); this only carries them out.

use std::time::Instant;

use ash::vk;

use super::display_watch::{DisplayWatch, Watched};
use super::{Driver, PresentPacer};
use crate::vk::error::Result;
use vkpace_core::{Gate, Serial, SleepWatch};

/// A pause the machine asked for.
pub(super) enum Pause {
    /// Sleep until then.
    Sleep(Instant),
    /// Sleep until then, watching the display meanwhile (`display_watch.rs`).
    Watch(DisplayWatch),
    /// Wait, bounded, for a fence the pacer lent out (it is neither reset nor destroyed until
    /// given back with the report).
    Gpu(GpuWait),
    /// Wait, bounded by the sleep's end, for the newest frame's repair submission, to learn
    /// when the frame was ready (`vkpace_core::SleepWatch::Ready`); the sleep follows.
    Ready(GpuWait),
}

/// A bounded wait, at most `timeout_ns`, on a fence lent out of the pacer's pool
/// (`vkpace_core::FencePool::lend`): a submission's for `serial`, or a present fence (a
/// destruction's wait, with no serial); carried out without the pacer.
pub(super) struct GpuWait {
    pub(super) fence: vk::Fence,
    pub(super) serial: Serial,
    pub(super) timeout_ns: u64,
}

/// A pause carried out, to report (with whether the pacer was borrowed meanwhile, which the
/// call knows).
pub(super) enum Paused {
    Slept,
    Watched(Watched),
    /// A GPU wait and whether its fence signalled.
    Gpu(GpuWait, Result<bool>),
    Ready(ReadyWatched),
}

/// What a wait for a frame's repair submission saw: signalled already when it began (`exact`
/// false: ready by `at`), signalled while waited for (ready at `at`, within the thread's
/// wake-up), or not by the sleep's end.
pub(super) struct ReadyWatched {
    wait: GpuWait,
    signalled: Result<bool>,
    exact: bool,
    at: Instant,
}

impl GpuWait {
    /// Waits at most `timeout_ns` on the pacer's `device`: whether the fence signalled.
    fn wait(&self, device: &ash::Device, timeout_ns: u64) -> Result<bool> {
        // SAFETY: the pacer lent the fence: it stays alive and is not reset until the wait is
        // given back (FencePool::lend, lend_exact; the pacer's destroy requires that no call is
        // in progress).
        // vkWaitForFences does not require its fences externally synchronized, so other
        // threads may look at it meanwhile; the timeout is finite.
        let r = unsafe { device.wait_for_fences(&[self.fence], true, timeout_ns) };
        crate::vk::error::Error::fence_waited(r)
    }

    /// Polls, then waits for the rest of the timeout: what it saw.
    fn watch(self, device: &ash::Device) -> ReadyWatched {
        let polled = self.wait(device, 0);
        if !matches!(polled, Ok(false)) {
            return ReadyWatched {
                signalled: polled,
                exact: false,
                at: Instant::now(),
                wait: self,
            };
        }
        let signalled = self.wait(device, self.timeout_ns);
        ReadyWatched {
            exact: matches!(signalled, Ok(true)),
            signalled,
            at: Instant::now(),
            wait: self,
        }
    }
}

impl Pause {
    /// Sleeps or waits with the pacer's `driver`, with no pacer borrowed by this code.
    pub(super) fn carry_out(self, driver: &Driver) -> Paused {
        match self {
            Pause::Sleep(at) => {
                crate::vk::sleep_until(at);
                Paused::Slept
            }
            Pause::Watch(w) => Paused::Watched(w.carry_out()),
            Pause::Gpu(w) => {
                let signalled = w.wait(&driver.device, w.timeout_ns);
                Paused::Gpu(w, signalled)
            }
            Pause::Ready(w) => Paused::Ready(w.watch(&driver.device)),
        }
    }
}

impl PresentPacer {
    /// The next pause before `swapchain`'s lineage may begin a frame; `None`: it began. The
    /// first call sets `deadline`, the bound of the gate's waits together.
    pub(super) fn next_pause(
        &mut self,
        swapchain: vk::SwapchainKHR,
        deadline: &mut Option<u64>,
    ) -> Result<Option<Pause>> {
        self.poll_completion()?;
        let now = self.now();
        let deadline = *deadline.get_or_insert(now.saturating_add(self.timeout_ns()));
        loop {
            match self.machine.begin_frame(swapchain, now)? {
                Gate::Go => return Ok(None),
                Gate::SleepUntil { until: at, watch } => {
                    let until = self.vk.clock.instant_at(at);
                    match watch {
                        Some(SleepWatch::Ready(serial)) => {
                            let Some(fence) = self.fences.pool.lend_exact(serial) else {
                                // Seen complete by the poll above, right after the present (the
                                // machine learns nothing from a serial it was not told complete).
                                self.machine.frame_ready_by(serial, now);
                                continue;
                            };
                            let timeout_ns = at.saturating_sub(now);
                            let wait = GpuWait {
                                fence,
                                serial,
                                timeout_ns,
                            };
                            return Ok(Some(Pause::Ready(wait)));
                        }
                        Some(SleepWatch::Display(id)) => {
                            if let Some(watch) = self.display_watch(swapchain, id, until) {
                                return Ok(Some(Pause::Watch(watch)));
                            }
                        }
                        None => {}
                    }
                    return Ok(Some(Pause::Sleep(until)));
                }
                Gate::WaitFor(serial) => {
                    if let Some(wait) = self.lend_wait(serial, now, deadline.saturating_sub(now))? {
                        return Ok(Some(Pause::Gpu(wait)));
                    }
                }
            }
        }
    }

    /// A pause carried out (`in_call`: with the pacer borrowed): counted, its fence given
    /// back, its answer reported (a gate that timed out lets the frame begin anyway, logged
    /// once).
    pub(super) fn pause_done(
        &mut self,
        swapchain: vk::SwapchainKHR,
        paused: Paused,
        in_call: bool,
    ) -> Result<()> {
        self.pauses.count(in_call);
        let (wait, signalled) = match paused {
            Paused::Slept => return Ok(()),
            Paused::Watched(watched) => return self.display_watched(watched),
            Paused::Ready(ready) => return self.ready_watched(ready),
            Paused::Gpu(wait, signalled) => (wait, signalled),
        };
        if self.gpu_wait_reported(wait, signalled)? {
            return Ok(());
        }
        if !std::mem::replace(&mut self.logged.gate_timeout, true) {
            log::warn!(
                "vkpace: the frames-in-flight gate waited {:?} for the GPU; the frame begins anyway",
                self.config.pacing.wait_timeout
            );
        }
        Ok(self.machine.begin_frame_anyway(swapchain, self.now())?)
    }

    /// A wait that is not a pause of the pacing (a present's wait for a repair semaphore's
    /// proof) carried out (`in_call`: with the pacer borrowed): counted as a call down, its
    /// fence given back; whether it signalled.
    pub(super) fn wait_reported(&mut self, paused: Paused, in_call: bool) -> Result<bool> {
        self.calls_down.count(in_call);
        match paused {
            Paused::Gpu(wait, signalled) => self.gpu_wait_reported(wait, signalled),
            _ => Ok(true),
        }
    }

    /// A wait for a frame's repair submission carried out: its fence given back, and what it
    /// saw told to the machine: where it signalled, the serial complete and the frame ready
    /// then (or by then); where it ran out at the sleep's end, the frame not ready by then (the
    /// next frame begins as planned).
    fn ready_watched(&mut self, r: ReadyWatched) -> Result<()> {
        let serial = r.wait.serial;
        let at = self.vk.clock.ns_at(r.at);
        match (self.gpu_wait_reported(r.wait, r.signalled)?, r.exact) {
            (true, true) => self.machine.frame_ready(serial, at),
            (true, false) => self.machine.frame_ready_by(serial, at),
            (false, _) => self.machine.frame_not_ready_by(serial, at),
        }
        Ok(())
    }

    /// A wait for `serial` on the fence lent for it, at most `timeout_ns`; `None` where nothing
    /// is pending at or after it: it completed already (the machine is told, as seen at `now`).
    pub(super) fn lend_wait(
        &mut self,
        serial: Serial,
        now: u64,
        timeout_ns: u64,
    ) -> Result<Option<GpuWait>> {
        let Some(fence) = self.fences.pool.lend(serial) else {
            self.machine.serial_completed(serial, now)?;
            return Ok(None);
        };
        Ok(Some(GpuWait {
            fence,
            serial,
            timeout_ns,
        }))
    }

    /// A GPU wait's fence given back, its answer reported; whether it signalled.
    pub(super) fn gpu_wait_reported(
        &mut self,
        wait: GpuWait,
        signalled: Result<bool>,
    ) -> Result<bool> {
        self.fences.give_back(&self.vk.device, wait.fence)?;
        if !signalled? {
            return Ok(false);
        }
        self.fences.complete_through(&self.vk.device, wait.serial)?;
        self.machine.serial_completed(wait.serial, self.now())?;
        Ok(true)
    }
}

/// Pauses, or calls down that may block (the driver's present, acquire, swapchain creation and
/// destruction, the repair submission with its present, and vkpace's bounded waits), by
/// whether the pacer was borrowed while they were made (a plain method).
#[derive(Debug, Default)]
pub(super) struct DownCounts {
    pub(super) in_calls: u64,
    pub(super) between_calls: u64,
}

impl DownCounts {
    pub(super) fn count(&mut self, in_call: bool) {
        match in_call {
            true => self.in_calls += 1,
            false => self.between_calls += 1,
        }
    }
}
