//! What the session records of each rendered frame: its interval, CPU wait and latency, the
//! live graph's sample, vkpace's telemetry, and the allocation counts of the steady loop.

use std::time::{Duration, Instant};

use super::Session;
use crate::alloc_counter::{allocations, thread_allocations, AllocCounts};
use crate::frame_history::Sample;

impl Session {
    /// Records the figures of the frame that started at `now` and was just presented, after
    /// waiting `cpu_wait` for its slot; `allocs_at_start` is this thread's allocation count
    /// when the frame started.
    pub(super) fn record_frame_figures(
        &mut self,
        now: Instant,
        cpu_wait: Duration,
        allocs_at_start: u64,
    ) {
        let latency = now.elapsed().as_secs_f64();
        let interval = self.last_frame_start.map(|prev| (now - prev).as_secs_f64());
        if let Some(i) = interval {
            self.frame_times_ms.push(i * 1e3);
        }
        self.display.observe(latency, interval);
        self.history.push(Sample {
            interval_ms: interval.map_or(0.0, |i| (i * 1e3) as f32),
            cpu_wait_ms: (cpu_wait.as_secs_f64() * 1e3) as f32,
            latency_ms: (latency * 1e3) as f32,
        });
        self.cpu_waits_ms.push(cpu_wait.as_secs_f64() * 1e3);
        self.read_telemetry();
        self.last_frame_start = Some(now);
        self.frames += 1;
        self.frame_allocations += thread_allocations() - allocs_at_start;
        let counts = AllocCounts {
            frames: self.frames,
            process: allocations(),
            frame_thread: thread_allocations(),
            frame_code: self.frame_allocations,
            vkpace: self.vkpace_allocations,
        };
        if self.frames == self.warmup {
            self.alloc_mark = Some(counts);
        }
        if self.alloc_mark.is_some() {
            self.alloc_end = Some(counts);
        }
    }
}
