//! Submission serials: the one clock the core reasons with.

/// The position of a queue submission in submission order on the presenting queue.
///
/// The shell numbers every submission it makes or hands out (1, 2, 3, ...); `Serial(0)` means
/// "nothing", which is always complete. Serials complete in order: a fence signalled by
/// `vkQueueSubmit` has in its first synchronization scope "all commands that occur earlier in
/// submission order" (Vulkan spec, *Fence Signaling*), so when the fence of serial `s` signals,
/// every serial `<= s` on that queue has completed too. That is why one number suffices.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Serial(pub u64);

impl Serial {
    /// The serial that precedes every submission; always complete.
    pub const NONE: Serial = Serial(0);

    /// The serial after this one.
    #[must_use]
    pub fn next(self) -> Serial {
        Serial(self.0.saturating_add(1))
    }

    /// Whether a submission with this serial has completed, given the highest completed serial.
    #[must_use]
    pub fn is_complete(self, completed: Serial) -> bool {
        self <= completed
    }
}

impl std::fmt::Display for Serial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "#{}", self.0)
    }
}
