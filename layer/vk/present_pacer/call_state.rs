//! The values of a [`super::PacerCall`] between its steps: the application's call and its
//! arguments ([`Op`]), where the call is ([`Stage`]), what a plan asks to be done without the
//! pacer ([`Down`], carried out here) and what is told back ([`Made`]). The steps that order
//! them are `call_steps.rs`.

use ash::prelude::VkResult;
use ash::vk;

use super::create::{destroy_doomed, Created, Creating, Doomed};
use super::pause::{Pause, Paused};
use super::present_call::Planned;
use vkpace_core::BoundedWait;

/// The application's call and its arguments, borrowed for the call's steps.
#[derive(Clone, Copy)]
pub(super) enum Op<'a> {
    Present {
        queue: vk::Queue,
        info: &'a vk::PresentInfoKHR<'a>,
    },
    Acquire {
        swapchain: vk::SwapchainKHR,
        timeout: u64,
        semaphore: vk::Semaphore,
        fence: vk::Fence,
    },
    Acquire2 {
        info: &'a vk::AcquireNextImageInfoKHR<'a>,
    },
    Create {
        info: &'a vk::SwapchainCreateInfoKHR<'a>,
        allocator: Option<&'a vk::AllocationCallbacks<'a>>,
    },
    Destroy {
        swapchain: vk::SwapchainKHR,
        allocator: Option<&'a vk::AllocationCallbacks<'a>>,
    },
}

/// Where a call is between two steps.
pub(super) enum Stage {
    /// Nothing asked yet.
    Start,
    /// A present being planned; `waited`, a wait for a repair semaphore's proof carried out.
    PresentPlan {
        deadline: Option<u64>,
        waited: Option<Paused>,
    },
    /// The pacing of `swapchain`'s lineage's next frame (after a present, before an acquire).
    Pacing {
        swapchain: vk::SwapchainKHR,
        deadline: Option<u64>,
    },
    /// The driver's acquire next, the pacing done.
    Acquiring,
    /// A destruction's bounded waits; `waited`, the last one carried out.
    DestroyWaits {
        deadline: Option<u64>,
        waited: Option<(BoundedWait, Paused)>,
    },
    /// A destruction's driver calls next; `unpaced`: the swapchain is not the pacer's, so the
    /// driver destroys it now too.
    Dooming { unpaced: bool },
    /// Over, or only a report left.
    Done,
}

/// What a plan asks to be done without the pacer.
// Moved once per step, from the pacer's run to the caller: a box would allocate each frame.
#[allow(clippy::large_enum_variant)]
pub(super) enum Down {
    /// A pacing pause, or a present's wait for a repair semaphore's proof.
    Pause(Pause),
    /// A destruction's bounded wait.
    Bounded(BoundedWait, Pause),
    /// The driver's present as the application made it (nothing paced in it, or no plan).
    PresentThrough(ash::khr::swapchain::Device),
    /// The planned present: the repair submission, then the driver's present.
    Present(Planned),
    /// The driver's acquire with the application's arguments.
    Acquire(ash::khr::swapchain::Device),
    /// The driver's creation as the application asked it (a shared present mode).
    CreateThrough(ash::khr::swapchain::Device),
    /// The display paths chosen for the surface, the swapchain made with their flags.
    Create(Creating),
    /// The machine's destructions, the pacer done with each.
    Destroy(ash::Device, ash::khr::swapchain::Device, Vec<Doomed>),
}

/// What the calls down did.
// Moved once per step, back to the pacer's run: a box would allocate each frame.
#[allow(clippy::large_enum_variant)]
pub(super) enum Made {
    Paused(Paused),
    Bounded(BoundedWait, Paused),
    Through(Outcome),
    Presented(super::present_call::Made),
    Acquired(VkResult<(u32, bool)>),
    Created(VkResult<Created>),
    Destroyed { swapchains: bool },
}

/// The driver's result of the application's call.
#[derive(Copy, Clone)]
pub(super) enum Outcome {
    Presented(VkResult<bool>),
    Acquired(VkResult<(u32, bool)>),
    Created(VkResult<vk::SwapchainKHR>),
    Destroyed,
}

impl Made {
    /// The driver's result, where this was the application's call.
    pub(super) fn outcome(&self) -> Option<Outcome> {
        Some(match self {
            Made::Through(o) => *o,
            Made::Presented(m) => Outcome::Presented(m.result),
            Made::Acquired(r) => Outcome::Acquired(*r),
            Made::Created(r) => Outcome::Created(r.as_ref().map(|c| c.handle).map_err(|e| *e)),
            Made::Paused(_) | Made::Bounded(..) | Made::Destroyed { .. } => return None,
        })
    }
}

impl Down {
    /// Carries the step out, with no pacer.
    ///
    /// # Safety
    ///
    /// `op` is the call this was planned for, on its pacer, within the contract of the call's
    /// maker (its arguments valid and synchronized until the call is finished).
    pub(super) unsafe fn make(self, op: Op<'_>, in_call: bool) -> Made {
        match (self, op) {
            (Down::Pause(p), _) => Made::Paused(p.carry_out(in_call)),
            (Down::Bounded(w, p), _) => Made::Bounded(w, p.carry_out(in_call)),
            (Down::PresentThrough(driver), Op::Present { queue, info }) => {
                // SAFETY: the caller's contract, unchanged.
                let r = unsafe { driver.queue_present(queue, info) };
                Made::Through(Outcome::Presented(r))
            }
            (Down::Present(planned), Op::Present { info, .. }) => {
                // SAFETY: the caller's contract; the plan is this present's.
                Made::Presented(unsafe { planned.make(info, in_call) })
            }
            (Down::Acquire(driver), op) => {
                // SAFETY: the caller's contract: `op` is an acquire's, valid for the call.
                Made::Acquired(unsafe { acquire(&driver, op) })
            }
            (Down::CreateThrough(driver), Op::Create { info, allocator }) => {
                // SAFETY: the caller's contract, unchanged.
                let r = unsafe { driver.create_swapchain(info, allocator) };
                Made::Through(Outcome::Created(r))
            }
            (Down::Create(creating), Op::Create { info, allocator }) => {
                // SAFETY: the caller's contract.
                Made::Created(unsafe { creating.create(info, allocator) })
            }
            (Down::Destroy(device, driver, doomed), _) => Made::Destroyed {
                // SAFETY: the machine's destructions, forgotten by the pacer.
                swapchains: unsafe { destroy_doomed(&device, &driver, &doomed) },
            },
            // A plan names only steps of its own call's kind.
            (_, _) => Made::Destroyed { swapchains: false },
        }
    }
}

/// The driver's acquire of `op` (an acquire call).
///
/// # Safety
///
/// As `vkAcquireNextImageKHR` (or `2KHR`) for `op`'s arguments.
unsafe fn acquire(driver: &ash::khr::swapchain::Device, op: Op<'_>) -> VkResult<(u32, bool)> {
    match op {
        Op::Acquire {
            swapchain,
            timeout,
            semaphore,
            fence,
        } => {
            // SAFETY: the caller's contract is vkAcquireNextImageKHR's.
            unsafe { driver.acquire_next_image(swapchain, timeout, semaphore, fence) }
        }
        // SAFETY: the caller's contract is vkAcquireNextImage2KHR's.
        Op::Acquire2 { info } => unsafe { driver.acquire_next_image2(info) },
        _ => Err(vk::Result::ERROR_UNKNOWN),
    }
}

impl Op<'_> {
    /// The swapchain an acquire paces and acquires from.
    pub(super) fn acquired_swapchain(&self) -> vk::SwapchainKHR {
        match *self {
            Op::Acquire { swapchain, .. } => swapchain,
            Op::Acquire2 { info } => info.swapchain,
            _ => vk::SwapchainKHR::null(),
        }
    }
}
