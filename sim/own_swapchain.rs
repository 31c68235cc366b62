//! An application that owns its swapchain calls the driver's swapchain functions itself, or the
//! second door's replacement of each ([`SwapchainCalls`]). [`Bare`] is the driver alone
//! (vkpace off): each call goes straight to the [`World`]. The door's shell (`pacer_driver.rs`)
//! implements the same calls, so one application (the property tests' textbook loop) runs
//! with vkpace and without, and the world judges both.

use vkpace_core::PresentMode;

use crate::driver::SimError;
use crate::world::{AcquireResult, Fence, Gen, PresentExtras, PresentResult, Sem, World};

/// Virtual nanoseconds per world tick (as the frame machine's sim).
pub const TICK_NS: u64 = 100_000;

/// The longest any wait of the application runs the world before it gives up, in ticks.
pub const APP_WAIT_TICKS: u32 = 5_000;

/// The swapchain calls of an application that owns its swapchain: `vkCreateSwapchainKHR`,
/// `vkAcquireNextImageKHR`, `vkQueuePresentKHR`, `vkDestroySwapchainKHR`, and the world the
/// application submits its own work to.
pub trait SwapchainCalls {
    /// The world (the application's own submissions, fences and semaphores go to it).
    fn world(&mut self) -> &mut World;

    /// Creates a swapchain of `images` images in present mode `mode`, `old` as
    /// `oldSwapchain`.
    fn create_swapchain(
        &mut self,
        images: u32,
        old: Option<Gen>,
        mode: PresentMode,
    ) -> Result<Gen, SimError>;

    /// Acquires an image of `swapchain`, signalling `semaphore`.
    fn acquire(&mut self, swapchain: Gen, semaphore: Sem) -> Result<AcquireResult, SimError>;

    /// Presents `image` of `swapchain`, waiting on `wait`, with the application's own present
    /// id `id` chained (`VkPresentIdKHR`), if any, and the present mode it switches to
    /// (`VkSwapchainPresentModeInfoKHR`, as DXVK chains on every present), if any.
    fn present(
        &mut self,
        swapchain: Gen,
        image: u32,
        wait: Sem,
        id: Option<u64>,
        mode: Option<PresentMode>,
    ) -> Result<PresentResult, SimError>;

    /// Destroys `swapchain` (the application will not name it again).
    fn destroy_swapchain(&mut self, swapchain: Gen) -> Result<(), SimError>;

    /// Teardown of whatever the calls made (the application destroyed its swapchains first).
    fn shutdown(&mut self) -> Result<(), SimError>;

    /// One step of the world: virtual time passes.
    fn tick(&mut self) -> Result<(), SimError> {
        let w = self.world();
        let now = w.now + TICK_NS;
        w.advance_to(now);
        Ok(w.tick()?)
    }

    /// The application waits for its fence `f` (at most [`APP_WAIT_TICKS`] ticks): whether
    /// it signalled.
    fn wait_fence(&mut self, f: Fence) -> Result<bool, SimError> {
        run_world_until(self.world(), |w| w.fence_signaled(f))
    }
}

/// Runs `world` until `done` holds, at most [`APP_WAIT_TICKS`] ticks: whether it held.
pub fn run_world_until(
    world: &mut World,
    mut done: impl FnMut(&mut World) -> Result<bool, String>,
) -> Result<bool, SimError> {
    for _ in 0..APP_WAIT_TICKS {
        if done(world)? {
            return Ok(true);
        }
        world.gpu_tick()?;
        world.pe_tick()?;
        let now = world.now + TICK_NS;
        world.advance_to(now);
    }
    Ok(done(world)?)
}

/// The driver alone: no pacing, no repair; the present waits on the application's semaphore.
#[derive(Debug)]
pub struct Bare {
    pub world: World,
}

impl SwapchainCalls for Bare {
    fn world(&mut self) -> &mut World {
        &mut self.world
    }

    fn create_swapchain(
        &mut self,
        images: u32,
        old: Option<Gen>,
        mode: PresentMode,
    ) -> Result<Gen, SimError> {
        Ok(self.world.create_swapchain_in(images, old, mode)?)
    }

    fn acquire(&mut self, swapchain: Gen, semaphore: Sem) -> Result<AcquireResult, SimError> {
        Ok(self.world.acquire(swapchain, semaphore)?)
    }

    fn present(
        &mut self,
        swapchain: Gen,
        image: u32,
        wait: Sem,
        id: Option<u64>,
        mode: Option<PresentMode>,
    ) -> Result<PresentResult, SimError> {
        let extras = PresentExtras {
            id: id.unwrap_or(0),
            mode,
            ..PresentExtras::default()
        };
        Ok(self
            .world
            .present_with(swapchain, (image, wait, None), extras)?)
    }

    fn destroy_swapchain(&mut self, swapchain: Gen) -> Result<(), SimError> {
        Ok(self.world.destroy_swapchain(swapchain)?)
    }

    fn shutdown(&mut self) -> Result<(), SimError> {
        Ok(())
    }
}
