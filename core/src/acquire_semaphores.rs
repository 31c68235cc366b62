//! The acquire-semaphore ring.
//!
//! An acquire semaphore is chosen before `vkAcquireNextImageKHR` says which image comes back, so
//! these are kept per acquire, not per image (GUIDE section 2). One may be handed to a new
//! acquire only when it has no pending signal or wait: `VUID-vkAcquireNextImageKHR-semaphore-01286`
//! ("semaphore must be unsignaled") and `VUID-vkAcquireNextImageKHR-semaphore-01779` ("must not
//! have any uncompleted signal or wait operations pending"). The wait that consumes the signal is
//! the frame's submission, so the semaphore is free once that submission's serial has completed.

use super::serial::Serial;
use crate::handle::Handle;

/// Where one acquire semaphore stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    /// Unsignaled, nothing pending.
    Free,
    /// Handed to an acquire whose outcome is not known yet.
    Acquiring,
    /// An acquire succeeded: a signal is pending and no wait has been submitted yet.
    SignalPending,
    /// A submission with this serial waits on it; free once the serial completes.
    WaitedBy(Serial),
}

/// The pool of acquire semaphores of one presenter.
#[derive(Debug)]
pub struct AcquireSemaphores<S> {
    entries: Vec<(S, State)>,
}

impl<S: std::fmt::Debug> AcquireSemaphores<S> {
    /// One line for the state dump: every semaphore of the ring and where it stands.
    pub(crate) fn dump(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, (s, state)) in self.entries.iter().enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            match state {
                State::Free => write!(out, "{sep}{s:?} free")?,
                State::Acquiring => write!(out, "{sep}{s:?} acquiring")?,
                State::SignalPending => write!(out, "{sep}{s:?} signalled, not yet waited")?,
                State::WaitedBy(serial) => write!(out, "{sep}{s:?} waited by {serial}")?,
            }
        }
        Ok(())
    }
}

impl<S: Handle> AcquireSemaphores<S> {
    /// An empty pool with room for `capacity` semaphores without reallocating.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            entries: Vec::with_capacity(capacity),
        }
    }

    /// A semaphore that is provably unused, marked as handed to an acquire; `None` means the
    /// caller must create one and pass it to [`AcquireSemaphores::start_new`].
    pub fn take(&mut self, completed: Serial) -> Option<S> {
        let i = self.entries.iter().position(|(_, st)| match st {
            State::Free => true,
            State::WaitedBy(s) => s.is_complete(completed),
            State::Acquiring | State::SignalPending => false,
        })?;
        let entry = self.entries.get_mut(i)?;
        entry.1 = State::Acquiring;
        Some(entry.0)
    }

    /// Registers a newly created semaphore, already handed to an acquire.
    pub fn start_new(&mut self, semaphore: S) {
        self.entries.push((semaphore, State::Acquiring));
    }

    /// Sets `semaphore`'s state; `false` if the pool does not own it.
    fn set(&mut self, semaphore: S, state: State) -> bool {
        match self.entries.iter_mut().find(|(s, _)| *s == semaphore) {
            Some(entry) => {
                entry.1 = state;
                true
            }
            None => false,
        }
    }

    /// The acquire signalled nothing (an error, `VK_TIMEOUT` or `VK_NOT_READY`): free again.
    pub fn acquire_failed(&mut self, semaphore: S) -> bool {
        self.set(semaphore, State::Free)
    }

    /// The acquire succeeded: its signal is pending until a submission waits on it.
    pub fn acquired(&mut self, semaphore: S) -> bool {
        self.set(semaphore, State::SignalPending)
    }

    /// A submission with `serial` waits on the semaphore.
    pub fn waited_by(&mut self, semaphore: S, serial: Serial) -> bool {
        self.set(semaphore, State::WaitedBy(serial))
    }

    /// How many semaphores the pool owns.
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether every semaphore is free or waited on by a submitted wait: `false` if one still
    /// has a signal with no wait submitted (then it can never become free by waiting).
    #[must_use]
    pub fn every_signal_waited(&self) -> bool {
        self.entries
            .iter()
            .all(|(_, st)| matches!(st, State::Free | State::WaitedBy(_)))
    }

    /// Removes and yields every semaphore; call only once every submission that waits on
    /// one completed ([`Self::every_signal_waited`]).
    pub fn drain(&mut self) -> impl Iterator<Item = S> + '_ {
        self.entries.drain(..).map(|(s, _)| s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reused_only_after_the_waiting_submission_completed() {
        let mut ring = AcquireSemaphores::with_capacity(4);
        assert_eq!(ring.take(Serial::NONE), None);
        ring.start_new(7u32);
        assert!(ring.acquired(7));
        assert!(ring.waited_by(7, Serial(3)));
        assert_eq!(ring.take(Serial(2)), None);
        assert_eq!(ring.take(Serial(3)), Some(7));
        assert!(ring.acquire_failed(7));
        assert_eq!(ring.take(Serial::NONE), Some(7));
        assert!(!ring.every_signal_waited());
    }
}
