//! The presentation engine of one device, three threads:
//!
//! * the submitter (`submitter.rs`) turns each present into queue work without blocking the
//!   application (see there for why lavapipe needs this): it waits for the present's marker
//!   fence (its rendering done: the image is ready) and then submits the batch that waits on the
//!   present semaphores;
//! * the waiter (`waiter.rs`) sees those batches complete (the semaphore waits consumed);
//! * the display thread (`thread.rs`) applies each virtual display's rules (`display.rs`) on
//!   its refresh grid and carries out the consequences: present ids reached, timing results,
//!   log lines, read-backs, images freed. An image is handed back only once its successor is
//!   visible *and* its own present batch completed.

pub mod display;
mod submitter;
mod thread;
mod waiter;

pub use submitter::Job;

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use ash::vk;

use crate::device::Device;
use crate::swapchain::Swapchain;
use display::{Display, Mode, Pending, ReqId, Target};

/// One present of one swapchain, as the engine tracks it.
pub struct Request {
    /// Its swapchain.
    pub sc: Arc<Swapchain>,
    /// The image index.
    pub image: u32,
    /// The present's sequence number on the swapchain (from 1).
    pub seq: u64,
    /// The application's present id (0: none).
    pub present_id: u64,
    /// The present mode it was presented with.
    pub mode: vk::PresentModeKHR,
    /// Its target time.
    pub target: Target,
    /// When the acquire of its image returned, if it was acquired through vdisplay.
    pub acquired_ns: Option<u64>,
    /// When `vkQueuePresentKHR` was called.
    pub queued_ns: u64,
    /// When the engine saw its queue operations complete.
    pub ready_ns: Option<u64>,
    /// What `vkQueuePresentKHR` returned for this swapchain (an error: never shown).
    pub result: vk::Result,
    /// Its batch fence, once the submitter submitted the batch.
    pub batch: vk::Fence,
    /// Its batch completed: the present semaphores' waits were consumed.
    pub consumed: bool,
    /// Freed by the display before its batch completed: free when it does.
    pub free_pending: bool,
    /// Shown before its batch (which holds the read-back copy) completed: capture then.
    pub capture_pending: bool,
    /// A maintenance1 present fence whose signal the late-fence fault defers, and the queue to
    /// signal it on.
    pub late_fence: Option<(vk::Queue, vk::Fence)>,
    /// Whether a read-back copy was recorded into its batch.
    pub readback: bool,
    /// Whether it has been shown (and logged as such).
    pub shown: bool,
}

/// A fence signal the engine owes (late present fences), due at a time.
struct Deferred {
    due_ns: u64,
    queue: vk::Queue,
    fence: vk::Fence,
}

/// The display thread's state.
#[derive(Default)]
struct State {
    shutdown: bool,
    displays: HashMap<u64, Display>,
    requests: HashMap<ReqId, Request>,
    next_id: ReqId,
    deferred: Vec<Deferred>,
}

/// The waiter thread's state: batches whose fence has not been seen signaled.
#[derive(Default)]
struct WaiterState {
    shutdown: bool,
    batches: Vec<(vk::Fence, Vec<ReqId>)>,
}

/// The submitter thread's state.
#[derive(Default)]
struct SubmitState {
    shutdown: bool,
    jobs: std::collections::VecDeque<Job>,
    busy: bool,
}

/// The engine of one device.
#[derive(Default)]
pub struct Engine {
    state: Mutex<State>,
    wake: Condvar,
    waiter: Mutex<WaiterState>,
    waiter_wake: Condvar,
    submit: Mutex<SubmitState>,
    submit_wake: Condvar,
    submit_idle: Condvar,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The engine's mode for a Vulkan present mode.
pub fn mode_of(mode: vk::PresentModeKHR) -> Mode {
    match mode {
        vk::PresentModeKHR::IMMEDIATE => Mode::Immediate,
        vk::PresentModeKHR::MAILBOX => Mode::Mailbox,
        vk::PresentModeKHR::FIFO_RELAXED => Mode::FifoRelaxed,
        _ => Mode::Fifo,
    }
}

impl Engine {
    /// An engine with no threads yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts the submitter, waiter and display threads of `dev`.
    pub fn start(dev: &Arc<Device>) {
        let (d1, d2, d3) = (dev.clone(), dev.clone(), dev.clone());
        let spawn = |name: &str, f: Box<dyn FnOnce() + Send>| {
            std::thread::Builder::new().name(name.into()).spawn(f)
        };
        let mut threads = lock(&dev.engine.threads);
        match spawn("vdisplay-waiter", Box::new(move || waiter::run(&d1))) {
            Ok(t) => threads.push(t),
            Err(e) => eprintln!("vdisplay: cannot start the waiter thread: {e}"),
        }
        match spawn("vdisplay-engine", Box::new(move || thread::run(&d2))) {
            Ok(t) => threads.push(t),
            Err(e) => eprintln!("vdisplay: cannot start the engine thread: {e}"),
        }
        match spawn("vdisplay-submit", Box::new(move || submitter::run(&d3))) {
            Ok(t) => threads.push(t),
            Err(e) => eprintln!("vdisplay: cannot start the submit thread: {e}"),
        }
    }

    /// Stops and joins the threads (the submitter was drained and the device is idle, so every
    /// fence has signaled).
    pub fn shutdown(&self) {
        lock(&self.submit).shutdown = true;
        self.submit_wake.notify_all();
        lock(&self.state).shutdown = true;
        self.wake.notify_all();
        lock(&self.waiter).shutdown = true;
        self.waiter_wake.notify_all();
        for t in lock(&self.threads).drain(..) {
            let _ = t.join();
        }
    }

    /// Queues the requests of one `vkQueuePresentKHR` on their displays; returns their ids.
    pub fn enqueue(&self, requests: Vec<Request>) -> Vec<ReqId> {
        let mut ids = Vec::with_capacity(requests.len());
        {
            let mut st = lock(&self.state);
            for r in requests {
                st.next_id += 1;
                let id = st.next_id;
                let surface = &r.sc.surface;
                let display = st.displays.entry(surface.handle).or_insert_with(|| {
                    let mut d = Display::new(surface.period_ns, surface.epoch_ns);
                    d.relative_from_visible = surface.settings.timing_relative_from
                        == crate::settings::RelativeFrom::Visible;
                    d
                });
                let discard = r.result.as_raw() < 0;
                display.push(Pending {
                    id,
                    mode: mode_of(r.mode),
                    target: r.target,
                    discard,
                    eligible_ns: None,
                });
                st.requests.insert(id, r);
                ids.push(id);
            }
        }
        ids
    }

    /// Hands a present's queue work to the submitter.
    pub fn submit(&self, job: Job) {
        lock(&self.submit).jobs.push_back(job);
        self.submit_wake.notify_all();
    }

    /// Waits until the submitter has submitted every job handed to it so far (before
    /// `vkQueueWaitIdle`, `vkDeviceWaitIdle`, swapchain and device destruction: a present's
    /// queue operations count as submitted work for those).
    pub fn drain(&self) {
        let mut s = lock(&self.submit);
        while !s.jobs.is_empty() || s.busy {
            s = self.submit_idle.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Records the batch fence of `ids` and hands it to the waiter.
    fn batch_submitted(&self, ids: Vec<ReqId>, fence: vk::Fence) {
        {
            let mut st = lock(&self.state);
            for id in &ids {
                if let Some(r) = st.requests.get_mut(id) {
                    r.batch = fence;
                }
            }
        }
        lock(&self.waiter).batches.push((fence, ids));
        self.waiter_wake.notify_all();
    }

    /// Records that the batches of `ids` completed; frees or captures what waited for that.
    fn mark_consumed(&self, dev: &Device, ids: &[ReqId]) {
        let mut st = lock(&self.state);
        for id in ids {
            let Some(r) = st.requests.get_mut(id) else {
                continue;
            };
            r.consumed = true;
            if std::mem::take(&mut r.capture_pending) {
                if let Some(rb) = &dev.readback {
                    rb.capture(dev, r);
                }
            }
            if r.free_pending {
                if let Some(r) = st.requests.remove(id) {
                    r.sc.free_image(r.image);
                }
            }
        }
    }

    /// Records that the queue operations of `ids` completed at `now_ns`.
    fn mark_ready(&self, dev: &Device, ids: &[ReqId], now_ns: u64) {
        let delay = (dev.settings.fault_slow_engine_ms * 1e6) as u64;
        let mut st = lock(&self.state);
        let st = &mut *st;
        for id in ids {
            let Some(r) = st.requests.get_mut(id) else {
                continue;
            };
            r.ready_ns = Some(now_ns);
            r.sc.timing_queue_end(r.seq, now_ns);
            if let Some(d) = st.displays.get_mut(&r.sc.surface.handle) {
                d.mark_ready(*id, now_ns + delay);
            }
        }
        self.wake.notify_all();
    }

    /// Signals `fences` on `queue` at `due_ns` (from the display thread, with an empty
    /// submission after everything queued by then).
    fn signal_at(&self, queue: vk::Queue, fences: Vec<vk::Fence>, due_ns: u64) {
        let mut st = lock(&self.state);
        let deferred = fences.into_iter().map(|fence| Deferred {
            due_ns,
            queue,
            fence,
        });
        st.deferred.extend(deferred);
        drop(st);
        self.wake.notify_all();
    }

    /// Removes everything of a destroyed swapchain from the displays. Returns the batch
    /// fences of its presents not yet seen complete (call after [`Engine::drain`], so that
    /// every batch has been submitted).
    pub fn forget_swapchain(&self, dev: &Device, handle: u64) -> Vec<vk::Fence> {
        let mut st = lock(&self.state);
        let st = &mut *st;
        let mut pending = Vec::new();
        for d in st.displays.values_mut() {
            let reqs = &st.requests;
            let removed = d.remove_where(|id| reqs.get(&id).is_some_and(|r| r.sc.handle == handle));
            for id in removed {
                let Some(r) = st.requests.remove(&id) else {
                    continue;
                };
                if !r.consumed && r.batch != vk::Fence::null() {
                    pending.push(r.batch);
                }
                thread::log_destroyed(dev, &r);
            }
        }
        // Dropped or replaced presents whose batch has not completed yet.
        let others = st
            .requests
            .values()
            .filter(|r| r.sc.handle == handle && !r.consumed && r.batch != vk::Fence::null());
        pending.extend(others.map(|r| r.batch));
        pending
    }
}
