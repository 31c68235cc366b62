//! What [`PacingPolicy::LowLatency`] does through the second door.

use std::collections::VecDeque;

use super::*;
use crate::pacing::Pacing;

const MS: u64 = 1_000_000;
/// Each frame's CPU work, from its start to its present.
const CPU: u64 = MS;
/// Each frame's GPU work, which runs after its present and after the frame before it: the
/// loop is GPU-bound.
const GPU: u64 = 10 * MS;
const FRAMES: u64 = 60;

/// Door 2 learns a frame's CPU time (to its repair submission at the present) but never its
/// GPU time, which low latency's just-in-time start is planned from (`pacing/low_latency.rs`).
/// On a GPU-bound loop without present timing it therefore paces a low-latency lineage as
/// frames in flight: it never sleeps, the gate waits for the GPU. Door 1's pacing told the same
/// frames and their GPU times would start nearly every frame later, just before the GPU is
/// free: what door 2 would do if it learned them. [`PacingPolicy::LowLatency`]'s doc says
/// so; this holds the doc to the machine.
#[test]
fn low_latency_without_gpu_times_paces_as_frames_in_flight() -> Result<(), CoreError> {
    let mut c = config(2);
    c.pacing.policy = PacingPolicy::LowLatency;
    let mut d = Driver::with_swapchain(c, 3)?;
    let mut told = Pacing::new(PacingPolicy::LowLatency, None);
    // (serial, frame, GPU start, GPU end) of the frames not reported complete yet.
    let mut gpu: VecDeque<(Serial, u64, u64, u64)> = VecDeque::new();
    let (mut now, mut gpu_free, mut would_sleep) = (0, 0, 0);
    for frame in 0..FRAMES {
        loop {
            while let Some(&(serial, f, start, end)) = gpu.front().filter(|g| g.3 <= now) {
                d.m.serial_completed(serial, end)?;
                told.gpu_done(f, start, end);
                gpu.pop_front();
            }
            match d.m.begin_frame(1, now)? {
                Gate::Go => break,
                Gate::WaitFor(s) => {
                    let g = gpu.iter().find(|g| g.0 == s).expect("a serial in flight");
                    now = g.3;
                }
                Gate::SleepUntil { until, .. } => panic!("frame {frame}: slept until {until}"),
            }
        }
        would_sleep += u64::from(told.start_at(now).is_some());
        told.frame_started(frame, now);
        let image = (frame % 3) as u32;
        let PresentStep::Plan(plan) = d.m.before_present(&[(1, image)], None, false)? else {
            panic!("no wait expected");
        };
        if plan.repair == Some(RepairSemaphore::Create) {
            d.m.semaphore_created(d.next_semaphore)?;
            d.next_semaphore += 1;
        }
        now += CPU;
        let serial = d.m.repair_submitted(now)?;
        d.m.present_returned(VkStatus::SUCCESS, &[], now)?;
        d.drain();
        told.frame_submitted(frame, now);
        let start = gpu_free.max(now);
        gpu_free = start + GPU;
        gpu.push_back((serial, frame, start, gpu_free));
    }
    assert_eq!(d.m.stats().pacing_sleeps, 0);
    assert!(
        would_sleep > FRAMES * 3 / 4,
        "door 1's pacing would have slept before {would_sleep} of {FRAMES} frames"
    );
    Ok(())
}
