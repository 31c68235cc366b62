//! The display thread: runs each virtual display's rules at its vertical blanks and whenever a
//! present becomes ready, then applies what happened.

use std::time::Duration;

use super::display::{Event, Target};
use super::{lock, Deferred, Request, State};
use crate::clock::now_ns;
use crate::device::Device;
use crate::log::{DropReason, PresentRecord};

/// The thread's body.
pub fn run(dev: &Device) {
    let engine = &*dev.engine;
    let mut st = lock(&engine.state);
    let mut events = Vec::new();
    while !st.shutdown {
        let now = now_ns();
        let mut wake_at: Option<u64> = None;
        for (surface, d) in st.displays.iter_mut() {
            if crate::surface::is_paused(*surface) {
                // Nothing shown or freed; look again a refresh later (resuming sends no wake),
                // at most once a millisecond (a display with no refresh limit has a 1 ns period).
                wake_at = min_opt(wake_at, Some(now + d.period_ns.max(1_000_000)));
            } else {
                d.pump(now, &mut events);
            }
        }
        for e in events.drain(..) {
            apply(dev, &mut st, e);
        }
        for (surface, d) in st.displays.iter() {
            if !crate::surface::is_paused(*surface) {
                wake_at = min_opt(wake_at, d.next_wakeup(now));
            }
        }
        let due = take_due(&mut st, now);
        wake_at = min_opt(wake_at, st.deferred.iter().map(|d| d.due_ns).min());
        if !due.is_empty() {
            drop(st);
            signal_fences(dev, &due);
            st = lock(&engine.state);
            continue;
        }
        st = match wake_at {
            Some(t) => {
                engine
                    .wake
                    .wait_timeout(st, Duration::from_nanos(t.saturating_sub(now_ns())))
                    .unwrap_or_else(|e| e.into_inner())
                    .0
            }
            None => engine.wake.wait(st).unwrap_or_else(|e| e.into_inner()),
        };
    }
}

fn min_opt(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Removes and returns the deferred fence signals due by `now`.
fn take_due(st: &mut State, now: u64) -> Vec<Deferred> {
    let (due, later): (Vec<_>, Vec<_>) = st.deferred.drain(..).partition(|d| d.due_ns <= now);
    st.deferred = later;
    due
}

/// Signals late present fences with empty submissions (under the queue lock).
fn signal_fences(dev: &Device, due: &[Deferred]) {
    let _q = dev.lock_queues();
    for d in due {
        // SAFETY: an empty submission that only signals the application's fence; the queue is
        // the one it presented on, held under the queue lock.
        if let Err(e) = unsafe { dev.fp.queue_submit(d.queue, &[], d.fence) } {
            eprintln!("vdisplay: late present fence signal failed: {e:?}");
        }
    }
}

/// Applies one display event.
fn apply(dev: &Device, st: &mut State, e: Event) {
    match e {
        Event::Shown { id, at } => {
            let Some(r) = st.requests.get_mut(&id) else {
                return;
            };
            r.shown = true;
            r.sc.reached(r.present_id);
            r.sc.timing_shown(r.seq, at);
            log(dev, r, Some(at), None);
            if r.readback && !r.consumed {
                r.capture_pending = true;
            } else if r.readback {
                if let Some(rb) = &dev.readback {
                    rb.capture(dev, r);
                }
            }
            defer_fence(dev, st, id, at);
        }
        Event::Dropped { id, at, replaced } => {
            let Some(r) = st.requests.get(&id) else {
                return;
            };
            if replaced {
                // vkWaitForPresent2KHR: a request replaced without presentation completes.
                r.sc.reached(r.present_id);
            }
            r.sc.timing_dropped(r.seq);
            let reason = if replaced {
                DropReason::Replaced
            } else {
                DropReason::Rejected
            };
            log(dev, r, None, Some(reason));
            defer_fence(dev, st, id, at);
        }
        Event::Freed { id } => match st.requests.get_mut(&id) {
            // The present's own batch has not completed: its semaphore waits may not be
            // consumed yet, so the image is not handed back before they are.
            Some(r) if !r.consumed => r.free_pending = true,
            Some(_) => {
                if let Some(r) = st.requests.remove(&id) {
                    r.sc.free_image(r.image);
                }
            }
            None => {}
        },
    }
}

/// Schedules the late-fence fault's signal of a request's present fence.
fn defer_fence(dev: &Device, st: &mut State, id: u64, at: u64) {
    let Some(r) = st.requests.get_mut(&id) else {
        return;
    };
    if let Some((queue, fence)) = r.late_fence.take() {
        let late = (dev.settings.fault_present_fence_late_ms * 1e6) as u64;
        st.deferred.push(Deferred {
            due_ns: at + late,
            queue,
            fence,
        });
    }
}

fn log(dev: &Device, r: &Request, shown: Option<u64>, dropped: Option<DropReason>) {
    let Some(log) = &dev.log else { return };
    log.write(&PresentRecord {
        surface: r.sc.surface.seq,
        swapchain: r.sc.seq,
        seq: r.seq,
        present_id: r.present_id,
        image: r.image,
        mode: r.mode,
        acquired_ns: r.acquired_ns,
        queued_ns: r.queued_ns,
        target_ns: match r.target {
            Target::Absolute { at, .. } => Some(at),
            Target::None | Target::Relative { .. } => None,
        },
        relative_ns: match r.target {
            Target::Relative { after, .. } => Some(after),
            Target::None | Target::Absolute { .. } => None,
        },
        ready_ns: r.ready_ns,
        shown_ns: shown,
        dropped,
        result: r.result,
    });
}

/// Logs a present removed because its swapchain was destroyed (unless it was shown already).
pub fn log_destroyed(dev: &Device, r: &Request) {
    if !r.shown {
        log(dev, r, None, Some(DropReason::Destroyed));
    }
}
