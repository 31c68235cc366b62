//! The acquire side of the presenter: the frames-in-flight gate, acquire semaphores taken and
//! returned, and an acquired image's bookkeeping (indices checked).

use super::*;
use crate::handle::Handle;

impl<S: Handle, W: Handle> Presenter<S, W> {
    /// Gives up an acquired image that was not submitted: returns its acquire semaphore, which
    /// has a pending signal, for the shell to consume (see [`Presenter::consume_submitted`]). The
    /// present semaphore chosen for it, never signalled, goes back to the pool.
    pub fn release_held(&mut self) -> Option<S> {
        let frame = self.frame?;
        if frame.submitted.is_some() {
            return None;
        }
        self.frame = None;
        if let Some(p) = frame.present {
            self.recycle_present_semaphore(p, false);
        }
        Some(frame.acquire)
    }

    /// Whether the next frame may begin (pacing: frame F waits for frame F-N's submission).
    pub fn begin_frame(&self) -> FrameGate {
        // Checked for a held image too: it passed the gate when its frame began, but N may have
        // been lowered since (with N unchanged no submission happened, so it passes again).
        if self.frame.is_some_and(|f| f.submitted.is_some()) {
            return FrameGate::Ready;
        }
        match self.pacer.gate(self.completed) {
            Some(needed) => FrameGate::WaitFor(needed),
            None => FrameGate::Ready,
        }
    }

    /// A free acquire semaphore, marked as handed to an acquire; `None` means create one and
    /// register it with [`Presenter::acquire_semaphore_created`].
    pub fn take_acquire_semaphore(&mut self) -> Option<S> {
        self.acquire.take(self.completed)
    }

    /// Registers a semaphore the shell created for an acquire.
    pub fn acquire_semaphore_created(&mut self, semaphore: S) {
        self.acquire.start_new(semaphore);
    }

    /// The acquire returned no image (error, timeout, not ready): nothing was signalled.
    pub fn acquire_failed(&mut self, semaphore: S) -> Result<(), CoreError> {
        if self.acquire.acquire_failed(semaphore) {
            Ok(())
        } else {
            Err(CoreError::OutOfOrder(
                "acquire_failed: unknown acquire semaphore",
            ))
        }
    }

    /// The acquire returned `image` and will signal `semaphore`.
    pub fn image_acquired(&mut self, semaphore: S, image: u32) -> Result<(), CoreError> {
        if self.frame.is_some() {
            return Err(CoreError::OutOfOrder(
                "image_acquired while a frame is in progress",
            ));
        }
        let current = self.current.as_mut().ok_or(CoreError::NoSwapchain)?;
        if let Err(e) = current.image_mut(image) {
            // The semaphore will be signalled anyway; keep the ring consistent.
            self.acquire.acquired(semaphore);
            return Err(e);
        }
        if !self.acquire.acquired(semaphore) {
            return Err(CoreError::OutOfOrder(
                "image_acquired: unknown acquire semaphore",
            ));
        }
        // After the pacing gate at most N - 1 <= 2 frames are pending, so one of the three
        // slots has completed.
        let completed = self.completed;
        let slot = self
            .slots
            .iter()
            .position(|s| s.is_complete(completed))
            .ok_or(CoreError::OutOfOrder(
                "image_acquired before begin_frame said Ready",
            ))?;
        self.frame = Some(FrameSemaphores {
            image,
            acquire: semaphore,
            present: None,
            submitted: None,
            slot,
        });
        Ok(())
    }
}
