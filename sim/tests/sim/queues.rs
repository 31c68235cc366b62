//! Other queues in a schedule (seed 000's several streams): each has a timeline the schedule
//! promises values on, submits them to at random, and reads back; frames wait for random values
//! on the GPU through the machine's checks, and so (timeline backend) may the swapchain's own
//! tokens. A wait on a value nobody promised or submitted must be refused at the call (typed,
//! naming the last value), and an own token on the fence backend too; the others accepted;
//! every value a frame waits for is submitted before the frame is presented, as a renderer
//! must.

use vkpace_core::new_stream_id;
use vkpace_core::CoreError;
use vkpace_core::SyncToken;
use vkpace_sim::driver::SimSwapchain;

/// The schedule's other queues and what it promised on each.
#[derive(Debug, Default)]
pub struct OtherQueues {
    streams: Vec<u64>,
    promised: Vec<u64>,
    /// The highest value of each stream a submitted frame waits for.
    needed: Vec<u64>,
    pub waits_accepted: u64,
    pub waits_refused: u64,
    /// Accepted waits on the swapchain's own stream (timeline backend).
    pub own_waits: u64,
}

impl OtherQueues {
    /// `count` queues, registered with the machine and the world; the world also learns the
    /// swapchain's own stream, which frames may wait for on the timeline backend.
    pub fn new(sim: &mut SimSwapchain, count: usize) -> Self {
        sim.world.own_stream = sim.machine.last_submitted().stream();
        let mut q = Self::default();
        for _ in 0..count {
            let stream = new_stream_id();
            sim.machine.register_stream(stream);
            sim.world.add_queue(stream);
            q.streams.push(stream);
            q.promised.push(0);
            q.needed.push(0);
        }
        q
    }

    /// One random step: promise more on a queue, submit promised values to it, or read its
    /// timeline into the machine (as the shell does when it looks at a registered timeline).
    pub fn step(&mut self, sim: &mut SimSwapchain) -> Result<(), String> {
        if self.streams.is_empty() {
            return Ok(());
        }
        let i = sim.world.rng.below(self.streams.len() as u32) as usize;
        let stream = self.streams[i];
        let submitted = sim.world.queue_of(stream).map_or(0, |q| q.submitted);
        match sim.world.rng.below(3) {
            0 => {
                self.promised[i] += 1 + u64::from(sim.world.rng.below(3));
                let token = SyncToken::new(stream, self.promised[i]);
                sim.machine
                    .stream_promised(token)
                    .map_err(|e| e.to_string())?;
                sim.world.promise_other(stream, self.promised[i]);
            }
            1 if submitted < self.promised[i] => sim.world.submit_other(stream, submitted + 1)?,
            _ => {
                let reached = sim.world.queue_of(stream).map_or(0, |q| q.reached);
                let token = SyncToken::new(stream, reached);
                sim.machine
                    .stream_reached(token)
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(())
    }

    /// Up to two waits, on random other queues or (one in four) on the swapchain's own
    /// stream; about one in five past what was promised or submitted.
    pub fn pick_waits(&self, sim: &mut SimSwapchain) -> Vec<SyncToken> {
        if self.streams.is_empty() {
            return Vec::new();
        }
        let own = sim.machine.last_submitted();
        let n = sim.world.rng.below(3);
        (0..n)
            .map(|_| {
                let (stream, last) = if sim.world.rng.chance(25) {
                    (own.stream(), own.value())
                } else {
                    let i = sim.world.rng.below(self.streams.len() as u32) as usize;
                    (self.streams[i], self.promised[i])
                };
                let value = if sim.world.rng.chance(20) {
                    last + 1 + u64::from(sim.world.rng.below(3))
                } else {
                    1 + u64::from(sim.world.rng.below(last.min(1 << 20) as u32))
                };
                SyncToken::new(stream, value)
            })
            .collect()
    }

    /// The refusal the machine owes `waits`, checked in order: on the swapchain's own stream
    /// (whose last submission is `own`) `NotWaitableOnGpu` with fences, a value past `own`
    /// with the timeline; on another queue a value past its promise.
    fn expected_refusal(
        &self,
        waits: &[SyncToken],
        own: SyncToken,
        fences: bool,
    ) -> Option<CoreError> {
        waits.iter().find_map(|&t| {
            let last = if t.stream() == own.stream() {
                if fences {
                    return Some(CoreError::NotWaitableOnGpu { token: t });
                }
                own.value()
            } else {
                self.promised[self.index(t.stream())]
            };
            (t.value() > last).then_some(CoreError::TokenNotSubmitted {
                token: t,
                last_submitted: last,
            })
        })
    }

    /// What the machine answered for `waits` (`own`: its last submission before them): exactly
    /// the refusal owed, if any; accepted waits on other queues become needed.
    pub fn judge(
        &mut self,
        waits: &[SyncToken],
        own: SyncToken,
        fences: bool,
        refusal: Option<CoreError>,
    ) -> Result<(), String> {
        let owed = self.expected_refusal(waits, own, fences);
        if owed != refusal {
            return Err(format!(
                "waits {waits:?} (own stream at {own}) answered {refusal:?}, owed {owed:?}"
            ));
        }
        if refusal.is_some() {
            self.waits_refused += 1;
            return Ok(());
        }
        for t in waits.iter().filter(|t| t.stream() != own.stream()) {
            let i = self.index(t.stream());
            self.needed[i] = self.needed[i].max(t.value());
        }
        self.own_waits += waits.iter().filter(|t| t.stream() == own.stream()).count() as u64;
        self.waits_accepted += waits.len() as u64;
        Ok(())
    }

    /// Submits every value a submitted frame waits for (before anything presents it).
    pub fn settle(&mut self, sim: &mut SimSwapchain) -> Result<(), String> {
        for (i, &stream) in self.streams.iter().enumerate() {
            let submitted = sim.world.queue_of(stream).map_or(0, |q| q.submitted);
            if self.needed[i] > submitted {
                sim.world.submit_other(stream, self.needed[i])?;
            }
        }
        Ok(())
    }

    fn index(&self, stream: u64) -> usize {
        self.streams.iter().position(|&s| s == stream).unwrap_or(0)
    }
}
