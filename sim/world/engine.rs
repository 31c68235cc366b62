//! The simulated presentation engine: swapchains, acquires that may hand an image back before
//! its previous present consumed its wait, presents consumed in order at random moments,
//! present fences that signal in any order (or never), images handed back in any order.

use vkpace_core::{PresentMode, VkStatus};

use super::{Check, Fence, Gen, PresentExtras, Sem, World};

/// One image as the presentation engine sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct ImageState {
    /// Acquired by the app and not yet presented or released.
    held_by_app: bool,
    /// Acquires that returned the image early: each semaphore signals when the engine hands
    /// the image back for that acquire, which it does only after the presents of the image
    /// queued before the acquire (sequence numbers up to the second field) consumed their waits.
    releases: Vec<(Sem, u64)>,
}

#[derive(Debug)]
pub(super) struct SwapchainTruth {
    images: Vec<ImageState>,
    retired: bool,
    destroyed: bool,
}

#[derive(Debug)]
pub(super) struct QueuedPresent {
    seq: u64,
    gen: Gen,
    image: u32,
    sem: Sem,
    fence: Option<Fence>,
}

/// What an acquire returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcquireResult {
    /// An image index, and whether the swapchain is suboptimal.
    Image(u32, bool),
    OutOfDate,
    /// No image can be handed out (`VK_TIMEOUT`).
    NotReady,
}

/// What a present returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresentResult {
    Queued,
    /// SUBOPTIMAL or OUT_OF_DATE: queued all the same.
    QueuedStale,
    /// An error after which the wait never executes.
    Failed,
    /// `VK_ERROR_PRESENT_TIMING_QUEUE_FULL_EXT`: not shown, but its wait executes.
    QueueFull,
}

impl PresentResult {
    /// The code `vkQueuePresentKHR` returned (a failure as out of host memory).
    pub fn status(self) -> VkStatus {
        match self {
            PresentResult::Queued => VkStatus::SUCCESS,
            PresentResult::QueuedStale => VkStatus::SUBOPTIMAL,
            PresentResult::Failed => VkStatus::OUT_OF_HOST_MEMORY,
            PresentResult::QueueFull => VkStatus::PRESENT_TIMING_QUEUE_FULL,
        }
    }
}

impl World {
    /// `vkCreateSwapchainKHR` with `old` as `oldSwapchain`: every swapchain not yet retired is
    /// retired (there is at most one, and it must be `old`).
    pub fn create_swapchain(&mut self, image_count: u32, old: Option<Gen>) -> Result<Gen, String> {
        self.create_swapchain_in(image_count, old, PresentMode::FIFO)
    }

    /// [`Self::create_swapchain`] in present mode `mode` (what the display checks targets
    /// against).
    pub fn create_swapchain_in(
        &mut self,
        image_count: u32,
        old: Option<Gen>,
        mode: PresentMode,
    ) -> Result<Gen, String> {
        let current: Vec<Gen> = self
            .swapchains
            .iter()
            .filter(|(_, s)| !s.destroyed && !s.retired)
            .map(|(g, _)| *g)
            .collect();
        if current.len() > 1 || current.first().copied() != old {
            return Err(format!(
                "oldSwapchain {old:?} is not the surface's current swapchain {current:?} (VUID-VkSwapchainCreateInfoKHR-oldSwapchain-01933)"
            ));
        }
        if let Some(g) = old {
            self.retire(g);
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
        self.display.swapchain_created(g, mode);
        Ok(g)
    }

    /// `g` becomes retired (passed as `oldSwapchain`, even to a creation that failed).
    pub fn retire(&mut self, g: Gen) {
        if let Some(sc) = self.swapchains.get_mut(&g) {
            sc.retired = true;
        }
        self.display.retired(g);
        if self.rng.chance(self.faults.p_fence_never) {
            // Every present fence of `g` not signalled yet will never signal.
            let fences: Vec<Fence> = self
                .presents
                .iter()
                .filter(|p| p.gen == g)
                .filter_map(|p| p.fence)
                .collect();
            for f in fences {
                if let Some(t) = self.fences.get_mut(&f) {
                    t.doomed = true;
                }
            }
        }
    }

    /// Whether swapchain `g` was made and not destroyed.
    pub fn swapchain_alive(&self, g: Gen) -> bool {
        self.swapchains.get(&g).is_some_and(|s| !s.destroyed)
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
        if self.presents.iter().any(|p| p.gen == g) {
            return Err(format!(
                "swapchain {g} destroyed with a present whose wait is not consumed (VUID-vkDestroySwapchainKHR-swapchain-01282)"
            ));
        }
        if self.submission_touches(g) {
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

    /// The swapchain an acquire of `sem` was made on, while its signal is pending or unwaited.
    pub(super) fn acquired_from(&self, sem: Sem) -> Option<Gen> {
        self.acquire_sems.get(&sem).copied()
    }

    /// `vkAcquireNextImageKHR` on swapchain `g`.
    pub fn acquire(&mut self, g: Gen, sem: Sem) -> Result<AcquireResult, String> {
        self.check_signalable(sem, "acquire")?;
        let sc = self
            .swapchains
            .get(&g)
            .ok_or_else(|| format!("acquire from unknown swapchain {g}"))?;
        if sc.retired || sc.destroyed {
            return Err(format!("acquire from retired swapchain {g}"));
        }
        if let Some(scripted) = self.acquire_script.pop_front() {
            return Ok(scripted);
        }
        if self.load.is_some() {
            return self.acquire_free(g, sem);
        }
        self.acquire_random(g, sem)
    }

    /// The random world's acquire: faults drawn, then any image the app does not hold, perhaps
    /// before the engine released it.
    fn acquire_random(&mut self, g: Gen, sem: Sem) -> Result<AcquireResult, String> {
        // No draw at 0%: the schedules written before this fault keep their random sequences.
        if self.faults.p_not_ready > 0 && self.rng.chance(self.faults.p_not_ready) {
            return Ok(AcquireResult::NotReady);
        }
        if self.rng.chance(self.faults.p_out_of_date) {
            return Ok(AcquireResult::OutOfDate);
        }
        let suboptimal = self.rng.chance(self.faults.p_suboptimal);
        let sc = self
            .swapchains
            .get(&g)
            .ok_or_else(|| format!("acquire from unknown swapchain {g}"))?;
        // Any image the app does not hold; one still queued or not yet handed back may be
        // returned early, its semaphore signalling when the engine releases it.
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
            .max()
            .max(self.display.unshown_of(g, image));
        let early = !sc.images[image as usize].releases.is_empty();
        let signal_now = last_queued.is_none() && !early && self.rng.chance(50);
        {
            let t = self.sem(sem)?;
            if signal_now {
                t.signaled = true;
            } else {
                t.pending_signals += 1;
            }
        }
        self.acquire_sems.insert(sem, g);
        let slot = &mut self.swapchain_mut(g)?.images[image as usize];
        slot.held_by_app = true;
        if !signal_now {
            slot.releases.push((sem, last_queued.unwrap_or(0)));
        }
        Ok(AcquireResult::Image(image, suboptimal))
    }

    /// The drain before retirement (`Request::DrainDisplayQueue`): acquires with a fence that
    /// is waited for, so only images free now (not held, no present of them still queued, no
    /// early release outstanding) come back, at most `max`; they stay held by the app. An
    /// acquire from a retired swapchain is invalid (VUID-vkAcquireNextImageKHR-swapchain-01285).
    pub fn take_free_images(&mut self, g: Gen, max: u32) -> Result<u32, String> {
        // Images whose present is still queued, or (a refresh grid) not shown yet.
        let count = self.swapchains.get(&g).map_or(0, |s| s.images.len() as u32);
        let queued: Vec<u32> = self
            .presents
            .iter()
            .filter(|p| p.gen == g)
            .map(|p| p.image)
            .chain((0..count).filter(|&i| self.display.unshown_of(g, i).is_some()))
            .collect();
        let sc = self.swapchain_mut(g)?;
        if sc.retired || sc.destroyed {
            return Err(format!("drain acquire from retired swapchain {g}"));
        }
        let mut taken = 0;
        for (i, img) in sc.images.iter_mut().enumerate() {
            if taken == max {
                break;
            }
            let free = !img.held_by_app && img.releases.is_empty() && !queued.contains(&(i as u32));
            if free {
                img.held_by_app = true;
                taken += 1;
            }
        }
        Ok(taken)
    }

    /// Load mode: the lowest image of `g` free now (not held, no present of it queued or
    /// unshown, not on screen, no early release outstanding), as a driver that blocks in
    /// acquire hands out: an image being shown is scanned out until another replaces it.
    pub fn free_image(&self, g: Gen) -> Option<u32> {
        let sc = self.swapchains.get(&g)?;
        (0..sc.images.len() as u32).find(|&i| {
            let img = &sc.images[i as usize];
            !img.held_by_app
                && img.releases.is_empty()
                && !self.presents.iter().any(|p| p.gen == g && p.image == i)
                && self.display.unshown_of(g, i).is_none()
                && !self.display.on_screen(g, i)
        })
    }

    /// Load mode's acquire: a free image, its semaphore signalled at once; none free is
    /// "not ready" (the shell waited for one first).
    fn acquire_free(&mut self, g: Gen, sem: Sem) -> Result<AcquireResult, String> {
        let Some(image) = self.free_image(g) else {
            return Ok(AcquireResult::NotReady);
        };
        let now = self.now;
        let t = self.sem(sem)?;
        t.signaled = true;
        t.signaled_at = now;
        self.acquire_sems.insert(sem, g);
        self.swapchain_mut(g)?.images[image as usize].held_by_app = true;
        Ok(AcquireResult::Image(image, false))
    }

    fn swapchain_mut(&mut self, g: Gen) -> Result<&mut SwapchainTruth, String> {
        self.swapchains
            .get_mut(&g)
            .ok_or_else(|| format!("swapchain {g} unknown"))
    }

    /// `vkQueuePresentKHR` of one image waiting on `sem`, with present fence `fence`.
    pub fn present(
        &mut self,
        g: Gen,
        image: u32,
        sem: Sem,
        fence: Option<Fence>,
    ) -> Result<PresentResult, String> {
        self.present_with(g, (image, sem, fence), PresentExtras::default())
    }

    /// [`Self::present`] with a present id, a target and a request for stage times; the
    /// display shows it unless it failed or found the timing results queue full.
    pub fn present_with(
        &mut self,
        g: Gen,
        (image, sem, fence): (u32, Sem, Option<Fence>),
        extras: PresentExtras,
    ) -> Result<PresentResult, String> {
        self.display.check_present(g, &extras)?;
        let seq = self.next_present_seq;
        let result = self.present_inner(g, image, sem, fence, extras)?;
        let shown = matches!(result, PresentResult::Queued | PresentResult::QueuedStale);
        self.display
            .presented(g, (seq, image, sem), extras, self.now, shown);
        Ok(result)
    }

    fn present_inner(
        &mut self,
        g: Gen,
        image: u32,
        sem: Sem,
        fence: Option<Fence>,
        extras: PresentExtras,
    ) -> Result<PresentResult, String> {
        let sc = self.swapchain_mut(g)?;
        if sc.retired {
            return Err(format!("present to retired swapchain {g}"));
        }
        let slot = sc
            .images
            .get_mut(image as usize)
            .ok_or("present of an image out of range")?;
        if !slot.held_by_app {
            return Err(format!("present of image {image} not acquired"));
        }
        slot.held_by_app = false;
        self.check_present_dependencies(sem)?;
        if self.rng.chance(self.faults.p_present_fail) {
            return Ok(PresentResult::Failed);
        }
        let t = self.sem(sem)?;
        if !(t.signaled || t.pending_signals > 0) || t.pending_waits > 0 {
            return Err(format!(
                "present waits on semaphore {sem} with nothing signalled"
            ));
        }
        t.pending_waits += 1;
        t.present_waits += 1;
        if let Some(f) = fence {
            self.check_fence_free(f, "present")?;
        }
        let seq = self.next_present_seq;
        self.next_present_seq += 1;
        self.presents.push_back(QueuedPresent {
            seq,
            gen: g,
            image,
            sem,
            fence,
        });
        if self.display.queue_full(g, extras.stages) {
            return Ok(PresentResult::QueueFull);
        }
        Ok(if self.rng.chance(self.faults.p_present_stale) {
            PresentResult::QueuedStale
        } else {
            PresentResult::Queued
        })
    }

    /// One step of the engine: maybe consume the head present's wait (in order), maybe signal
    /// one present fence whose present was consumed (any order), maybe hand back one
    /// early-acquired image whose earlier presents consumed their waits (any order).
    pub fn pe_tick(&mut self) -> Check {
        self.consume_head_present()?;
        if !self.fences_signalable.is_empty() && self.rng.chance(40) {
            let i = self.rng.below(self.fences_signalable.len() as u32) as usize;
            let f = self.fences_signalable.swap_remove(i);
            let t = self.fence(f)?;
            t.pending = false;
            t.signaled = true;
        }
        self.hand_back_one()
    }

    pub(super) fn consume_head_present(&mut self) -> Check {
        let Some(head) = self.presents.front() else {
            return Ok(());
        };
        let sem = head.sem;
        // Load mode consumes a wait as soon as it can, drawing nothing.
        let signaled = self.sems.get(&sem).is_some_and(|t| t.signaled);
        if !signaled || (self.load.is_none() && !self.rng.chance(50)) {
            return Ok(());
        }
        if let Some(p) = self.presents.pop_front() {
            self.presents_consumed = p.seq;
            let at = self.sems.get(&sem).map_or(self.now, |t| t.signaled_at);
            self.display.consumed(p.seq, at);
            if let Some(f) = p.fence {
                if !self.fences.get(&f).is_some_and(|t| t.doomed) {
                    self.fences_signalable.push(f);
                }
            }
        }
        let t = self.sem(sem)?;
        t.signaled = false;
        t.pending_waits -= 1;
        t.present_waits -= 1;
        Ok(())
    }

    fn hand_back_one(&mut self) -> Check {
        let mut releasable: Vec<(Gen, usize)> = Vec::new();
        for (g, sc) in &self.swapchains {
            for (i, st) in sc.images.iter().enumerate() {
                if st.releases.first().is_some_and(|(_, after)| {
                    *after <= self.presents_consumed && self.display.shown_through(*after)
                }) {
                    releasable.push((*g, i));
                }
            }
        }
        if releasable.is_empty() || !self.rng.chance(50) {
            return Ok(());
        }
        let (g, i) = releasable[self.rng.below(releasable.len() as u32) as usize];
        let sc = self.swapchain_mut(g)?;
        if !sc.images[i].releases.is_empty() {
            let (sem, _) = sc.images[i].releases.remove(0);
            let t = self.sem(sem)?;
            t.pending_signals -= 1;
            t.signaled = true;
        }
        Ok(())
    }

    /// The sequence number of the last present queued so far.
    pub fn last_present_seq(&self) -> u64 {
        self.next_present_seq - 1
    }

    /// Whether every present up to `seq` consumed its wait.
    pub(super) fn presents_done_through(&self, seq: u64) -> bool {
        self.presents.front().is_none_or(|p| p.seq > seq)
    }

    /// Whether nothing is left on the GPU or in the engine's queue.
    pub fn idle(&self) -> bool {
        self.queue.is_empty() && self.presents.is_empty()
    }
}
