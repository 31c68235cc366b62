//! Submission serials and how their completion is signalled: the fence pool or the timeline
//! value a submission signals, and the waits that prove a serial completed.

use super::*;
use crate::handle::Handle;

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// The next submission serial.
    pub(super) fn take_serial(&mut self) -> Serial {
        let s = self.next_serial;
        self.next_serial = s.next();
        s
    }

    /// Waits for `signal`, bounded by the timeout or by `deadline` if given.
    pub(super) fn wait(
        &mut self,
        signal: SubmitSignal<F>,
        purpose: WaitPurpose,
        deadline: Option<u64>,
        now: u64,
    ) -> Request<S, W, F> {
        let timeout_ns = deadline.map_or(self.timeout(), |d| d.saturating_sub(now).max(1));
        self.awaiting = Some(Awaiting::Wait(signal, purpose));
        match signal {
            SubmitSignal::Fence(fence) => Request::WaitFence { fence, timeout_ns },
            SubmitSignal::Timeline(value) => Request::WaitTimeline { value, timeout_ns },
        }
    }

    /// Whether tracked submissions signal fences (else the timeline).
    pub(super) fn uses_fences(&self) -> bool {
        self.config.completion == CompletionBackend::Fences
    }

    /// What the next tracked submission the machine makes itself signals: the timeline's next
    /// value, or a free fence (`Err`: a fence must be created first).
    pub(super) fn next_signal(&mut self) -> Result<SubmitSignal<F>, Request<S, W, F>> {
        if !self.uses_fences() {
            return Ok(SubmitSignal::Timeline(self.next_serial.0));
        }
        match self.fences.peek() {
            Some(f) => Ok(SubmitSignal::Fence(f)),
            None => Err(self.create_fence()),
        }
    }

    /// The submission `serial`, signalling `signal`, was made: it is pending from now on.
    pub(super) fn track_submission(&mut self, serial: Serial, signal: SubmitSignal<F>) {
        let signal = match signal {
            SubmitSignal::Fence(f) => {
                self.fences.take_this(f);
                SubmitSignal::Fence(f)
            }
            // The value the submission signalled is its serial.
            SubmitSignal::Timeline(_) => SubmitSignal::Timeline(serial.0),
        };
        self.fences.submitted(serial, signal);
    }
}
