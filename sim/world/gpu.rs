//! The simulated GPU queue: submissions run in order; each waits for its semaphores, runs for a
//! random number of ticks, then signals its semaphores and its fence or timeline value.

use vkpace_core::SubmitSignal;

use super::{Check, Fence, Gen, Sem, World};

#[derive(Debug)]
pub(super) struct Submission {
    number: u64,
    waits: Vec<Sem>,
    signals: Vec<Sem>,
    fence: Option<Fence>,
    /// The value it signals on the machine's timeline semaphore (timeline backend).
    timeline: Option<u64>,
    /// Other queues' timeline values it waits for: `(stream, value)`.
    pub(super) stream_waits: Vec<(u64, u64)>,
    /// The swapchain whose image or acquire semaphore this submission uses.
    pub(super) touches: Option<Gen>,
    started: bool,
    /// When it started running (virtual ns).
    started_at: u64,
    remaining: u32,
    /// When it was submitted (virtual ns).
    pub(super) submitted_at: u64,
    /// Load mode: how long it runs once started (ns), instead of `remaining` ticks.
    pub(super) duration_ns: u64,
    frame: bool,
    /// An empty submission (no waits, no signals) starts only once every present queued before
    /// it consumed its wait: the assumption vkpace's bounded fallback and teardown rest on
    /// (ANGLE makes it of `vkQueueWaitIdle`: presents are queue operations executed in order).
    /// Stated here, the property tests check everything else against it.
    after_present: Option<u64>,
}

impl World {
    /// `vkQueueSubmit` of one batch; returns the world's number of the submission (for the
    /// caller's ground-truth bookkeeping). `signal`: its fence or timeline value; `frame`: it
    /// is a frame's submission.
    pub fn submit(
        &mut self,
        waits: &[Sem],
        signals: &[Sem],
        signal: Option<SubmitSignal<Fence>>,
        frame: bool,
    ) -> Result<u64, String> {
        self.submit_waiting(waits, &[], signals, signal, frame)
    }

    /// [`Self::submit`] of a batch that also waits for other queues' timeline values
    /// (`(stream, value)`); a value whose signal is not submitted yet is waited for all the
    /// same (wait-before-signal).
    pub fn submit_waiting(
        &mut self,
        waits: &[Sem],
        stream_waits: &[(u64, u64)],
        signals: &[Sem],
        signal: Option<SubmitSignal<Fence>>,
        frame: bool,
    ) -> Result<u64, String> {
        let fence = signal.and_then(SubmitSignal::fence);
        self.check_submit(waits, stream_waits, signals, fence)?;
        self.queue_batch(waits, stream_waits, signals, signal, frame)
    }

    /// Queues a batch whose semaphores and fence were checked (and the fence marked pending).
    pub(super) fn queue_batch(
        &mut self,
        waits: &[Sem],
        stream_waits: &[(u64, u64)],
        signals: &[Sem],
        signal: Option<SubmitSignal<Fence>>,
        frame: bool,
    ) -> Result<u64, String> {
        let fence = signal.and_then(SubmitSignal::fence);
        let timeline = signal.and_then(SubmitSignal::timeline_value);
        if let Some(v) = timeline {
            // VUID-VkSubmitInfo-pSignalSemaphores-03242: above the current value and every
            // pending signal's.
            if v <= self.timeline.max(self.timeline_pending) {
                return Err(format!(
                    "timeline signal {v} not above {} (pending {})",
                    self.timeline, self.timeline_pending
                ));
            }
            self.timeline_pending = v;
        }
        for &s in signals {
            self.sem(s)?.pending_signals += 1;
        }
        for &s in waits {
            self.sem(s)?.pending_waits += 1;
        }
        let touches = waits.iter().find_map(|s| self.acquired_from(*s));
        let number = self.next_submission;
        self.next_submission += 1;
        let (remaining, duration_ns) = self.run_length(frame);
        let after_present =
            (waits.is_empty() && signals.is_empty()).then(|| self.last_present_seq());
        self.queue.push_back(Submission {
            number,
            waits: waits.to_vec(),
            signals: signals.to_vec(),
            fence,
            timeline,
            stream_waits: stream_waits.to_vec(),
            touches,
            started: false,
            started_at: 0,
            remaining,
            submitted_at: self.now,
            duration_ns,
            frame,
            after_present,
        });
        if frame {
            self.frames_pending += 1;
        }
        Ok(number)
    }

    /// Checks a submission's streams, semaphores and fence before it is queued: every stream
    /// waited on has a queue, every signal can be signaled, every wait has a signal to wait
    /// for, and the fence is free.
    fn check_submit(
        &mut self,
        waits: &[Sem],
        stream_waits: &[(u64, u64)],
        signals: &[Sem],
        fence: Option<Fence>,
    ) -> Result<(), String> {
        for &(s, _) in stream_waits {
            if self.timeline_of(s).is_none() {
                return Err(format!("a wait on stream {s}, which no queue has"));
            }
        }
        for &s in signals {
            self.check_signalable(s, "submit signal")?;
        }
        for &s in waits {
            let t = self.sem(s)?;
            if !(t.signaled || t.pending_signals > 0) || t.pending_waits > 0 {
                return Err(format!(
                    "submit waits on semaphore {s} with no signal to wait for (VUID-vkQueueSubmit-pWaitSemaphores-03238)"
                ));
            }
        }
        if let Some(f) = fence {
            self.check_fence_free(f, "submit")?;
        }
        Ok(())
    }

    /// How long a new submission runs: random ticks, or in load mode (drawing nothing) the
    /// duration a frame was given.
    fn run_length(&mut self, frame: bool) -> (u32, u64) {
        match self.load.as_mut() {
            Some(l) if frame => (0, std::mem::take(&mut l.next_frame_gpu_ns)),
            Some(_) => (0, 0),
            None => (self.rng.below(self.faults.max_gpu_delay + 1), 0),
        }
    }

    /// A present waiting on `sem`: the submission that signals it may wait only for values
    /// whose signals were submitted.
    pub(super) fn check_present_dependencies(&self, sem: Sem) -> Check {
        match self.queue.iter().find(|s| s.signals.contains(&sem)) {
            Some(s) => self.stream_waits_submitted(&s.stream_waits),
            None => Ok(()),
        }
    }

    /// Whether a submission using swapchain `g` is pending.
    pub(super) fn submission_touches(&self, g: Gen) -> bool {
        self.queue.iter().any(|s| s.touches == Some(g))
    }

    /// One step of the GPU: the head submission waits, then runs for its delay, then completes.
    pub fn gpu_tick(&mut self) -> Check {
        self.others_tick();
        let Some(head) = self.queue.front_mut() else {
            return Ok(());
        };
        if !head.started {
            let waits = head.waits.clone();
            let stream_waits = head.stream_waits.clone();
            let presents_done = head
                .after_present
                .is_none_or(|seq| self.presents_done_through(seq))
                && self.stream_waits_reached(&stream_waits);
            if !presents_done
                || !waits
                    .iter()
                    .all(|s| self.sems.get(s).is_some_and(|t| t.signaled))
            {
                return Ok(());
            }
            for s in waits {
                let t = self.sem(s)?;
                t.signaled = false;
                t.pending_waits -= 1;
            }
            let now = self.now;
            if let Some(head) = self.queue.front_mut() {
                head.started = true;
                head.started_at = now;
            }
            return Ok(());
        }
        if head.remaining > 0 {
            head.remaining -= 1;
            return Ok(());
        }
        let now = self.now;
        self.complete_head(now)
    }

    /// The head submission completes at `at`: its semaphores, fence and timeline value signal.
    pub(super) fn complete_head(&mut self, at: u64) -> Check {
        let Some(done) = self.queue.pop_front() else {
            return Ok(());
        };
        for s in done.signals {
            let t = self.sem(s)?;
            t.pending_signals -= 1;
            t.signaled = true;
            t.signaled_at = at;
        }
        if let Some(f) = done.fence {
            let t = self.fence(f)?;
            t.pending = false;
            t.signaled = true;
        }
        if let Some(v) = done.timeline {
            self.timeline = v;
        }
        self.gpu_completed = done.number;
        if done.frame {
            self.frames_pending -= 1;
            self.gpu_times.insert(done.number, (done.started_at, at));
            while self.gpu_times.len() > 64 {
                self.gpu_times.pop_first();
            }
        }
        Ok(())
    }

    /// Load mode: when the head submission starts and ends, once it may start (its waits
    /// signalled, the presents before an empty one consumed); None while it may not.
    pub(super) fn head_times(&self) -> Option<(u64, u64)> {
        let head = self.queue.front()?;
        if head.started {
            return Some((head.started_at, head.started_at + head.duration_ns));
        }
        let presents_done = head
            .after_present
            .is_none_or(|seq| self.presents_done_through(seq));
        let waits_done = head
            .waits
            .iter()
            .all(|s| self.sems.get(s).is_some_and(|t| t.signaled));
        if !(presents_done && waits_done && self.stream_waits_reached(&head.stream_waits)) {
            return None;
        }
        let idle_at = self.load.as_ref().map_or(0, |l| l.gpu_idle_at);
        let start = head.submitted_at.max(idle_at);
        Some((start, start + head.duration_ns))
    }

    /// Load mode: the head submission starts at `start` (its waits are consumed).
    pub(super) fn start_head(&mut self, start: u64) -> Check {
        let waits = self
            .queue
            .front()
            .map(|h| h.waits.clone())
            .unwrap_or_default();
        for s in waits {
            let t = self.sem(s)?;
            t.signaled = false;
            t.pending_waits -= 1;
        }
        if let Some(head) = self.queue.front_mut() {
            head.started = true;
            head.started_at = start;
        }
        Ok(())
    }
}
