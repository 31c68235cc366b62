//! The second door's machine: the state and decisions of a [`crate::PresentPacer`], which paces
//! swapchains the application owns.

mod stats;

pub use stats::PresentPacerStats;
