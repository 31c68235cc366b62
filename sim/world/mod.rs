//! The simulated world: a GPU queue that runs submissions in order after random delays and a
//! presentation engine that consumes present waits in order at random moments, hands images
//! back in any order, and may return an image from acquire before it is free (its semaphore
//! then signals later). It keeps the ground truth of every semaphore, fence and swapchain, and
//! every operation on them checks the Vulkan rule it would break. In load mode (`load.rs`, the
//! pacing model's world) nothing is random: submissions run for the durations they were given
//! and time moves from event to event.

mod display;
mod engine;
mod engine_clock;
mod gpu;
mod load;
mod ordered;
mod queues;

use std::collections::{BTreeMap, VecDeque};

use crate::rng::Rng;

pub use display::{Display, DisplayConfig, PresentExtras, ShownPresent};
pub use engine::{AcquireResult, PresentResult};
pub use engine_clock::{ClockFaults, EngineClock, FOREIGN};
pub use load::LoadMode;
pub use queues::OtherQueue;

/// A semaphore handle.
pub type Sem = u32;
/// A swapchain handle (its creation number).
pub type Gen = u64;
/// A fence handle.
pub type Fence = u16;

/// What an operation broke, if anything.
pub type Check = Result<(), String>;

/// Ground truth of one binary semaphore.
#[derive(Debug, Default, Clone)]
pub struct SemTruth {
    pub signaled: bool,
    /// Signals pending (from an acquire or submissions not yet executed). More than one only
    /// where a queue orders them (a signal, a submission's wait, a signal again: `ordered.rs`).
    pub pending_signals: u32,
    /// Waits queued but not executed (submission waits, present waits not consumed).
    pub pending_waits: u32,
    /// Of `pending_waits`, those of presents: nothing orders them against a queue's signals.
    pub present_waits: u32,
    pub destroyed: bool,
    /// When a submission last signalled it (virtual time).
    pub signaled_at: u64,
}

/// Ground truth of one fence.
#[derive(Debug, Default, Clone)]
pub struct FenceTruth {
    pub signaled: bool,
    /// A queue operation (submission or present) will signal it.
    pub pending: bool,
    /// A present fence that will never signal (seen on some systems for retired swapchains).
    pub doomed: bool,
    pub destroyed: bool,
    /// Host waits on it in progress on another thread (`vkWaitForFences` made without the
    /// caller's lock): it may not be reset nor destroyed meanwhile.
    pub host_waits: u32,
}

/// The world's knobs, in percent per event.
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// Largest GPU delay of a submission, in GPU ticks.
    pub max_gpu_delay: u32,
    pub p_out_of_date: u32,
    pub p_suboptimal: u32,
    /// A retiring swapchain's unsignalled present fences never signal.
    pub p_fence_never: u32,
    /// A present returns an error after which its wait never executes.
    pub p_present_fail: u32,
    /// A present returns SUBOPTIMAL or OUT_OF_DATE (its wait still executes).
    pub p_present_stale: u32,
    /// An acquire gives no image within its bound (a hidden window, a compositor that stopped
    /// repainting), whatever images are free.
    pub p_not_ready: u32,
}

/// The simulated GPU and presentation engine.
#[derive(Debug)]
pub struct World {
    pub rng: Rng,
    pub faults: Faults,
    pub sems: BTreeMap<Sem, SemTruth>,
    pub fences: BTreeMap<Fence, FenceTruth>,
    next_sem: Sem,
    next_fence: Fence,
    queue: VecDeque<gpu::Submission>,
    next_submission: u64,
    /// The last submission completed (submission numbers are the world's own).
    pub gpu_completed: u64,
    /// Frame submissions not yet complete (the true GPU view).
    pub frames_pending: usize,
    /// The machine's timeline semaphore's counter (timeline backend).
    pub timeline: u64,
    /// The highest value a submitted signal will set.
    timeline_pending: u64,
    /// Other queues, each with its own timeline.
    pub others: Vec<OtherQueue>,
    /// The stream the machine's own timeline stands for (0: none), which frames may wait for.
    pub own_stream: u64,
    presents: VecDeque<engine::QueuedPresent>,
    next_present_seq: u64,
    presents_consumed: u64,
    swapchains: BTreeMap<Gen, engine::SwapchainTruth>,
    next_gen: Gen,
    /// Present fences whose present consumed its wait: they signal at a random later moment.
    fences_signalable: Vec<Fence>,
    /// The swapchain each acquire semaphore was last acquired on.
    acquire_sems: BTreeMap<Sem, Gen>,
    /// Answers the next acquires give before any random fault (a test's exact sequence):
    /// `OutOfDate` or `NotReady`.
    pub acquire_script: VecDeque<AcquireResult>,
    /// Virtual time, as the driver advanced it (ns).
    pub now: u64,
    /// The display behind the presentation engine.
    pub display: Display,
    /// GPU start and end times (virtual ns) of the latest frame submissions, by number.
    pub gpu_times: BTreeMap<u64, (u64, u64)>,
    /// Load mode (the pacing model's world): none for the property tests' random world.
    pub load: Option<LoadMode>,
}

impl World {
    pub fn new(seed: u64, faults: Faults) -> Self {
        Self {
            rng: Rng::new(seed),
            faults,
            sems: BTreeMap::new(),
            fences: BTreeMap::new(),
            next_sem: 1,
            next_fence: 1,
            queue: VecDeque::new(),
            next_submission: 1,
            gpu_completed: 0,
            frames_pending: 0,
            timeline: 0,
            timeline_pending: 0,
            others: Vec::new(),
            own_stream: 0,
            presents: VecDeque::new(),
            next_present_seq: 1,
            presents_consumed: 0,
            swapchains: BTreeMap::new(),
            next_gen: 1,
            fences_signalable: Vec::new(),
            acquire_sems: BTreeMap::new(),
            acquire_script: VecDeque::new(),
            now: 0,
            display: Display::default(),
            gpu_times: BTreeMap::new(),
            load: None,
        }
    }

    pub fn create_semaphore(&mut self) -> Sem {
        let s = self.next_sem;
        self.next_sem += 1;
        self.sems.insert(s, SemTruth::default());
        s
    }

    pub fn create_fence(&mut self) -> Fence {
        let f = self.next_fence;
        self.next_fence = self.next_fence.wrapping_add(1);
        self.fences.insert(f, FenceTruth::default());
        f
    }

    fn sem(&mut self, s: Sem) -> Result<&mut SemTruth, String> {
        match self.sems.get_mut(&s) {
            Some(t) if !t.destroyed => Ok(t),
            Some(_) => Err(format!("semaphore {s} used after destruction")),
            None => Err(format!("semaphore {s} unknown")),
        }
    }

    fn fence(&mut self, f: Fence) -> Result<&mut FenceTruth, String> {
        match self.fences.get_mut(&f) {
            Some(t) if !t.destroyed => Ok(t),
            Some(_) => Err(format!("fence {f} used after destruction")),
            None => Err(format!("fence {f} unknown")),
        }
    }

    /// `VUID-vkAcquireNextImageKHR-semaphore-01286/01779` and
    /// `VUID-vkQueueSubmit-pSignalSemaphores-00067`: a semaphore about to be signalled must be
    /// unsignalled with nothing pending.
    fn check_signalable(&mut self, s: Sem, what: &str) -> Check {
        let t = self.sem(s)?;
        if t.signaled || t.pending_signals > 0 || t.pending_waits > 0 {
            return Err(format!(
                "{what}: semaphore {s} reused while busy (signaled {}, pending signals {}, pending waits {})",
                t.signaled, t.pending_signals, t.pending_waits
            ));
        }
        Ok(())
    }

    /// `VUID-vkQueueSubmit-fence-00063/00064`: a fence given to a queue operation must be
    /// unsignalled and not in use.
    fn check_fence_free(&mut self, f: Fence, what: &str) -> Check {
        let t = self.fence(f)?;
        if t.signaled || t.pending {
            return Err(format!(
                "{what}: fence {f} reused while signalled {} or pending {}",
                t.signaled, t.pending
            ));
        }
        t.pending = true;
        Ok(())
    }

    pub fn destroy_semaphore(&mut self, s: Sem) -> Check {
        let t = self.sem(s)?;
        if t.pending_signals > 0 || t.pending_waits > 0 {
            return Err(format!(
                "semaphore {s} destroyed with pending work (signals {}, waits {}, of presents {}): VUID-vkDestroySemaphore-semaphore-01137",
                t.pending_signals, t.pending_waits, t.present_waits
            ));
        }
        t.destroyed = true;
        Ok(())
    }

    /// `VUID-vkDestroyFence-fence-01120`.
    pub fn destroy_fence(&mut self, f: Fence) -> Check {
        let t = self.fence(f)?;
        if t.pending {
            return Err(format!(
                "fence {f} destroyed while a queue operation will signal it"
            ));
        }
        if t.host_waits > 0 {
            return Err(format!(
                "fence {f} destroyed while another thread waits on it"
            ));
        }
        t.destroyed = true;
        Ok(())
    }

    /// `VUID-vkResetFences-pFences-01123`, and `vkResetFences`'s host synchronization: "Host
    /// access to each member of `pFences` must be externally synchronized", so not while
    /// another thread's `vkWaitForFences` is on it.
    pub fn reset_fence(&mut self, f: Fence) -> Check {
        let t = self.fence(f)?;
        if t.pending {
            return Err(format!("fence {f} reset while pending"));
        }
        if t.host_waits > 0 {
            return Err(format!("fence {f} reset while another thread waits on it"));
        }
        t.signaled = false;
        Ok(())
    }

    /// Another thread's `vkWaitForFences` on `f` begins (it needs no external
    /// synchronization, so several may be on one fence).
    pub fn begin_host_wait(&mut self, f: Fence) -> Check {
        self.fence(f)?.host_waits += 1;
        Ok(())
    }

    /// That wait returned.
    pub fn end_host_wait(&mut self, f: Fence) -> Check {
        let t = self.fence(f)?;
        t.host_waits = t
            .host_waits
            .checked_sub(1)
            .ok_or_else(|| format!("fence {f}: a host wait ended that never began"))?;
        Ok(())
    }

    /// `vkGetFenceStatus`.
    pub fn fence_signaled(&mut self, f: Fence) -> Result<bool, String> {
        Ok(self.fence(f)?.signaled)
    }

    /// Virtual time reaches `now`: the display shows what it may before then.
    pub fn advance_to(&mut self, now: u64) {
        self.now = self.now.max(now);
        self.display.advance(&self.sems, self.now);
    }

    /// One step of the world: the GPU or the presentation engine.
    pub fn tick(&mut self) -> Check {
        if self.rng.chance(50) {
            self.gpu_tick()
        } else {
            self.pe_tick()
        }
    }

    pub fn semaphores_alive(&self) -> usize {
        self.sems.values().filter(|t| !t.destroyed).count()
    }

    pub fn fences_alive(&self) -> usize {
        self.fences.values().filter(|t| !t.destroyed).count()
    }

    /// Whether a submitted timeline signal has not executed yet.
    pub fn timeline_signal_pending(&self) -> bool {
        self.timeline_pending > self.timeline
    }

    /// Present fences alive that will never signal.
    pub fn doomed_fences_alive(&self) -> usize {
        self.fences
            .values()
            .filter(|t| t.doomed && !t.destroyed)
            .count()
    }

    /// Whether a present fence will never signal.
    pub fn has_doomed_fences(&self) -> bool {
        self.fences.values().any(|t| t.doomed && !t.destroyed)
    }

    pub fn debug_state(&self) -> String {
        format!(
            "queue {:?}\npresents {:?}\nswapchains {:?}\nsems {:?}\nfences {:?}",
            self.queue, self.presents, self.swapchains, self.sems, self.fences
        )
    }
}
