//! The settings of a [`super::PacerMachine`].

use crate::pacing::PacingSettings;

/// What the machine paces with and which objects it may add to a present.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct PacerConfig {
    /// How frames are paced (frames in flight counts presents). Default
    /// [`PacingSettings::default`].
    pub pacing: PacingSettings,
    /// Repair present semaphores (an empty submission consumes the application's semaphores
    /// and signals vkpace's). Default true.
    pub repair: bool,
    /// Add a present fence (maintenance1) where the application passed none. Default false.
    pub present_fences: bool,
    /// Add present ids where the application passed none, and read the display's feedback.
    /// Default false.
    pub present_ids: bool,
}

impl Default for PacerConfig {
    fn default() -> Self {
        Self {
            pacing: PacingSettings::default(),
            repair: true,
            present_fences: false,
            present_ids: false,
        }
    }
}
