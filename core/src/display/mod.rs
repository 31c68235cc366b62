//! The display as one concept, decided here and carried out by the shell (`vk/display/`):
//!
//! - **which path** a swapchain object takes ([`choose_paths`]): display feedback through
//!   present_wait2, present_wait or none, and present timing (`VK_EXT_present_timing`) on top
//!   where the surface supports it and the host clock can be calibrated;
//! - **time domains** ([`choose_domain`] and the calibration that maps a domain's times to the
//!   shell's clock, [`calibration_from`]), and **when any clock is calibrated again**
//!   ([`recalibration_due`]: the GPU's timestamps and present timing's domain alike);
//! - **the refresh cycle** a swapchain reports ([`RefreshCycle`]);
//! - **one swapchain's present timing** ([`TimingBook`]): when its refresh and its domains are
//!   read again, and each result's stage times on the shell's clock;
//! - **present timing per present** (`timing_queue`): what a present asks for, the results
//!   queue's slots, and what a result read back means ([`TimingReport`]), for both doors.
//!
//! When frames were shown and what that means for pacing are the machine's
//! (`machine::display_watch`, `pacing::display_schedule`). Nothing here calls Vulkan: the shell
//! asks the device and the surface, hands the answers in, and does what comes back.

mod domains;
mod path;
mod refresh;
mod timing_book;
mod timing_queue;

pub use domains::{
    calibration_from, calibration_plan, choose_domain, recalibration_due, shift, target_stage,
    Calibrateable, Calibration, Reading, Stages, TimeDomain,
};
pub use path::{
    choose_paths, DisplayFeedback, DisplayOffer, DisplayPaths, PresentIdStructure, Targets,
    TimingOffer,
};
pub use refresh::RefreshCycle;
pub use timing_book::{RawTiming, Rereads, TimingBook};
pub(crate) use timing_queue::TimingQueue;
pub use timing_queue::TimingReport;
