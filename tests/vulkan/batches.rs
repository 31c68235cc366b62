//! Frames in several batches (`Submission::batches`, `vkQueueSubmit2`) waiting on the GPU
//! for a producer thread's host timeline, on lavapipe under the validation layer
//! (synchronization validation on the sid stack), on both sync paths and with vkpace's GPU
//! timestamps where the device offers them:
//!
//! - every frame in three batches, the first waiting for the value the producer signals for
//!   that frame (the producer promises first, then signals later: the GPU waits before the
//!   signal); zero validation messages, and each frame's token reached after the producer's;
//! - a merged token set (the last frame's and the producer's last value) waited for and reached;
//! - validated waits: a CPU wait on a merged set with a value nobody promised, and a GPU wait
//!   on such a value, return the typed error at once (the time to return is measured), as do
//!   a token of an unregistered timeline and (fence backend) the swapchain's own token given
//!   as a GPU wait, which the timeline backend accepts; the refused frame is handed out again
//!   and the loop goes on.

use crate::common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _, Result};
use ash::vk;
use common::{Harness, RenderTarget};
use vkpace::{
    Acquired, Batch, CompletionBackend, Error, Frame, HostTimeline, SubmittedFrame,
    SwapchainConfig, SyncToken, TokenSet,
};

const FRAMES: u64 = 60;
/// The producer's work per value.
/// Every `LATE_EVERY`-th value the producer is slow: it waits until that value's frame was
/// submitted, then `LATE` more, so the frame waits on the GPU for a value not yet signalled
/// however fast or slow the machine; the others it signals ahead. Few
/// late values, because bookworm's validation layer stalls 5 s in its own bug now and then
/// when a host thread signals while another waits (see `demo/vulkan_context/messages.rs`).
const LATE_EVERY: u64 = 20;
const LATE: Duration = Duration::from_millis(30);

/// Empty command buffers for the batches around the renderer's, one pair per slot.
struct ExtraCommands {
    device: ash::Device,
    pool: vk::CommandPool,
    buffers: Vec<vk::CommandBuffer>,
}

impl ExtraCommands {
    fn new(h: &Harness) -> Result<Self> {
        let ctx = h.ctx.as_ref().context("context")?;
        let device = ctx.device.clone();
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(ctx.queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid device; destroyed in `destroy` after the frames completed.
        let pool = unsafe { device.create_command_pool(&info, None) }?;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .command_buffer_count(2 * vkpace::MAX_FRAMES_IN_FLIGHT as u32);
        // SAFETY: `pool` was just made.
        let buffers = unsafe { device.allocate_command_buffers(&alloc) }?;
        Ok(Self {
            device,
            pool,
            buffers,
        })
    }

    /// The slot's two command buffers, recorded empty (the slot's last use completed).
    fn record(&self, slot: usize) -> Result<[vk::CommandBuffer; 2]> {
        let pair = [self.buffers[2 * slot], self.buffers[2 * slot + 1]];
        for cmd in pair {
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            // SAFETY: the slot's previous submission completed (vkpace's slot contract).
            unsafe {
                self.device
                    .reset_command_buffer(cmd, vk::CommandBufferResetFlags::empty())?;
                self.device.begin_command_buffer(cmd, &begin)?;
                self.device.end_command_buffer(cmd)?;
            }
        }
        Ok(pair)
    }

    fn destroy(self) {
        // SAFETY: the swapchain waited for its last submission before this.
        unsafe { self.device.destroy_command_pool(self.pool, None) };
    }
}

/// `frame` submitted in three batches: [extra, waiting for `wait`], [renderer], [extra].
fn submit_in_batches(
    h: &mut Harness,
    extra: &ExtraCommands,
    frame: Frame,
    wait: SyncToken,
) -> Result<SubmittedFrame> {
    let (Some(sc), Some(r)) = (h.swapchain.as_mut(), h.renderer.as_mut()) else {
        bail!("harness finished");
    };
    let cmd = r.record(
        RenderTarget::of(sc, &frame),
        h.frames as f32 / 60.0,
        0.0,
        &h.history,
    )?;
    let [first, last] = extra.record(frame.slot())?;
    let waits = [(wait, vk::PipelineStageFlags2::ALL_COMMANDS)];
    let (b0, b1, b2) = ([first], [cmd], [last]);
    let batches = [
        Batch::new(&b0).waits(&waits),
        Batch::new(&b1),
        Batch::new(&b2),
    ];
    // SAFETY: the command buffers are recorded, of the queue's family, and live until the
    // frame completes; the caller promised the value waited for and has it signalled.
    Ok(unsafe {
        sc.submit(
            frame,
            vkpace::Submission::batches(&batches, vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT),
        )
    }?)
}

/// One frame in three batches, presented; returns its token.
fn frame_in_batches(
    h: &mut Harness,
    extra: &ExtraCommands,
    frame: Frame,
    wait: SyncToken,
) -> Result<SyncToken> {
    let submitted = submit_in_batches(h, extra, frame, wait)?;
    let token = submitted.token();
    h.swapchain().present(submitted)?;
    h.frames += 1;
    h.check_canary("after presenting")?;
    Ok(token)
}

fn acquire(h: &mut Harness) -> Result<Frame> {
    match h.swapchain().acquire()? {
        Acquired::Frame(f) => Ok(f),
        _ => bail!("zero extent on a headless surface"),
    }
}

fn config(m1: bool) -> SwapchainConfig {
    let mut c = SwapchainConfig::default();
    c.pacing.frames_in_flight = 3;
    c.paths.swapchain_maintenance1 = m1.then_some(vkpace::Maintenance1Names::Ext);
    c
}

/// `FRAMES` frames, frame `i` waiting on the GPU for value `i` of the producer's timeline.
fn frames_wait_for_the_producer(m1: bool) -> Result<()> {
    let mut h = Harness::headless(config(m1))?;
    let extra = ExtraCommands::new(&h)?;
    // SAFETY: the context enables timeline semaphores; destroyed below once unused.
    let timeline = unsafe { HostTimeline::new(&h.ctx.as_ref().context("context")?.device) }?;
    h.swapchain().register_host_timeline(&timeline)?;
    timeline.promise(FRAMES)?;
    let submitted_up_to = AtomicU64::new(0);
    let result = std::thread::scope(|s| -> Result<()> {
        let (submitted_up_to, producer_timeline) = (&submitted_up_to, &timeline);
        let producer = s.spawn(move || produce(producer_timeline, submitted_up_to));
        let (frames, before_signal) =
            present_frames_waiting_for(&mut h, &extra, &timeline, submitted_up_to)?;
        let produced = producer
            .join()
            .map_err(|_| anyhow::anyhow!("producer panicked"))?;
        frames.and(produced.map_err(Into::into))?;
        println!(
            "{before_signal} of {FRAMES} frames were submitted before their value was signalled"
        );
        ensure!(
            before_signal >= FRAMES / LATE_EVERY,
            "only {before_signal} frames waited on the GPU before the producer's signal"
        );
        Ok(())
    });
    check_stream_dump_and_merged_wait(&mut h, &timeline)?;
    // SAFETY: every frame that waited for it completed (just waited); the producer ended.
    unsafe { timeline.destroy() };
    extra.destroy();
    result?;
    let stats = h.finish()?;
    ensure!(stats.frames_presented == FRAMES, "{stats:?}");
    Ok(())
}

/// The producer thread: signals values 1 to `FRAMES`, every `LATE_EVERY`-th one late.
fn produce(timeline: &HostTimeline, submitted_up_to: &AtomicU64) -> vkpace::Result<()> {
    for v in 1..=FRAMES {
        if v % LATE_EVERY == 0 {
            // Late whatever the machine's speed: value v comes only after frame v was
            // submitted (so its batches wait on the GPU), and LATE after that.
            let deadline = Instant::now() + Duration::from_secs(10);
            while submitted_up_to.load(Ordering::Acquire) < v && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(1));
            }
            std::thread::sleep(LATE);
        }
        timeline.signal(v)?;
    }
    Ok(())
}

/// Presents `FRAMES` frames in batches, frame `v` waiting for value `v`, until the first
/// failure; returns the frames' result and how many were submitted before their value was
/// signalled.
fn present_frames_waiting_for(
    h: &mut Harness,
    extra: &ExtraCommands,
    timeline: &HostTimeline,
    submitted_up_to: &AtomicU64,
) -> Result<(Result<()>, u64)> {
    let mut frames = Ok(());
    let mut before_signal = 0;
    for v in 1..=FRAMES {
        before_signal += u64::from(timeline.value()? < v);
        frames = acquire(h)
            .and_then(|f| submit_in_batches(h, extra, f, timeline.token(v)))
            .and_then(|submitted| {
                submitted_up_to.store(v, Ordering::Release);
                // The present waits (bounded) until the producer signalled value v.
                h.swapchain().present(submitted)?;
                h.frames += 1;
                h.check_canary("after presenting")
            });
        if frames.is_err() {
            break;
        }
    }
    Ok((frames, before_signal))
}

/// The state dump shows the producer's stream; a merged set (the last frame and the
/// producer's last value) is waited for and reached.
fn check_stream_dump_and_merged_wait(h: &mut Harness, timeline: &HostTimeline) -> Result<()> {
    let dump = format!("{:?}", h.swapchain());
    let line = format!(
        "stream {}: submitted or promised {FRAMES}",
        timeline.token(0).stream()
    );
    ensure!(
        dump.contains(&line),
        "the state dump lacks {line:?}:\n{dump}"
    );
    // A merged set: the last frame and the producer's last value.
    let mut both = TokenSet::from(h.swapchain().last_submitted());
    both.merge(timeline.token(FRAMES))?;
    h.swapchain().wait(both, Duration::from_secs(5))?;
    ensure!(
        h.swapchain().completed(both)?,
        "{both} not reached after its wait"
    );
    Ok(())
}

#[test]
fn frames_in_three_batches_wait_for_a_producer_legacy() -> Result<()> {
    frames_wait_for_the_producer(false)
}

#[test]
fn frames_in_three_batches_wait_for_a_producer_maintenance1() -> Result<()> {
    frames_wait_for_the_producer(true)
}

/// Waits that could never end are refused at the call, typed, and at once.
#[test]
fn unsatisfiable_waits_are_refused_at_once() -> Result<()> {
    let mut h = Harness::headless(config(true))?;
    let extra = ExtraCommands::new(&h)?;
    let device = h.ctx.as_ref().context("context")?.device.clone();
    // SAFETY: timeline semaphores enabled; both destroyed below, never waited for on the GPU.
    let (timeline, stranger) =
        unsafe { (HostTimeline::new(&device)?, HostTimeline::new(&device)?) };
    h.swapchain().register_host_timeline(&timeline)?;
    timeline.signal(3)?;
    let never = timeline.token(4);
    let checks = refusals(&mut h, &extra, never, stranger.token(1));
    h.swapchain().unregister_host_timeline(&timeline);
    let after = h.swapchain().completed(timeline.token(1));
    // SAFETY: no GPU wait was ever made on either.
    unsafe {
        timeline.destroy();
        stranger.destroy();
    }
    let (cpu, gpu) = checks?;
    ensure!(
        matches!(after, Err(Error::ForeignToken(_))),
        "an unregistered timeline's token: {after:?}"
    );
    println!("a CPU wait on a value never promised returned in {cpu:?}, a GPU wait in {gpu:?}");
    // The refused frame came back and the loop goes on.
    for _ in 0..3 {
        h.frame()?;
    }
    extra.destroy();
    h.finish()?;
    // At once: far below the shortest wait that could have been made (vkpace's bounded waits,
    // 2 s by default; the caller's 5 s), not within what a busy machine takes to record and
    // submit a batch on a CPU-only driver.
    ensure!(
        cpu < REFUSED_AT_ONCE && gpu < REFUSED_AT_ONCE,
        "refusals took {cpu:?} (CPU wait) and {gpu:?} (GPU wait), not under {REFUSED_AT_ONCE:?}"
    );
    Ok(())
}

/// A refusal "at once": a twentieth of vkpace's shortest bounded wait.
const REFUSED_AT_ONCE: Duration = Duration::from_millis(100);

/// The refusals; returns how long the CPU and the GPU wait on `never` took to be refused.
fn refusals(
    h: &mut Harness,
    extra: &ExtraCommands,
    never: SyncToken,
    foreign: SyncToken,
) -> Result<(Duration, Duration)> {
    // A merged set with one member never promised is refused whole, before any wait.
    let mut set = TokenSet::from(h.swapchain().last_submitted());
    set.merge(never)?;
    let t0 = Instant::now();
    let cpu = h.swapchain().wait(set, Duration::from_secs(5));
    let cpu_time = t0.elapsed();
    ensure!(
        matches!(cpu, Err(Error::TokenNotSubmitted { token, last_submitted: 3 }) if token == never),
        "CPU wait: {cpu:?}"
    );
    ensure!(matches!(
        h.swapchain().completed(foreign),
        Err(Error::ForeignToken(_))
    ));
    let frame = acquire(h)?;
    let number = frame.number();
    let t0 = Instant::now();
    let gpu = frame_in_batches(h, extra, frame, never);
    let gpu_time = t0.elapsed();
    match gpu.map_err(|e| e.downcast::<Error>()) {
        Err(Ok(Error::TokenNotSubmitted { .. })) => {}
        other => bail!("GPU wait on a value never promised: {other:?}"),
    }
    let frame = acquire(h)?;
    ensure!(
        frame.number() == number,
        "the refused frame was not handed out again"
    );
    // The swapchain's own token as a GPU wait: a fence cannot be waited for on the GPU; the
    // timeline can, and the frame waits on the swapchain's own timeline semaphore.
    let own = h.swapchain().last_submitted();
    let backend = h.swapchain().info().completion;
    match (backend, frame_in_batches(h, extra, frame, own)) {
        (CompletionBackend::TimelineSemaphore, Ok(_)) => {}
        (CompletionBackend::Fences, Err(e))
            if matches!(e.downcast_ref::<Error>(), Some(Error::NotWaitableOnGpu(_))) => {}
        (backend, other) => bail!("the own token as a GPU wait ({backend:?}): {other:?}"),
    }
    Ok((cpu_time, gpu_time))
}

/// The GPU really waits: a frame whose value is not signalled stays pending (its token is not
/// reached) until the producer signals, however long that takes; dropped unpresented, it is
/// presented by the teardown only after the signal (VUID-vkQueuePresentKHR-pWaitSemaphores-03268,
/// which sid's validation layer checks). Bad signals are refused, typed, and change nothing.
#[test]
fn a_frame_waits_on_the_gpu_until_the_producer_signals() -> Result<()> {
    let mut h = Harness::headless(config(true))?;
    let extra = ExtraCommands::new(&h)?;
    // SAFETY: timeline semaphores enabled; destroyed below once unused and unregistered.
    let timeline = unsafe { HostTimeline::new(&h.ctx.as_ref().context("context")?.device) }?;
    h.swapchain().register_host_timeline(&timeline)?;
    let result = pending_until_signalled(&mut h, &extra, &timeline);
    h.swapchain().unregister_host_timeline(&timeline);
    // The teardown presents the dropped frame, which it may do only after the value is
    // signalled (50 ms into it, by another thread), and waits for everything.
    let sc = h.swapchain.take().context("swapchain")?;
    let torn_down = std::thread::scope(|s| {
        let signaller = s.spawn(|| {
            std::thread::sleep(Duration::from_millis(50));
            timeline.signal(2)
        });
        let started = Instant::now();
        let torn_down = sc.destroy();
        println!(
            "the teardown took {:?} (the signal came at 50 ms)",
            started.elapsed()
        );
        (torn_down, signaller.join())
    });
    // SAFETY: the teardown presented and waited for the frame; nothing else uses it.
    unsafe { timeline.destroy() };
    extra.destroy();
    if let Some(r) = h.renderer.take() {
        r.destroy();
    }
    let ctx = h.ctx.take().context("context")?;
    let messages = ctx.messages.count();
    ctx.destroy();
    result?;
    torn_down.0?;
    torn_down
        .1
        .map_err(|_| anyhow::anyhow!("the signalling thread panicked"))??;
    ensure!(messages == 0, "{messages} validation message(s)");
    Ok(())
}

fn pending_until_signalled(
    h: &mut Harness,
    extra: &ExtraCommands,
    timeline: &HostTimeline,
) -> Result<()> {
    timeline.signal(1)?;
    for (bad, what) in [
        (1, "a repeated value"),
        (1 + (1 << 40), "a value too far ahead"),
    ] {
        match timeline.signal(bad) {
            Err(Error::InvalidTimelineValue {
                last_signalled: 1, ..
            }) => {}
            other => bail!("{what} was not refused: {other:?}"),
        }
    }
    ensure!(matches!(
        timeline.promise(u64::MAX),
        Err(Error::InvalidTimelineValue { .. })
    ));
    timeline.promise(2)?;
    let frame = acquire(h)?;
    let submitted = submit_in_batches(h, extra, frame, timeline.token(2))?;
    let token = submitted.token();
    drop(submitted);
    let sc = h.swapchain();
    let held = Instant::now();
    while held.elapsed() < Duration::from_millis(100) {
        ensure!(
            !sc.completed(token)?,
            "the frame completed before its value was signalled"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    println!("a frame waiting for an unsignalled value stayed pending for 100 ms");
    Ok(())
}
