//! Host timelines as the machine asks about them: waiting for a signal before presenting a
//! frame whose submission waits for it on the GPU (`Request::WaitStreamSignal`), and reading or
//! waiting for a counter value for a token of a registered timeline (`Request::ReadStreamValue`,
//! `Request::WaitStreamValue`).

use std::time::{Duration, Instant};

use super::Shell;
use crate::vk::error::{Error, Result, VkContext};
use crate::vk::host_timeline::wait_value;
use vkpace_core::SyncToken;

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

    /// The counter of `token`'s registered timeline, read after waiting at most `timeout_ns`
    /// for `token`'s value (0: read at once). A timeline destroyed meanwhile (against its
    /// contract) is [`Error::ForeignToken`].
    pub(crate) fn stream_value(&self, token: SyncToken, timeout_ns: u64) -> Result<SyncToken> {
        let Some(timeline) = self
            .timelines()
            .iter()
            .find(|t| t.stream == token.stream() && !t.destroyed())
        else {
            return Err(Error::ForeignToken(token));
        };
        if timeout_ns > 0 {
            let bound = Duration::from_nanos(timeout_ns);
            match wait_value(self.device(), timeline.semaphore, token.value(), bound) {
                Ok(()) | Err(Error::Timeout { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        // SAFETY: a registered timeline not destroyed (checked) is a live timeline semaphore of
        // this device.
        let value = unsafe {
            self.device()
                .get_semaphore_counter_value(timeline.semaphore)
        }
        .during("vkGetSemaphoreCounterValue")?;
        Ok(SyncToken::new(token.stream(), value))
    }
}
