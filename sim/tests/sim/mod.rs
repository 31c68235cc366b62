//! The property tests' schedules: random public-call sequences through the frame machine.

pub mod app;
pub mod bounds;
pub mod display;
pub mod queues;
