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

/// A log and its selection, as the layer runs them (the queue between them left out).
struct Logged {
    settle: Settle,
    log: FrameLog<Vec<u8>>,
}

impl Logged {
    fn new() -> std::io::Result<Self> {
        Ok(Self {
            settle: Settle::default(),
            log: FrameLog::new(Vec::new())?,
        })
    }

    /// The telemetry after a present: the settled frames written.
    fn record(&mut self, recent: Vec<FrameTimes>) -> std::io::Result<()> {
        let mut taken = Vec::new();
        self.settle.take(recent.into_iter(), |f| taken.push(f));
        taken.iter().try_for_each(|f| self.log.write(f))
    }

    fn lines(&self) -> usize {
        self.log.out.iter().filter(|&&b| b == b'\n').count() - 1
    }

    fn text(self) -> String {
        String::from_utf8(self.log.finish().unwrap_or_default()).unwrap_or_default()
    }
}

#[test]
fn frames_are_written_once_in_order_when_their_display_time_is_known() -> std::io::Result<()> {
    let mut l = Logged::new()?;
    l.record(vec![frame(0, Some(100)), frame(1, None)])?;
    // Frame 1 is not settled: not written yet, and nothing after it.
    l.record(vec![
        frame(0, Some(100)),
        frame(1, Some(133)),
        frame(2, Some(167)),
    ])?;
    let summary = l.log.summary(0);
    let t = l.text();
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
        summary.contains("3 frames") && summary.contains("shown every 33.50 ms"),
        "{summary}"
    );
    Ok(())
}

#[test]
fn a_frame_never_shown_is_written_once_enough_later_frames_came() -> std::io::Result<()> {
    let mut l = Logged::new()?;
    let frames = |newest: u64| {
        (0..=newest)
            .map(|n| frame(n, (n != 0).then_some(100 + n * 33)))
            .collect()
    };
    l.record(frames(SETTLE_FRAMES - 1))?;
    assert_eq!(l.lines(), 0, "frame 0 may still be shown");
    l.record(frames(SETTLE_FRAMES))?;
    let summary = l.log.summary(0);
    assert!(summary.contains("1 without a display time"), "{summary}");
    let t = l.text();
    assert_eq!(t.lines().count(), 1 + SETTLE_FRAMES as usize + 1, "{t}");
    assert!(
        t.lines().nth(1).is_some_and(|l| l == "0,0.000,5.000,,,,"),
        "{t}"
    );
    Ok(())
}

#[test]
fn the_summary_gives_spread_and_p99_of_the_shown_intervals() -> std::io::Result<()> {
    let mut l = Logged::new()?;
    let shown = [0u64, 33, 66, 99, 150];
    l.record(
        shown
            .iter()
            .enumerate()
            .map(|(n, &s)| frame(n as u64, Some(1000 + s)))
            .collect(),
    )?;
    let s = l.log.summary(0);
    // Intervals 33, 33, 33, 51: mean 37.5, sd 7.79, p99 51.
    assert!(
        s.contains("shown every 37.50 ms (sd 7.79 ms, p99 51.00 ms)"),
        "{s}"
    );
    let empty = FrameLog::new(Vec::new())?;
    assert!(empty.summary(0).contains("0 frames, no intervals"));
    Ok(())
}

/// Issue 50 item 6: the summary gives what the layer controls, the intervals between frame
/// starts, beside the display's; a frame's render jitter (here its present 5 or 15 ms after
/// its start) moves neither.
#[test]
fn the_summary_gives_the_frame_start_intervals_not_the_presents() -> std::io::Result<()> {
    let mut l = Logged::new()?;
    let frames = (0..=SETTLE_FRAMES + 3)
        .map(|n| FrameTimes {
            presented: Some(Duration::from_millis(
                n * 33 + if n % 2 == 0 { 5 } else { 15 },
            )),
            ..frame(n, None)
        })
        .collect();
    l.record(frames)?;
    let s = l.log.summary(3);
    assert!(
        s.contains("started every 33.00 ms (sd 0.00 ms, p99 33.00 ms), no display times"),
        "{s}"
    );
    assert!(s.contains("4 without") && s.contains("3 not logged"), "{s}");
    Ok(())
}

#[test]
fn lines_are_flushed_every_so_many_frames() -> std::io::Result<()> {
    /// Counts flushes.
    struct Counting(Vec<u8>, u32);
    impl Write for Counting {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.write(b)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.1 += 1;
            Ok(())
        }
    }
    let mut log = FrameLog::new(Counting(Vec::new(), 0))?;
    (0..FLUSH_EVERY * 2 + 1).try_for_each(|n| log.write(&frame(n, Some(n * 33))))?;
    assert_eq!(log.out.1, 2);
    Ok(())
}

#[test]
fn a_log_for_a_device_not_paced_says_why() -> std::io::Result<()> {
    let mut out = Vec::new();
    not_paced(&mut out, "another frame limiter is active")?;
    let t = String::from_utf8_lossy(&out);
    assert_eq!(
        t,
        format!("{HEADER}\n# not paced: another frame limiter is active\n")
    );
    Ok(())
}
