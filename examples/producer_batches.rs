//! Frames in two batches of one `vkQueueSubmit2` ([`vkpace::Submission::batches`]), the first
//! waiting on the GPU for a producer thread. Each frame the loop hands the producer a job
//! ("fill this slot's tile, then signal v"), promises v on a [`HostTimeline`] and submits at
//! once: the GPU, not the frame loop, waits for v before it copies the tile into the image.
//!
//! - batch 0 waits for the producer's token (at the copy): clear the image, copy the tile;
//! - batch 1: the transition to `PRESENT_SRC_KHR` (a renderer would draw here);
//! - vkpace adds the acquire wait to the first batch, the present semaphore and the frame's
//!   completion to the last, and presents only once v has been signalled.
//!
//! The producer stands for a renderer's CPU work beside its frame loop (streaming, decoding).
//! It writes a slot's tile only once the loop got that slot ([`Frame::slot`]: its previous
//! frame completed, so the GPU no longer reads the tile), and the GPU reads it only after the
//! signal: the two never touch a tile at once.
//!
//! Completion is the swapchain's timeline semaphore (`--completion fences`: a fence per
//! frame); host timelines need `timelineSemaphore`, batches `synchronization2` (the support
//! device enables both). Teardown: a bounded wait for the last frame (not vkDeviceWaitIdle),
//! the producer stopped, the swapchain destroyed, then the rest.
//!
//! ```text
//! cargo run --release --example producer_batches           # a window, 120 frames
//! cargo run --release --example producer_batches -- --headless --completion fences --validation
//! ```
//! Flags: see `examples/support/mod.rs`.

mod support;

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{anyhow, Context as _, Result};
use ash::vk;
use ash::vk::{AccessFlags2 as Access, ImageLayout as Layout, PipelineStageFlags2 as Stage};
use support::vulkan::{self, image_barrier, memory_barrier, HostBuffer, Scope, COLOR};
use support::{Args, Context, Renderer};
use vkpace::{Batch, CompletionBackend, Frame, HostTimeline, Swapchain, SwapchainConfig};
use vkpace::{SyncToken, MAX_FRAMES_IN_FLIGHT};

/// A tile: TILE x TILE texels of 4 bytes; the staging buffer holds one per frame slot.
const TILE: u32 = 64;
const TILE_BYTES: usize = (TILE * TILE * 4) as usize;

/// Transfer writes, on either side of a barrier.
const TRANSFER: Scope = (Stage::ALL_TRANSFER, Access::TRANSFER_WRITE);

struct ProducerBatches {
    device: ash::Device,
    pool: vk::CommandPool,
    /// Two command buffers per frame slot, one per batch.
    commands: Vec<vk::CommandBuffer>,
    producer: Producer,
}

impl Renderer for ProducerBatches {
    const NAME: &'static str = "producer_batches";

    fn config(args: &Args) -> SwapchainConfig {
        let mut config = SwapchainConfig::default();
        config.synchronization2 = true;
        config.completion = args
            .completion
            .unwrap_or(CompletionBackend::TimelineSemaphore);
        config
    }

    fn new(ctx: &Context, swapchain: &mut Swapchain, _args: &Args) -> Result<Self> {
        let (pool, commands) =
            vulkan::command_buffers(&ctx.device, ctx.queue_family, 2 * MAX_FRAMES_IN_FLIGHT)?;
        Ok(Self {
            producer: Producer::start(ctx, swapchain)?,
            device: ctx.device.clone(),
            pool,
            commands,
        })
    }

    fn frame(&mut self, swapchain: &mut Swapchain, frame: Frame) -> Result<()> {
        let token = self.producer.next(frame.slot())?;
        let (first, second) = (self.record_first(&frame)?, self.record_second(&frame)?);
        let waits = [(token, Stage::COPY)];
        let (b0, b1) = ([first], [second]);
        let batches = [Batch::new(&b0).waits(&waits), Batch::new(&b1)];
        // SAFETY: both command buffers are recorded, of the queue's family, reused only when
        // their slot is free again, and leave the image in PRESENT_SRC_KHR; the value waited
        // for is promised, and the producer signals every value it is asked for.
        let submitted = unsafe {
            swapchain.submit(
                frame,
                vkpace::Submission::batches(&batches, Stage::ALL_TRANSFER),
            )
        }?;
        swapchain.present(submitted)?;
        Ok(())
    }

    fn destroy(self, mut swapchain: Swapchain) -> Result<()> {
        // The last frame (every earlier one with it), waited for with a bound: then no GPU work
        // waits for the timeline or reads the staging buffer.
        let waited = swapchain.wait(swapchain.last_submitted(), Duration::from_secs(2));
        let mut producer = self.producer;
        let stopped = producer.stop(&mut swapchain);
        waited?;
        swapchain.destroy()?;
        // SAFETY: the producer stopped and every frame completed (waited for above).
        unsafe {
            producer.destroy(&self.device)?;
            self.device.destroy_command_pool(self.pool, None);
        }
        stopped
    }
}

impl ProducerBatches {
    /// Batch 0: the image (after the acquire wait, at ALL_TRANSFER) to TRANSFER_DST, cleared;
    /// then the producer's tile copied into it, after the clear and after the producer's host
    /// writes (they precede its signal, which this batch waits for).
    fn record_first(&self, frame: &Frame) -> Result<vk::CommandBuffer> {
        let (d, image, cmd) = (&self.device, frame.image(), self.commands[2 * frame.slot()]);
        let t = self.producer.value as f32 * 0.03;
        let color = vk::ClearColorValue {
            float32: [0.2 + 0.2 * t.sin(), 0.2, 0.3 + 0.2 * t.cos(), 1.0],
        };
        let (undefined, dst) = (Layout::UNDEFINED, Layout::TRANSFER_DST_OPTIMAL);
        let acquired = (Stage::ALL_TRANSFER, Access::NONE);
        let to_dst = [image_barrier(image, (acquired, TRANSFER), (undefined, dst))];
        let cleared = [image_barrier(image, (TRANSFER, TRANSFER), (dst, dst))];
        let host = (Stage::HOST, Access::HOST_WRITE);
        let read = (Stage::COPY, Access::TRANSFER_READ);
        let host_writes = [memory_barrier((host, read))];
        let before_clear = vk::DependencyInfo::default().image_memory_barriers(&to_dst);
        let before_copy = vk::DependencyInfo::default()
            .image_memory_barriers(&cleared)
            .memory_barriers(&host_writes);
        let copy = self.tile_copy(frame);
        // SAFETY: `cmd` belongs to the slot, whose previous frame completed; the image and
        // the staging buffer are live.
        unsafe {
            vulkan::begin(d, cmd)?;
            d.cmd_pipeline_barrier2(cmd, &before_clear);
            d.cmd_clear_color_image(cmd, image, dst, &color, &[COLOR]);
            d.cmd_pipeline_barrier2(cmd, &before_copy);
            d.cmd_copy_buffer_to_image(cmd, self.producer.staging.buffer, image, dst, &[copy]);
            d.end_command_buffer(cmd)?;
        }
        Ok(cmd)
    }

    /// The copy of the frame's slot's tile into the image: moving along the middle row with
    /// the producer's value, clipped to the image.
    fn tile_copy(&self, frame: &Frame) -> vk::BufferImageCopy {
        let (e, value) = (frame.extent(), self.producer.value);
        let layers = vk::ImageSubresourceLayers::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .layer_count(1);
        vk::BufferImageCopy::default()
            .buffer_offset((frame.slot() * TILE_BYTES) as u64)
            .buffer_row_length(TILE)
            .image_subresource(layers)
            .image_offset(vk::Offset3D {
                x: (value % u64::from(e.width.saturating_sub(TILE).max(1))) as i32,
                y: (e.height / 2).saturating_sub(TILE / 2) as i32,
                z: 0,
            })
            .image_extent(vk::Extent3D {
                width: TILE.min(e.width),
                height: TILE.min(e.height),
                depth: 1,
            })
    }

    /// Batch 1: the image to PRESENT_SRC_KHR (the present semaphore vkpace signals after this
    /// batch covers the transition).
    fn record_second(&self, frame: &Frame) -> Result<vk::CommandBuffer> {
        let cmd = self.commands[2 * frame.slot() + 1];
        let layouts = (Layout::TRANSFER_DST_OPTIMAL, Layout::PRESENT_SRC_KHR);
        let none = (Stage::NONE, Access::NONE);
        let to_present = [image_barrier(frame.image(), (TRANSFER, none), layouts)];
        // SAFETY: `cmd` belongs to the slot, whose previous frame completed; the image is live.
        unsafe {
            vulkan::begin(&self.device, cmd)?;
            let info = vk::DependencyInfo::default().image_memory_barriers(&to_present);
            self.device.cmd_pipeline_barrier2(cmd, &info);
            self.device.end_command_buffer(cmd)?;
        }
        Ok(cmd)
    }
}

/// Fill `slot`'s tile for value `value`, then signal `value`.
struct Job {
    value: u64,
    slot: usize,
}

/// The mapped staging memory, handed to the producer thread.
struct Tiles(*mut u8);

// SAFETY: the memory stays mapped until the thread has ended (`Producer::destroy` comes after
// `stop`, which joins it); which tile may be written when is the jobs' protocol (module docs).
unsafe impl Send for Tiles {}

/// The producer thread, its staging buffer and its timeline.
struct Producer {
    /// The staging buffer the frames copy tiles from, one tile per slot.
    staging: HostBuffer,
    timeline: Arc<HostTimeline>,
    jobs: Option<Sender<Job>>,
    thread: Option<JoinHandle<vkpace::Result<()>>>,
    /// The last value promised.
    value: u64,
}

impl Producer {
    /// The staging buffer, the timeline (registered with `swapchain`, so frames may wait for
    /// it) and the thread.
    fn start(ctx: &Context, swapchain: &mut Swapchain) -> Result<Self> {
        let size = (MAX_FRAMES_IN_FLIGHT * TILE_BYTES) as u64;
        let usage = vk::BufferUsageFlags::TRANSFER_SRC;
        let staging = HostBuffer::new(&ctx.device, &ctx.memory, size, usage)?;
        // SAFETY: the device enabled timelineSemaphore; the timeline is destroyed before it.
        let timeline = Arc::new(unsafe { HostTimeline::new(&ctx.device) }?);
        swapchain.register_host_timeline(&timeline)?;
        let (jobs, received) = channel();
        let (shared, tiles) = (Arc::clone(&timeline), Tiles(staging.mapped));
        let thread = std::thread::spawn(move || produce(&shared, tiles, received));
        Ok(Self {
            staging,
            timeline,
            jobs: Some(jobs),
            thread: Some(thread),
            value: 0,
        })
    }

    /// Promises the next value and asks for `slot`'s tile (`slot` is free); returns the value's
    /// token, for the frame's GPU wait.
    fn next(&mut self, slot: usize) -> Result<SyncToken> {
        self.value += 1;
        let value = self.value;
        // Promised before any GPU wait for it: vkpace refuses waits nobody promised.
        self.timeline.promise(value)?;
        let jobs = self.jobs.as_ref().context("the producer was stopped")?;
        jobs.send(Job { value, slot })
            .map_err(|_| anyhow!("the producer thread ended"))?;
        Ok(self.timeline.token(value))
    }

    /// Ends the thread once it has signalled every value asked for, and unregisters the
    /// timeline from `swapchain`. Call once the frames that wait for it completed.
    fn stop(&mut self, swapchain: &mut Swapchain) -> Result<()> {
        drop(self.jobs.take());
        swapchain.unregister_host_timeline(&self.timeline);
        match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => Ok(result?),
            Some(Err(_)) => Err(anyhow!("the producer thread panicked")),
            None => Ok(()),
        }
    }

    /// Destroys the timeline and the staging buffer.
    ///
    /// # Safety
    ///
    /// After [`Self::stop`] and once no GPU work uses them (every frame completed).
    unsafe fn destroy(self, device: &ash::Device) -> Result<()> {
        let timeline = Arc::try_unwrap(self.timeline).map_err(|_| anyhow!("timeline shared"))?;
        // SAFETY: caller contract; the thread (the other owner) ended.
        unsafe {
            timeline.destroy();
            self.staging.destroy(device);
        }
        Ok(())
    }
}

/// The thread: fills each job's tile (a pattern that moves with the value), then signals the
/// value. Ends when the frame loop drops its sender.
fn produce(timeline: &HostTimeline, tiles: Tiles, jobs: Receiver<Job>) -> vkpace::Result<()> {
    for job in jobs {
        // SAFETY: the slot's tile lies inside the mapping; the slot is free and the GPU reads
        // the tile only after the signal below (module docs).
        let tile = unsafe {
            std::slice::from_raw_parts_mut(tiles.0.add(job.slot * TILE_BYTES), TILE_BYTES)
        };
        for (i, texel) in tile.chunks_exact_mut(4).enumerate() {
            let (x, y) = ((i % TILE as usize) as u64, (i / TILE as usize) as u64);
            let v = (x + y + job.value * 2) as u8;
            texel.copy_from_slice(&[v, 255 - v, (x * 4) as u8, 255]);
        }
        timeline.signal(job.value)?;
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    support::main::<ProducerBatches>()
}
