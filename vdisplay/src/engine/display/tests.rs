//! The display rules, step by step.

use super::*;

const P: u64 = 1000;

fn pending(id: ReqId, mode: Mode, ready: Option<u64>) -> Pending {
    Pending {
        id,
        mode,
        target: Target::None,
        discard: false,
        eligible_ns: ready,
    }
}

fn run(d: &mut Display, now: u64) -> Vec<Event> {
    let mut out = Vec::new();
    d.pump(now, &mut out);
    out
}

#[test]
fn fifo_shows_one_image_per_blank_and_frees_the_predecessor() {
    let mut d = Display::new(P, 0);
    for id in 1..=3 {
        d.push(pending(id, Mode::Fifo, Some(10)));
    }
    assert_eq!(run(&mut d, 500), vec![]);
    assert_eq!(run(&mut d, 1001), vec![Event::Shown { id: 1, at: 1000 }]);
    assert_eq!(run(&mut d, 1500), vec![]);
    assert_eq!(
        run(&mut d, 2003),
        vec![Event::Shown { id: 2, at: 2000 }, Event::Freed { id: 1 }]
    );
    assert_eq!(d.next_wakeup(2003), Some(3000));
}

#[test]
fn blanks_the_engine_slept_through_are_applied_in_order() {
    let mut d = Display::new(P, 0);
    d.push(pending(1, Mode::Fifo, Some(10)));
    d.push(pending(2, Mode::Fifo, Some(20)));
    d.push(pending(3, Mode::Fifo, Some(2500)));
    // The thread wakes at 3.2 periods: frames 1 and 2 were ready for the blanks at 1000
    // and 2000, frame 3 for the one at 3000.
    assert_eq!(
        run(&mut d, 3200),
        vec![
            Event::Shown { id: 1, at: 1000 },
            Event::Shown { id: 2, at: 2000 },
            Event::Freed { id: 1 },
            Event::Shown { id: 3, at: 3000 },
            Event::Freed { id: 2 },
        ]
    );
}

#[test]
fn fifo_waits_for_an_unready_front_and_never_shows_before_ready() {
    let mut d = Display::new(P, 0);
    d.push(pending(1, Mode::Fifo, None));
    assert_eq!(run(&mut d, 1001), vec![]);
    d.mark_ready(1, 1200);
    assert_eq!(run(&mut d, 1300), vec![]);
    assert_eq!(run(&mut d, 2001), vec![Event::Shown { id: 1, at: 2000 }]);
}

#[test]
fn mailbox_replaces_the_pending_image() {
    let mut d = Display::new(P, 0);
    d.push(pending(1, Mode::Mailbox, Some(100)));
    d.push(pending(2, Mode::Mailbox, Some(200)));
    d.push(pending(3, Mode::Mailbox, Some(300)));
    let ev = run(&mut d, 400);
    assert_eq!(
        ev,
        vec![
            Event::Dropped {
                id: 1,
                at: 400,
                replaced: true
            },
            Event::Freed { id: 1 },
            Event::Dropped {
                id: 2,
                at: 400,
                replaced: true
            },
            Event::Freed { id: 2 },
        ]
    );
    assert_eq!(run(&mut d, 1000), vec![Event::Shown { id: 3, at: 1000 }]);
}

#[test]
fn immediate_shows_at_once() {
    let mut d = Display::new(P, 0);
    d.push(pending(1, Mode::Immediate, Some(120)));
    d.push(pending(2, Mode::Immediate, Some(130)));
    assert_eq!(
        run(&mut d, 140),
        vec![
            Event::Shown { id: 1, at: 140 },
            Event::Shown { id: 2, at: 140 },
            Event::Freed { id: 1 }
        ]
    );
}

#[test]
fn fifo_relaxed_shows_a_late_image_at_once() {
    let mut d = Display::new(P, 0);
    d.push(pending(1, Mode::FifoRelaxed, Some(10)));
    assert_eq!(run(&mut d, 1000), vec![Event::Shown { id: 1, at: 1000 }]);
    // Nothing ready at the blank at 2000: the next image is late and goes up at once.
    assert_eq!(run(&mut d, 2000), vec![]);
    d.push(pending(2, Mode::FifoRelaxed, Some(2300)));
    assert_eq!(
        run(&mut d, 2310),
        vec![Event::Shown { id: 2, at: 2310 }, Event::Freed { id: 1 }]
    );
    // On time: waits for the blank like FIFO.
    d.push(pending(3, Mode::FifoRelaxed, Some(2500)));
    assert_eq!(run(&mut d, 2600), vec![]);
}

#[test]
fn absolute_and_relative_targets_hold_fifo_back() {
    let mut d = Display::new(P, 0);
    let mut p = pending(1, Mode::Fifo, Some(10));
    p.target = Target::Absolute {
        at: 2500,
        nearest: false,
    };
    d.push(p);
    assert_eq!(run(&mut d, 1000), vec![]);
    assert_eq!(run(&mut d, 2000), vec![]);
    assert_eq!(run(&mut d, 3000), vec![Event::Shown { id: 1, at: 3000 }]);
    let mut q = pending(2, Mode::Fifo, Some(3010));
    q.target = Target::Relative {
        after: 2 * P,
        nearest: true,
    };
    d.push(q);
    assert_eq!(run(&mut d, 4000), vec![]);
    assert_eq!(
        run(&mut d, 5000),
        vec![Event::Shown { id: 2, at: 5000 }, Event::Freed { id: 1 }]
    );
    let mut r = pending(3, Mode::Fifo, Some(5010));
    r.target = Target::Absolute {
        at: 6400,
        nearest: true,
    };
    d.push(r);
    assert_eq!(
        run(&mut d, 6000),
        vec![Event::Shown { id: 3, at: 6000 }, Event::Freed { id: 2 }]
    );
}

#[test]
fn rejected_presents_are_dropped_once_ready_and_removal_blanks_the_screen() {
    let mut d = Display::new(P, 0);
    let mut p = pending(1, Mode::Fifo, None);
    p.discard = true;
    d.push(p);
    d.push(pending(2, Mode::Fifo, Some(5)));
    assert_eq!(run(&mut d, 50), vec![]);
    d.mark_ready(1, 60);
    assert_eq!(
        run(&mut d, 1000),
        vec![
            Event::Dropped {
                id: 1,
                at: 1000,
                replaced: false
            },
            Event::Freed { id: 1 },
            Event::Shown { id: 2, at: 1000 }
        ]
    );
    assert_eq!(d.remove_where(|id| id == 2), vec![2]);
    assert_eq!(d.next_wakeup(1000), None);
}

#[test]
fn a_display_with_a_one_nanosecond_period_sleeps_until_something_can_happen() {
    // An engine with no refresh limit (`refresh_hz = 1000000000`): it must not wake every
    // period. Nothing ready: no wake-up (the engine is told when a present becomes ready).
    let mut d = Display::new(1, 0);
    d.push(pending(1, Mode::Fifo, None));
    assert_eq!(d.next_wakeup(1_000), None);
    d.mark_ready(1, 1_500);
    assert_eq!(
        d.next_wakeup(1_000),
        Some(1_500),
        "a delayed request: when it may be acted on"
    );
    assert_eq!(run(&mut d, 1_600), vec![Event::Shown { id: 1, at: 1_600 }]);
    // A relative target: the wake-up is the target itself, not the next nanosecond.
    let mut p = pending(2, Mode::Fifo, Some(1_700));
    p.target = Target::Relative {
        after: 33_000_000,
        nearest: true,
    };
    d.push(p);
    assert_eq!(d.next_wakeup(1_800), Some(33_001_600));
    assert_eq!(run(&mut d, 33_001_599), vec![]);
    // Woken 50 ns late: shown at the target, as a frame ready by a blank the thread slept
    // through is (a gap of up to MAX_CATCH_UP periods is replayed).
    assert_eq!(
        run(&mut d, 33_001_650),
        vec![
            Event::Shown {
                id: 2,
                at: 33_001_600
            },
            Event::Freed { id: 1 }
        ]
    );
}

#[test]
fn targets_wake_the_engine_at_the_first_blank_they_allow() {
    let mut d = Display::new(P, 0);
    let mut p = pending(1, Mode::Fifo, Some(10));
    p.target = Target::Absolute {
        at: 3_400,
        nearest: true,
    };
    d.push(p);
    assert_eq!(
        d.next_wakeup(100),
        Some(3_000),
        "nearest: half a period early"
    );
    let mut d = Display::new(P, 0);
    let mut p = pending(1, Mode::Fifo, Some(10));
    p.target = Target::Absolute {
        at: 3_400,
        nearest: false,
    };
    d.push(p);
    assert_eq!(d.next_wakeup(100), Some(4_000));
}

#[test]
fn relative_targets_count_from_the_grid_or_from_when_the_engine_acted() {
    // The engine thread shows image 1 at the blank at 1000 but acts 300 late; image 2 asks
    // for two periods after it.
    let relative = |from_visible: bool, nearest: bool| {
        let mut d = Display::new(P, 0);
        d.relative_from_visible = from_visible;
        d.push(pending(1, Mode::Fifo, Some(10)));
        assert_eq!(run(&mut d, 1_300), vec![Event::Shown { id: 1, at: 1_000 }]);
        let mut p = pending(2, Mode::Fifo, Some(1_400));
        p.target = Target::Relative {
            after: 2 * P,
            nearest,
        };
        d.push(p);
        let shown = (2..6).map(|k| k * P).find(|t| !run(&mut d, *t).is_empty());
        shown.map(|t| t - 1_000)
    };
    assert_eq!(
        relative(false, false),
        Some(2 * P),
        "from the blank: on time"
    );
    assert_eq!(relative(false, true), Some(2 * P));
    // From the late visible time: a refresh later without rounding to the nearest blank,
    // on time with it.
    assert_eq!(relative(true, false), Some(3 * P));
    assert_eq!(relative(true, true), Some(2 * P));
}
