//! The simulated world vkpace's core is tested against, shared by the property tests and the
//! benchmark: a seeded random generator, a GPU queue and presentation engine that keep the
//! ground truth of every semaphore, fence and swapchain ([`world`]), the shell that drives the
//! frame machine that ships against it ([`driver`]), and a virtual-time model of a render loop
//! with a display for the pacing policies ([`pacing`], [`scenarios`]).

pub mod driver;
mod driver_load;
mod driver_timing;
mod fence_waits;
pub mod own_swapchain;
pub mod pacer_beside;
pub mod pacer_driver;
pub mod pacer_timing;
pub mod pacer_truth;
pub mod pacing;
pub mod rng;
pub mod scenarios;
pub mod timing_shell;
pub mod world;
