//! The application side of the simulation: the same call sequence the Vulkan shell makes,
//! driving the real [`vkpace::core::Presenter`] against the simulated [`World`].

use vkpace::core::{
    Action, FrameGate, PresentOutcome, PresentSemaphoreChoice, Presenter, PresenterConfig, Serial,
};

use vkpace_sim::world::{AcquireResult, Check, Gen, Sem, World};

/// One random schedule.
#[derive(Debug, Clone)]
pub struct Params {
    pub seed: u64,
    pub frames_in_flight: usize,
    pub max_retired: usize,
    pub min_images: u32,
    pub steps: u32,
    pub max_gpu_delay: u32,
    /// Percentages.
    pub p_out_of_date: u32,
    pub p_suboptimal: u32,
    pub p_resize: u32,
    pub p_skip: u32,
    pub p_present_stale: u32,
    pub p_present_fail: u32,
    /// The `VK_EXT_swapchain_maintenance1` path: a present fence per present.
    pub present_fences: bool,
    /// Percent chance a retiring swapchain's pending present fences never signal.
    pub p_fence_never: u32,
    /// Percent chance per frame step that frames in flight change (to a random 1..=3).
    pub p_change_n: u32,
}

impl Params {
    /// A calm schedule: no errors, resizes, skips or failures; tests switch on what they need.
    pub fn quiet(seed: u64) -> Self {
        Self {
            seed,
            frames_in_flight: 2,
            max_retired: 5,
            min_images: 2,
            steps: 20_000,
            max_gpu_delay: 3,
            p_out_of_date: 0,
            p_suboptimal: 0,
            p_resize: 0,
            p_skip: 0,
            p_present_stale: 0,
            p_present_fail: 0,
            present_fences: false,
            p_fence_never: 0,
            p_change_n: 0,
        }
    }
}

/// What a schedule did, for the caller's sanity checks.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    pub frames_presented: u64,
    pub swapchains_created: usize,
    pub max_retired_pending: usize,
    pub max_semaphores_alive: usize,
    pub max_history: usize,
    pub fallback_waits: u64,
}

struct App {
    p: Params,
    world: World,
    core: Presenter<Sem, Gen>,
    gen: Gen,
    recreate: bool,
    next_fence: u64,
    /// Ground truth: the serial of the last frame submission that used each resource slot.
    slot_last: [u64; 3],
    /// Frames in flight when the last frame was submitted (the limit that frame obeyed).
    n_at_last_submit: usize,
    out: Outcome,
}

/// The longest a bounded wait may spin the world before the run counts as a livelock.
const WAIT_BOUND: u32 = 200_000;

pub fn run(p: Params) -> Result<Outcome, String> {
    let mut world = World::new(p.seed, p.max_gpu_delay, p.p_out_of_date, p.p_suboptimal);
    world.p_fence_never = p.p_fence_never;
    let core = Presenter::new(PresenterConfig {
        frames_in_flight: p.frames_in_flight,
        max_retired_swapchains: p.max_retired,
    })
    .map_err(|e| e.to_string())?;
    let mut app = App {
        p,
        world,
        core,
        gen: 0,
        recreate: true,
        next_fence: 1,
        slot_last: [0; 3],
        n_at_last_submit: 1,
        out: Outcome::default(),
    };
    app.run()?;
    Ok(app.out)
}

impl App {
    fn run(&mut self) -> Check {
        for _ in 0..self.p.steps {
            match self.world.rng.below(100) {
                0..=29 => self.world.gpu_tick()?,
                30..=54 => self.world.pe_tick()?,
                55..=64 => self.poll()?,
                _ => self.frame_step()?,
            }
            if self.world.rng.chance(self.p.p_resize) {
                self.recreate = true;
            }
            self.check_invariants()?;
        }
        self.shutdown()
    }

    fn check_invariants(&mut self) -> Check {
        let n_now = self.core.frames_in_flight();
        // Lowering N does not make already-queued frames vanish: the limit is the one the last
        // submitted frame obeyed, or the current one if higher.
        let n = n_now.max(self.n_at_last_submit);
        if self.world.frames_pending > n {
            return Err(format!(
                "CPU {} frames ahead of the GPU, limit {n}",
                self.world.frames_pending
            ));
        }
        let retired = self.core.retired_pending();
        if retired > self.p.max_retired {
            return Err(format!(
                "{retired} retired swapchains pending, cap {}",
                self.p.max_retired
            ));
        }
        let depth = self.core.deepest_history();
        // With N changing, an image's history keeps what an earlier, larger N filled.
        let depth_limit = if self.p.p_change_n > 0 { 4 } else { n + 1 };
        if depth > depth_limit {
            return Err(format!("present history {depth} deep, limit {depth_limit}"));
        }
        let alive = self.world.semaphores_alive();
        if alive != self.core.semaphores_held() {
            return Err(format!(
                "core holds {} semaphores, {alive} alive: one is lost or freed twice",
                self.core.semaphores_held()
            ));
        }
        // min_images + 2 is the largest swapchain `recreate` makes.
        let n_bound = if self.p.p_change_n > 0 { 3 } else { n };
        let bound = vkpace::core::semaphore_bound(
            n_bound,
            self.p.min_images as usize + 2,
            self.p.max_retired,
        );
        if alive > bound {
            return Err(format!(
                "{alive} semaphores alive, documented bound {bound}"
            ));
        }
        self.out.max_retired_pending = self.out.max_retired_pending.max(retired);
        self.out.max_semaphores_alive = self.out.max_semaphores_alive.max(alive);
        self.out.max_history = self.out.max_history.max(depth);
        Ok(())
    }

    fn drain(&mut self) -> Check {
        while let Some(action) = self.core.poll_action() {
            match action {
                Action::DestroySemaphore(s) => self.world.destroy_semaphore(s)?,
                Action::DestroySwapchain(g) => self.world.destroy_swapchain(g)?,
            }
        }
        Ok(())
    }

    /// The shell polling its fences (`vkGetFenceStatus`): submission fences and present fences.
    fn poll(&mut self) -> Check {
        self.core
            .serial_completed(Serial(self.world.gpu_completed))
            .map_err(|e| e.to_string())?;
        for id in self.world.take_signaled_fences() {
            // A failed present's fence is not tracked by the core: ignoring it is correct.
            let _ = self.core.present_fence_signaled(id);
        }
        self.drain()
    }

    /// Runs the world until `done` holds, bounded.
    fn wait_until(&mut self, what: &str, done: impl Fn(&World) -> bool) -> Check {
        for _ in 0..WAIT_BOUND {
            if done(&self.world) {
                return Ok(());
            }
            self.world.gpu_tick()?;
            self.world.pe_tick()?;
        }
        Err(format!(
            "bounded wait for {what} timed out: livelock\n{:#?}",
            self.world.debug_state()
        ))
    }

    fn recreate(&mut self) -> Check {
        let images = self.p.min_images + self.world.rng.below(3);
        let old = self.gen;
        self.gen = self.world.create_swapchain(images);
        self.out.swapchains_created += 1;
        let consume = self
            .core
            .swapchain_created(self.gen, images)
            .map_err(|e| e.to_string())?;
        if let Some(sem) = consume {
            let serial = self.world.submit(&[sem], &[], Some(old), false)?;
            self.core
                .consume_submitted(sem, Serial(serial))
                .map_err(|e| e.to_string())?;
        }
        self.recreate = false;
        self.drain()?;
        if self.p.present_fences && self.core.retired_over_cap().is_some() {
            // maintenance1: a bounded wait on the retired swapchains' present fences first.
            let ids: Vec<u64> = self.core.retired_present_fences().collect();
            for _ in 0..2_000 {
                self.world.gpu_tick()?;
                self.world.pe_tick()?;
                self.poll()?;
                if self.core.retired_over_cap().is_none() {
                    break;
                }
            }
            // Still over the cap: a fence never signalled, or a failed present left a swapchain
            // without one. Fall through to the legacy fallback; `present_fences_keep_the_
            // retired_backlog_small` checks that a clean run never gets here.
            let _ = ids;
        }
        if let Some(serial) = self.core.retired_over_cap() {
            // The bounded fallback: the fence of `serial`, then the queue idle.
            self.wait_until("the fallback", |w| w.gpu_completed >= serial.0 && w.idle())?;
            self.core
                .fallback_waited(serial)
                .map_err(|e| e.to_string())?;
            self.drain()?;
        }
        Ok(())
    }

    fn frame_step(&mut self) -> Check {
        let mid_frame = self.core.frame().is_some_and(|f| f.submitted.is_some());
        if self.recreate && !mid_frame {
            self.recreate()?;
        }
        if self.world.rng.chance(self.p.p_change_n) {
            let n = 1 + self.world.rng.below(3) as usize;
            self.core
                .set_frames_in_flight(n)
                .map_err(|e| e.to_string())?;
        }
        if let FrameGate::WaitFor(_) = self.core.begin_frame() {
            return self.poll();
        }
        let frame = match self.core.frame() {
            Some(f) => f,
            None => {
                let sem = match self.core.take_acquire_semaphore() {
                    Some(s) => s,
                    None => {
                        let s = self.world.create_semaphore();
                        self.core.acquire_semaphore_created(s);
                        s
                    }
                };
                match self.world.acquire(self.gen, sem)? {
                    AcquireResult::OutOfDate => {
                        self.core.acquire_failed(sem).map_err(|e| e.to_string())?;
                        self.recreate = true;
                        return Ok(());
                    }
                    AcquireResult::NotReady => {
                        self.core.acquire_failed(sem).map_err(|e| e.to_string())?;
                        return Ok(());
                    }
                    AcquireResult::Image(i, suboptimal) => {
                        self.core
                            .image_acquired(sem, i)
                            .map_err(|e| e.to_string())?;
                        if suboptimal {
                            self.recreate = true;
                        }
                    }
                }
                self.core.frame().ok_or("no frame after acquire")?
            }
        };
        if frame.present.is_none() {
            match self
                .core
                .choose_present_semaphore()
                .map_err(|e| e.to_string())?
            {
                PresentSemaphoreChoice::Reuse(_) => {}
                PresentSemaphoreChoice::Create => {
                    let s = self.world.create_semaphore();
                    self.core
                        .present_semaphore_created(s)
                        .map_err(|e| e.to_string())?;
                }
                PresentSemaphoreChoice::WaitFor(_) => return self.poll(),
            }
            self.drain()?;
        }
        if self.world.rng.chance(self.p.p_skip) {
            // The frame is dropped before submission: the image stays held for the next one.
            return Ok(());
        }
        let f = self.core.frame().ok_or("frame vanished")?;
        let present = f.present.ok_or("no present semaphore")?;
        // The slot's previous user must have completed in truth, not just in the app's view.
        if self.world.gpu_completed < self.slot_last[f.slot] {
            return Err(format!(
                "slot {} handed out while its last submission (serial {}) is pending",
                f.slot, self.slot_last[f.slot]
            ));
        }
        let serial = self
            .world
            .submit(&[f.acquire], &[present], Some(self.gen), true)?;
        self.slot_last[f.slot] = serial;
        self.n_at_last_submit = self.core.frames_in_flight();
        self.core
            .frame_submitted(Serial(serial))
            .map_err(|e| e.to_string())?;
        let failed = self.world.rng.chance(self.p.p_present_fail);
        let fence = self.p.present_fences.then(|| {
            self.next_fence += 1;
            self.next_fence
        });
        self.world.present(
            self.gen,
            f.image,
            present,
            failed,
            fence.filter(|_| !failed),
        )?;
        let outcome = if failed {
            PresentOutcome::Failed
        } else if self.world.rng.chance(self.p.p_present_stale) {
            PresentOutcome::QueuedStale
        } else {
            PresentOutcome::Queued
        };
        self.core
            .frame_presented_with_fence(outcome, fence)
            .map_err(|e| e.to_string())?;
        self.out.frames_presented += 1;
        if outcome != PresentOutcome::Queued {
            self.recreate = true;
        }
        self.drain()
    }

    fn shutdown(&mut self) -> Check {
        if let Some(sem) = self.core.release_held() {
            let serial = self.world.submit(&[sem], &[], Some(self.gen), false)?;
            self.core
                .consume_submitted(sem, Serial(serial))
                .map_err(|e| e.to_string())?;
        }
        let last = self.core.last_submitted();
        self.wait_until("shutdown", |w| w.gpu_completed >= last.0 && w.idle())?;
        self.core
            .serial_completed(last)
            .map_err(|e| e.to_string())?;
        self.core.shutdown_waited().map_err(|e| e.to_string())?;
        self.drain()?;
        self.out.fallback_waits = self.core.stats().fallback_waits;
        if self.world.semaphores_alive() != 0 {
            return Err(format!(
                "{} semaphores leaked at shutdown",
                self.world.semaphores_alive()
            ));
        }
        if self.world.live_swapchains() != 0 {
            return Err(format!(
                "{} swapchains leaked at shutdown",
                self.world.live_swapchains()
            ));
        }
        if self.core.semaphores_held() != 0 {
            return Err("core still holds semaphores after shutdown".into());
        }
        Ok(())
    }
}
