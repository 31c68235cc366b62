//! Retired swapchains waiting for proof that the presentation engine is done with them.
//!
//! `VUID-vkDestroySwapchainKHR-swapchain-01282` requires "all uses of presentable images
//! acquired from swapchain" to have completed, and its present semaphores fall under
//! `VUID-vkDestroySemaphore-semaphore-01137`. Without present fences the proof is ANGLE's (seed
//! 004, "Swapchain recreation"): the presentation engine processes presents in queue order, so
//! once any present to a *newer* swapchain is proven waited on (by the acquire rule of
//! [`super::present_history`]), every present to an older one has been processed. A swapchain
//! that was never presented to needs only its last submission (if any) to have completed. With
//! `VK_EXT_swapchain_maintenance1` a swapchain whose present fences all signalled is idle too,
//! whichever proof comes first.

use super::serial::Serial;
use super::swapchain_state::SwapchainState;

/// A retired swapchain and the serials that gate its destruction; `T`, what its machine's
/// proofs need to know of it besides (door 2: its lineage).
#[derive(Debug)]
pub struct Retired<S, W, T = ()> {
    /// The swapchain and the present semaphores it still owns.
    pub state: SwapchainState<S, W>,
    /// A submission proving a later present (to a newer swapchain) was processed.
    pub proof: Option<Serial>,
    /// An acquired-but-unpresented image's semaphore still needs a consuming submission.
    pub awaiting_consume: Option<S>,
    /// The machine's own facts of it.
    pub tag: T,
}

impl<S: Copy + PartialEq, W, T> Retired<S, W, T> {
    /// Whether the swapchain and its semaphores may be destroyed now.
    #[must_use]
    pub fn is_idle(&self, completed: Serial) -> bool {
        if cfg!(vkpace_mutation = "early_retire") {
            // Deliberately wrong (`scripts/mutation-check`): ignores the present proof.
            return self.awaiting_consume.is_none()
                && self.state.last_serial.is_complete(completed);
        }
        self.awaiting_consume.is_none()
            && self.state.last_serial.is_complete(completed)
            && (!self.state.presented
                || self.state.present_fences_all_signalled()
                || self.proof.is_some_and(|p| p.is_complete(completed)))
    }
}

/// Retired swapchains, oldest first.
#[derive(Debug)]
pub struct RetireQueue<S, W, T = ()> {
    retired: Vec<Retired<S, W, T>>,
}

impl<S: std::fmt::Debug, W: std::fmt::Debug, T> RetireQueue<S, W, T> {
    /// Its lines of the state dump: each retired swapchain, oldest first, and its proof.
    pub(crate) fn dump(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, r) in self.retired.iter().enumerate() {
            write!(out, "  retired {i}: proof ")?;
            match r.proof {
                Some(p) => write!(out, "{p}")?,
                None => write!(out, "none yet")?,
            }
            if let Some(s) = &r.awaiting_consume {
                write!(out, ", acquire semaphore {s:?} to consume")?;
            }
            writeln!(out)?;
            r.state.dump(out, "    ")?;
        }
        Ok(())
    }
}

impl<S: Copy + PartialEq, W> RetireQueue<S, W> {
    /// Adds a swapchain that was just passed as `oldSwapchain` (or is being shut down).
    pub fn retire(&mut self, state: SwapchainState<S, W>, awaiting_consume: Option<S>) {
        self.retired.push(Retired {
            state,
            proof: None,
            awaiting_consume,
            tag: (),
        });
    }
}

/// The queue reads and grows as the `Vec` it is (`len`, `iter`, `push`...); what it decides is
/// below.
impl<S, W, T> std::ops::Deref for RetireQueue<S, W, T> {
    type Target = Vec<Retired<S, W, T>>;

    fn deref(&self) -> &Self::Target {
        &self.retired
    }
}

impl<S, W, T> std::ops::DerefMut for RetireQueue<S, W, T> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.retired
    }
}

impl<S: Copy + PartialEq, W, T> RetireQueue<S, W, T> {
    /// An empty queue with room for `capacity` swapchains.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            retired: Vec::with_capacity(capacity),
        }
    }

    /// A submission that waited on a held acquire semaphore of a retired swapchain was made.
    /// Returns whether a retired swapchain was waiting for it.
    pub fn consume_submitted(&mut self, semaphore: S, serial: Serial) -> bool {
        for r in &mut self.retired {
            if r.awaiting_consume == Some(semaphore) {
                r.awaiting_consume = None;
                r.state.last_serial = r.state.last_serial.max(serial);
                return true;
            }
        }
        false
    }

    /// A present to a swapchain newer than every retired one is proven by `serial`.
    pub fn prove_all(&mut self, serial: Serial) {
        for r in self.retired.iter_mut().filter(|r| r.proof.is_none()) {
            r.proof = Some(serial);
        }
    }

    /// Removes the retired swapchains that are idle at `completed`, passing each to `release`,
    /// oldest first.
    pub fn collect_idle(&mut self, completed: Serial, release: impl FnMut(Retired<S, W, T>)) {
        self.retired
            .extract_if(.., |r| r.is_idle(completed))
            .for_each(release);
    }
}
