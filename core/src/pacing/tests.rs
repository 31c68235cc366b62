use super::*;
use crate::telemetry::Telemetry;

const MS: u64 = 1_000_000;

/// Frames `from..from + n`, 10 ms apart: CPU 2 ms, GPU 10 ms right after the submit.
fn feed(p: &mut Pacing, from: u64, n: u64) {
    for id in from..from + n {
        let t = id * 10 * MS;
        p.frame_started(id, t);
        p.frame_submitted(id, t + 2 * MS);
        p.frame_presented(id, t + 2 * MS);
        p.gpu_done(id, t + 2 * MS, t + 12 * MS);
    }
}

#[test]
fn low_latency_learns_only_while_it_is_the_policy() {
    let mut p = Pacing::new(PacingPolicy::FramesInFlight, None);
    feed(&mut p, 0, 10);
    assert_eq!(p.start_at(0), None);
    p.set_policy(PacingPolicy::LowLatency);
    // Nothing was learned under frames in flight: the next frame begins at once.
    assert_eq!(p.start_at(0), None);
    feed(&mut p, 10, 3);
    // Frame 12's GPU ends at 132 ms: the next submit is due then, less the margin and
    // the CPU time.
    let at = p.start_at(0);
    assert_eq!(at, Some(132 * MS - 300_000 - 2 * MS));
    // Choosing the policy in use again keeps what was learned.
    p.set_policy(PacingPolicy::LowLatency);
    assert_eq!(p.start_at(0), at);
    // Back and forth starts over.
    p.set_policy(PacingPolicy::FramesInFlight);
    p.set_policy(PacingPolicy::LowLatency);
    assert_eq!(p.start_at(0), None);
}

/// Frames on a 10 ms refresh that take 1.5 refreshes each: every one misses its refresh
/// and is shown two refreshes after the one before.
fn miss_every_refresh(p: &mut Pacing) {
    let refresh = 10 * MS;
    p.set_display_refresh(DisplayRefresh::Targeted(DisplayTiming {
        refresh_ns: refresh,
        relative_targets: true,
    }));
    let mut shown = 0;
    for f in 0..8u64 {
        shown += 2 * refresh;
        p.frame_started(f, shown - 2 * refresh);
        p.frame_timed(f, Some(shown - refresh / 2), Some(shown));
    }
}

#[test]
fn low_latency_keeps_the_frame_rate_where_the_display_policy_raises_the_interval() {
    let mut low = Pacing::new(PacingPolicy::LowLatency, None);
    miss_every_refresh(&mut low);
    assert_eq!(
        low.schedule().path(),
        DisplayPath::RefreshGrid { interval: 1 }
    );
    let mut display = Pacing::new(PacingPolicy::Display, None);
    miss_every_refresh(&mut display);
    assert!(
        matches!(display.schedule().path(), DisplayPath::RefreshGrid { interval } if interval > 1),
        "{:?}",
        display.schedule().path()
    );
}

/// A 30 fps limit kept by the CPU on a display that shows every frame the moment it is ready
/// (no refresh limit), reporting exact times that run 0.7 ms short of the limit's interval
/// (the frames' own noise, as a loaded machine makes it). Returns the last frame's start.
fn no_grid_run(refresh: DisplayRefresh) -> (Pacing, u64) {
    let limit = FrameLimit::fps(30.0).unwrap();
    let period = limit.period_ns();
    let mut p = Pacing::new(PacingPolicy::FramesInFlight, Some(limit));
    p.set_display_refresh(refresh);
    let mut now = 0;
    for f in 0..600u64 {
        now = p.start_at(now).unwrap_or(now);
        p.frame_started(f, now);
        p.frame_presented(f, now + 4 * MS);
        // Shown 5 ms after its start, less 0.7 ms for every frame so far (modulo a period).
        let early = (f * 700_000) % period;
        p.frame_displayed(f, now + 5 * MS + period - early, true);
    }
    (p, now)
}

/// Where the display reports no fixed grid, the limiter keeps its own clock whatever exact
/// times come: frame 599 starts 599 periods after frame 0, and no period is learned. The same
/// times from a display that did not say (present ids only) anchor the grid, which then runs
/// off the limit: the difference this test exists for (issue 52, "no anchor without a grid").
#[test]
fn a_display_without_a_fixed_grid_never_anchors_the_frame_limiter() {
    let period = FrameLimit::fps(30.0).unwrap().period_ns();
    let (p, last) = no_grid_run(DisplayRefresh::NoFixedGrid);
    assert!(!p.anchors_on_display());
    assert_eq!(p.display_anchor().and_then(DisplayAnchor::period_ns), None);
    assert_eq!(last, 599 * period);
    let (p, last) = no_grid_run(DisplayRefresh::Unreported);
    assert!(p.anchors_on_display());
    assert!(last < 599 * period - 10 * MS, "{last}");
}

/// A display that reports no fixed grid after one that did not say: what the anchor learned is
/// dropped, and the limiter's own period is back.
#[test]
fn learning_that_there_is_no_grid_drops_the_anchor() {
    let (mut p, _) = no_grid_run(DisplayRefresh::Unreported);
    assert!(p
        .display_anchor()
        .and_then(DisplayAnchor::period_ns)
        .is_some());
    p.set_display_refresh(DisplayRefresh::NoFixedGrid);
    assert_eq!(p.display_anchor().and_then(DisplayAnchor::period_ns), None);
}

/// Low latency on a display it is the bottleneck of: ten frames shown 16 ms apart, each
/// handed over with [`Pacing::handed_over`] (CPU 1 ms, GPU 4 ms).
fn shown_every_16_ms() -> (Pacing, Telemetry) {
    let (mut p, mut tel) = (
        Pacing::new(PacingPolicy::LowLatency, None),
        Telemetry::new(),
    );
    for id in 0..10u64 {
        let t = id * 16 * MS;
        p.frame_started(id, t);
        p.frame_submitted(id, t + MS);
        p.gpu_done(id, t + MS, t + 5 * MS);
        p.handed_over(&mut tel, id, t + MS, true, None);
        p.frame_displayed(id, t + 16 * MS, true);
    }
    (p, tel)
}

/// Only a frame that may be shown counts as queued for the display: one whose present failed
/// or was refused leaves the next frame's start where it was, and a frame the display ids gave
/// up awaiting leaves the queue. (Door 2 counted both: each kept low latency a refresh late
/// until its display's queue started over.)
#[test]
fn only_frames_that_may_be_shown_count_as_queued() {
    let (p, _) = shown_every_16_ms();
    let base = p.start_at(0).expect("low latency plans a start");
    let after = |hand_over: &dyn Fn(&mut Pacing, &mut Telemetry)| {
        let (mut p, mut tel) = shown_every_16_ms();
        hand_over(&mut p, &mut tel);
        p.start_at(0).map(|at| at - base)
    };
    let refresh = 16 * MS;
    assert_eq!(
        after(&|p, tel| p.handed_over(tel, 10, 161 * MS, true, None)),
        Some(refresh),
        "a frame queued: the display is free a refresh later"
    );
    assert_eq!(
        after(&|p, tel| p.handed_over(tel, 10, 161 * MS, false, None)),
        Some(0),
        "a frame that may not be shown is not queued"
    );
    // Frames 10 and 11 queued, 11 shown (exactly) and 10 never reported: given up, 10 is not
    // waited for any more; kept, it would hold the plan a refresh late for good.
    let ten_given_up = |given_up| {
        after(&move |p, tel| {
            p.handed_over(tel, 10, 161 * MS, true, None);
            p.handed_over(tel, 11, 177 * MS, true, given_up);
            p.frame_displayed(11, 192 * MS, true);
        })
    };
    assert_eq!(ten_given_up(Some(10)), Some(2 * refresh));
    assert_eq!(
        ten_given_up(None),
        Some(3 * refresh),
        "frame 10 still counted queued"
    );
}
