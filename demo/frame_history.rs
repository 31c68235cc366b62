//! The last [`GRAPH_SAMPLES`] frames' timings, kept in a fixed ring (no allocation per frame),
//! oldest first when read: what the live graph draws.

/// Frames the graph shows (one column each).
pub const GRAPH_SAMPLES: usize = 240;

/// One frame's timings, in milliseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sample {
    /// Time since the previous frame began.
    pub interval_ms: f32,
    /// Time the CPU waited on the pacing fence before it could start this frame.
    pub cpu_wait_ms: f32,
    /// Frame start to the return of its present (on lavapipe the present waits for the
    /// rendering, so this is start to GPU end there; a lower bound elsewhere).
    pub latency_ms: f32,
}

/// A ring of the most recent samples.
pub struct FrameHistory {
    samples: [Sample; GRAPH_SAMPLES],
    next: usize,
    len: usize,
}

impl Default for FrameHistory {
    fn default() -> Self {
        Self {
            samples: [Sample::default(); GRAPH_SAMPLES],
            next: 0,
            len: 0,
        }
    }
}

impl FrameHistory {
    /// Adds the newest sample, dropping the oldest when full.
    pub fn push(&mut self, sample: Sample) {
        self.samples[self.next] = sample;
        self.next = (self.next + 1) % GRAPH_SAMPLES;
        self.len = (self.len + 1).min(GRAPH_SAMPLES);
    }

    /// How many samples are held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no sample is held yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The samples, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = &Sample> {
        let start = (self.next + GRAPH_SAMPLES - self.len) % GRAPH_SAMPLES;
        (0..self.len).map(move |i| &self.samples[(start + i) % GRAPH_SAMPLES])
    }

    /// The largest value of any series, for the graph's scale.
    pub fn peak_ms(&self) -> f32 {
        self.iter()
            .map(|s| s.interval_ms.max(s.cpu_wait_ms).max(s.latency_ms))
            .fold(0.0, f32::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(v: f32) -> Sample {
        Sample {
            interval_ms: v,
            ..Sample::default()
        }
    }

    #[test]
    fn keeps_the_newest_in_order() {
        let mut h = FrameHistory::default();
        for i in 0..(GRAPH_SAMPLES + 5) {
            h.push(sample(i as f32));
        }
        assert_eq!(h.len(), GRAPH_SAMPLES);
        let got: Vec<f32> = h.iter().map(|s| s.interval_ms).collect();
        assert_eq!(got.first(), Some(&5.0));
        assert_eq!(got.last(), Some(&((GRAPH_SAMPLES + 4) as f32)));
        assert!(got.windows(2).all(|w| w[1] == w[0] + 1.0));
        assert_eq!(h.peak_ms(), (GRAPH_SAMPLES + 4) as f32);
    }

    #[test]
    fn partial_ring_reads_what_was_pushed() {
        let mut h = FrameHistory::default();
        h.push(sample(1.0));
        h.push(sample(2.0));
        let got: Vec<f32> = h.iter().map(|s| s.interval_ms).collect();
        assert_eq!(got, vec![1.0, 2.0]);
    }
}
