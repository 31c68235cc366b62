//! The machine's bounded waits before a swapchain's destruction returns (and at teardown),
//! carried out as steps of a [`super::PacerCall`], each on a fence the pacer lends out (see
//! its doc). The proof submission is made under the lock, once no present is in
//! flight (the machine's [`BoundedWait::PresentInFlight`]: a present made without the lock may
//! have its repair on the queue and no serial yet).

use std::time::Duration;

use super::pause::{GpuWait, Pause, Paused};
use super::PresentPacer;
use crate::vk::error::Result;
use vkpace_core::{BoundedWait, Serial};

/// How long a wait for the present in flight sleeps before asking again (the present's calls
/// down take about a frame; no event tells the pacer when they end).
const PRESENT_IN_FLIGHT_POLL: Duration = Duration::from_micros(500);

/// The next step of the bounded waits.
pub(super) enum WaitStep {
    /// Over: whether everything waited for was proven.
    Done(bool),
    /// Carry this wait out without the pacer, then report it.
    Wait(BoundedWait, Pause),
}

impl PresentPacer {
    /// Carries out the machine's bounded waits inside a call of the pacer (its teardown) until
    /// it has none; a wait that runs out leaves what it was for alive and is logged once.
    /// `Ok(false)`: a wait ran out.
    pub(super) fn bounded_waits(&mut self) -> Result<bool> {
        let (mut deadline, mut waited) = (None, None);
        loop {
            match self.bounded_step(&mut deadline, waited.take(), true)? {
                WaitStep::Done(proven) => return Ok(proven),
                WaitStep::Wait(wait, pause) => waited = Some((wait, pause.carry_out(&self.vk))),
            }
        }
    }

    /// Reports the wait carried out (if any; `in_call`: with the pacer borrowed), then asks the
    /// machine for the next one: carried out here (a proof submission, a serial already
    /// complete) or lent out.
    pub(super) fn bounded_step(
        &mut self,
        deadline: &mut Option<u64>,
        waited: Option<(BoundedWait, Paused)>,
        in_call: bool,
    ) -> Result<WaitStep> {
        let bound = self.timeout_ns();
        let at = *deadline.get_or_insert(self.now().saturating_add(bound));
        if let Some((wait, paused)) = waited {
            self.calls_down.count(in_call);
            if !self.bounded_reported(wait, paused, at)? {
                if let Some(done) = self.wait_ran_out(wait, deadline) {
                    return Ok(done);
                }
            }
        }
        loop {
            let Some(wait) = self.machine.bounded_wait() else {
                return Ok(WaitStep::Done(true));
            };
            let left = deadline.unwrap_or(0).saturating_sub(self.now());
            let lent = match wait {
                BoundedWait::PresentFence(id) => {
                    self.fences.pool.lend_present(id).map(|f| (f, Serial::NONE))
                }
                BoundedWait::Serial(s) => match self.lend_wait(s, self.now(), left)? {
                    Some(gpu) => return Ok(WaitStep::Wait(wait, Pause::Gpu(gpu))),
                    None => continue,
                },
                BoundedWait::SubmitProof => {
                    self.submit_proof()?;
                    continue;
                }
                BoundedWait::PresentInFlight if left > 0 => {
                    let until = std::time::Instant::now() + PRESENT_IN_FLIGHT_POLL;
                    return Ok(WaitStep::Wait(wait, Pause::Sleep(until)));
                }
                BoundedWait::PresentInFlight => None,
            };
            match lent {
                Some((fence, serial)) => {
                    let gpu = GpuWait {
                        fence,
                        serial,
                        timeout_ns: left,
                    };
                    return Ok(WaitStep::Wait(wait, Pause::Gpu(gpu)));
                }
                // A present fence vkpace holds none for never signals; no time is left for
                // the present in flight: as a wait that ran out.
                None => {
                    if let Some(done) = self.wait_ran_out(wait, deadline) {
                        return Ok(done);
                    }
                }
            }
        }
    }

    /// A wait carried out, reported: its fence given back; whether it was done (the fence
    /// signalled, or there is still time to ask whether the present in flight returned).
    fn bounded_reported(
        &mut self,
        wait: BoundedWait,
        paused: Paused,
        deadline: u64,
    ) -> Result<bool> {
        match wait {
            BoundedWait::PresentFence(id) => {
                let Paused::Gpu(gpu, signalled) = paused else {
                    return Ok(false);
                };
                self.fences.give_back(&self.vk.device, gpu.fence)?;
                if !signalled? {
                    return Ok(false);
                }
                self.fences.present_waited(&self.vk.device, id)?;
                self.machine.present_fence_signalled(id);
                Ok(true)
            }
            BoundedWait::Serial(_) => match paused {
                Paused::Gpu(gpu, signalled) => self.gpu_wait_reported(gpu, signalled),
                _ => Ok(false),
            },
            BoundedWait::PresentInFlight => Ok(self.now() < deadline),
            BoundedWait::SubmitProof => Ok(true),
        }
    }

    /// `wait` ran out: the machine decides whether to go on (a present fence given up for
    /// the proof submission, with a bound of its own) or stop (logged once).
    fn wait_ran_out(&mut self, wait: BoundedWait, deadline: &mut Option<u64>) -> Option<WaitStep> {
        if self.machine.bounded_wait_timed_out(wait) {
            *deadline = Some(self.now().saturating_add(self.timeout_ns()));
            return None;
        }
        if !std::mem::replace(&mut self.logged.destroy_timeout, true) {
            log::warn!(
                "vkpace: a swapchain's presents were not proven done within {:?}; it stays alive until they are (or until the pacer is destroyed)",
                self.config.pacing.wait_timeout
            );
        }
        Some(WaitStep::Done(false))
    }
}
