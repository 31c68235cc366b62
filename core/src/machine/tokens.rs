//! Completion tokens of the machine's submissions: testing one without blocking, waiting for one
//! with a bound, and refusing tokens that name nothing this machine submitted (seed 000's
//! validated waits: a wait on a release that was never submitted fails at the call instead of
//! hanging).

use super::{Awaiting, FrameMachine, Op, WaitPurpose};
use crate::completion::SubmitSignal;
use crate::error::{CoreError, Failure};
use crate::serial::Serial;
use crate::sync_token::SyncToken;

use super::request::Request;
use crate::handle::Handle;

/// A token operation in progress.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct TokenOp {
    /// The token's stream: this machine's, or a registered host timeline's.
    stream: u64,
    serial: Serial,
    /// `Some(bound)`: wait up to `bound` ns; `None`: look without blocking.
    wait_ns: Option<u64>,
    /// A look found the covering fence unsignalled: the answer is "not yet".
    seen_pending: bool,
}

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// The token of the newest submission this machine made or was told of (the renderer's
    /// frames included); [`SyncToken::is_none`] before the first. Objects the GPU used up to
    /// now are unused once it is reached.
    #[must_use]
    pub fn last_submitted(&self) -> SyncToken {
        SyncToken::new(self.stream, self.next_serial.0.saturating_sub(1))
    }

    /// The token of a submission serial of this machine.
    #[must_use]
    pub fn token_of(&self, serial: Serial) -> SyncToken {
        SyncToken::new(self.stream, serial.0)
    }

    /// Whether `token` is known reached, without asking the shell anything: every submission up
    /// to it has been seen complete, or (a registered stream's token) its counter was read at or
    /// past its value. `false` for a token of an unknown stream.
    #[must_use]
    pub fn token_reached(&self, token: SyncToken) -> bool {
        if token.stream() != self.stream {
            return self
                .sync
                .reached_value(token.stream())
                .is_some_and(|v| v >= token.value());
        }
        self.covering_signal(token.serial()).is_none()
    }

    /// Starts looking, without blocking, whether `token` is reached: poll until
    /// [`Request::Done`], then ask [`Self::token_reached`].
    pub fn begin_token_check(&mut self, token: SyncToken) -> Result<(), CoreError> {
        self.begin_token(token, None)
    }

    /// Starts waiting up to `timeout_ns` for `token`: poll until [`Request::Done`] (reached) or
    /// [`Request::Failed`] with a timeout.
    pub fn begin_token_wait(&mut self, token: SyncToken, timeout_ns: u64) -> Result<(), CoreError> {
        crate::pacer::validate_wait_timeout(timeout_ns)?;
        self.begin_token(token, Some(timeout_ns))
    }

    /// Checks a token of this machine's stream: its value must have been submitted.
    pub fn check_token(&self, token: SyncToken) -> Result<(), CoreError> {
        if token.stream() != self.stream {
            return Err(CoreError::ForeignToken {
                token,
                stream: self.stream,
            });
        }
        let last = self.last_submitted();
        if token.value() > last.value() {
            return Err(CoreError::TokenNotSubmitted {
                token,
                last_submitted: last.value(),
            });
        }
        Ok(())
    }

    fn begin_token(&mut self, token: SyncToken, wait_ns: Option<u64>) -> Result<(), CoreError> {
        if token.stream() == self.stream {
            self.check_token(token)?;
        } else if self.sync.knows(token.stream()) {
            self.check_stream_wait(token)?;
        } else {
            return Err(CoreError::ForeignToken {
                token,
                stream: self.stream,
            });
        }
        if self.op != Op::Idle {
            return Err(CoreError::OutOfOrder(
                "a token asked about during another operation",
            ));
        }
        self.op = Op::Token(TokenOp {
            stream: token.stream(),
            serial: token.serial(),
            wait_ns,
            seen_pending: false,
        });
        self.failure = None;
        Ok(())
    }

    pub(super) fn poll_token(&mut self, t: TokenOp, now: u64) -> Request<S, W, F> {
        if t.stream != self.stream {
            return self.poll_stream_token(t);
        }
        let Some(signal) = self.covering_signal(t.serial) else {
            return Request::Done;
        };
        match t.wait_ns {
            _ if t.seen_pending => Request::Done,
            None => self.check(signal),
            Some(bound) => {
                let deadline = now.saturating_add(bound);
                self.wait(signal, WaitPurpose::Token, Some(deadline), now)
            }
        }
    }

    /// A registered host timeline's token: read its counter, or wait for its value (bounded).
    fn poll_stream_token(&mut self, t: TokenOp) -> Request<S, W, F> {
        let token = SyncToken::new(t.stream, t.serial.0);
        if t.seen_pending || self.token_reached(token) {
            return Request::Done;
        }
        self.awaiting = Some(Awaiting::StreamValue(token));
        match t.wait_ns {
            None => Request::ReadStreamValue { token },
            Some(timeout_ns) => Request::WaitStreamValue { token, timeout_ns },
        }
    }

    /// The answer to [`Request::ReadStreamValue`] or [`Request::WaitStreamValue`]: the host
    /// timeline's counter read `read`'s value. Below the token's value: not reached (after a
    /// wait, the wait timed out).
    pub fn handle_stream_value(&mut self, read: SyncToken) -> Result<(), CoreError> {
        let asked = self.answer_stream("a stream value nobody asked for", read, |a| match a {
            Awaiting::StreamValue(t) => Some(t),
            _ => None,
        })?;
        self.stream_reached(read)?;
        if read.value() >= asked.value() {
            return Ok(());
        }
        match self.op {
            Op::Token(TokenOp {
                wait_ns: Some(_), ..
            }) => {
                self.failure = Some(Failure::Timeout {
                    what: WaitPurpose::Token.what(),
                    timeout_ns: self.token_bound(),
                });
            }
            _ => self.token_seen_pending(),
        }
        Ok(())
    }

    /// A look at the covering fence or timeline value found it not reached.
    pub(super) fn token_seen_pending(&mut self) {
        if let Op::Token(t) = &mut self.op {
            t.seen_pending = true;
        }
    }

    /// The bound of the token wait in progress (for its timeout's report).
    pub(super) fn token_bound(&self) -> u64 {
        match self.op {
            Op::Token(TokenOp {
                wait_ns: Some(b), ..
            }) => b,
            _ => self.timeout(),
        }
    }

    // ----- other streams (host timelines): registered, validated, waited for by the GPU -----

    /// Makes the stream `stream` known (a host timeline's): waits on its tokens are checked
    /// against what it promised from now on.
    pub fn register_stream(&mut self, stream: u64) {
        self.sync.add_stream(stream);
    }

    /// Forgets `stream` for new waits and checks; submissions already made keep their waits on
    /// it (their presents still wait for its signals) until they are seen complete.
    pub fn unregister_stream(&mut self, stream: u64) {
        if stream != self.stream {
            self.sync.remove_stream(stream);
        }
    }

    /// Whether the stream `stream` is registered, or was and a submission still waits for it.
    #[must_use]
    pub fn holds_stream(&self, stream: u64) -> bool {
        self.sync.holds(stream)
    }

    /// A registered stream promised (or signalled) `token`'s value: waits up to it may be made.
    pub fn stream_promised(&mut self, token: SyncToken) -> Result<(), CoreError> {
        self.foreign(token)?;
        self.sync.submitted(token)
    }

    /// A registered stream reached `token`'s value (its counter was read at or past it).
    pub fn stream_reached(&mut self, token: SyncToken) -> Result<(), CoreError> {
        self.foreign(token)?;
        self.sync.reached(token)
    }

    /// Checks a CPU wait for a registered stream's token: known stream, value promised.
    pub fn check_stream_wait(&self, token: SyncToken) -> Result<(), CoreError> {
        self.foreign(token)?;
        self.sync.check(token)
    }

    /// Checks that the next submission may wait on the GPU for `target`, a registered
    /// stream's token or (timeline backend) one of the machine's own: submitted or promised,
    /// and not waiting for itself ([`CoreError::WaitCycle`]). With the fence backend the
    /// machine's own tokens are fences, which the GPU cannot wait for:
    /// [`CoreError::NotWaitableOnGpu`].
    pub fn check_gpu_wait(&mut self, target: SyncToken) -> Result<(), CoreError> {
        if target.stream() == self.stream && self.uses_fences() {
            return Err(CoreError::NotWaitableOnGpu { token: target });
        }
        self.sync_own_stream()?;
        let waiter = self.token_of(self.next_serial);
        self.sync.check_wait(waiter, target)
    }

    /// Records GPU waits of the submission that was just made (after [`Self::check_gpu_wait`]
    /// accepted each): they stay known until that submission completes.
    pub fn record_gpu_waits(
        &mut self,
        submitted: SyncToken,
        targets: impl IntoIterator<Item = SyncToken>,
    ) -> Result<(), CoreError> {
        self.sync_own_stream()?;
        targets
            .into_iter()
            .try_for_each(|t| self.sync.add_wait(submitted, t))
    }

    /// The signal of `token`'s value on a registered stream is known made (a host producer
    /// signalled it, or a later value): a present may depend on it.
    pub fn stream_signalled(&mut self, token: SyncToken) -> Result<(), CoreError> {
        self.foreign(token)?;
        self.sync.signalled(token)
    }

    /// VUID-vkQueuePresentKHR-pWaitSemaphores-03268: "all elements of the pWaitSemaphores
    /// member ... must reference a semaphore signal operation that has been submitted for
    /// execution and any semaphore signal operations on which it depends must have also been
    /// submitted for execution". The present semaphore's signal depends on every value its
    /// submission waits for, so a frame that waits on the GPU for a registered stream's value
    /// whose signal is not known made is presented only once it is: the shell is asked to wait
    /// for that signal first (bounded). `None`: nothing to wait for.
    pub(super) fn present_dependency_wait(&mut self) -> Option<Request<S, W, F>> {
        if cfg!(vkpace_mutation = "present_before_signal") {
            // Deliberately wrong (`scripts/mutation-check`): the frame is presented at once.
            return None;
        }
        let serial = self.presenter.frame()?.submitted?;
        let token = self
            .sync
            .unsignalled_wait_of(self.token_of(serial), self.stream)?;
        self.awaiting = Some(Awaiting::StreamSignal(token));
        Some(Request::WaitStreamSignal {
            token,
            timeout_ns: self.timeout(),
        })
    }

    /// Answers [`Request::WaitStreamSignal`]: the signal of `signalled`'s value (and of every
    /// earlier one) on the stream asked about is known made. Below the value asked for: the
    /// wait timed out, and so does the operation.
    pub fn handle_stream_signalled(&mut self, signalled: SyncToken) -> Result<(), CoreError> {
        let asked =
            self.answer_stream("a stream signal nobody asked for", signalled, |a| match a {
                Awaiting::StreamSignal(t) => Some(t),
                _ => None,
            })?;
        self.stream_signalled(signalled)?;
        if signalled.value() < asked.value() {
            self.failure = Some(Failure::Timeout {
                what: "the signal of a host timeline value the frame waits for",
                timeout_ns: self.timeout(),
            });
        }
        Ok(())
    }

    /// Takes the awaited stream request `pick` accepts and checks that `answered` is about the
    /// same stream; returns the token asked about.
    fn answer_stream(
        &mut self,
        what: &'static str,
        answered: SyncToken,
        pick: impl FnOnce(Awaiting<S, F>) -> Option<SyncToken>,
    ) -> Result<SyncToken, CoreError> {
        let asked = self.answer(what, pick)?;
        if answered.stream() != asked.stream() {
            return Err(CoreError::OutOfOrder(
                "a stream request answered for another stream",
            ));
        }
        Ok(asked)
    }

    /// GPU waits recorded and not yet known over (the submissions that made them have not been
    /// seen complete).
    #[must_use]
    pub fn pending_gpu_waits(&self) -> usize {
        self.sync.pending_waits()
    }

    /// Brings the graph's view of the machine's own stream up to date.
    fn sync_own_stream(&mut self) -> Result<(), CoreError> {
        let (last, completed) = (self.last_submitted(), self.presenter.completed());
        self.sync.submitted(last)?;
        self.sync.reached(self.token_of(completed))
    }

    /// Refuses the machine's own tokens where another stream's are expected.
    fn foreign(&self, token: SyncToken) -> Result<(), CoreError> {
        if token.stream() == self.stream {
            return Err(CoreError::OutOfOrder(
                "the swapchain's own token given where a registered stream's is expected",
            ));
        }
        Ok(())
    }

    /// The pending signal that would reach `serial`: the first submitted at or after it, or,
    /// where that submission never signalled (it failed), the newest one before it that is not
    /// already known complete. `None`: reached.
    fn covering_signal(&self, serial: Serial) -> Option<SubmitSignal<F>> {
        let completed = self.presenter.completed();
        if serial <= completed {
            return None;
        }
        self.fences.signal_for(serial).or_else(|| {
            self.fences
                .newest_submitted()
                .filter(|&(s, _)| s > completed)
                .map(|(_, f)| f)
        })
    }
}
