//! The simulated world: a GPU queue that runs submissions in order after random delays and a
//! presentation engine that consumes present waits in order at random moments, hands images
//! back in any order, and may return an image from acquire before it is free (its semaphore
//! then signals later). It keeps the ground truth of every semaphore and swapchain, and every
//! operation on them checks the Vulkan rule it would break.

use std::collections::{BTreeMap, VecDeque};

use crate::rng::Rng;

pub type Sem = u32;
pub type Gen = u64;

/// Ground truth of one binary semaphore.
#[derive(Debug, Default, Clone)]
pub struct SemTruth {
    pub signaled: bool,
    /// A signal is pending (from an acquire or a submission not yet executed).
    pub pending_signal: bool,
    /// Waits queued but not executed (submission waits, present waits not consumed).
    pub pending_waits: u32,
    pub destroyed: bool,
}

#[derive(Debug)]
struct Submission {
    serial: u64,
    waits: Vec<Sem>,
    signals: Vec<Sem>,
    /// Swapchains whose images or semaphores this submission touches.
    touches: Option<Gen>,
    started: bool,
    remaining: u32,
    frame: bool,
}

/// One image as the presentation engine sees it. Whether presents of it are queued is read
/// off the present queue.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct ImageState {
    /// Acquired by the app and not yet presented.
    held_by_app: bool,
    /// Acquires that returned the image early: each semaphore signals when the PE hands the
    /// image back for that acquire, which it does only after the presents of the image queued
    /// before the acquire (sequence numbers up to the second field) consumed their waits. Several
    /// can be pending at once: the app may present and get the image again before the first
    /// hand-back happened.
    releases: Vec<(Sem, u64)>,
}

#[derive(Debug)]
struct SwapchainTruth {
    images: Vec<ImageState>,
    retired: bool,
    destroyed: bool,
}

#[derive(Debug)]
struct QueuedPresent {
    seq: u64,
    gen: Gen,
    image: u32,
    sem: Sem,
    fence: Option<u64>,
}

/// What an acquire returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcquireResult {
    Image(u32, bool),
    OutOfDate,
    /// `VK_TIMEOUT` / `VK_NOT_READY`: no image can be handed out yet.
    NotReady,
}

#[derive(Debug)]
pub struct World {
    pub rng: Rng,
    pub sems: BTreeMap<Sem, SemTruth>,
    next_sem: Sem,
    queue: VecDeque<Submission>,
    pub gpu_completed: u64,
    next_serial: u64,
    presents: VecDeque<QueuedPresent>,
    next_present_seq: u64,
    presents_consumed: u64,
    swapchains: BTreeMap<Gen, SwapchainTruth>,
    next_gen: Gen,
    /// Frame submissions not yet complete (true GPU view).
    pub frames_pending: usize,
    pub max_delay: u32,
    pub p_out_of_date: u32,
    pub p_suboptimal: u32,
    /// Percent chance that a retiring swapchain's unsignalled present fences never signal
    /// (seen on some systems).
    pub p_fence_never: u32,
    /// Present fences whose present consumed its wait: they signal at a random later moment,
    /// in any order. `bool`: never signals.
    fences_signalable: Vec<(u64, Gen, bool)>,
    /// Present fences not yet consumed, by swapchain (so retirement can doom them).
    fences_doomed: Vec<u64>,
    /// Signalled present fences not yet polled by the app.
    fences_signaled: Vec<u64>,
}

pub type Check = Result<(), String>;

impl World {
    pub fn new(seed: u64, max_delay: u32, p_out_of_date: u32, p_suboptimal: u32) -> Self {
        Self {
            rng: Rng::new(seed),
            sems: BTreeMap::new(),
            next_sem: 1,
            queue: VecDeque::new(),
            gpu_completed: 0,
            next_serial: 1,
            presents: VecDeque::new(),
            next_present_seq: 1,
            presents_consumed: 0,
            swapchains: BTreeMap::new(),
            next_gen: 1,
            frames_pending: 0,
            max_delay,
            p_out_of_date,
            p_suboptimal,
            p_fence_never: 0,
            fences_signalable: Vec::new(),
            fences_doomed: Vec::new(),
            fences_signaled: Vec::new(),
        }
    }

    pub fn create_semaphore(&mut self) -> Sem {
        let s = self.next_sem;
        self.next_sem += 1;
        self.sems.insert(s, SemTruth::default());
        s
    }

    fn sem(&mut self, s: Sem) -> Result<&mut SemTruth, String> {
        match self.sems.get_mut(&s) {
            Some(t) if !t.destroyed => Ok(t),
            Some(_) => Err(format!("semaphore {s} used after destruction")),
            None => Err(format!("semaphore {s} unknown")),
        }
    }

    /// `VUID-vkAcquireNextImageKHR-semaphore-01286/01779` and `VUID-vkQueueSubmit-pSignalSemaphores-00067`:
    /// a semaphore about to be signalled must be unsignalled with nothing pending.
    fn check_signalable(&mut self, s: Sem, what: &str) -> Check {
        let t = self.sem(s)?;
        if t.signaled || t.pending_signal || t.pending_waits > 0 {
            return Err(format!(
                "{what}: semaphore {s} reused while busy (signaled {}, pending signal {}, pending waits {})",
                t.signaled, t.pending_signal, t.pending_waits
            ));
        }
        Ok(())
    }

    pub fn destroy_semaphore(&mut self, s: Sem) -> Check {
        let t = self.sem(s)?;
        if t.pending_signal || t.pending_waits > 0 {
            return Err(format!(
                "semaphore {s} destroyed with pending work (signal {}, waits {}): VUID-vkDestroySemaphore-semaphore-01137",
                t.pending_signal, t.pending_waits
            ));
        }
        t.destroyed = true;
        Ok(())
    }

    pub fn create_swapchain(&mut self, image_count: u32) -> Gen {
        let mut newly_retired = Vec::new();
        for (g, sc) in self.swapchains.iter_mut() {
            if !sc.destroyed && !sc.retired {
                sc.retired = true;
                newly_retired.push(*g);
            }
        }
        for g in newly_retired {
            if self.rng.chance(self.p_fence_never) {
                // Every present fence of this swapchain not signalled yet will never signal.
                for p in self.presents.iter().filter(|p| p.gen == g) {
                    if let Some(f) = p.fence {
                        self.fences_doomed.push(f);
                    }
                }
                for entry in self.fences_signalable.iter_mut().filter(|e| e.1 == g) {
                    entry.2 = true;
                }
            }
        }
        let g = self.next_gen;
        self.next_gen += 1;
        self.swapchains.insert(
            g,
            SwapchainTruth {
                images: vec![ImageState::default(); image_count as usize],
                retired: false,
                destroyed: false,
            },
        );
        g
    }

    pub fn live_swapchains(&self) -> usize {
        self.swapchains.values().filter(|s| !s.destroyed).count()
    }

    pub fn destroy_swapchain(&mut self, g: Gen) -> Check {
        let sc = self
            .swapchains
            .get(&g)
            .ok_or_else(|| format!("swapchain {g} unknown"))?;
        if sc.destroyed {
            return Err(format!("swapchain {g} destroyed twice"));
        }
        if !sc.retired {
            // Destroying the current swapchain only happens at shutdown; checked the same way.
        }
        if self.presents.iter().any(|p| p.gen == g) {
            return Err(format!(
                "swapchain {g} destroyed with a present whose wait is not consumed (VUID-vkDestroySwapchainKHR-swapchain-01282)"
            ));
        }
        if self.queue.iter().any(|s| s.touches == Some(g)) {
            return Err(format!(
                "swapchain {g} destroyed while a submission using it is pending"
            ));
        }
        if sc.images.iter().any(|i| !i.releases.is_empty()) {
            return Err(format!(
                "swapchain {g} destroyed with an acquire signal pending"
            ));
        }
        if let Some(sc) = self.swapchains.get_mut(&g) {
            sc.destroyed = true;
        }
        Ok(())
    }

    /// `vkAcquireNextImageKHR` on swapchain `g`.
    pub fn acquire(&mut self, g: Gen, sem: Sem) -> Result<AcquireResult, String> {
        self.check_signalable(sem, "acquire")?;
        if self.rng.chance(self.p_out_of_date) {
            return Ok(AcquireResult::OutOfDate);
        }
        let suboptimal = self.rng.chance(self.p_suboptimal);
        let sc = self
            .swapchains
            .get(&g)
            .ok_or_else(|| format!("acquire from unknown swapchain {g}"))?;
        if sc.retired || sc.destroyed {
            return Err(format!("acquire from retired swapchain {g}"));
        }
        // Any image the app does not hold; one still queued or not yet handed back may be
        // returned early, its semaphore signalling when the PE releases it.
        let candidates: Vec<u32> = sc
            .images
            .iter()
            .enumerate()
            .filter(|(_, st)| !st.held_by_app)
            .map(|(i, _)| i as u32)
            .collect();
        if candidates.is_empty() {
            return Ok(AcquireResult::NotReady);
        }
        let image = candidates[self.rng.below(candidates.len() as u32) as usize];
        let last_queued = self
            .presents
            .iter()
            .filter(|p| p.gen == g && p.image == image)
            .map(|p| p.seq)
            .max();
        let signal_now = last_queued.is_none()
            && sc.images[image as usize].releases.is_empty()
            && self.rng.chance(50);
        {
            let t = self.sem(sem)?;
            if signal_now {
                t.signaled = true;
            } else {
                t.pending_signal = true;
            }
        }
        let slot = &mut self.swapchains.get_mut(&g).ok_or("gone")?.images[image as usize];
        slot.held_by_app = true;
        if !signal_now {
            slot.releases.push((sem, last_queued.unwrap_or(0)));
        }
        Ok(AcquireResult::Image(image, suboptimal))
    }

    /// `vkQueueSubmit` with one batch and a fence; returns its serial.
    pub fn submit(
        &mut self,
        waits: &[Sem],
        signals: &[Sem],
        touches: Option<Gen>,
        frame: bool,
    ) -> Result<u64, String> {
        for &s in signals {
            self.check_signalable(s, "submit signal")?;
            self.sem(s)?.pending_signal = true;
        }
        for &s in waits {
            let t = self.sem(s)?;
            if !(t.signaled || t.pending_signal) || t.pending_waits > 0 {
                return Err(format!(
                    "submit waits on semaphore {s} with no signal to wait for (VUID-vkQueueSubmit-pWaitSemaphores-03238)"
                ));
            }
            t.pending_waits += 1;
        }
        let serial = self.next_serial;
        self.next_serial += 1;
        let remaining = self.rng.below(self.max_delay + 1);
        self.queue.push_back(Submission {
            serial,
            waits: waits.to_vec(),
            signals: signals.to_vec(),
            touches,
            started: false,
            remaining,
            frame,
        });
        if frame {
            self.frames_pending += 1;
        }
        Ok(serial)
    }

    /// `vkQueuePresentKHR`: `failed` models an error after which the wait never executes.
    pub fn present(
        &mut self,
        g: Gen,
        image: u32,
        sem: Sem,
        failed: bool,
        fence: Option<u64>,
    ) -> Check {
        let sc = self
            .swapchains
            .get_mut(&g)
            .ok_or("present to unknown swapchain")?;
        if sc.retired {
            return Err(format!("present to retired swapchain {g}"));
        }
        let slot = &mut sc.images[image as usize];
        if !slot.held_by_app {
            return Err(format!("present of image {image} not acquired"));
        }
        slot.held_by_app = false;
        if failed {
            return Ok(());
        }
        let t = self.sem(sem)?;
        if !(t.signaled || t.pending_signal) {
            return Err(format!(
                "present waits on semaphore {sem} with nothing signalled"
            ));
        }
        t.pending_waits += 1;
        let seq = self.next_present_seq;
        self.next_present_seq += 1;
        self.presents.push_back(QueuedPresent {
            seq,
            gen: g,
            image,
            sem,
            fence,
        });
        Ok(())
    }

    /// One step of the GPU: the head submission waits, then runs for its delay, then completes.
    pub fn gpu_tick(&mut self) -> Check {
        let Some(head) = self.queue.front_mut() else {
            return Ok(());
        };
        if !head.started {
            let ready = head
                .waits
                .iter()
                .all(|s| self.sems.get(s).is_some_and(|t| t.signaled));
            if !ready {
                return Ok(());
            }
            let waits = head.waits.clone();
            head.started = true;
            for s in waits {
                let t = self.sem(s)?;
                t.signaled = false;
                t.pending_waits -= 1;
            }
            return Ok(());
        }
        let Some(head) = self.queue.front_mut() else {
            return Ok(());
        };
        if head.remaining > 0 {
            head.remaining -= 1;
            return Ok(());
        }
        let Some(done) = self.queue.pop_front() else {
            return Ok(());
        };
        for s in done.signals {
            let t = self.sem(s)?;
            t.pending_signal = false;
            t.signaled = true;
        }
        self.gpu_completed = done.serial;
        if done.frame {
            self.frames_pending -= 1;
        }
        Ok(())
    }

    /// One step of the presentation engine: maybe consume the head present's wait (in order),
    /// maybe hand back one consumed image (any order).
    pub fn pe_tick(&mut self) -> Check {
        if let Some(head) = self.presents.front() {
            let sem = head.sem;
            let signaled = self.sems.get(&sem).is_some_and(|t| t.signaled);
            if signaled && self.rng.chance(50) {
                if let Some(p) = self.presents.pop_front() {
                    self.presents_consumed = p.seq;
                    if let Some(f) = p.fence {
                        let never = self.fences_doomed.contains(&f);
                        self.fences_signalable.push((f, p.gen, never));
                    }
                }
                let t = self.sem(sem)?;
                t.signaled = false;
                t.pending_waits -= 1;
            }
        }
        // Signal one present fence whose present consumed its wait, in any order.
        let live: Vec<usize> = (0..self.fences_signalable.len())
            .filter(|&i| !self.fences_signalable[i].2)
            .collect();
        if !live.is_empty() && self.rng.chance(40) {
            let i = live[self.rng.below(live.len() as u32) as usize];
            let (f, _, _) = self.fences_signalable.remove(i);
            self.fences_signaled.push(f);
        }
        // Hand back one early-acquired image whose earlier presents consumed their waits.
        let mut releasable: Vec<(Gen, usize)> = Vec::new();
        for (g, sc) in &self.swapchains {
            for (i, st) in sc.images.iter().enumerate() {
                if st
                    .releases
                    .first()
                    .is_some_and(|(_, after)| *after <= self.presents_consumed)
                {
                    releasable.push((*g, i));
                }
            }
        }
        if releasable.is_empty() || !self.rng.chance(50) {
            return Ok(());
        }
        let (g, i) = releasable[self.rng.below(releasable.len() as u32) as usize];
        let sc = self.swapchains.get_mut(&g).ok_or("gone")?;
        if !sc.images[i].releases.is_empty() {
            let (sem, _) = sc.images[i].releases.remove(0);
            let t = self.sem(sem)?;
            t.pending_signal = false;
            t.signaled = true;
        }
        Ok(())
    }

    /// Present fences signalled since the last call (the app polling `vkGetFenceStatus`).
    pub fn take_signaled_fences(&mut self) -> Vec<u64> {
        std::mem::take(&mut self.fences_signaled)
    }

    /// Whether the present fence `id` is doomed never to signal.
    pub fn fence_doomed(&self, id: u64) -> bool {
        self.fences_doomed.contains(&id) || self.fences_signalable.iter().any(|e| e.0 == id && e.2)
    }

    pub fn debug_state(&self) -> String {
        format!(
            "queue {:?}\npresents {:?}\nswapchains {:?}\nsems {:?}",
            self.queue, self.presents, self.swapchains, self.sems
        )
    }

    /// Whether nothing is left on the GPU or in the presentation engine's queue.
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.presents.is_empty()
    }

    pub fn last_serial(&self) -> u64 {
        self.next_serial - 1
    }

    pub fn semaphores_alive(&self) -> usize {
        self.sems.values().filter(|t| !t.destroyed).count()
    }

    pub fn swapchains_created(&self) -> usize {
        self.swapchains.len()
    }
}
