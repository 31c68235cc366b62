//! The textbook loop of an application that owns its swapchain (ash's examples, the Vulkan
//! tutorial), in random schedules: `F` per-frame sets of an acquire semaphore, a present
//! semaphore and a fence, reused every `F` frames once the fence signalled (so a present
//! semaphore is signalled again while the present that waited on it may still be queued: the
//! pattern behind `VUID-vkQueueSubmit-pSignalSemaphores-00067`); recreation on out of date,
//! on a suboptimal result and on resizes, the old swapchain destroyed right after the new one is
//! made (no idle wait); now and then the window closes and opens again (a swapchain destroyed
//! with no successor). It calls the swapchain functions through [`SwapchainCalls`]: the driver
//! alone or the second door. After every step the caller's judge checks its properties.

use vkpace_core::PresentMode;
use vkpace_sim::driver::SimError;
use vkpace_sim::own_swapchain::SwapchainCalls;
use vkpace_sim::world::{AcquireResult, Fence, Gen, PresentResult, Sem};

/// One random schedule of the application (the door's settings are the caller's).
#[derive(Debug, Clone)]
pub struct Textbook {
    /// Per-frame sets the application cycles through (1..=3).
    pub app_frames: usize,
    pub min_images: u32,
    pub steps: u32,
    /// Percent per step: the window is resized (the application recreates at its next frame).
    pub p_resize: u32,
    /// Percent per frame boundary: the window closes and opens again.
    pub p_reopen: u32,
    /// The application chains its own present ids to every present (the door adds none).
    pub own_ids: bool,
    /// Percent per creation: the swapchain is made in MAILBOX (which takes no present-timing
    /// targets) rather than FIFO.
    pub p_mailbox: u32,
    /// Percent per present: a mode is drawn from FIFO, FIFO_RELAXED, MAILBOX and IMMEDIATE
    /// for the present to switch the swapchain to (`VkSwapchainPresentModeInfoKHR`; a quarter
    /// of draws are the mode it is in). With any, every present chains the mode it leaves the
    /// swapchain in, as DXVK does.
    pub p_mode_switch: u32,
}

/// The modes a present switches to.
const SWITCHED_TO: [PresentMode; 4] = [
    PresentMode::FIFO,
    PresentMode::FIFO_RELAXED,
    PresentMode::MAILBOX,
    PresentMode::IMMEDIATE,
];

/// What the application did and holds, for the judge.
#[derive(Debug, Default, Clone)]
pub struct Facts {
    /// The semaphores the application made (the rest alive in the world are the door's).
    pub own_semaphores: usize,
    pub own_fences: usize,
    /// Presents made, and those the driver answered out of date or suboptimal.
    pub presents: u64,
    pub stale_presents: u64,
    pub failed_presents: u64,
    /// Acquires answered out of date, not ready.
    pub acquires_out_of_date: u64,
    pub acquires_not_ready: u64,
    /// Swapchains made, the one in use, and each the application destroyed with the number of
    /// presents made by then, whether it had a successor, and its lineage.
    pub created: u64,
    pub current: Option<Gen>,
    /// Presents the engine queued (all but failed ones), in all and to the current swapchain.
    pub queued: u64,
    pub queued_current: u64,
    pub destroyed: Vec<Destroyed>,
    /// The lineage of the current swapchain: a window opened anew starts one (a swapchain made
    /// with no `oldSwapchain`); recreations continue it. Its first swapchain (the world numbers
    /// swapchains in creation order, so the lineage's are those from it on).
    pub lineage: u64,
    pub lineage_first: Gen,
    /// The most images a swapchain had.
    pub max_images: u32,
    /// Swapchains made in MAILBOX.
    pub mailbox_created: u64,
    /// Presents that switched the swapchain's present mode.
    pub mode_switches: u64,
}

/// A swapchain the application destroyed.
#[derive(Debug, Clone, Copy)]
pub struct Destroyed {
    pub swapchain: Gen,
    /// Presents queued when the application destroyed it.
    pub queued_at: u64,
    /// A newer swapchain replaced it (else the window closed).
    pub successor: bool,
    pub lineage: u64,
}

#[derive(Debug, Clone, Copy)]
struct FrameSet {
    acquire: Sem,
    present: Sem,
    fence: Fence,
    /// Its fence was given to a submission not yet waited for.
    in_use: bool,
}

#[derive(Debug, Clone, Copy)]
enum Stage {
    Idle,
    Acquired(u32),
    Submitted(u32),
}

/// The application.
pub struct App<'j, C> {
    pub calls: C,
    p: Textbook,
    sets: Vec<FrameSet>,
    frame: usize,
    stage: Stage,
    recreate: bool,
    /// The application's last own present id (they grow across its swapchains).
    last_id: u64,
    /// The current swapchain's present mode.
    mode: PresentMode,
    pub facts: Facts,
    judge: &'j mut dyn FnMut(&mut C, &Facts) -> Result<(), String>,
}

fn describe(e: SimError) -> String {
    format!("{e:?}")
}

impl<'j, C: SwapchainCalls> App<'j, C> {
    /// Makes the application's objects and its first swapchain.
    pub fn new(
        mut calls: C,
        p: Textbook,
        judge: &'j mut dyn FnMut(&mut C, &Facts) -> Result<(), String>,
    ) -> Result<Self, String> {
        let w = calls.world();
        let sets = (0..p.app_frames)
            .map(|_| FrameSet {
                acquire: w.create_semaphore(),
                present: w.create_semaphore(),
                fence: w.create_fence(),
                in_use: false,
            })
            .collect();
        let facts = Facts {
            own_semaphores: 2 * p.app_frames,
            own_fences: p.app_frames,
            ..Facts::default()
        };
        let mut app = Self {
            calls,
            p,
            sets,
            frame: 0,
            stage: Stage::Idle,
            recreate: false,
            last_id: 0,
            mode: PresentMode::FIFO,
            facts,
            judge,
        };
        app.create(None)?;
        Ok(app)
    }

    /// Runs the schedule and the teardown, judging after every step; returns what the
    /// application did, and the calls for the teardown's checks.
    pub fn run(mut self) -> Result<(Facts, C), String> {
        for _ in 0..self.p.steps {
            let rng = &mut self.calls.world().rng;
            let api = rng.below(100) >= 55;
            if rng.chance(self.p.p_resize) {
                self.recreate = true;
            }
            if api {
                self.api_step()?;
            } else {
                self.calls.tick().map_err(describe)?;
            }
            (self.judge)(&mut self.calls, &self.facts)?;
        }
        self.shutdown()?;
        (self.judge)(&mut self.calls, &self.facts)?;
        Ok((self.facts, self.calls))
    }

    fn api_step(&mut self) -> Result<(), String> {
        match self.stage {
            Stage::Idle => self.begin_frame(),
            Stage::Acquired(image) => self.submit(image),
            Stage::Submitted(image) => self.present(image),
        }
    }

    /// The frame's set is free once its fence signalled; then recreation if due, then the
    /// acquire.
    fn begin_frame(&mut self) -> Result<(), String> {
        let f = self.frame % self.p.app_frames;
        self.wait_set(f)?;
        let reopen = self.calls.world().rng.chance(self.p.p_reopen);
        if reopen {
            self.reopen()?;
        } else if self.recreate {
            self.recreate()?;
        }
        let Some(g) = self.facts.current else {
            return Ok(());
        };
        match self.calls.acquire(g, self.sets[f].acquire) {
            Ok(AcquireResult::Image(image, suboptimal)) => {
                self.recreate |= suboptimal;
                self.stage = Stage::Acquired(image);
            }
            Ok(AcquireResult::OutOfDate) => {
                self.facts.acquires_out_of_date += 1;
                self.recreate = true;
            }
            Ok(AcquireResult::NotReady) => self.facts.acquires_not_ready += 1,
            Err(e) => return Err(describe(e)),
        }
        Ok(())
    }

    /// `vkWaitForFences` + `vkResetFences` of set `f`, if a submission used it.
    fn wait_set(&mut self, f: usize) -> Result<(), String> {
        let set = self.sets[f];
        if !set.in_use {
            return Ok(());
        }
        if !self.calls.wait_fence(set.fence).map_err(describe)? {
            return Err(format!(
                "the application's fence {} never signalled",
                set.fence
            ));
        }
        self.calls.world().reset_fence(set.fence)?;
        self.sets[f].in_use = false;
        Ok(())
    }

    /// The frame's one submission: waits on the acquire semaphore, signals the present one and
    /// the set's fence.
    fn submit(&mut self, image: u32) -> Result<(), String> {
        let f = self.frame % self.p.app_frames;
        let set = self.sets[f];
        let w = self.calls.world();
        w.submit_ordered(&[set.acquire], &[set.present], Some(set.fence), true)?;
        self.sets[f].in_use = true;
        self.stage = Stage::Submitted(image);
        Ok(())
    }

    fn present(&mut self, image: u32) -> Result<(), String> {
        let f = self.frame % self.p.app_frames;
        let g = self.facts.current.ok_or("a present with no swapchain")?;
        let id = self.p.own_ids.then(|| {
            self.last_id += 1 + u64::from(self.calls.world().rng.below(3));
            self.last_id
        });
        let mode = self.chained_mode();
        let result = self
            .calls
            .present(g, image, self.sets[f].present, id, mode)
            .map_err(describe)?;
        self.facts.presents += 1;
        let queued = u64::from(result != PresentResult::Failed);
        self.facts.queued += queued;
        self.facts.queued_current += queued;
        match result {
            PresentResult::Queued | PresentResult::QueueFull => {}
            PresentResult::QueuedStale => {
                self.facts.stale_presents += 1;
                self.recreate = true;
            }
            PresentResult::Failed => {
                self.facts.failed_presents += 1;
                self.recreate = true;
            }
        }
        self.frame += 1;
        self.stage = Stage::Idle;
        Ok(())
    }

    /// A new swapchain from the current one, which is destroyed right after.
    fn recreate(&mut self) -> Result<(), String> {
        let old = self.facts.current;
        self.create(old)?;
        if let Some(old) = old {
            self.destroy(old, true)?;
        }
        self.recreate = false;
        Ok(())
    }

    /// The window closes (its swapchain destroyed, no successor) and opens again.
    fn reopen(&mut self) -> Result<(), String> {
        if let Some(g) = self.facts.current.take() {
            self.destroy(g, false)?;
        }
        self.create(None)?;
        self.recreate = false;
        Ok(())
    }

    /// The present mode the next present chains, if the application chains one.
    fn chained_mode(&mut self) -> Option<PresentMode> {
        if self.p.p_mode_switch == 0 {
            return None;
        }
        let rng = &mut self.calls.world().rng;
        if rng.chance(self.p.p_mode_switch) {
            let to = SWITCHED_TO[rng.below(SWITCHED_TO.len() as u32) as usize];
            self.facts.mode_switches += u64::from(to != self.mode);
            self.mode = to;
        }
        Some(self.mode)
    }

    fn create(&mut self, old: Option<Gen>) -> Result<(), String> {
        let rng = &mut self.calls.world().rng;
        let images = self.p.min_images + rng.below(3);
        // No draw without MAILBOX in the schedule: such schedules run as they always did.
        let mode = match self.p.p_mailbox > 0 && rng.chance(self.p.p_mailbox) {
            true => PresentMode::MAILBOX,
            false => PresentMode::FIFO,
        };
        let g = self
            .calls
            .create_swapchain(images, old, mode)
            .map_err(describe)?;
        self.facts.current = Some(g);
        self.mode = mode;
        if old.is_none() {
            self.facts.lineage += 1;
            self.facts.lineage_first = g;
        }
        self.facts.queued_current = 0;
        self.facts.created += 1;
        self.facts.mailbox_created += u64::from(mode == PresentMode::MAILBOX);
        self.facts.max_images = self.facts.max_images.max(images);
        Ok(())
    }

    /// Destroys `g`.
    fn destroy(&mut self, g: Gen, successor: bool) -> Result<(), String> {
        self.calls.destroy_swapchain(g).map_err(describe)?;
        self.facts.destroyed.push(Destroyed {
            swapchain: g,
            queued_at: self.facts.queued,
            successor,
            lineage: self.facts.lineage,
        });
        Ok(())
    }

    /// The frame in progress is finished, every set's fence waited for, the swapchain
    /// destroyed (no successor), the calls' own teardown, then the application's objects.
    fn shutdown(&mut self) -> Result<(), String> {
        if let Stage::Acquired(image) = self.stage {
            self.submit(image)?;
        }
        if let Stage::Submitted(image) = self.stage {
            self.present(image)?;
        }
        for f in 0..self.sets.len() {
            self.wait_set(f)?;
        }
        if let Some(g) = self.facts.current.take() {
            self.destroy(g, false)?;
        }
        self.calls.shutdown().map_err(describe)?;
        let w = self.calls.world();
        for set in &self.sets {
            w.destroy_semaphore(set.acquire)?;
            w.destroy_semaphore(set.present)?;
            w.destroy_fence(set.fence)?;
        }
        self.facts.own_semaphores = 0;
        self.facts.own_fences = 0;
        Ok(())
    }
}
