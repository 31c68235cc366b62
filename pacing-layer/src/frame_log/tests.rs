use std::time::Duration;

use super::*;

fn frame(n: u64, shown_ms: Option<u64>) -> FrameTimes {
    FrameTimes {
        frame: n,
        cpu_start: Duration::from_millis(n * 33),
        presented: Some(Duration::from_millis(n * 33 + 5)),
        displayed: shown_ms.map(Duration::from_millis),
        target: shown_ms.map(Duration::from_millis),
        ..FrameTimes::default()
    }
}

fn text(log: FrameLog<Vec<u8>>) -> String {
    String::from_utf8(log.finish().unwrap_or_default()).unwrap_or_default()
}

#[test]
fn frames_are_written_once_in_order_when_their_display_time_is_known() -> std::io::Result<()> {
    let mut log = FrameLog::new(Vec::new())?;
    log.record([frame(0, Some(100)), frame(1, None)].into_iter())?;
    // Frame 1 is not settled: not written yet, and nothing after it.
    log.record(
        [
            frame(0, Some(100)),
            frame(1, Some(133)),
            frame(2, Some(167)),
        ]
        .into_iter(),
    )?;
    let summary = log.summary();
    let t = text(log);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], HEADER);
    assert_eq!(lines.len(), 4, "{t}");
    assert!(
        lines[1].starts_with("0,0.000,5.000,100.000,,100.000,"),
        "{t}"
    );
    assert!(lines[2].ends_with(",133.000,33.000"), "{t}");
    assert!(lines[3].ends_with(",167.000,34.000"), "{t}");
    assert!(
        summary.contains("3 frames") && summary.contains("33.50 ms"),
        "{summary}"
    );
    Ok(())
}

#[test]
fn a_frame_never_shown_is_written_once_enough_later_frames_came() -> std::io::Result<()> {
    let mut log = FrameLog::new(Vec::new())?;
    let frames = |newest: u64| (0..=newest).map(|n| frame(n, (n != 0).then_some(100 + n * 33)));
    log.record(frames(SETTLE_FRAMES - 1))?;
    assert_eq!(text_lines(&mut log), 0, "frame 0 may still be shown");
    log.record(frames(SETTLE_FRAMES))?;
    let summary = log.summary();
    assert!(summary.contains("1 without a display time"), "{summary}");
    let t = text(log);
    assert_eq!(t.lines().count(), 1 + SETTLE_FRAMES as usize + 1, "{t}");
    assert!(
        t.lines().nth(1).is_some_and(|l| l == "0,0.000,5.000,,,,"),
        "{t}"
    );
    Ok(())
}

/// Frames written so far.
fn text_lines(log: &mut FrameLog<Vec<u8>>) -> usize {
    log.out.iter().filter(|&&b| b == b'\n').count() - 1
}

#[test]
fn the_summary_gives_spread_and_p99_of_the_shown_intervals() -> std::io::Result<()> {
    let mut log = FrameLog::new(Vec::new())?;
    let shown = [0u64, 33, 66, 99, 150];
    let frames: Vec<FrameTimes> = shown
        .iter()
        .enumerate()
        .map(|(n, &s)| frame(n as u64, Some(1000 + s)))
        .collect();
    log.record(frames.into_iter())?;
    let s = log.summary();
    // Intervals 33, 33, 33, 51: mean 37.5, sd 7.79, p99 51.
    assert!(
        s.contains("37.50 ms") && s.contains("sd 7.79") && s.contains("p99 51.00"),
        "{s}"
    );
    let empty = FrameLog::new(Vec::new())?;
    assert!(empty.summary().contains("0 frames, no intervals"));
    Ok(())
}

#[test]
fn without_display_times_the_summary_gives_the_intervals_between_presents() -> std::io::Result<()> {
    let mut log = FrameLog::new(Vec::new())?;
    log.record((0..=SETTLE_FRAMES + 3).map(|n| frame(n, None)))?;
    let s = log.summary();
    assert!(
        s.contains("presented (no display times) every 33.00 ms"),
        "{s}"
    );
    assert!(s.contains("sd 0.00") && s.contains("4 without"), "{s}");
    Ok(())
}
