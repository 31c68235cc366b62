//! The simulated display behind the presentation engine: a fixed refresh grid on which every
//! present the engine took is shown in order, one per refresh, at the first refresh at or after
//! the moment its semaphore signalled (its queue operations end), one refresh after the present
//! before it, and not before its target (the nearest-refresh rule of
//! `VK_PRESENT_TIMING_INFO_PRESENT_AT_NEAREST_REFRESH_CYCLE_BIT_EXT`). From that it answers what
//! the machine asks with present ids (`vkWaitForPresentKHR`) and present timing
//! (`vkGetPastPresentationTimingEXT`, with a results queue per swapchain).
//!
//! Simplifications: every mode is shown this FIFO way (the machine gives targets only in FIFO
//! modes, which the world checks), except that the pacing model's mailbox (`replaces`) lets a
//! newer ready present replace an older waiting one; and in the random world the display holds
//! no image back (the engine's image release stays as in `engine.rs`), so a loop faster than
//! the refresh queues frames up instead of being slowed down by acquires. Load mode
//! (`load.rs`) hands out only images neither queued, unshown nor on screen.

use std::collections::{BTreeMap, VecDeque};

use vkpace_core::{PresentMode, PresentStages, PresentTarget, TimingReport};

use super::{Gen, Sem, SemTruth};

/// The display's refresh and what its presentation engine offers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DisplayConfig {
    /// Refresh duration, ns. 0: no refresh grid (no display timing reported): each present is
    /// shown once ready, and images are handed back as the engine's own model has it.
    pub refresh_ns: u64,
    /// The time of one refresh (the grid is `phase_ns + n * refresh_ns`).
    pub phase_ns: u64,
    /// The engine takes relative targets (else absolute ones).
    pub relative_targets: bool,
    /// Timing results-queue slots the engine really has per swapchain (it may have fewer than
    /// the machine sized it for: it then answers `PRESENT_TIMING_QUEUE_FULL`).
    pub timing_slots: u32,
    /// The engine reports a present's ready time before it is shown (partial results).
    pub partial_results: bool,
}

impl Default for DisplayConfig {
    /// No refresh grid: presents are shown as soon as they are ready, and hold no image back.
    fn default() -> Self {
        Self {
            refresh_ns: 0,
            phase_ns: 0,
            relative_targets: false,
            timing_slots: 16,
            partial_results: false,
        }
    }
}

/// What one present asked of the display (`VkPresentIdKHR`, `VkPresentTimingInfoEXT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresentExtras {
    /// Its present id (0: none).
    pub id: u64,
    pub target: PresentTarget,
    /// It asked for stage times (takes a results-queue slot).
    pub stages: bool,
    /// The present mode it switches to, if any.
    pub mode: Option<PresentMode>,
}

impl Default for PresentExtras {
    fn default() -> Self {
        Self {
            id: 0,
            target: PresentTarget::None,
            stages: false,
            mode: None,
        }
    }
}

/// One present on its way to the screen, or shown.
#[derive(Debug, Clone, Copy)]
pub struct ShownPresent {
    pub gen: Gen,
    pub image: u32,
    pub id: u64,
    pub target: PresentTarget,
    pub stages: bool,
    /// The present's sequence number (the engine's queue).
    pub seq: u64,
    sem: Sem,
    /// `vkQueuePresentKHR` time.
    pub queued_at: u64,
    /// Its semaphore signalled (queue operations end): the later of that and `queued_at`.
    pub ready: Option<u64>,
    /// First pixel visible.
    pub shown: Option<u64>,
    /// A partial result was handed out.
    partial_read: bool,
}

/// Presents kept after they were shown, for the tests' properties.
const SHOWN_KEPT: usize = 256;

/// The display's state.
#[derive(Debug, Default)]
pub struct Display {
    pub config: DisplayConfig,
    /// Mailbox (the pacing model's load mode sets it): at each refresh the newest ready
    /// present replaces the older ready ones, which are never shown. Off, every present is
    /// shown in order.
    pub replaces: bool,
    /// The refresh exactly, where a whole number of nanoseconds (`config.refresh_ns`, what
    /// the machine is told) cannot say it (60 Hz): the pacing model's grid does not drift
    /// from its scenario's. None: `config.refresh_ns`.
    pub exact_refresh_ns: Option<f64>,
    /// Presents not shown yet, or shown with a timing result not read yet, by sequence number.
    presents: BTreeMap<u64, ShownPresent>,
    /// Presents not shown yet, in order.
    queue: VecDeque<u64>,
    /// The latest first pixel, and the swapchain it was of.
    last_shown: Option<(Gen, u64)>,
    /// The first refresh not processed yet.
    next_refresh: u64,
    /// Per swapchain: the highest present id shown, the last id presented, its results queue
    /// (presents that asked for stage times, complete results not read yet) and its mode.
    swapchains: BTreeMap<Gen, SwapchainDisplay>,
    /// The latest presents shown, oldest first.
    pub shown: VecDeque<ShownPresent>,
}

#[derive(Debug, Default)]
struct SwapchainDisplay {
    shown_id: u64,
    last_id: u64,
    /// Sequence numbers of the presents holding a results-queue slot.
    results: Vec<u64>,
    mode: Option<PresentMode>,
    retired: bool,
}

fn queues_frames(mode: Option<PresentMode>) -> bool {
    matches!(mode, Some(PresentMode::FIFO | PresentMode::FIFO_RELAXED))
}

impl Display {
    /// The first refresh at or after `t`.
    fn refresh_at_or_after(&self, t: u64) -> u64 {
        let r = self.config.refresh_ns;
        if r == 0 {
            return t;
        }
        if let Some(g) = self.exact_refresh_ns {
            return self.exact_refresh_at_or_after(t, g);
        }
        let phase = self.config.phase_ns % r;
        if t <= phase {
            return phase;
        }
        phase + (t - phase).div_ceil(r) * r
    }

    /// The first refresh at or after `t` on a grid of `g` ns a refresh, each refresh at the
    /// first whole nanosecond at or after its exact time.
    fn exact_refresh_at_or_after(&self, t: u64, g: f64) -> u64 {
        let phase = self.config.phase_ns;
        let at = |k: f64| phase + (k * g).ceil() as u64;
        if t <= phase {
            return phase;
        }
        let n = ((t - phase) as f64 / g).floor();
        if at(n) >= t {
            at(n)
        } else {
            at(n + 1.0)
        }
    }

    /// The refresh after the one at `at` (at itself without a grid).
    fn refresh_after(&self, at: u64) -> u64 {
        if self.config.refresh_ns == 0 {
            at
        } else {
            self.refresh_at_or_after(at + 1)
        }
    }

    /// A swapchain was made in `mode`.
    pub fn swapchain_created(&mut self, g: Gen, mode: PresentMode) {
        self.swapchains.entry(g).or_default().mode = Some(mode);
    }

    /// `g` was retired: its presents are never asked about again.
    pub fn retired(&mut self, g: Gen) {
        let s = self.swapchains.entry(g).or_default();
        s.retired = true;
        let presents = &mut self.presents;
        s.results.retain(|seq| {
            // Not read any more: results of presents shown are dropped.
            if presents.get(seq).is_some_and(|p| p.shown.is_some()) {
                presents.remove(seq);
            }
            false
        });
    }

    /// Whether a present to `g` asking for `stages` finds no free results-queue slot.
    pub fn queue_full(&self, g: Gen, stages: bool) -> bool {
        stages
            && self
                .swapchains
                .get(&g)
                .is_some_and(|s| s.results.len() as u32 >= self.config.timing_slots)
    }

    /// Results-queue slots of `g` taken now: presents that asked for stage times, queued and
    /// not yet read back complete.
    pub fn timing_slots_held(&self, g: Gen) -> usize {
        self.swapchains.get(&g).map_or(0, |s| s.results.len())
    }

    /// The rules a present's extras must keep, before it is queued: ids grow per swapchain
    /// (`VUID-VkPresentIdKHR-presentIds-04999`); a target only in a FIFO mode, before and
    /// after the present's switch (`VUID-VkPresentTimingsInfoEXT-pSwapchains-12235`).
    pub fn check_present(&self, g: Gen, extras: &PresentExtras) -> Result<(), String> {
        let s = self.swapchains.get(&g);
        let last = s.map_or(0, |s| s.last_id);
        if extras.id != 0 && extras.id <= last {
            return Err(format!(
                "present id {} to swapchain {g} not above its last {last} (VUID-VkPresentIdKHR-presentIds-04999)",
                extras.id
            ));
        }
        let mode = s.and_then(|s| s.mode);
        let next = extras.mode.or(mode);
        if extras.target != PresentTarget::None && !(queues_frames(mode) && queues_frames(next)) {
            return Err(format!(
                "present target {:?} on swapchain {g} in mode {mode:?} switching to {next:?} (VUID-VkPresentTimingsInfoEXT-pSwapchains-12235)",
                extras.target
            ));
        }
        Ok(())
    }

    /// A present was made at `now`: `shown` says whether the engine takes it to the screen
    /// (not when it failed or was refused); its id is used up either way.
    pub fn presented(
        &mut self,
        g: Gen,
        (seq, image, sem): (u64, u32, Sem),
        extras: PresentExtras,
        now: u64,
        shown: bool,
    ) {
        let s = self.swapchains.entry(g).or_default();
        if extras.id != 0 {
            s.last_id = extras.id;
        }
        if !shown {
            return;
        }
        if let Some(m) = extras.mode {
            s.mode = Some(m);
        }
        if extras.stages {
            s.results.push(seq);
        }
        let p = ShownPresent {
            gen: g,
            image,
            id: extras.id,
            target: extras.target,
            stages: extras.stages,
            seq,
            sem,
            queued_at: now,
            ready: None,
            shown: None,
            partial_read: false,
        };
        self.presents.insert(seq, p);
        self.queue.push_back(seq);
    }

    /// The engine consumed present `seq`'s wait: its semaphore signalled at `signaled_at`.
    pub fn consumed(&mut self, seq: u64, signaled_at: u64) {
        if let Some(p) = self.presents.get_mut(&seq).filter(|p| p.ready.is_none()) {
            p.ready = Some(signaled_at.max(p.queued_at));
        }
    }

    /// Time reaches `now`: ready times of presents whose semaphore signalled, then every
    /// refresh before `now`, each showing the head present if it may be shown there.
    pub fn advance(&mut self, sems: &BTreeMap<Sem, SemTruth>, now: u64) {
        for p in self.presents.values_mut().filter(|p| p.ready.is_none()) {
            if let Some(t) = sems.get(&p.sem).filter(|t| t.signaled) {
                p.ready = Some(t.signaled_at.max(p.queued_at));
            }
        }
        loop {
            let Some(head) = self
                .queue
                .front()
                .and_then(|s| self.presents.get(s))
                .copied()
            else {
                self.next_refresh = self.next_refresh.max(self.refresh_at_or_after(now));
                return;
            };
            let Some(earliest) = self.earliest(&head) else {
                return;
            };
            let at = self.refresh_at_or_after(earliest.max(self.next_refresh));
            if at >= now {
                // Mailbox: a newer frame ready now replaces the waiting one at once (its image
                // is free again), not only at the refresh.
                self.replace_older(head, now);
                return;
            }
            let head = self.replace_older(head, at);
            self.show(head, at);
        }
    }

    /// The first moment after `now` at which the head present is seen shown (the display
    /// shows a present at a refresh once time passed it); None while nothing is queued or the
    /// head is not ready.
    pub fn next_change(&self, now: u64) -> Option<u64> {
        let head = self.queue.front().and_then(|s| self.presents.get(s))?;
        let at = self.refresh_at_or_after(self.earliest(head)?.max(self.next_refresh));
        Some(at.max(now) + 1)
    }

    /// The earliest time `p` may be shown: ready, a refresh after the one before, and its
    /// target's nearest refresh. None while it is not ready.
    fn earliest(&self, p: &ShownPresent) -> Option<u64> {
        let r = self.config.refresh_ns;
        let ready = p.ready?;
        let after_last = self.last_shown.map_or(0, |(_, at)| self.refresh_after(at));
        let target = match p.target {
            PresentTarget::None => 0,
            // Nearest refresh: not one more than half a refresh before the target.
            PresentTarget::Absolute(t) => t.saturating_sub(r / 2),
            // From the previous presentation's first pixel; a new swapchain's first present
            // ignores relative targets.
            PresentTarget::Relative(d) => match self.last_shown {
                Some((g, at)) if g == p.gen => (at + d).saturating_sub(r / 2),
                _ => 0,
            },
        };
        Some(ready.max(after_last).max(target))
    }

    /// Mailbox: the newest present ready by refresh `at`, the older ready ones before it
    /// dropped from the queue (never shown); `head` itself otherwise.
    fn replace_older(&mut self, head: ShownPresent, at: u64) -> ShownPresent {
        let mut head = head;
        while self.replaces {
            let Some(next) = self
                .queue
                .get(1)
                .and_then(|s| self.presents.get(s))
                .copied()
            else {
                break;
            };
            if next.ready.is_none_or(|r| r > at) {
                break;
            }
            self.queue.pop_front();
            self.presents.remove(&head.seq);
            head = next;
        }
        head
    }

    fn show(&mut self, mut p: ShownPresent, at: u64) {
        self.queue.pop_front();
        p.shown = Some(at);
        self.last_shown = Some((p.gen, at));
        self.next_refresh = self.refresh_after(at);
        if let Some(s) = self.swapchains.get_mut(&p.gen) {
            s.shown_id = s.shown_id.max(p.id);
        }
        let retired = self.swapchains.get(&p.gen).is_none_or(|s| s.retired);
        if p.stages && !retired {
            self.presents.insert(p.seq, p);
        } else {
            self.presents.remove(&p.seq);
        }
        if self.shown.len() == SHOWN_KEPT {
            self.shown.pop_front();
        }
        self.shown.push_back(p);
    }

    /// `vkWaitForPresentKHR(g, id, 0)`: shown once a present with an id at least `id` was.
    /// A retired swapchain may not be asked (`VUID-vkWaitForPresentKHR-swapchain-04997`).
    pub fn id_shown(&self, g: Gen, id: u64) -> Result<bool, String> {
        let s = self
            .swapchains
            .get(&g)
            .ok_or_else(|| format!("present wait on unknown swapchain {g}"))?;
        if s.retired {
            return Err(format!(
                "present wait on retired swapchain {g} (VUID-vkWaitForPresentKHR-swapchain-04997)"
            ));
        }
        if id > s.last_id {
            return Err(format!("present wait for id {id} never presented to {g}"));
        }
        Ok(s.shown_id >= id)
    }

    /// `vkGetPastPresentationTimingEXT` on `g` at `now`: a complete result for each present
    /// shown (its slot freed), and, with partial results, one for each present ready and not
    /// shown (once).
    pub fn read_timings(&mut self, g: Gen, now: u64) -> Vec<TimingReport> {
        let partial = self.config.partial_results;
        let Some(s) = self.swapchains.get_mut(&g) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let presents = &mut self.presents;
        s.results.retain(|seq| {
            let Some(p) = presents.get_mut(seq) else {
                return false;
            };
            let ready = p.ready.filter(|&r| r <= now);
            if let Some(shown) = p.shown.filter(|&at| at <= now) {
                let stages = PresentStages::new(ready, None, None, Some(shown));
                out.push(TimingReport::new(p.id, stages, true));
                presents.remove(seq);
                return false;
            }
            if let (Some(r), true, false) = (ready, partial, p.partial_read) {
                p.partial_read = true;
                let stages = PresentStages::new(Some(r), None, None, None);
                out.push(TimingReport::new(p.id, stages, false));
            }
            true
        });
        out
    }

    /// Whether the display holds images back (a refresh grid): FIFO keeps an image until it
    /// was shown.
    pub fn holds_images(&self) -> bool {
        self.config.refresh_ns > 0
    }

    /// The newest present of image `image` of `g` not shown yet, by sequence number.
    pub fn unshown_of(&self, g: Gen, image: u32) -> Option<u64> {
        if !self.holds_images() {
            return None;
        }
        self.queue
            .iter()
            .filter_map(|s| self.presents.get(s))
            .filter(|p| p.gen == g && p.image == image)
            .map(|p| p.seq)
            .max()
    }

    /// Whether image `image` of `g` is the one on screen (the latest shown).
    pub fn on_screen(&self, g: Gen, image: u32) -> bool {
        self.shown
            .back()
            .is_some_and(|p| p.gen == g && p.image == image)
    }

    /// Whether every present up to `seq` was shown (or never will be).
    pub fn shown_through(&self, seq: u64) -> bool {
        !self.holds_images() || self.queue.front().is_none_or(|&s| s > seq)
    }
}
