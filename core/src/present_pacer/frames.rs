//! When a lineage's next frame may begin: the frames-in-flight gate, then the pacing sleep.
//! The shell asks at the end of each present (so the sleep comes before the application reads
//! its next input, as Swappy, DXVK and MangoHud sleep) and again at each acquire (the first
//! frame, and an application that acquires without presenting).

use super::PacerMachine;
use crate::error::CoreError;
use crate::handle::Handle;
use crate::serial::Serial;
use crate::vk_values::VkStatus;

/// Whether the next frame of a swapchain's lineage may begin.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[must_use]
pub enum Gate {
    /// Go on.
    Go,
    /// Wait (bounded) until this serial completes, report it with
    /// [`PacerMachine::serial_completed`] and ask again.
    WaitFor(Serial),
    /// Sleep, report what the watch saw, and ask again.
    SleepUntil {
        /// The sleep's end (ns, the shell's clock).
        until: u64,
        /// What to watch meanwhile, bounded by `until`.
        watch: Option<SleepWatch>,
    },
}

/// What a pacing sleep watches, bounded by the sleep's end. The machine chooses: the ready
/// time of the frame presented just before first (`ready_watch.rs`), else the display of the
/// oldest present awaited (`feedback.rs`); the next [`PacerMachine::begin_frame`] may ask for
/// the other.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SleepWatch {
    /// Wait on this serial's own submission fence (not a later one's): report what was seen
    /// with [`PacerMachine::frame_ready`], [`PacerMachine::frame_ready_by`] or
    /// [`PacerMachine::frame_not_ready_by`].
    Ready(Serial),
    /// Poll, then wait for, the present with this id on the swapchain of the call that sleeps
    /// (a zero-timeout, then a bounded `vkWaitForPresentKHR`): report a wait that began while
    /// it was not shown and ended because it was with [`PacerMachine::display_watched`], any
    /// other answer with [`PacerMachine::display_answer`].
    Display(u64),
}

impl<S: Handle, W: Handle> PacerMachine<S, W> {
    /// May the next frame of `swapchain`'s lineage begin at `now`? [`Gate::Go`] for a
    /// swapchain not made through the pacer.
    pub fn begin_frame(&mut self, swapchain: W, now: u64) -> Result<Gate, CoreError> {
        let completed = self.completed;
        let Some(c) = self.lineage_mut(swapchain).filter(|c| c.started.is_none()) else {
            return Ok(Gate::Go);
        };
        // Each held frame counted once (by what first held it).
        let first = !std::mem::replace(&mut c.gated, true);
        if let Some(wait) = c.pacer.gate(completed) {
            self.stats.gate_waits += u64::from(first);
            return Ok(Gate::WaitFor(wait));
        }
        if let Some(at) = c.pacing.start_at(now) {
            self.stats.pacing_sleeps += u64::from(first);
            let watch = self.ready_watch(swapchain).map(SleepWatch::Ready);
            let watch = watch.or_else(|| self.display_watch(swapchain).map(SleepWatch::Display));
            return Ok(Gate::SleepUntil { until: at, watch });
        }
        c.start(now);
        Ok(Gate::Go)
    }

    /// The gate's wait for `swapchain` timed out: the frame begins anyway, rather than the
    /// application's call hanging (the shell logs it).
    pub fn begin_frame_anyway(&mut self, swapchain: W, now: u64) -> Result<(), CoreError> {
        if let Some(c) = self.lineage_mut(swapchain).filter(|c| c.started.is_none()) {
            c.start(now);
        }
        Ok(())
    }

    /// The application's acquire from `swapchain` returned `status` at `now` (with `image`
    /// where it succeeded).
    pub fn acquired(
        &mut self,
        swapchain: W,
        status: VkStatus,
        image: u32,
        now: u64,
    ) -> Result<(), CoreError> {
        let Some(i) = self.find(swapchain) else {
            self.stats.unpaced_calls += 1;
            return Ok(());
        };
        self.stats.out_of_date_or_suboptimal += u64::from(status.is_stale_swapchain());
        if !matches!(status, VkStatus::SUCCESS | VkStatus::SUBOPTIMAL) {
            return Ok(());
        }
        self.live[i].state.image_mut(image)?;
        self.stats.acquires += 1;
        if let Some(c) = self.lineage_mut(swapchain) {
            if let Some(frame) = c.started {
                c.pacing.acquired(&mut c.telemetry, frame, now);
            }
        }
        Ok(())
    }
}
