//! One device's present pacer: made at the first swapchain command once the application got a
//! queue, used by every swapchain command under the device's lock, destroyed with the device.
//! A panic inside the pacer turns the device into a pass-through (logged): the application
//! keeps running on the next layer's commands.
//!
//! Every swapchain command reaches the pacer as a `vkpace::PacerCall`, whose plans and reports
//! run in [`PacerState::with_pacer`] (under the lock); its pauses and the driver's calls run
//! with the lock released (`swapchain.rs`), so another swapchain's calls on the device need not
//! wait for them (the summary lines at vkDestroyDevice count both on either side of the lock).
//!
//! Known limit: a retired swapchain the pacer finds idle during another call (a present, an
//! acquire's gate) is destroyed by the driver inside that call's run, with the lock held; and
//! the proof submission of a destruction is made under the lock.

use std::fs::File;
use std::io::BufWriter;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};

use ash::vk;
use vkpace::{FrameLimit, PacingPolicy, PresentPacer, PresentPacerConfig, PresentPacerDesc};

use crate::frame_log::{FrameLog, LogQueue, Settle};
use crate::policy::policy;
use crate::settings::{Decision, Mode};

/// The pacer's state on one device.
pub enum PacerSlot {
    /// Not made yet.
    NotYet,
    /// Pacing, with the frame log if one was asked for.
    Pacing(Box<Paced>),
    /// Not pacing (the policy or a failure): every call passes through.
    PassThrough,
    /// Not pacing after a panic in the pacer: every call passes through, and the pacer is kept
    /// only to destroy its objects (and the swapchains whose destruction it deferred) with the
    /// device.
    Broken(Box<Paced>),
}

/// A pacer, and which of its frames are settled for the log (where one was asked for).
pub struct Paced {
    pacer: PresentPacer,
    settle: Option<Settle>,
}

/// The frame log's writer.
type LogFile = FrameLog<BufWriter<File>>;

/// A device's pacing state: the queues the application got (with their families; one becomes
/// the pacer's), and the pacer.
pub struct PacerState {
    queues: Mutex<Vec<(vk::Queue, u32)>>,
    /// The surface of the first swapchain the application made (the pacer's queue must
    /// present to it, even where the pacer is made later than that swapchain).
    first_surface: Mutex<Option<vk::SurfaceKHR>>,
    pacer: Mutex<PacerSlot>,
    /// Times the pacer's lock was taken to run the pacer (for the summary line).
    holds: AtomicU64,
    /// Frames settled under the pacer's lock, to be written after it, and their writer
    /// (`frame_log`): no line is written with the device's lock held.
    log_queue: LogQueue,
    log: Mutex<Option<LogFile>>,
}

/// The device's handles a pacer is made with.
pub struct Handles<'a> {
    pub entry: &'a ash::Entry,
    pub instance: &'a ash::Instance,
    pub physical: vk::PhysicalDevice,
    pub device: &'a ash::Device,
    /// What the layer enabled below the application (present timing), if anything.
    pub support: Option<vkpace::Support>,
    /// The surface of the swapchain being made, where the call is its creation (the pacer's
    /// queue is chosen to present to it).
    pub surface: Option<vk::SurfaceKHR>,
}

impl PacerState {
    /// No queue and no pacer yet; `pace`: false for a device the layer steps aside for (a
    /// frame log asked for then says why).
    pub fn new(pace: bool) -> Self {
        if !pace {
            log_not_paced();
        }
        Self {
            queues: Mutex::new(Vec::new()),
            first_surface: Mutex::new(None),
            pacer: Mutex::new(match pace {
                true => PacerSlot::NotYet,
                false => PacerSlot::PassThrough,
            }),
            holds: AtomicU64::new(0),
            log_queue: LogQueue::new(),
            log: Mutex::new(None),
        }
    }

    /// A queue the application got: the pacer's is chosen from these ([`choose_queue`]).
    pub(crate) fn queue_seen(&self, queue: vk::Queue, family: u32) {
        let mut q = lock(&self.queues);
        if queue != vk::Queue::null() && !q.iter().any(|(known, _)| *known == queue) {
            q.push((queue, family));
        }
    }

    /// Runs `f` with the device's pacer (made now if it can be); `None` where the layer does
    /// not pace this device, so the caller passes the command through.
    pub(crate) fn with_pacer<R>(
        &self,
        handles: &Handles<'_>,
        f: impl FnOnce(&mut PresentPacer) -> R,
    ) -> Option<R> {
        if let Some(surface) = handles.surface {
            lock(&self.first_surface).get_or_insert(surface);
        }
        let mut slot = lock(&self.pacer);
        if matches!(*slot, PacerSlot::NotYet) {
            *slot = self.make_pacer(handles);
        }
        let PacerSlot::Pacing(paced) = &mut *slot else {
            return None;
        };
        self.holds.fetch_add(1, Ordering::Relaxed);
        let pacer = &mut paced.pacer;
        match crate::GUARD.catch("the present pacer", || f(pacer)) {
            Some(r) => Some(r),
            None => {
                crate::log(format_args!(
                    "a panic in the present pacer: this device passes every call through from now on"
                ));
                let PacerSlot::Pacing(paced) =
                    std::mem::replace(&mut *slot, PacerSlot::PassThrough)
                else {
                    return None;
                };
                *slot = PacerSlot::Broken(paced);
                None
            }
        }
    }

    /// The pacer, or why there is none (logged).
    fn make_pacer(&self, h: &Handles<'_>) -> PacerSlot {
        let policy = policy(None);
        if policy.decision != Decision::Pace {
            return PacerSlot::PassThrough;
        }
        let Some((queue, family)) = self.pacer_queue(h) else {
            // No queue yet: ask again at the next swapchain command.
            return PacerSlot::NotYet;
        };
        let s = &policy.settings;
        let mut config = PresentPacerConfig::default();
        let pacing = &mut config.pacing;
        pacing.frames_in_flight = s.frames_in_flight.unwrap_or(pacing.frames_in_flight);
        pacing.policy = match s.mode {
            Mode::LowLatency => PacingPolicy::LowLatency,
            _ => PacingPolicy::Grid,
        };
        pacing.frame_limit = s.fps.and_then(|f| FrameLimit::fps(f).ok());
        config.repair_present_semaphores = s.repair;
        if let Some(support) = h.support {
            support.apply(&mut config);
        }
        log_below(h.support);
        // The library speaks through its pacers: from the first, its warnings reach stderr.
        crate::logger::install();
        let desc = PresentPacerDesc {
            entry: h.entry,
            instance: h.instance,
            physical_device: h.physical,
            device: h.device,
            queue,
            queue_family: family,
            config,
        };
        // SAFETY: the handles are the device's, made through this layer, and outlive the
        // pacer (destroyed in vkDestroyDevice first); the config's paths are exactly those the
        // layer enabled on this device (`support.apply`, or none without support), as `new`
        // requires.
        match unsafe { PresentPacer::new(desc) } {
            Ok(pacer) => {
                let log = open_log();
                let settle = log.is_some().then(Settle::default);
                *lock(&self.log) = log;
                PacerSlot::Pacing(Box::new(Paced { pacer, settle }))
            }
            Err(e) => {
                crate::log(format_args!("no present pacer, passing through: {e}"));
                PacerSlot::PassThrough
            }
        }
    }

    /// After a present to `swapchain`: the frame log's settled frames, copied out under the
    /// pacer's lock and written after it.
    pub(crate) fn log_frames(&self, swapchain: vk::SwapchainKHR) {
        {
            let mut slot = lock(&self.pacer);
            let PacerSlot::Pacing(paced) = &mut *slot else {
                return;
            };
            let Some(settle) = paced.settle.as_mut() else {
                return;
            };
            settle.take(paced.pacer.telemetry(swapchain), |f| self.log_queue.push(f));
        }
        if let Ok(mut log) = self.log.try_lock() {
            // (Another thread writing takes these frames too, or the next present does.)
            self.write_queued(&mut log);
        }
    }

    /// Writes the frames queued (the log's lock held, never the pacer's); a failed write ends
    /// the log (logged).
    fn write_queued(&self, log: &mut Option<LogFile>) {
        while let Some(f) = self.log_queue.pop() {
            let Some(file) = log.as_mut() else {
                continue;
            };
            if let Err(e) = file.write(&f) {
                crate::log(format_args!("frame log: {e}; no more lines"));
                *log = None;
            }
        }
    }

    /// The device is being destroyed: the pacer's objects go (its bounded waits), and the
    /// summary line is written.
    pub(crate) fn end_pacing(&self) {
        let slot = std::mem::replace(&mut *lock(&self.pacer), PacerSlot::PassThrough);
        let paced = match slot {
            PacerSlot::Pacing(paced) => paced,
            PacerSlot::Broken(paced) => return destroy_broken(paced.pacer),
            PacerSlot::NotYet | PacerSlot::PassThrough => return,
        };
        let pacer = paced.pacer;
        let stats = pacer.stats();
        // SAFETY: the application destroys the device, so no call of the pacer is in progress
        // and none follows.
        if let Err(e) = unsafe { pacer.destroy() } {
            crate::log(format_args!("destroying the present pacer: {e}"));
        }
        self.summarize(&stats);
    }

    /// The program is exiting with the device alive (no `vkDestroyDevice`): the summary lines
    /// are written as at `vkDestroyDevice`, and the pacer is left as it is (nothing is called
    /// on a driver that may be tearing down; the process's end frees it). Skipped (logged)
    /// where another thread is inside the pacer: waiting for it could hang the exit.
    pub(crate) fn summarize_at_exit(&self) {
        let mut slot = match self.pacer.try_lock() {
            Ok(slot) => slot,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                crate::log(format_args!(
                    "at exit: the present pacer is in use on another thread, no summary"
                ));
                return;
            }
        };
        let PacerSlot::Pacing(paced) = std::mem::replace(&mut *slot, PacerSlot::PassThrough) else {
            return;
        };
        let pacer = paced.pacer;
        crate::log(format_args!(
            "at exit (or the layer's unloading): the program did not destroy its device; the pacer's summary"
        ));
        self.summarize(&pacer.stats());
        // Not destroyed (see above), and not dropped either: its drop would warn of a leak
        // that the process's end takes care of.
        std::mem::forget(pacer);
    }

    /// The summary lines: the frame log's (its last frames written, then closed), the
    /// pacer's counts.
    fn summarize(&self, stats: &vkpace::PresentPacerStats) {
        let mut log = lock(&self.log);
        self.write_queued(&mut log);
        if let Some(log) = log.take() {
            crate::log(format_args!("{}", log.summary(self.log_queue.lost())));
            let _ = log.finish();
        }
        crate::log(format_args!(
            "{} presents paced, {} repairs, {} swapchains made and {} destroyed by the pacer, {} proof submissions",
            stats.presents,
            stats.repair_submits,
            stats.swapchains_created,
            stats.swapchains_destroyed,
            stats.proof_submits
        ));
        if stats.display_times_watched > 0 {
            let period = match stats.anchored_period_ns {
                0 => "never followed by the CPU limiter's grid".to_string(),
                p => format!(
                    "the CPU limiter's grid followed it at {:.3} ms per frame, moved {} times for a refresh missed or taken early",
                    p as f64 / 1e6,
                    stats.anchor_moves
                ),
            };
            crate::log(format_args!(
                "display: {} exact display times watched; {period}",
                stats.display_times_watched
            ));
        }
        let (watched, bounded, not_by) = (
            stats.ready_times_watched,
            stats.ready_times_bounded,
            stats.ready_times_not_by_pause_end,
        );
        if watched + bounded + not_by > 0 {
            // The engine gave no stage times (the application's own present ids): the grid's
            // lead learned the frames' ready times from the repair submissions.
            crate::log(format_args!(
                "ready times from the layer's own submissions: {watched} watched, {bounded} seen complete right after the present, {not_by} not ready by the pause's end"
            ));
        }
        // Every run of the pacer is under the device's lock: a pause inside one (the pacer's
        // count of pauses inside its calls) is a pause with the lock held.
        crate::log(format_args!(
            "pauses: {} with the device lock released, {} with it held, over {} lock holds",
            stats.pauses_between_calls,
            stats.pauses_in_calls,
            self.holds.load(Ordering::Relaxed)
        ));
        // The same for the calls down that may block (the driver's acquire, present, create
        // and destroy, the repair submission, the bounded waits).
        crate::log(format_args!(
            "calls down: {} with the device lock released, {} with it held",
            stats.calls_down_between_calls, stats.calls_down_in_calls
        ));
    }
}

impl PacerState {
    /// The queue the pacer submits on and paces the presents of (logged): the first the
    /// application got whose family can present to the surface of the swapchain being made
    /// (`Handles::surface`), as a queue presenting to it must
    /// (VUID-vkQueuePresentKHR-pSwapchains-01292); else the first it got.
    fn pacer_queue(&self, h: &Handles<'_>) -> Option<(vk::Queue, u32)> {
        let queues = lock(&self.queues).clone();
        let surface = *lock(&self.first_surface);
        let surface_fn = ash::khr::surface::Instance::new(h.entry, h.instance);
        let presents = |family: u32| match surface {
            // SAFETY: the device's physical device and one of its families; the surface is
            // the one the application made its first swapchain of.
            Some(surface) => unsafe {
                surface_fn.get_physical_device_surface_support(h.physical, family, surface)
            }
            .unwrap_or(false),
            None => false,
        };
        let (chosen, presenting) = choose_queue(&queues, presents)?;
        if queues.len() > 1 {
            let why = match presenting {
                true => "the first got that presents to the first swapchain's surface",
                false => "none got presents to the surface: the first got",
            };
            crate::log(format_args!(
                "the pacer paces presents on the queue of family {} ({} queues got; {why})",
                chosen.1,
                queues.len()
            ));
        }
        Some(chosen)
    }
}

/// Of the queues got (in order), the first whose family `presents` (and true), else the first
/// (and false).
fn choose_queue(
    queues: &[(vk::Queue, u32)],
    presents: impl Fn(u32) -> bool,
) -> Option<((vk::Queue, u32), bool)> {
    let first = *queues.first()?;
    let presenting = queues.iter().copied().find(|(_, family)| presents(*family));
    Some(presenting.map_or((first, false), |q| (q, true)))
}

/// Destroys the objects of a pacer a panic stopped (the device is being destroyed, so none of
/// them is in use any more: the application's contract for `vkDestroyDevice`). The pacer's
/// bounded waits run as at any teardown; a second panic leaves them alive (logged).
fn destroy_broken(pacer: PresentPacer) {
    // SAFETY: the application destroys the device, so no call of the pacer is in progress and
    // none follows; the device and queue are still valid.
    let destroyed = crate::GUARD.catch("destroying the present pacer after a panic", || unsafe {
        pacer.destroy()
    });
    match destroyed {
        Some(Ok(())) => crate::log(format_args!(
            "the present pacer stopped by a panic: its objects destroyed with the device"
        )),
        Some(Err(e)) => crate::log(format_args!(
            "the present pacer stopped by a panic: destroying its objects: {e}"
        )),
        None => {}
    }
}

/// What the pacer uses below the application, and what follows for the cap and for destroyed
/// swapchains (logged once per device).
fn log_below(support: Option<vkpace::Support>) {
    let support = support.unwrap_or_default();
    crate::log(format_args!(
        "{}",
        match support.present_timing {
            Some(_) => "present timing enabled below the application: a cap that divides the refresh is kept by targets on the grid where the surface offers them",
            None => "no present timing below the application: the CPU limiter keeps the cap",
        }
    ));
    crate::log(format_args!(
        "{}",
        match (support.present_wait2, support.present_wait) {
            (true, wait) => match wait {
                true => "present wait2 (the application's own, watched through its own present ids) in use on swapchains whose surface supports it, present wait on others: where a surface has no present timing, the CPU limiter's grid follows the display's clock (exact display times watched during its sleep)",
                false => "present wait2 (the application's own, watched through its own present ids) in use on swapchains whose surface supports it: there, where the surface has no present timing, the CPU limiter's grid follows the display's clock (exact display times watched during its sleep)",
            },
            (false, true) => "present wait in use (enabled below the application, or the application's own, watched through its own present ids): where a surface has no present timing, the CPU limiter's grid follows the display's clock (exact display times watched during its sleep)",
            (false, false) => "no present wait below the application: without present timing the CPU limiter keeps its own clock",
        }
    ));
    match support.maintenance1 {
        Some(names) => crate::log(format_args!(
            "swapchain maintenance1 ({}) in use by the pacer: present fences prove a destroyed swapchain idle",
            names.label()
        )),
        None => crate::log(format_args!(
            "no swapchain maintenance1 below the application: a destroyed swapchain without a successor is proven idle by an empty submission on the pacer's queue"
        )),
    }
}

/// For a device the layer does not pace: the frame log `VKPACE_LOG` names, if any, with the
/// header and why (the policy's step-aside, or the application pacing itself, which the
/// layer's line at vkCreateDevice names).
fn log_not_paced() {
    let policy = policy(None);
    let Some(path) = policy.settings.log.as_ref() else {
        return;
    };
    let why = match &policy.decision {
        Decision::StepAside(why) => why.as_str(),
        Decision::Off => "mode = off",
        Decision::Pace => "the application paces itself (a latency extension or present timing enabled; see the layer's vkCreateDevice line)",
    };
    let written = File::create(path).and_then(|f| crate::frame_log::not_paced(f, why));
    if let Err(e) = written {
        crate::log(format_args!("frame log {}: {e}", path.display()));
    }
}

/// The frame log `VKPACE_LOG` names, if any (a file that cannot be made is logged).
fn open_log() -> Option<LogFile> {
    let path = policy(None).settings.log.as_ref()?;
    let made = File::create(path).and_then(|f| FrameLog::new(BufWriter::new(f)));
    match made {
        Ok(log) => Some(log),
        Err(e) => {
            crate::log(format_args!("frame log {}: {e}", path.display()));
            None
        }
    }
}

/// A lock that a panic elsewhere did not make unusable (the pacer's panics are caught inside).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Handle;

    #[test]
    fn the_first_queue_presenting_to_the_surface_is_the_pacers() {
        let q = |n: u64, family: u32| (vk::Queue::from_raw(n), family);
        let got = [q(1, 2), q(2, 0), q(3, 0)];
        assert_eq!(choose_queue(&got, |f| f == 0), Some((q(2, 0), true)));
        // None presents (no surface known yet): the first got.
        assert_eq!(choose_queue(&got, |_| false), Some((q(1, 2), false)));
        assert_eq!(choose_queue(&[], |_| true), None);
    }
}
