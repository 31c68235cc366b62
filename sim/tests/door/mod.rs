//! The second door's schedules: an application that owns its swapchain (the textbook loop),
//! run through the door's shell or the driver alone, and the properties judged on the world's
//! ground truth.

pub mod judge;
pub mod schedule;
pub mod textbook;
