//! The demo's producer thread: it stands in for the CPU work a renderer does beside its frame
//! loop (streaming, simulation) and hands each frame's part over through a host timeline. The
//! frame loop promises value `v` for frame `v`, submits the frame with a GPU wait for it, and
//! goes on; the producer signals `v` once its work for that frame is done. The GPU, not the
//! frame loop, waits for the producer (seed 003's explicit fences between a producer and a
//! consumer).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::{anyhow, Context as _, Result};
use vkpace::{HostTimeline, Swapchain, SyncToken};

/// The thread and the timeline it signals.
pub struct Producer {
    /// Taken when the producer stops.
    timeline: Option<Arc<HostTimeline>>,
    /// The highest value the frame loop asked for.
    wanted: Arc<AtomicU64>,
    /// Set once no value will be asked for any more.
    stopping: Arc<AtomicBool>,
    thread: Option<JoinHandle<vkpace::Result<()>>>,
    /// The last value promised.
    promised: u64,
}

impl Producer {
    /// Starts the thread, its timeline registered with `swapchain` (frames may wait for it).
    /// `work` is how long the producer takes per value.
    ///
    /// # Safety
    ///
    /// `device` is the swapchain's device, with `timelineSemaphore` enabled, and outlives the
    /// producer ([`Self::stop`] before the device is destroyed).
    pub unsafe fn start(
        device: &ash::Device,
        swapchain: &mut Swapchain,
        work: Duration,
    ) -> Result<Self> {
        // SAFETY: caller contract.
        let timeline = Arc::new(unsafe { HostTimeline::new(device) }?);
        swapchain.register_host_timeline(&timeline)?;
        let wanted = Arc::new(AtomicU64::new(0));
        let stopping = Arc::new(AtomicBool::new(false));
        let (t, w, s) = (
            Arc::clone(&timeline),
            Arc::clone(&wanted),
            Arc::clone(&stopping),
        );
        let spawned = std::thread::Builder::new()
            .name("vkpace-demo producer".into())
            .spawn(move || produce(&t, &w, &s, work));
        let thread = match spawned {
            Ok(thread) => thread,
            Err(e) => {
                swapchain.unregister_host_timeline(&timeline);
                if let Ok(unused) = Arc::try_unwrap(timeline) {
                    // SAFETY: nothing waited for it or signalled it; unregistered above.
                    unsafe { unused.destroy() };
                }
                return Err(e).context("starting the producer thread");
            }
        };
        Ok(Self {
            timeline: Some(timeline),
            wanted,
            stopping,
            thread: Some(thread),
            promised: 0,
        })
    }

    /// Promises the next value and returns its token, for a GPU wait of the frame about to be
    /// submitted.
    pub fn next(&mut self) -> Result<SyncToken> {
        self.promised += 1;
        let timeline = self.timeline.as_ref().context("the producer stopped")?;
        timeline.promise(self.promised)?;
        self.wanted.store(self.promised, Ordering::Release);
        if let Some(t) = &self.thread {
            t.thread().unpark();
        }
        Ok(timeline.token(self.promised))
    }

    /// Stops the thread after it signalled everything promised, unregisters the timeline from
    /// `swapchain` (where it is still alive) and destroys the timeline. Call once the
    /// swapchain's frames that wait for it completed (its teardown waits for them); dropping
    /// the producer does the same, logging a failure.
    pub fn stop(mut self, swapchain: Option<&mut Swapchain>) -> Result<()> {
        if let (Some(sc), Some(t)) = (swapchain, self.timeline.as_ref()) {
            sc.unregister_host_timeline(t);
        }
        self.shutdown()
    }

    fn shutdown(&mut self) -> Result<()> {
        self.stopping.store(true, Ordering::Release);
        let joined = match self.thread.take() {
            Some(t) => {
                t.thread().unpark();
                t.join()
                    .map_err(|_| anyhow!("the producer thread panicked"))?
            }
            None => Ok(()),
        };
        if let Some(shared) = self.timeline.take() {
            let timeline = Arc::try_unwrap(shared)
                .map_err(|_| anyhow!("the producer's timeline is still shared"))?;
            // SAFETY: the thread ended and the swapchain's frames that waited for the timeline
            // completed (`stop`'s contract); nothing else holds it.
            unsafe { timeline.destroy() };
        }
        joined.context("the producer thread failed")
    }
}

impl Drop for Producer {
    fn drop(&mut self) {
        if let Err(e) = self.shutdown() {
            eprintln!("vkpace demo: stopping the producer: {e:#}");
        }
    }
}

/// The thread: signals every value asked for, one at a time, after `work` each; once told to
/// stop it still signals every value asked for, so no frame waits for it forever.
fn produce(
    timeline: &HostTimeline,
    wanted: &AtomicU64,
    stopping: &AtomicBool,
    work: Duration,
) -> vkpace::Result<()> {
    let mut signalled = 0u64;
    loop {
        // Read before `wanted`: a stop seen here comes after the last value was asked for.
        let stop = stopping.load(Ordering::Acquire);
        if wanted.load(Ordering::Acquire) > signalled {
            std::thread::sleep(work);
            signalled += 1;
            timeline.signal(signalled)?;
        } else if stop {
            return Ok(());
        } else {
            std::thread::park_timeout(Duration::from_millis(50));
        }
    }
}
