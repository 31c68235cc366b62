//! The values of a [`super::PacerCall`] between its steps: the application's call and its
//! arguments ([`Op`]), where the call is ([`Stage`]), what a plan asks to be done without the
//! pacer ([`Down`], carried out here) and what is told back ([`Made`]). The steps that order
//! them are `call_steps.rs`.

use ash::prelude::VkResult;
use ash::vk;

use super::create::{Created, Doomed};
use super::pause::{Pause, Paused};
use super::present_call::Planned;
use super::Driver;
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
    /// The driver's command as the application made it: a present with nothing paced in it
    /// (or no plan), the acquire (after the pacing), a creation in a shared present mode.
    Through,
    /// The planned present: the repair submission, then the driver's present.
    Present(Planned),
    /// The display paths chosen for the surface, the swapchain made with their flags.
    Create,
    /// The machine's destructions, the pacer done with each.
    Destroy(Vec<Doomed>),
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
    /// Carries the step out with `driver`, the handles of the pacer it was planned on, and no
    /// pacer.
    ///
    /// # Safety
    ///
    /// `op` is the call this was planned for, on its pacer, within the contract of the call's
    /// maker (its arguments valid and synchronized until the call is finished).
    pub(super) unsafe fn make(self, op: Op<'_>, driver: &Driver) -> Made {
        match (self, op) {
            (Down::Pause(p), _) => Made::Paused(p.carry_out(driver)),
            (Down::Bounded(w, p), _) => Made::Bounded(w, p.carry_out(driver)),
            // SAFETY: the caller's contract, unchanged.
            (Down::Through, op) => unsafe { through(&driver.swapchain_fn, op) },
            (Down::Present(planned), Op::Present { info, .. }) => {
                // SAFETY: the caller's contract; the plan is this present's.
                Made::Presented(unsafe { planned.make(info, driver) })
            }
            (Down::Create, Op::Create { info, allocator }) => {
                // SAFETY: the caller's contract.
                Made::Created(unsafe { driver.create(info, allocator) })
            }
            (Down::Destroy(doomed), _) => Made::Destroyed {
                // SAFETY: the machine's destructions, forgotten by the pacer.
                swapchains: unsafe { driver.destroy(&doomed) },
            },
            // A plan names only steps of its own call's kind.
            (_, _) => Made::Destroyed { swapchains: false },
        }
    }
}

/// The driver's command of `op` with the application's arguments.
///
/// # Safety
///
/// As the command (`vkQueuePresentKHR`, `vkAcquireNextImageKHR` or `2KHR`,
/// `vkCreateSwapchainKHR`) for `op`'s arguments.
unsafe fn through(driver: &ash::khr::swapchain::Device, op: Op<'_>) -> Made {
    match op {
        // SAFETY: the caller's contract is vkQueuePresentKHR's.
        Op::Present { queue, info } => Made::Through(Outcome::Presented(unsafe {
            driver.queue_present(queue, info)
        })),
        Op::Acquire {
            swapchain,
            timeout,
            semaphore,
            fence,
        } => {
            // SAFETY: the caller's contract is vkAcquireNextImageKHR's.
            let r = unsafe { driver.acquire_next_image(swapchain, timeout, semaphore, fence) };
            Made::Acquired(r)
        }
        // SAFETY: the caller's contract is vkAcquireNextImage2KHR's.
        Op::Acquire2 { info } => Made::Acquired(unsafe { driver.acquire_next_image2(info) }),
        Op::Create { info, allocator } => {
            // SAFETY: the caller's contract is vkCreateSwapchainKHR's.
            let r = unsafe { driver.create_swapchain(info, allocator) };
            Made::Through(Outcome::Created(r))
        }
        Op::Destroy { .. } => Made::Destroyed { swapchains: false },
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
