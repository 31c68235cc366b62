//! Frame pacing: the CPU never runs more than N frames ahead of the GPU.

use super::error::CoreError;
use super::serial::Serial;

/// The most frames in flight vkpace supports. Three already adds a frame of latency over two;
/// more would only add lag (seed 004: "the length of the submit queue" is the input lag).
pub const MAX_FRAMES_IN_FLIGHT: usize = 3;

/// Checks a frames-in-flight value.
pub fn validate_frames_in_flight(frames_in_flight: usize) -> Result<usize, CoreError> {
    if (1..=MAX_FRAMES_IN_FLIGHT).contains(&frames_in_flight) {
        Ok(frames_in_flight)
    } else {
        Err(CoreError::InvalidFramesInFlight {
            requested: frames_in_flight,
            max: MAX_FRAMES_IN_FLIGHT,
        })
    }
}

/// Checks a wait's bound, in ns: every wait vkpace makes is bounded, and a zero bound would
/// never wait at all (the one rule for the machines' settings, their token waits and the
/// shell's).
pub fn validate_wait_timeout(timeout_ns: u64) -> Result<u64, CoreError> {
    match timeout_ns {
        0 => Err(CoreError::ZeroTimeout),
        ns => Ok(ns),
    }
}

/// Remembers the serials of the last [`MAX_FRAMES_IN_FLIGHT`] submitted frames.
///
/// Frame F may begin only once the submission of frame F-N has completed. Keeping the serials
/// of recent frames (rather than one slot per frame index) lets N change at run time: the rule
/// is re-read against the same history, so lowering N just makes the next frame wait longer.
#[derive(Debug, Clone)]
pub struct FramePacer {
    frames_in_flight: usize,
    /// `recent[0]` is the most recently submitted frame; `Serial::NONE` where none yet.
    recent: [Serial; MAX_FRAMES_IN_FLIGHT],
}

impl FramePacer {
    /// A pacer allowing `frames_in_flight` frames (1..=3) to be queued on the GPU.
    pub fn new(frames_in_flight: usize) -> Result<Self, CoreError> {
        Ok(Self {
            frames_in_flight: validate_frames_in_flight(frames_in_flight)?,
            recent: [Serial::NONE; MAX_FRAMES_IN_FLIGHT],
        })
    }

    /// The current limit N.
    #[must_use]
    pub fn frames_in_flight(&self) -> usize {
        self.frames_in_flight
    }

    /// Changes N; takes effect at the next [`FramePacer::serial_to_wait`].
    pub fn set_frames_in_flight(&mut self, frames_in_flight: usize) -> Result<(), CoreError> {
        self.frames_in_flight = validate_frames_in_flight(frames_in_flight)?;
        Ok(())
    }

    /// The serial that must have completed before the next frame may begin: that of frame F-N.
    /// With it complete, at most N-1 frames are queued when frame F starts, N once it submits.
    #[must_use]
    pub fn serial_to_wait(&self) -> Serial {
        self.recent[self.frames_in_flight - 1]
    }

    /// The frames-in-flight gate, as both doors ask it: the serial the next frame waits for,
    /// or `None` where it completed (`completed` is the newest serial seen complete).
    #[must_use]
    pub fn gate(&self, completed: Serial) -> Option<Serial> {
        let needed = self.serial_to_wait();
        (!needed.is_complete(completed)).then_some(needed)
    }

    /// Records the serial of a frame's (main) submission.
    pub fn frame_submitted(&mut self, serial: Serial) {
        self.recent.rotate_right(1);
        self.recent[0] = serial;
    }

    /// How many submitted frames are not yet complete.
    #[must_use]
    pub fn frames_pending(&self, completed: Serial) -> usize {
        self.recent
            .iter()
            .filter(|s| **s != Serial::NONE && !s.is_complete(completed))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_for_frame_n_back() {
        let mut p = FramePacer::new(2).unwrap();
        assert_eq!(p.serial_to_wait(), Serial::NONE);
        p.frame_submitted(Serial(1));
        assert_eq!(p.serial_to_wait(), Serial::NONE);
        p.frame_submitted(Serial(2));
        assert_eq!(p.serial_to_wait(), Serial(1));
        p.frame_submitted(Serial(5));
        assert_eq!(p.serial_to_wait(), Serial(2));
        assert_eq!(
            p.gate(Serial(1)),
            Some(Serial(2)),
            "frame F-2 still running"
        );
        assert_eq!(p.gate(Serial(2)), None, "frame F-2 complete");
        p.set_frames_in_flight(1).unwrap();
        assert_eq!(p.serial_to_wait(), Serial(5));
        p.set_frames_in_flight(3).unwrap();
        assert_eq!(p.serial_to_wait(), Serial(1));
        assert_eq!(p.frames_pending(Serial(2)), 1);
    }

    #[test]
    fn rejects_out_of_range() {
        assert!(matches!(
            FramePacer::new(0),
            Err(CoreError::InvalidFramesInFlight { requested: 0, .. })
        ));
        assert!(FramePacer::new(4).is_err());
    }
}
