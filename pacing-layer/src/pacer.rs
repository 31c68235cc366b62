//! One device's present pacer: made at the first swapchain command once the application got a
//! queue, used by every swapchain command under the device's lock, destroyed with the device.
//! A panic inside the pacer turns the device into a pass-through (logged): the application
//! keeps running on the next layer's commands.
//!
//! Acquire and present reach the pacer through its `*_shared` functions, with
//! [`PacerState::with_pacer`] as their accessor: the frame limit's or policy's sleep and the
//! frames-in-flight gate's GPU wait happen with the device's lock released (the summary line
//! at vkDestroyDevice counts the pauses on either side of it).
//!
//! The driver's calls too run with the lock released: the acquire (it blocks until an image
//! is free, up to its timeout), the present and its repair submission (Mesa's software WSI
//! waits for the frame's rendering inside it; FIFO may block), swapchain creation and
//! destruction with their bounded waits; another swapchain's calls on the device need not
//! wait for them (the second summary line counts them on either side of the lock).
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

use crate::frame_log::FrameLog;
use crate::policy::POLICY;
use crate::settings::{Decision, Mode};

/// The pacer's state on one device.
pub enum PacerSlot {
    /// Not made yet.
    NotYet,
    /// Pacing, with the frame log if one was asked for.
    Pacing(Box<Paced>),
    /// Not pacing (the policy, a failure, or a panic): every call passes through.
    PassThrough,
}

/// A pacer and its log.
pub struct Paced {
    pacer: PresentPacer,
    log: Option<FrameLog<BufWriter<File>>>,
}

/// A device's pacing state: the first queue the application got (the pacer's), and the pacer.
pub struct PacerState {
    queue: Mutex<Option<(vk::Queue, u32)>>,
    pacer: Mutex<PacerSlot>,
    /// Times the pacer's lock was taken to run the pacer (for the summary line).
    holds: AtomicU64,
}

/// The device's handles a pacer is made with.
pub struct Handles<'a> {
    pub entry: &'a ash::Entry,
    pub instance: &'a ash::Instance,
    pub physical: vk::PhysicalDevice,
    pub device: &'a ash::Device,
    /// What the layer enabled below the application (present timing), if anything.
    pub support: Option<vkpace::Support>,
}

impl PacerState {
    /// No queue and no pacer yet; `pace`: false for a device the layer steps aside for.
    pub fn new(pace: bool) -> Self {
        Self {
            queue: Mutex::new(None),
            pacer: Mutex::new(match pace {
                true => PacerSlot::NotYet,
                false => PacerSlot::PassThrough,
            }),
            holds: AtomicU64::new(0),
        }
    }

    /// A queue the application got: the first one becomes the pacer's.
    pub(crate) fn queue_seen(&self, queue: vk::Queue, family: u32) {
        let mut q = lock(&self.queue);
        if q.is_none() && queue != vk::Queue::null() {
            *q = Some((queue, family));
        }
    }

    /// Runs `f` with the device's pacer (made now if it can be); `None` where the layer does
    /// not pace this device, so the caller passes the command through.
    pub(crate) fn with_pacer<R>(
        &self,
        handles: &Handles<'_>,
        f: impl FnOnce(&mut PresentPacer) -> R,
    ) -> Option<R> {
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
                *slot = PacerSlot::PassThrough;
                None
            }
        }
    }

    /// The pacer, or why there is none (logged).
    fn make_pacer(&self, h: &Handles<'_>) -> PacerSlot {
        let policy = &*POLICY;
        if policy.decision != Decision::Pace {
            return PacerSlot::PassThrough;
        }
        let Some((queue, family)) = *lock(&self.queue) else {
            // No queue yet: ask again at the next swapchain command.
            return PacerSlot::NotYet;
        };
        let s = &policy.settings;
        let mut config = PresentPacerConfig::default();
        config.frames_in_flight = s.frames_in_flight.unwrap_or(config.frames_in_flight);
        config.pacing = match s.mode {
            Mode::LowLatency => PacingPolicy::LowLatency,
            _ => PacingPolicy::Grid,
        };
        config.frame_limit = s.fps.and_then(|f| FrameLimit::fps(f).ok());
        config.repair_present_semaphores = s.repair;
        if let Some(support) = h.support {
            support.apply(&mut config);
        }
        crate::log(format_args!(
            "{}",
            match h.support {
                Some(_) => "present timing enabled below the application: a cap that divides the refresh is kept by targets on the grid where the surface offers them",
                None => "no present timing below the application: the CPU limiter keeps the cap",
            }
        ));
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
        // pacer (destroyed in vkDestroyDevice first); no display path is enabled.
        match unsafe { PresentPacer::new(desc) } {
            Ok(pacer) => PacerSlot::Pacing(Box::new(Paced {
                pacer,
                log: open_log(),
            })),
            Err(e) => {
                crate::log(format_args!("no present pacer, passing through: {e}"));
                PacerSlot::PassThrough
            }
        }
    }

    /// After a present to `swapchain`: the frame log's settled frames.
    pub(crate) fn log_frames(&self, swapchain: vk::SwapchainKHR) {
        let mut slot = lock(&self.pacer);
        if let PacerSlot::Pacing(paced) = &mut *slot {
            if let Some(log) = paced.log.as_mut() {
                if let Err(e) = log.record(paced.pacer.telemetry(swapchain)) {
                    crate::log(format_args!("frame log: {e}; no more lines"));
                    paced.log = None;
                }
            }
        }
    }

    /// The device is being destroyed: the pacer's objects go (its bounded waits), and the
    /// summary line is written.
    pub(crate) fn end_pacing(&self) {
        let slot = std::mem::replace(&mut *lock(&self.pacer), PacerSlot::PassThrough);
        let PacerSlot::Pacing(paced) = slot else {
            return;
        };
        let Paced { pacer, log } = *paced;
        let stats = pacer.stats();
        // SAFETY: the application destroys the device, so no call of the pacer is in progress
        // and none follows.
        if let Err(e) = unsafe { pacer.destroy() } {
            crate::log(format_args!("destroying the present pacer: {e}"));
        }
        if let Some(log) = log {
            crate::log(format_args!("{}", log.summary()));
            let _ = log.finish();
        }
        crate::log(format_args!(
            "{} presents paced, {} repairs, {} swapchains made and {} destroyed by the pacer",
            stats.presents,
            stats.repair_submits,
            stats.swapchains_created,
            stats.swapchains_destroyed
        ));
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

/// The frame log `VKPACE_LOG` names, if any (a file that cannot be made is logged).
fn open_log() -> Option<FrameLog<BufWriter<File>>> {
    let path = POLICY.settings.log.as_ref()?;
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
