//! Waiting for a host timeline's signal, which the machine asks for before presenting a frame
//! whose submission waits for it on the GPU (`Request::WaitStreamSignal`).

use std::time::{Duration, Instant};

use super::Shell;
use crate::core::SyncToken;

impl Shell {
    /// Waits, at most `timeout_ns`, until the producer of `token`'s registered timeline has
    /// signalled its value; returns the highest value known signalled then (below `token`'s:
    /// timed out). It asks the producer's side, not the semaphore: what a present needs is
    /// that the signal was made, and bookworm's validation layer stalls on a host wait that
    /// races a host signal of the same semaphore. A timeline unregistered since the frame was
    /// submitted is still waited for; one destroyed meanwhile (against its contract) is not:
    /// `token` itself is returned.
    pub(crate) fn wait_stream_signal(&self, token: SyncToken, timeout_ns: u64) -> SyncToken {
        let Some(timeline) = self.timeline_for_signal(token.stream()) else {
            return token;
        };
        let bound = Duration::from_nanos(timeout_ns);
        let deadline = Instant::now() + bound;
        let value = timeline.wait_signalled(token.value(), deadline);
        SyncToken::new(token.stream(), value)
    }
}
