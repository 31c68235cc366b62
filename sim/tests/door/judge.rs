//! The second door's properties, judged after every step of a schedule on the world's ground
//! truth (`PacerTruth`: what the shell made in the world; the world's own state), with bounds
//! stated here from the design's rules (docs/design.md; `DOOR_SPEC`), never imported from the
//! machine under test. The Vulkan rules themselves (a semaphore signalled again or destroyed
//! while a present may still wait on it, a swapchain destroyed while a present or submission
//! of it is pending, present ids that do not grow, targets outside FIFO) are checked by the
//! world at the operation that would break them: any such operation fails the schedule.

use std::collections::BTreeSet;

use vkpace_sim::pacer_driver::SimPacer;
use vkpace_sim::world::Gen;

use super::textbook::Facts;

/// What the schedule configured the door with.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The largest frames-in-flight limit the door had in the schedule (1..=3).
    pub frames_in_flight: usize,
    /// Destroyed swapchains allowed to wait for proof.
    pub max_retired: usize,
    /// The most images a swapchain may have (the application's request plus the "driver's").
    pub max_images: usize,
    /// Present timing: the results-queue slots the shell gave each timed swapchain, and the
    /// slots the world's engine really has.
    pub timing_slots: Option<(u32, u32)>,
}

/// The most repair semaphores the door may hold: each image's present history is `n + 1`
/// deep (the CPU at most `n` presents ahead, so the oldest entry is free when a new one is
/// needed), for the live swapchain, one being replaced and every destroyed one waiting for
/// proof; plus the free ones kept for the next swapchain (enough for its first `n + 1`
/// presents twice over), as door 1 keeps.
pub fn repair_semaphores_allowed(l: &Limits) -> usize {
    let history = l.frames_in_flight + 1;
    (l.max_retired + 2) * l.max_images * history + 2 * history
}

/// The presents to one newer swapchain by which a destroyed one is provably idle: by the
/// `images + 1`-th present the engine queued some image was presented twice (pigeonhole), so
/// the repair of that second present proves the first processed (a failed present proves
/// nothing and is not counted); the frames-in-flight gate makes that repair
/// complete before the acquire `n` presents later returns; one more for the machine to act.
pub fn presents_to_idle(l: &Limits) -> u64 {
    (l.max_images + l.frames_in_flight + 2) as u64
}

/// The most the judge saw at once over a schedule, for the tests that check the properties
/// were exercised.
#[derive(Debug, Default, Clone)]
pub struct Seen {
    pub repairs_pending: usize,
    pub destroyed_waiting: usize,
    pub repair_semaphores: usize,
    /// The most presents to a newer swapchain a destroyed one of the same window outlived.
    pub presents_outlived: u64,
    /// The most frames of the current window the door saw displayed (present ids).
    pub frames_displayed: usize,
    /// The application's destroyed swapchains before this one are all gone (destroyed in the
    /// world, which is final): the judge looks from here on.
    pub first_alive: usize,
    /// Present timing: the most results-queue slots of the current swapchain taken at once in
    /// the world, the results judged so far, and the presents whose complete result was read.
    pub timing_slots_held: usize,
    pub results_judged: usize,
    pub results_complete: BTreeSet<(Gen, u64)>,
}

/// Every property of a step; records the maxima in `seen`.
pub fn judge(sim: &mut SimPacer, facts: &Facts, l: &Limits, seen: &mut Seen) -> Result<(), String> {
    let semaphores = repair_semaphores(sim, facts, l)?;
    let pending = frames_in_flight_gate(sim, facts, l)?;
    let gone = &facts.destroyed[seen.first_alive.min(facts.destroyed.len())..];
    seen.first_alive += gone
        .iter()
        .take_while(|d| !sim.world.swapchain_alive(d.swapchain))
        .count();
    let (waiting, outlived) = destroyed_swapchains(sim, facts, l, seen.first_alive)?;
    seen.repair_semaphores = seen.repair_semaphores.max(semaphores);
    seen.repairs_pending = seen.repairs_pending.max(pending);
    seen.destroyed_waiting = seen.destroyed_waiting.max(waiting);
    seen.presents_outlived = seen.presents_outlived.max(outlived);
    seen.frames_displayed = seen.frames_displayed.max(displayed(sim, facts)?);
    timing_results(sim, seen)?;
    timing_slots(sim, facts, l, seen)
}

/// Present timing's results are vkpace's: each one handed to the machine names a present to
/// that swapchain that asked for stage times with vkpace's own present id (never one carrying
/// the application's ids, by which results would be named), and each present's complete result
/// is read once. (The ids themselves grow per swapchain: the world checks every present's.)
fn timing_results(sim: &SimPacer, seen: &mut Seen) -> Result<(), String> {
    let t = &sim.truth.timing;
    if t.asked_with_caller_ids > 0 {
        return Err(format!(
            "{} presents with the application's own ids asked for stage times",
            t.asked_with_caller_ids
        ));
    }
    for &(g, id, complete) in &t.results[seen.results_judged.min(t.results.len())..] {
        if !t.asked.contains(&(g, id)) {
            return Err(format!(
                "a timing result of swapchain {g} names present id {id}, which vkpace asked no stage times for"
            ));
        }
        if complete && !seen.results_complete.insert((g, id)) {
            return Err(format!(
                "the complete result of present {id} of swapchain {g} read twice"
            ));
        }
    }
    seen.results_judged = t.results.len();
    Ok(())
}

/// Present timing's results queue, in the world: the current swapchain's presents asking for
/// stage times never hold more slots than the shell gave it; and the world refuses a present
/// for a full queue only where its engine has fewer slots than that, at most once per
/// swapchain (vkpace then asks for no more than it has; the refused present still executed
/// its waits, which the world checked).
fn timing_slots(sim: &SimPacer, facts: &Facts, l: &Limits, seen: &mut Seen) -> Result<(), String> {
    let Some((given, engine)) = l.timing_slots else {
        return Ok(());
    };
    if let Some(g) = facts.current {
        let held = sim.world.display.timing_slots_held(g);
        if held > given as usize {
            return Err(format!(
                "swapchain {g}: {held} presents hold a timing results slot, {given} slots given"
            ));
        }
        seen.timing_slots_held = seen.timing_slots_held.max(held);
    }
    let allowed = u32::from(engine < given);
    for (g, &refused) in &sim.truth.timing.refused {
        if refused > allowed {
            return Err(format!(
                "swapchain {g}: {refused} presents refused for a full timing results queue, at most {allowed} (slots given {given}, the engine's {engine})"
            ));
        }
    }
    Ok(())
}

/// What the door learned from the display is the world's: no frame of the current window seen
/// displayed before its present was made (the world shows a present only after it is queued,
/// and the door asks about a present id only once it presented it). Returns the frames seen
/// displayed.
fn displayed(sim: &SimPacer, facts: &Facts) -> Result<usize, String> {
    let Some(g) = facts.current else {
        return Ok(0);
    };
    let mut shown = 0;
    for t in sim.machine.telemetry(g) {
        if let (Some(displayed), Some(presented)) = (t.displayed, t.presented) {
            if displayed < presented {
                return Err(format!(
                    "frame {} seen displayed at {displayed:?}, before its present at {presented:?}",
                    t.frame
                ));
            }
            shown += 1;
        }
    }
    Ok(shown)
}

/// The world's semaphores are the application's and the door's, no more (none lost), the
/// door's count agrees with the world's, and within the design's bound; the world's fences are
/// the application's and the shell's (none lost).
fn repair_semaphores(sim: &mut SimPacer, facts: &Facts, l: &Limits) -> Result<usize, String> {
    let alive = sim.world.semaphores_alive();
    let door = sim.truth.semaphores.len();
    if alive != facts.own_semaphores + door {
        return Err(format!(
            "{alive} semaphores alive: the application's {} and the door's {door}: one lost",
            facts.own_semaphores
        ));
    }
    let fences = sim.world.fences_alive();
    if fences != facts.own_fences + sim.fences_held() {
        return Err(format!(
            "{fences} fences alive: the application's {} and the shell's {}: one lost",
            facts.own_fences,
            sim.fences_held()
        ));
    }
    let counted = sim.semaphores_alive();
    if counted != door {
        return Err(format!(
            "the door counts {counted} repair semaphores, {door} alive in the world"
        ));
    }
    let bound = repair_semaphores_allowed(l);
    if door > bound {
        return Err(format!(
            "{door} repair semaphores alive, the design's bound {bound} ({l:?})"
        ));
    }
    Ok(door)
}

/// The CPU is never more than `n` presents of a window ahead of their repair submissions'
/// completion (in the world's GPU, not as the machine believes). The gate is the lineage's (a
/// window's swapchains): a window closed and opened again starts a new one, and the old one's
/// last repairs may still be running then (judged separately, they were within the limit).
fn frames_in_flight_gate(sim: &mut SimPacer, facts: &Facts, l: &Limits) -> Result<usize, String> {
    let first = facts.lineage_first;
    let pending = sim.truth.repairs_pending(&sim.world, |g| g >= first);
    if pending > l.frames_in_flight {
        return Err(format!(
            "{pending} repair submissions pending on the GPU, frames in flight {}\n{}\nworld: completed {} repairs {:?}",
            l.frames_in_flight,
            sim.machine.debug_state(),
            sim.world.gpu_completed,
            sim.truth.repairs
        ));
    }
    Ok(pending)
}

/// A swapchain the application destroyed with no successor is gone when the call returns (the
/// application may destroy its surface next: `VUID-vkDestroySurfaceKHR-surface-01266`), and so
/// is every destroyed one of the same window (its lineage) still waiting then; at most
/// `max_retired` destroyed ones wait for proof (the cap: the world checked each was idle when
/// it went; one whose destroy is held for the next present is not the door's yet); and one of the open window is gone before [`presents_to_idle`] presents to its
/// newest successor.
fn destroyed_swapchains(
    sim: &mut SimPacer,
    facts: &Facts,
    l: &Limits,
    from: usize,
) -> Result<(usize, u64), String> {
    let w = &sim.world;
    let (mut waiting, mut outlived) = (0, 0);
    let rest = facts.destroyed.iter().skip(from);
    // A destroy the shell holds for the next present has not reached the door yet (the
    // application's other thread: `pacer_beside.rs`).
    let door_has = |g| w.swapchain_alive(g) && !sim.beside.is_held(g);
    for d in rest.filter(|d| door_has(d.swapchain)) {
        let g = d.swapchain;
        if !d.successor || d.lineage != facts.lineage {
            return Err(format!(
                "swapchain {g} of a closed window (destroyed with no successor, or before the one that was) alive after the call returned"
            ));
        }
        waiting += 1;
        let bound = presents_to_idle(l);
        let newer = facts.queued_current.min(facts.queued - d.queued_at);
        outlived = outlived.max(newer);
        if newer > bound {
            return Err(format!(
                "swapchain {g} alive after {newer} presents to a newer one, bound {bound}\n{}",
                sim.machine.debug_state()
            ));
        }
    }
    if waiting > l.max_retired {
        return Err(format!(
            "{waiting} destroyed swapchains alive, cap {}",
            l.max_retired
        ));
    }
    Ok((waiting, outlived))
}

/// After the teardown nothing of the door's or the application's is left in the world: no
/// semaphore, no swapchain, no fence. The one exception is a present fence the engine never
/// signals (`Faults::p_fence_never`): it may not be destroyed while pending
/// (`VUID-vkDestroyFence-fence-01120`), the teardown's bounded wait for it times out, and what
/// is not proven idle is left alive rather than destroyed in use (as door 1's teardown; the
/// world checked every destruction that did happen).
pub fn judge_teardown(sim: &SimPacer) -> Result<(), String> {
    let w = &sim.world;
    let doomed = w.doomed_fences_alive();
    if !sim.clean_teardown && doomed > 0 {
        return Ok(());
    }
    let left = (w.semaphores_alive(), w.live_swapchains(), w.fences_alive());
    if left != (0, 0, 0) || !sim.truth.semaphores.is_empty() || !sim.clean_teardown {
        return Err(format!(
            "after teardown (clean: {}) alive: {} semaphores, {} swapchains, {} fences ({doomed} never signal)",
            sim.clean_teardown, left.0, left.1, left.2
        ));
    }
    Ok(())
}
