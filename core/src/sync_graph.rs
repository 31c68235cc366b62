//! Validated waits (seed 000, Chromium's sync tokens): a wait, on the CPU or the GPU, is checked
//! at the call against what each stream has submitted or promised, and a set of GPU waits that
//! would wait on itself is refused. A wait that can never end is an error at once, never a hang
//! of the CPU and never a queue stuck on a semaphore nobody will signal.
//!
//! Streams reach their values in order, so a point `(S, x)` depends on every wait made by a
//! submission of `S` at or before `x`. A new wait "`waiter` waits for `target`" closes a cycle
//! exactly when `target`, through such dependencies, needs `waiter`'s stream to reach a value at
//! or past `waiter`'s own: that point cannot come before `waiter` itself.

use super::error::CoreError;
use super::sync_token::SyncToken;

/// What the graph knows of one stream.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Stream {
    id: u64,
    /// The highest value submitted (a queue) or promised (a host producer): waits up to it can
    /// end.
    submitted: u64,
    /// The highest value known reached; waits made by submissions up to it are over.
    reached: u64,
    /// The highest value whose signal is known made (a host producer's signal, a queue's
    /// submission): a present may depend on values up to it.
    signalled: u64,
    /// Unregistered while a submission still waited for it: unknown to new waits and checks,
    /// kept until no wait on it is left, so the present of that submission still waits for
    /// its signal.
    retired: bool,
}

/// A GPU wait (or a promise's dependency) not yet known over: `waiter` cannot be reached before
/// `target` is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Wait {
    waiter: SyncToken,
    target: SyncToken,
}

/// The streams a frame machine knows and the waits between them that may still be pending.
#[derive(Clone, Debug, Default)]
pub struct SyncGraph {
    streams: Vec<Stream>,
    waits: Vec<Wait>,
    /// The cycle search's work lists, kept so a frame's checks do not allocate.
    stack: Vec<SyncToken>,
    explored: Vec<(u64, u64)>,
}

impl SyncGraph {
    /// A graph without streams.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds stream `id` (nothing submitted, nothing reached); a known one is left as it is, and
    /// a retired one is known again.
    pub fn add_stream(&mut self, id: u64) {
        match self.streams.iter_mut().find(|s| s.id == id) {
            Some(s) => s.retired = false,
            None => self.streams.push(Stream {
                id,
                submitted: 0,
                reached: 0,
                signalled: 0,
                retired: false,
            }),
        }
    }

    /// Forgets stream `id`: new waits and checks no longer know it, and its own waits are
    /// dropped. Waits of other streams' submissions on it are kept until they are over (a
    /// submission already made still waits for it), and the stream with them, retired.
    pub fn remove_stream(&mut self, id: u64) {
        self.waits.retain(|w| w.waiter.stream() != id);
        if let Some(s) = self.streams.iter_mut().find(|s| s.id == id) {
            s.retired = true;
        }
        self.drop_retired();
    }

    /// Whether stream `id` is known, or retired with waits on it left.
    #[must_use]
    pub fn holds(&self, id: u64) -> bool {
        self.held(id).is_some()
    }

    /// Removes the retired streams no wait is left on.
    fn drop_retired(&mut self) {
        let waits = &self.waits;
        self.streams
            .retain(|s| !s.retired || waits.iter().any(|w| w.target.stream() == s.id));
    }

    /// Whether stream `id` is known.
    #[must_use]
    pub fn knows(&self, id: u64) -> bool {
        self.stream(id).is_some()
    }

    /// `token`'s value was submitted (or promised) on its stream. Lower values change nothing.
    pub fn submitted(&mut self, token: SyncToken) -> Result<(), CoreError> {
        let s = self.stream_mut(token)?;
        s.submitted = s.submitted.max(token.value());
        Ok(())
    }

    /// Everything up to `token` is reached: the waits made up to it are over.
    pub fn reached(&mut self, token: SyncToken) -> Result<(), CoreError> {
        let s = self.stream_mut(token)?;
        s.reached = s.reached.max(token.value());
        s.submitted = s.submitted.max(s.reached);
        let (id, reached) = (s.id, s.reached);
        self.waits
            .retain(|w| w.waiter.stream() != id || w.waiter.value() > reached);
        self.drop_retired();
        Ok(())
    }

    /// The highest value of stream `id` known reached (`None`: not a known stream).
    #[must_use]
    pub fn reached_value(&self, id: u64) -> Option<u64> {
        self.stream(id).map(|s| s.reached)
    }

    /// The signal of `token`'s value (and of every earlier one) is known made.
    pub fn signalled(&mut self, token: SyncToken) -> Result<(), CoreError> {
        let s = self.stream_mut(token)?;
        s.signalled = s.signalled.max(token.value());
        Ok(())
    }

    /// A value of another stream than `own` that the submission `waiter` waits for on the GPU
    /// and whose signal is not known made (neither signalled nor reached).
    #[must_use]
    pub fn unsignalled_wait_of(&self, waiter: SyncToken, own: u64) -> Option<SyncToken> {
        self.waits
            .iter()
            .filter(|w| w.waiter == waiter && w.target.stream() != own)
            .map(|w| w.target)
            .find(|t| {
                self.held(t.stream())
                    .is_some_and(|s| t.value() > s.signalled.max(s.reached))
            })
    }

    /// The highest value submitted or promised on `token`'s stream.
    pub fn last_submitted(&self, token: SyncToken) -> Result<u64, CoreError> {
        self.stream_of(token).map(|s| s.submitted)
    }

    /// Checks a wait for `target` (the CPU's, or the GPU's before [`Self::add_wait`]): its
    /// stream must be known and its value submitted or promised.
    pub fn check(&self, target: SyncToken) -> Result<(), CoreError> {
        let s = self.stream_of(target)?;
        if target.value() > s.submitted {
            return Err(CoreError::TokenNotSubmitted {
                token: target,
                last_submitted: s.submitted,
            });
        }
        Ok(())
    }

    /// Records that the submission (or promise) `waiter` waits for `target`, after checking
    /// `target` ([`Self::check`]) and that `target` does not need `waiter` first
    /// ([`CoreError::WaitCycle`]). `waiter`'s stream must be known; its value need not be
    /// submitted yet (the wait is checked before the submission is made).
    pub fn add_wait(&mut self, waiter: SyncToken, target: SyncToken) -> Result<(), CoreError> {
        self.check_wait(waiter, target)?;
        if self
            .stream_of(target)
            .is_ok_and(|s| target.value() > s.reached)
        {
            self.waits.push(Wait { waiter, target });
        }
        Ok(())
    }

    /// What [`Self::add_wait`] would answer, without recording the wait.
    pub fn check_wait(&mut self, waiter: SyncToken, target: SyncToken) -> Result<(), CoreError> {
        self.stream_of(waiter)?;
        self.check(target)?;
        if self.needs(target, waiter) {
            return Err(CoreError::WaitCycle { waiter, target });
        }
        Ok(())
    }

    /// Waits recorded and not known over.
    #[must_use]
    pub fn pending_waits(&self) -> usize {
        self.waits.len()
    }

    /// Whether reaching `from` needs `on`'s stream to reach `on`'s value or a later one.
    fn needs(&mut self, from: SyncToken, on: SyncToken) -> bool {
        // Per stream, the highest value whose dependencies were already followed.
        let (mut stack, mut explored) = (
            std::mem::take(&mut self.stack),
            std::mem::take(&mut self.explored),
        );
        stack.clear();
        explored.clear();
        stack.push(from);
        let found = self.search(on, &mut stack, &mut explored);
        (self.stack, self.explored) = (stack, explored);
        found
    }

    fn search(
        &self,
        on: SyncToken,
        stack: &mut Vec<SyncToken>,
        explored: &mut Vec<(u64, u64)>,
    ) -> bool {
        while let Some(point) = stack.pop() {
            if point.stream() == on.stream() && point.value() >= on.value() {
                return true;
            }
            let seen = explored
                .iter()
                .find(|(id, _)| *id == point.stream())
                .map_or(0, |&(_, v)| v);
            if point.value() <= seen {
                continue;
            }
            explored.retain(|(id, _)| *id != point.stream());
            explored.push((point.stream(), point.value()));
            stack.extend(
                self.waits
                    .iter()
                    .filter(|w| {
                        w.waiter.stream() == point.stream()
                            && w.waiter.value() > seen
                            && w.waiter.value() <= point.value()
                    })
                    .map(|w| w.target),
            );
        }
        false
    }

    /// Its lines of the state dump: each stream's submitted (or promised) and reached values,
    /// and every GPU wait that may still be pending.
    pub(crate) fn dump(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for s in &self.streams {
            writeln!(
                out,
                "  stream {}: submitted or promised {}, signalled {}, reached {}",
                s.id, s.submitted, s.signalled, s.reached
            )?;
        }
        for w in &self.waits {
            writeln!(out, "  {} waits for {}", w.waiter, w.target)?;
        }
        Ok(())
    }

    /// A known stream (not retired).
    fn stream(&self, id: u64) -> Option<&Stream> {
        self.held(id).filter(|s| !s.retired)
    }

    /// A known or retired stream.
    fn held(&self, id: u64) -> Option<&Stream> {
        self.streams.iter().find(|s| s.id == id)
    }

    fn stream_of(&self, token: SyncToken) -> Result<&Stream, CoreError> {
        self.stream(token.stream())
            .ok_or(CoreError::UnknownStream { token })
    }

    /// A known or retired stream: what it signalled or reached is still learned.
    fn stream_mut(&mut self, token: SyncToken) -> Result<&mut Stream, CoreError> {
        self.streams
            .iter_mut()
            .find(|s| s.id == token.stream())
            .ok_or(CoreError::UnknownStream { token })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(stream: u64, value: u64) -> SyncToken {
        SyncToken::new(stream, value)
    }

    fn graph() -> SyncGraph {
        let mut g = SyncGraph::new();
        for s in 1..=3 {
            g.add_stream(s);
            g.submitted(t(s, 10)).unwrap();
        }
        g
    }

    #[test]
    fn an_unregistered_stream_is_kept_for_the_waits_already_made() {
        let mut g = graph();
        g.add_wait(t(1, 5), t(2, 4)).unwrap();
        g.remove_stream(2);
        assert_eq!(
            g.check(t(2, 1)),
            Err(CoreError::UnknownStream { token: t(2, 1) })
        );
        assert!(g.holds(2) && !g.knows(2));
        assert_eq!(g.unsignalled_wait_of(t(1, 5), 1), Some(t(2, 4)));
        // The waiting submission completes: the stream is gone.
        g.reached(t(1, 5)).unwrap();
        assert!(!g.holds(2));
        // A stream nobody waits for goes at once.
        g.remove_stream(3);
        assert!(!g.holds(3));
    }

    #[test]
    fn a_present_waits_for_the_signals_its_submission_depends_on() {
        let mut g = graph();
        // Stream 1 is the swapchain's own: its values are submitted GPU work, never waited for.
        g.add_wait(t(1, 5), t(1, 3)).unwrap();
        g.add_wait(t(1, 5), t(2, 4)).unwrap();
        g.add_wait(t(1, 5), t(3, 7)).unwrap();
        assert_eq!(g.unsignalled_wait_of(t(1, 5), 1), Some(t(2, 4)));
        g.signalled(t(2, 6)).unwrap();
        assert_eq!(g.unsignalled_wait_of(t(1, 5), 1), Some(t(3, 7)));
        // Reached implies signalled.
        g.reached(t(3, 7)).unwrap();
        assert_eq!(g.unsignalled_wait_of(t(1, 5), 1), None);
        // Another submission's waits are its own.
        assert_eq!(g.unsignalled_wait_of(t(1, 4), 1), None);
    }

    #[test]
    fn a_wait_past_the_last_submission_or_on_an_unknown_stream_is_refused() {
        let g = graph();
        assert_eq!(
            g.check(t(1, 11)),
            Err(CoreError::TokenNotSubmitted {
                token: t(1, 11),
                last_submitted: 10
            })
        );
        assert_eq!(
            g.check(t(9, 1)),
            Err(CoreError::UnknownStream { token: t(9, 1) })
        );
        assert_eq!(g.check(t(1, 10)), Ok(()));
    }

    #[test]
    fn a_cycle_through_three_streams_is_refused_and_a_later_point_is_not() {
        let mut g = graph();
        g.add_wait(t(1, 5), t(2, 4)).unwrap();
        g.add_wait(t(2, 4), t(3, 6)).unwrap();
        // 3 at 6 waiting for 1 at 5 would close 1@5 -> 2@4 -> 3@6 -> 1@5.
        assert_eq!(
            g.add_wait(t(3, 6), t(1, 5)),
            Err(CoreError::WaitCycle {
                waiter: t(3, 6),
                target: t(1, 5)
            })
        );
        // 3 at 7 may wait for 1 at 4: stream 1 reaches 4 before its wait at 5.
        assert_eq!(g.add_wait(t(3, 7), t(1, 4)), Ok(()));
    }

    #[test]
    fn waits_of_reached_points_are_forgotten() {
        let mut g = graph();
        g.add_wait(t(1, 5), t(2, 4)).unwrap();
        g.reached(t(1, 5)).unwrap();
        assert_eq!(g.pending_waits(), 0);
        assert_eq!(g.add_wait(t(2, 6), t(1, 5)), Ok(()));
    }
}
