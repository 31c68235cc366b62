//! Other queues in a schedule (seed 000's several streams): each has a timeline the schedule
//! promises values on, submits them to at random, and reads back; frames wait for random values
//! on the GPU through the machine's checks. A wait on a value nobody promised must be refused at
//! the call (typed, naming the promised value), a promised one accepted; every value a frame
//! waits for is submitted before the frame is presented, as a renderer must.

use vkpace::core::{new_stream_id, CoreError, SyncToken};
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
}

impl OtherQueues {
    /// `count` queues, registered with the machine and the world.
    pub fn new(sim: &mut SimSwapchain, count: usize) -> Self {
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

    /// Up to two waits on random queues, one in five past what was promised.
    pub fn pick_waits(&self, sim: &mut SimSwapchain) -> Vec<SyncToken> {
        if self.streams.is_empty() {
            return Vec::new();
        }
        let n = sim.world.rng.below(3);
        (0..n)
            .map(|_| {
                let i = sim.world.rng.below(self.streams.len() as u32) as usize;
                let promised = self.promised[i];
                // One wait in five is past the promise.
                let value = if sim.world.rng.chance(20) {
                    promised + 1 + u64::from(sim.world.rng.below(3))
                } else {
                    1 + u64::from(sim.world.rng.below(promised.min(1 << 20) as u32 + 1))
                };
                SyncToken::new(self.streams[i], value)
            })
            .collect()
    }

    /// What the machine answered for `waits`: refused exactly when one is past its queue's
    /// promise, with that token and the promised value; accepted ones become needed.
    pub fn judge(&mut self, waits: &[SyncToken], refusal: Option<CoreError>) -> Result<(), String> {
        let past = waits
            .iter()
            .find(|t| t.value() > self.promised[self.index(t.stream())]);
        match (past, refusal) {
            (None, None) => {
                for t in waits {
                    let i = self.index(t.stream());
                    self.needed[i] = self.needed[i].max(t.value());
                }
                self.waits_accepted += waits.len() as u64;
                Ok(())
            }
            (
                Some(&t),
                Some(CoreError::TokenNotSubmitted {
                    token,
                    last_submitted,
                }),
            ) if token == t && last_submitted == self.promised[self.index(t.stream())] => {
                self.waits_refused += 1;
                Ok(())
            }
            (past, refusal) => Err(format!(
                "waits {waits:?} (past the promise: {past:?}) answered {refusal:?}"
            )),
        }
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
