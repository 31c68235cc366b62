//! Virtual swapchains: real `VkImage`s with driver memory, handed out by `acquire.rs`, queued
//! by `present.rs`, shown and handed back by the engine.
//!
//! Image life cycle: Free -> Acquired (acquire) -> Queued (present; includes "on screen") ->
//! Free once its successor on the display is visible, or once it was dropped after its
//! present's semaphore waits completed. So an image is never handed out again before the
//! previous present of it consumed its wait (the rule vkpace's correctness argument needs).

mod acquire;
mod create;
mod hdr;

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use ash::vk;

pub use acquire::{acquire, acquire2, release};
pub use create::{create, destroy, destroy_all_of, get_images};
pub use hdr::{hdr_metadata_of_surface, set_hdr_metadata};

use crate::faults::Faults;
use crate::gpu_model::GpuClock;
use crate::handles::{self, SWAPCHAINS};
use crate::readback::ReadbackImages;
use crate::surface::Surface;
use crate::timing::TimingQueue;

/// Where an image is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageState {
    /// Can be acquired.
    Free,
    /// Owned by the application.
    Acquired,
    /// Presented and not yet handed back (queued, or on screen).
    Queued,
}

/// What the swapchain was created with.
#[derive(Clone, Debug)]
pub struct Info {
    /// Image format.
    pub format: vk::Format,
    /// Image extent.
    pub extent: vk::Extent2D,
    /// Present modes it may use (the creation mode first; maintenance1 adds compatible ones).
    pub modes: Vec<vk::PresentModeKHR>,
    /// A scaling behaviour was given (extent changes make it suboptimal, not out of date).
    pub scaling: bool,
}

/// Mutable state, under the swapchain's lock.
#[derive(Debug)]
pub struct State {
    /// Per image.
    pub images: Vec<ImageState>,
    /// Free images, oldest freed first.
    pub free: VecDeque<u32>,
    /// Per image, when the application's latest acquire of it returned (CLOCK_MONOTONIC ns):
    /// the start of the frame presented with it, as far as an application's own code shows.
    pub acquired_ns: Vec<u64>,
    /// Retired by a newer swapchain (oldSwapchain).
    pub retired: bool,
    /// Out of date for good (the OUT_OF_DATE fault).
    pub out_of_date: bool,
    /// Highest present id shown or replaced (present wait).
    pub reached_id: u64,
    /// Highest present id queued without error.
    pub queued_id: u64,
    /// Presents made (the next one gets `presents + 1`).
    pub presents: u64,
    /// Present mode of the next present (maintenance1: a per-present mode applies to that and
    /// the subsequent presents).
    pub mode: vk::PresentModeKHR,
    /// Present-timing results queue.
    pub timing: TimingQueue,
}

/// One virtual swapchain.
pub struct Swapchain {
    /// The layer's handle.
    pub handle: u64,
    /// Creation order, for the log.
    pub seq: u64,
    /// Dispatch key of its device.
    pub device_key: vkpace_layer_plumbing::DispatchKey,
    /// Its surface.
    pub surface: Arc<Surface>,
    /// Creation parameters.
    pub info: Info,
    /// The images.
    pub images: Vec<vk::Image>,
    /// Their memory (null until first acquired with deferred allocation).
    pub memory: Mutex<Vec<vk::DeviceMemory>>,
    /// Read-back resources, if read-back is on.
    pub readback: Option<ReadbackImages>,
    /// Fault decisions.
    pub faults: Faults,
    /// The modelled GPU's delays (the `gpu_ms` setting).
    pub gpu: GpuClock,
    /// The last metadata `vkSetHdrMetadataEXT` gave it (`pNext` cleared), if any.
    pub hdr_metadata: Mutex<Option<vk::HdrMetadataEXT<'static>>>,
    state: Mutex<State>,
    cond: Condvar,
}

/// How the surface stands for this swapchain now.
pub enum Status {
    /// Usable.
    Ok,
    /// Usable, but the extent no longer matches (scaling behaviour given).
    Suboptimal,
    /// Not usable: VK_ERROR_OUT_OF_DATE_KHR.
    OutOfDate,
    /// VK_ERROR_SURFACE_LOST_KHR.
    Lost,
}

impl Swapchain {
    /// Locks the mutable state.
    pub fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The surface's standing for this swapchain, given its state.
    pub fn status(&self, st: &State) -> Status {
        let surface = self.surface.state();
        if surface.lost {
            Status::Lost
        } else if st.out_of_date || (surface.extent != self.info.extent && !self.info.scaling) {
            Status::OutOfDate
        } else if surface.extent != self.info.extent {
            Status::Suboptimal
        } else {
            Status::Ok
        }
    }

    /// Hands an image back (engine: successor shown or dropped; release: maintenance1).
    pub fn free_image(&self, index: u32) {
        let mut st = self.state();
        if let Some(s) = st.images.get_mut(index as usize) {
            if *s != ImageState::Free {
                *s = ImageState::Free;
                st.free.push_back(index);
            }
        }
        drop(st);
        self.cond.notify_all();
    }

    /// A present with `present_id` was shown or replaced (present wait).
    pub fn reached(&self, present_id: u64) {
        if present_id == 0 {
            return;
        }
        let mut st = self.state();
        st.reached_id = st.reached_id.max(present_id);
        drop(st);
        self.cond.notify_all();
    }

    /// Wakes every waiter (retirement, destruction).
    pub fn notify(&self) {
        self.cond.notify_all();
    }

    /// Waits on the swapchain's condition variable until `deadline_ns` (or forever for
    /// `u64::MAX`); returns the guard.
    pub fn wait<'a>(&self, st: MutexGuard<'a, State>, deadline_ns: u64) -> MutexGuard<'a, State> {
        if deadline_ns == u64::MAX {
            self.cond.wait(st).unwrap_or_else(|e| e.into_inner())
        } else {
            self.cond
                .wait_timeout(st, crate::clock::until(deadline_ns))
                .unwrap_or_else(|e| e.into_inner())
                .0
        }
    }

    /// Timing: the present's queue operations completed.
    pub fn timing_queue_end(&self, seq: u64, t: u64) {
        self.state().timing.queue_end(seq, t);
    }

    /// Timing: the present became visible.
    pub fn timing_shown(&self, seq: u64, t: u64) {
        self.state().timing.shown(seq, t);
    }

    /// Timing: the present was dropped.
    pub fn timing_dropped(&self, seq: u64) {
        self.state().timing.dropped(seq);
    }
}

/// The virtual swapchain with handle `sc`, if it is one.
pub fn lookup(sc: vk::SwapchainKHR) -> Option<Arc<Swapchain>> {
    use ash::vk::Handle;
    let raw = sc.as_raw();
    if handles::is_ours(raw) {
        SWAPCHAINS.get(raw)
    } else {
        None
    }
}
