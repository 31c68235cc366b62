//! Ready times from the pacer's own submissions, where the engine gives no stage times (the
//! application's own present ids, as DXVK's): the grid's lead learns from them.

use super::*;
use crate::pacing::{DisplayRefresh, DisplayTiming, PresentTarget};
use crate::serial::Serial;
use crate::telemetry::PresentStages;
use crate::TimingReport;

const REFRESH: u64 = 16_666_667;
/// Each frame is ready this long after it starts.
const WORK: u64 = 3_000_000;
const FRAMES: u64 = 90;

/// The refresh after `t` (the display shows a frame ready at `t` then, at the earliest).
fn next_refresh(t: u64) -> u64 {
    (t / REFRESH + 1) * REFRESH
}

/// A machine pacing `grid` at 30 fps (adding its own present ids where the application gives
/// none), swapchain 1 made with absolute present timing at [`REFRESH`].
fn grid_machine() -> Result<M, CoreError> {
    let mut config = PacerConfig {
        present_ids: true,
        ..PacerConfig::default()
    };
    config.pacing.policy = PacingPolicy::Grid;
    config.pacing.frame_limit = Some(FrameLimit::fps(30.0)?);
    let mut m = M::new(config)?;
    m.swapchain_created(1, 3, None, FIFO)?;
    let absolute = DisplayTiming {
        refresh_ns: REFRESH,
        relative_targets: false,
    };
    m.set_present_timing(1, 4, DisplayRefresh::Targeted(absolute))?;
    Ok(m)
}

/// What a run of [`FRAMES`] frames at 30 fps on the grid, each ready [`WORK`] after its
/// start, under the application's ids, showed: for each frame, its start's lead before the
/// refresh it was shown at; and the machine's counters. `watch`: the shell reports each frame's
/// ready time when the pacing sleep's [`SleepWatch::Ready`] asks for it.
fn run(watch: bool) -> Result<(Vec<u64>, PresentPacerStats), CoreError> {
    let mut m = grid_machine()?;
    let (mut now, mut leads, mut pending) = (1_000_000, vec![], None);
    for frame in 0..FRAMES {
        loop {
            match m.begin_frame(1, now)? {
                Gate::Go => break,
                Gate::WaitFor(s) => m.serial_completed(s, now)?,
                Gate::SleepUntil { until: t, watch: w } => {
                    if let Some((serial, ready)) = pending.take().filter(|_| watch) {
                        assert_eq!(w, Some(SleepWatch::Ready(serial)), "frame {frame}");
                        m.serial_completed(serial, ready)?;
                        m.frame_ready(serial, ready);
                        assert_eq!(m.ready_watch(1), None, "told once");
                    }
                    now = now.max(t);
                }
            }
        }
        let start = now;
        let caller_id = frame + 7;
        let PresentStep::Plan(plan) = m.before_present(&[(1, 0)], Some(&[caller_id]), false)?
        else {
            panic!("no wait expected");
        };
        if plan.repair == Some(RepairSemaphore::Create) {
            m.semaphore_created(frame as u32 + 100)?;
        }
        now += 1_000_000;
        let request = m.plan_target(1, None, now).timing;
        let serial = m.repair_submitted(now)?;
        m.present_returned(VkStatus::SUCCESS, &[], now)?;
        while m.poll_action().is_some() {}
        let ready = start + WORK;
        let shown = match request.map(|r| r.target) {
            Some(PresentTarget::Absolute(given)) if ready <= given => given,
            _ => next_refresh(ready),
        };
        leads.push(shown - start);
        pending = Some((serial, ready));
        let stages = PresentStages::new(None, None, None, Some(shown));
        m.present_timings(1, &[TimingReport::new(caller_id, stages, true)]);
        if !watch {
            m.serial_completed(serial, ready)?;
        }
    }
    Ok((leads, m.stats()))
}

/// Without ready times, a frame on the grid starts a refresh before its refresh; told each
/// frame's ready time by the pacer's own submissions, the lead is learned and shorter (the
/// frames' time and the margin, still more than the frames' own time: none misses).
#[test]
fn ready_times_from_the_repair_submission_teach_the_lead_under_the_applications_ids(
) -> Result<(), CoreError> {
    let (blind, _) = run(false)?;
    let (taught, s) = run(true)?;
    assert!(s.ready_times_watched + 10 >= FRAMES, "{s:?}");
    let late = |leads: &[u64]| leads[30..].iter().copied().max().unwrap_or(0);
    let short = |leads: &[u64]| leads[30..].iter().copied().min().unwrap_or(0);
    assert!(
        short(&blind) + 1_000_000 >= REFRESH,
        "without ready times, a refresh: {blind:?}"
    );
    assert!(
        late(&taught) < REFRESH * 3 / 4 && short(&taught) > WORK,
        "taught, the frames' time and a margin: {taught:?}"
    );
    Ok(())
}

/// A grid machine at 30 fps with absolute present timing on swapchain 1, its first present
/// made with the application's id (`caller_ids`) or vkpace's own: the serial of that present.
fn presented_once(caller_ids: bool) -> Result<(M, Serial), CoreError> {
    let mut m = grid_machine()?;
    assert_eq!(m.begin_frame(1, 0)?, Gate::Go);
    let ids = [7u64];
    let step = m.before_present(&[(1, 0)], caller_ids.then_some(&ids[..]), false)?;
    let PresentStep::Plan(plan) = step else {
        panic!("no wait expected");
    };
    if plan.repair == Some(RepairSemaphore::Create) {
        m.semaphore_created(100)?;
    }
    let _ = m.plan_target(1, None, 1_000_000);
    let serial = m.repair_submitted(1_000_000)?;
    m.present_returned(VkStatus::SUCCESS, &[], 1_000_000)?;
    while m.poll_action().is_some() {}
    Ok((m, serial))
}

/// Where vkpace's own ids ask the engine for stage times, the ready times come with the
/// results: nothing to watch. Under the application's ids the serial is watched, and a bound
/// teaches nothing until the serial is reported complete.
#[test]
fn only_presents_without_stage_times_are_watched_and_a_bound_needs_a_completed_serial(
) -> Result<(), CoreError> {
    let (m, _) = presented_once(false)?;
    assert_eq!(m.ready_watch(1), None, "stage times will say");
    let (mut m, serial) = presented_once(true)?;
    assert_eq!(m.ready_watch(1), Some(serial));
    m.frame_ready_by(serial, 2_000_000);
    assert_eq!(m.ready_watch(1), None, "the watch ends");
    assert_eq!(
        m.stats().ready_times_bounded,
        0,
        "not complete: nothing learned"
    );
    let (mut m, serial) = presented_once(true)?;
    m.serial_completed(serial, 2_000_000)?;
    m.frame_ready_by(serial, 2_000_000);
    m.frame_ready(serial, 2_000_000);
    let s = m.stats();
    assert_eq!(
        (s.ready_times_bounded, s.ready_times_watched),
        (1, 0),
        "{s:?}"
    );
    Ok(())
}

/// The next present forgets a serial nobody reported on (its pause never came, or its repair
/// failed), so a ready time seen later is never taken for the frame before.
#[test]
fn the_next_present_forgets_an_unreported_serial() -> Result<(), CoreError> {
    let (mut m, _) = presented_once(true)?;
    let ids = [8u64];
    let PresentStep::Plan(_) = m.before_present(&[(1, 1)], Some(&ids), false)? else {
        panic!("no wait expected");
    };
    assert_eq!(m.ready_watch(1), None);
    Ok(())
}
