//! Random sequences of the public calls a renderer makes (acquire, drop a frame before or after
//! submitting it, submit, present, resize, frames-in-flight and present-mode changes, also
//! mid-frame), run through the frame machine that ships against the simulated world, with the
//! invariants checked after every step. The call sequence inside each operation is the
//! machine's, not restated here.

use vkpace_core::CoreError;
use vkpace_core::DisplayOffer;
use vkpace_core::{CompletionBackend, PacingPolicy, SyncToken};
use vkpace_core::{Failure, FrameInfo, FrameMachine, MachineConfig, PresentMode, Serial};
use vkpace_sim::driver::{SimError, SimGpuClock, SimSurface, SimSwapchain};
use vkpace_sim::timing_shell::TimingCounts;
use vkpace_sim::world::{ClockFaults, DisplayConfig, Faults, Fence, Gen, Sem, World};

use super::queues::OtherQueues;

/// One random schedule.
#[derive(Debug, Clone)]
pub struct Params {
    pub seed: u64,
    pub frames_in_flight: usize,
    pub max_retired: usize,
    pub min_images: u32,
    pub steps: u32,
    pub faults: Faults,
    /// Percentages per step.
    pub p_resize: u32,
    pub p_drop: u32,
    pub p_abandon: u32,
    pub p_change_n: u32,
    pub p_mode: u32,
    pub p_create_fail: u32,
    /// The maintenance1 path: present fences, image release, per-present mode switches.
    pub maintenance1: bool,
    /// Percent chance per step of a completion-token call (look, wait, or a refused token).
    pub p_token: u32,
    /// What backs the machine's completion tokens.
    pub completion: CompletionBackend,
    /// Other queues (compute, transfer) with timelines of their own, 0..=2.
    pub other_queues: usize,
    /// Percent chance per step of an other-queue step (promise, submit, read back), and per
    /// frame submission of GPU waits on their values.
    pub p_queue: u32,
    /// Present ids (`VK_KHR_present_id` + `VK_KHR_present_wait`): polled once per frame.
    pub present_ids: bool,
    /// Present timing with this many results-queue slots (needs `present_ids`).
    pub present_timing: Option<u32>,
    /// The display: its refresh, and what its engine offers for present timing.
    pub display: DisplayConfig,
    /// GPU timestamps in this device clock.
    pub gpu_clock: Option<SimGpuClock>,
    /// The pacing policy the machine starts with.
    pub pacing: PacingPolicy,
    /// The display paths the shell chose (`core::choose_paths` on a random offer) and how the
    /// engine's clocks behave; None: the paths follow `present_ids` and `present_timing`, with
    /// results in `CLOCK_MONOTONIC`.
    pub paths: Option<(DisplayOffer, ClockFaults)>,
}

impl Params {
    /// A calm schedule: no errors, resizes, drops or failures; tests switch on what they need.
    pub fn quiet(seed: u64) -> Self {
        Self {
            seed,
            frames_in_flight: 2,
            max_retired: 5,
            min_images: 2,
            steps: 20_000,
            faults: Faults {
                max_gpu_delay: 3,
                ..Faults::default()
            },
            p_resize: 0,
            p_drop: 0,
            p_abandon: 0,
            p_change_n: 0,
            p_mode: 0,
            p_create_fail: 0,
            maintenance1: false,
            p_token: 0,
            completion: CompletionBackend::Fences,
            other_queues: 0,
            p_queue: 0,
            present_ids: false,
            present_timing: None,
            display: DisplayConfig::default(),
            gpu_clock: None,
            pacing: PacingPolicy::FramesInFlight,
            paths: None,
        }
    }
}

/// What a schedule did, for the caller's sanity checks.
#[derive(Debug, Default, Clone)]
pub struct Outcome {
    pub frames_presented: u64,
    pub swapchains_created: u64,
    pub max_retired_pending: usize,
    pub max_semaphores_alive: usize,
    pub max_fences_alive: usize,
    pub max_history: usize,
    pub fallback_waits: u64,
    pub abandoned_presented: u64,
    /// Token calls: found reached, waited for, timed out, refused.
    pub tokens_reached: u64,
    pub tokens_waited: u64,
    pub token_timeouts: u64,
    pub tokens_refused: u64,
    /// GPU waits on other queues' values accepted and refused.
    pub queue_waits_accepted: u64,
    pub queue_waits_refused: u64,
    /// GPU waits on the swapchain's own tokens accepted (timeline backend).
    pub own_gpu_waits: u64,
    /// The most GPU waits the machine held as pending.
    pub max_pending_gpu_waits: usize,
    /// Acquires that ended "not ready" (no image within the bound): skipped, not failed.
    pub not_ready_skips: u64,
    /// Frames the machine saw displayed (present ids or present timing).
    pub frames_displayed: u64,
    /// Frames whose present carried a target refresh (present timing).
    pub frames_targeted: u64,
    /// Complete present timing results read, presents refused with a full results queue,
    /// frames shown later than their refresh.
    pub timing_results: u64,
    pub timing_queue_full: u64,
    pub refreshes_missed: u64,
    /// What the shell's present timing bookkeeping saw (results converted and checked).
    pub timing: TimingCounts,
    /// GPU time reads answered with the timestamps, and their times checked against the
    /// world's.
    pub gpu_reads: u64,
    pub gpu_times_checked: u64,
}

type Info = FrameInfo<Sem, Gen, Fence>;

/// What the renderer holds.
#[derive(Debug, Clone, Copy)]
enum Held {
    Nothing,
    Acquired(Info),
    Submitted(Info),
    /// Dropped before submission: the next acquire must hand this frame out again.
    Dropped(Info),
}

struct App {
    p: Params,
    sim: SimSwapchain,
    held: Held,
    /// Ground truth: the world's number of the last frame submission that used each slot.
    slot_last: [u64; 3],
    /// Frames in flight when the last submitted frame passed the gate (the limit it obeyed).
    n_at_last_submit: usize,
    /// Frames in flight when the held frame passed the gate (a change mid-frame applies to the
    /// next frame).
    n_at_acquire: usize,
    /// A submitted frame was dropped when this many abandoned frames had been presented: the
    /// next successful acquire must have presented it.
    expect_abandoned_present: Option<u64>,
    /// The latest frame submissions: the world's number and the machine's token.
    submissions: std::collections::VecDeque<(u64, SyncToken)>,
    /// A token of another machine's stream.
    foreign: SyncToken,
    queues: OtherQueues,
    /// The world's number of the latest frames' submissions, by frame.
    frame_submissions: std::collections::BTreeMap<u64, u64>,
    out: Outcome,
}

/// The machine's configuration for a schedule's parameters.
fn machine_config(p: &Params) -> Result<MachineConfig, String> {
    let mut config = MachineConfig::default();
    config.pacing.frames_in_flight = p.frames_in_flight;
    config.pacing.max_retired_swapchains = p.max_retired;
    config.maintenance1 = p.maintenance1;
    config.completion = p.completion;
    config.present_ids = p.present_ids;
    config.present_timing_slots = p.present_timing;
    config.pacing.policy = p.pacing;
    config.gpu_clock = match p.gpu_clock {
        Some(c) => Some(c.config().map_err(|e| e.to_string())?),
        None => None,
    };
    Ok(config)
}

pub fn run(p: Params) -> Result<Outcome, String> {
    let config = machine_config(&p)?;
    let mut world = World::new(p.seed, p.faults.clone());
    world.display.config = p.display;
    let modes = vec![
        PresentMode::FIFO,
        PresentMode::MAILBOX,
        PresentMode::IMMEDIATE,
    ];
    let surface = SimSurface {
        min_images: p.min_images,
        extra_images: 2,
        p_create_fail: p.p_create_fail,
        present_modes: modes.clone(),
        compatible_modes: if p.maintenance1 { modes } else { Vec::new() },
    };
    let mut sim = SimSwapchain::new(config, world, surface).map_err(describe)?;
    sim.gpu_clock = p.gpu_clock;
    if let Some((offer, clocks)) = p.paths {
        let paths = sim.set_paths(offer, clocks, p.seed);
        // The machine asks for what the paths use, as the Vulkan shell configures it.
        let timed = paths.timing.is_some();
        let ids = paths.feedback != vkpace_core::DisplayFeedback::None || timed;
        if ids != p.present_ids || timed != p.present_timing.is_some() {
            return Err(format!(
                "schedule configured for {paths:?}: ids {}, timing {:?}",
                p.present_ids, p.present_timing
            ));
        }
    }
    let queues = OtherQueues::new(&mut sim, p.other_queues);
    let mut app = App {
        queues,
        n_at_last_submit: p.frames_in_flight,
        p,
        sim,
        held: Held::Nothing,
        slot_last: [0; 3],
        n_at_acquire: 1,
        expect_abandoned_present: None,
        submissions: std::collections::VecDeque::new(),
        foreign: FrameMachine::<Sem, Gen, Fence>::new(MachineConfig::default())
            .map_err(|e| e.to_string())?
            .token_of(Serial(1)),
        frame_submissions: std::collections::BTreeMap::new(),
        out: Outcome::default(),
    };
    match app.sim.setup() {
        Ok(()) => {}
        // A creation that failed: the first acquire creates the swapchain.
        Err(e) if app.tolerable(&e) => {}
        Err(e) => return Err(describe(e)),
    }
    app.run()?;
    Ok(app.out)
}

fn describe(e: SimError) -> String {
    format!("{e:?}")
}

impl App {
    fn run(&mut self) -> Result<(), String> {
        for step in 0..self.p.steps {
            if step % 64 == 63 {
                self.check_feedback()?;
            }
            match self.sim.world.rng.below(100) {
                0..=54 => self.sim.tick().map_err(describe)?,
                _ => self.api_step()?,
            }
            self.settings_step()?;
            if self.sim.world.rng.chance(self.p.p_token) {
                self.token_step()?;
            }
            if self.sim.world.rng.chance(self.p.p_queue) {
                self.queues.step(&mut self.sim)?;
            }
            self.check_invariants()?;
        }
        self.shutdown()
    }

    /// Settings change at any moment, mid-frame too.
    fn settings_step(&mut self) -> Result<(), String> {
        let rng = &mut self.sim.world.rng;
        if rng.chance(self.p.p_resize) {
            let w = 100 + rng.below(500);
            self.sim.machine.resize(vkpace_core::Extent {
                width: w,
                height: 100,
            });
        }
        if rng.chance(self.p.p_change_n) {
            let n = 1 + rng.below(3) as usize;
            self.sim
                .machine
                .set_frames_in_flight(n)
                .map_err(|e| e.to_string())?;
        }
        if rng.chance(self.p.p_mode) {
            let mode = PresentMode(rng.below(3) as i32);
            self.sim.machine.set_present_mode(mode);
        }
        if rng.chance(self.p.p_mode) {
            // Low latency sleeps by watching submission fences (PacingWatch waits).
            let policy = if rng.chance(50) {
                PacingPolicy::LowLatency
            } else {
                PacingPolicy::FramesInFlight
            };
            self.sim.machine.set_pacing(policy);
        }
        Ok(())
    }

    fn api_step(&mut self) -> Result<(), String> {
        let (p_drop, p_abandon) = (self.p.p_drop, self.p.p_abandon);
        match self.held {
            Held::Nothing | Held::Dropped(_) => self.acquire(),
            Held::Acquired(f) if self.sim.world.rng.chance(p_drop) => {
                self.held = Held::Dropped(f);
                Ok(())
            }
            Held::Acquired(f) => self.submit(f),
            Held::Submitted(_) if self.sim.world.rng.chance(p_abandon) => {
                // Dropped after submission: the next acquire presents it.
                self.held = Held::Nothing;
                let before = self.sim.machine.stats().abandoned_frames_presented;
                self.expect_abandoned_present = Some(before);
                Ok(())
            }
            Held::Submitted(f) => self.present(f),
        }
    }

    /// Failures a schedule's faults can cause; anything else (any timeout: an acquire that
    /// got no image is "not ready", not a failure; a refused call) fails the test.
    fn tolerable(&self, e: &SimError) -> bool {
        matches!(e, SimError::Failed(Failure::Vulkan { .. }))
    }

    fn acquire(&mut self) -> Result<(), String> {
        let frame = match self.sim.acquire() {
            Ok(Some(f)) => f,
            Ok(None) => return Ok(()),
            Err(e) if self.tolerable(&e) => return Ok(()),
            Err(e) => return Err(describe(e)),
        };
        let presented = self.sim.machine.stats().abandoned_frames_presented;
        if self
            .expect_abandoned_present
            .take()
            .is_some_and(|before| presented != before + 1)
        {
            return Err("a dropped submitted frame was not presented by the next acquire".into());
        }
        if let Held::Dropped(d) = self.held {
            let same = d.number == frame.number
                && (d.generation != frame.generation
                    || (d.image, d.acquire_semaphore, d.present_semaphore, d.signal)
                        == (
                            frame.image,
                            frame.acquire_semaphore,
                            frame.present_semaphore,
                            frame.signal,
                        ));
            if !same {
                return Err(format!(
                    "a dropped frame came back changed: {d:?} -> {frame:?}"
                ));
            }
        }
        // The slot's previous user must have completed in truth, not just in the machine's view.
        if self.sim.world.gpu_completed < self.slot_last[frame.slot] {
            return Err(format!(
                "slot {} handed out while its last submission ({}) is pending",
                frame.slot, self.slot_last[frame.slot]
            ));
        }
        self.n_at_acquire = self.sim.machine.frames_in_flight();
        self.held = Held::Acquired(frame);
        Ok(())
    }

    fn submit(&mut self, frame: Info) -> Result<(), String> {
        let (number, token) = match self.submit_with_waits(&frame)? {
            Some(done) => done,
            None => self.sim.submit(&frame).map_err(describe)?,
        };
        self.submissions.push_back((number, token));
        if self.submissions.len() > 16 {
            self.submissions.pop_front();
        }
        self.slot_last[frame.slot] = number;
        self.frame_submissions.insert(frame.number, number);
        while self.frame_submissions.len() > 256 {
            self.frame_submissions.pop_first();
        }
        self.n_at_last_submit = self.n_at_acquire;
        self.held = Held::Submitted(frame);
        Ok(())
    }

    /// Sometimes the frame's submission waits for other queues' values: `None` when it did
    /// not (no waits picked, or the machine refused them and nothing was submitted).
    fn submit_with_waits(&mut self, frame: &Info) -> Result<Option<(u64, SyncToken)>, String> {
        if !self.sim.world.rng.chance(self.p.p_queue) {
            return Ok(None);
        }
        let waits = self.queues.pick_waits(&mut self.sim);
        let own = self.sim.machine.last_submitted();
        let fences = self.p.completion == CompletionBackend::Fences;
        match self.sim.submit_waiting(frame, &waits).map_err(describe)? {
            Ok(done) => {
                self.queues.judge(&waits, own, fences, None)?;
                Ok(Some(done))
            }
            Err(refused) => {
                self.queues.judge(&waits, own, fences, Some(refused))?;
                Ok(None)
            }
        }
    }

    fn present(&mut self, frame: Info) -> Result<(), String> {
        self.held = Held::Nothing;
        match self.sim.present(frame.number) {
            Ok(_) => Ok(()),
            Err(e) if self.tolerable(&e) => Ok(()),
            Err(e) => Err(describe(e)),
        }
    }

    /// A completion-token call: a token the machine says is reached must be reached in truth
    /// (the world's GPU finished that submission); tokens past the last submission and of
    /// another stream are refused at the call, typed.
    fn token_step(&mut self) -> Result<(), String> {
        let pick = self.sim.world.rng.below(10);
        if pick < 2 {
            return self.refused_token(pick == 0);
        }
        let Some(&(number, token)) = self
            .submissions
            .get(self.sim.world.rng.below(16) as usize)
            .or(self.submissions.back())
        else {
            return Ok(());
        };
        let reached = if pick < 6 {
            self.sim.completed(token).map_err(describe)?
        } else {
            let ticks = 1 + u64::from(self.sim.world.rng.below(30));
            match self.sim.wait_token(token, ticks * 100_000) {
                Ok(()) => true,
                Err(SimError::Failed(Failure::Timeout {
                    what: "a completion token",
                    ..
                })) => {
                    self.out.token_timeouts += 1;
                    false
                }
                Err(e) => return Err(describe(e)),
            }
        };
        if reached && self.sim.world.gpu_completed < number {
            return Err(format!(
                "token {token} reported reached while its submission ({number}) is pending"
            ));
        }
        self.out.tokens_reached += u64::from(reached && pick < 6);
        self.out.tokens_waited += u64::from(reached && pick >= 6);
        Ok(())
    }

    /// A token past the last submission (`future`) or of another stream: refused, typed.
    fn refused_token(&mut self, future: bool) -> Result<(), String> {
        let m = &mut self.sim.machine;
        let last = m.last_submitted().value();
        let token = if future {
            m.token_of(Serial(last + 1))
        } else {
            self.foreign
        };
        match (future, m.begin_token_wait(token, 1_000_000)) {
            (true, Err(CoreError::TokenNotSubmitted { last_submitted, .. }))
                if last_submitted == last => {}
            (false, Err(CoreError::ForeignToken { .. })) => {}
            (_, other) => return Err(format!("token {token} not refused: {other:?}")),
        }
        self.out.tokens_refused += 1;
        Ok(())
    }

    fn check_invariants(&mut self) -> Result<(), String> {
        let m = &self.sim.machine;
        let n_now = m.frames_in_flight();
        // Lowering N does not make queued frames vanish: the limit is the one the last
        // submitted frame obeyed, or the current one if higher.
        let n = n_now.max(self.n_at_last_submit);
        if self.sim.world.frames_pending > n {
            return Err(format!(
                "CPU {} frames ahead of the GPU, limit {n}",
                self.sim.world.frames_pending
            ));
        }
        let retired = m.retired_pending();
        if retired > self.p.max_retired {
            return Err(format!(
                "{retired} retired swapchains pending, cap {}",
                self.p.max_retired
            ));
        }
        let depth = m.deepest_history();
        // With N changing, an image's history keeps what an earlier, larger N filled.
        let depth_limit = if self.p.p_change_n > 0 { 4 } else { n + 1 };
        if depth > depth_limit {
            return Err(format!("present history {depth} deep, limit {depth_limit}"));
        }
        let alive = self.check_semaphores(n)?;
        let stats = m.stats();
        self.out.max_retired_pending = self.out.max_retired_pending.max(retired);
        self.out.max_semaphores_alive = self.out.max_semaphores_alive.max(alive);
        self.out.max_fences_alive = self.out.max_fences_alive.max(self.sim.world.fences_alive());
        self.out.max_history = self.out.max_history.max(depth);
        // GPU waits are forgotten once the frames that made them are seen complete.
        let waits = self.sim.machine.pending_gpu_waits();
        if waits > 2 * self.sim.machine.frames_pending() {
            return Err(format!(
                "{waits} GPU waits held with {} frames pending",
                self.sim.machine.frames_pending()
            ));
        }
        self.out.max_pending_gpu_waits = self.out.max_pending_gpu_waits.max(waits);
        self.out.frames_presented = stats.frames_presented;
        self.out.swapchains_created = stats.swapchains_created;
        self.out.fallback_waits = stats.fallback_waits;
        self.out.not_ready_skips = stats.not_ready_skips;
        self.out.abandoned_presented = stats.abandoned_frames_presented;
        Ok(())
    }

    /// Checks that the semaphores alive are those the machine holds and within the documented
    /// bound for a frame limit of `n`; returns how many are alive.
    fn check_semaphores(&self, n: usize) -> Result<usize, String> {
        let m = &self.sim.machine;
        let alive = self.sim.world.semaphores_alive();
        if alive != m.semaphores_held() {
            return Err(format!(
                "the machine holds {} semaphores, {alive} alive: one is lost or freed twice",
                m.semaphores_held()
            ));
        }
        // min_images + the request's extra image + up to 2 more from the "driver".
        let n_bound = if self.p.p_change_n > 0 { 3 } else { n };
        let images = self.p.min_images as usize + 3;
        let bound = super::bounds::semaphores_allowed(n_bound, images, self.p.max_retired);
        if alive > bound {
            return Err(format!(
                "{alive} semaphores alive, the design's bound {bound}"
            ));
        }
        Ok(alive)
    }

    /// What the machine learned from the display and the GPU clock is the world's truth: GPU
    /// times read back are the submission's (to within a tick of the device clock, mapped
    /// through the machine's calibration), and no frame is seen displayed before its present
    /// was made.
    ///
    /// A timestamp clock of few valid bits wraps: ticks tell a time only within a wrap, and the
    /// machine places them in the frame's span (submitted to seen complete). A frame whose span
    /// reaches half a wrap (the GPU held it seconds, as a stalled queue can) is told by no
    /// reader of the clock, so it is not judged.
    fn check_feedback(&mut self) -> Result<(), String> {
        let period = self.p.gpu_clock.map_or(0.0, |c| c.period_ns);
        let wrap_ns = self.p.gpu_clock.map_or(f64::INFINITY, |c| {
            period * 2f64.powi(c.valid_bits.min(64) as i32)
        });
        let mut checked = 0;
        for t in self.sim.machine.telemetry() {
            let span = match (t.submitted, t.completion_observed) {
                (Some(a), Some(b)) => b.saturating_sub(a).as_nanos() as f64,
                _ => f64::INFINITY,
            };
            let told = span < wrap_ns / 2.0;
            if let (true, Some(start), Some(end)) = (told, t.gpu_start, t.gpu_end) {
                let truth = self
                    .frame_submissions
                    .get(&t.frame)
                    .and_then(|n| self.sim.world.gpu_times.get(n));
                let Some(&(s, e)) = truth else {
                    continue;
                };
                let off = |got: std::time::Duration, want: u64| {
                    (got.as_nanos() as f64 - want as f64).abs() > period + 1.0
                };
                if off(start, s) || off(end, e) {
                    return Err(format!(
                        "frame {}: GPU times read {start:?}..{end:?}, the GPU ran it {s}..{e} ns",
                        t.frame
                    ));
                }
                checked += 1;
            }
            if let (Some(shown), Some(presented)) = (t.displayed, t.presented) {
                if shown < presented {
                    return Err(format!(
                        "frame {} seen displayed at {shown:?}, before its present at {presented:?}",
                        t.frame
                    ));
                }
            }
        }
        self.out.gpu_times_checked += checked;
        Ok(())
    }

    /// Teardown releases everything exactly once; only a present fence that never signals may
    /// make it time out (and then nothing is destroyed early).
    fn shutdown(&mut self) -> Result<(), String> {
        self.check_feedback()?;
        let stats = self.sim.machine.stats();
        let telemetry = self.sim.machine.telemetry();
        let (shown, targeted) = telemetry.fold((0, 0), |(s, t), f| {
            (
                s + u64::from(f.displayed.is_some()),
                t + u64::from(f.target.is_some()),
            )
        });
        self.out.frames_displayed = shown;
        self.out.frames_targeted = targeted;
        self.out.timing_results = stats.present_timing_results;
        if let Some(t) = self.sim.timing.as_ref() {
            self.out.timing = t.counts;
        }
        self.out.timing_queue_full = stats.timing_queue_full;
        self.out.refreshes_missed = stats.refreshes_missed;
        self.out.gpu_reads = self.sim.gpu_reads.0;
        self.queues.settle(&mut self.sim)?;
        self.out.queue_waits_accepted = self.queues.waits_accepted;
        self.out.queue_waits_refused = self.queues.waits_refused;
        self.out.own_gpu_waits = self.queues.own_waits;
        match self.sim.shutdown() {
            Ok(()) => {}
            Err(SimError::Failed(Failure::Timeout { .. }))
                if self.sim.world.has_doomed_fences() =>
            {
                return Ok(());
            }
            Err(e) => return Err(format!("teardown: {}", describe(e))),
        }
        let w = &self.sim.world;
        let leaks = (w.semaphores_alive(), w.live_swapchains(), w.fences_alive());
        if leaks != (0, 0, 0) {
            return Err(format!(
                "after teardown alive: {} semaphores, {} swapchains, {} fences",
                leaks.0, leaks.1, leaks.2
            ));
        }
        if self.sim.machine.semaphores_held() != 0 {
            return Err("the machine still holds semaphores after teardown".into());
        }
        if w.timeline_signal_pending() {
            return Err("teardown ended with a timeline signal still pending".into());
        }
        Ok(())
    }
}
