//! What the core knows about one swapchain, current or retired.

use super::error::CoreError;
use super::present_history::{ImageHistory, PresentRecord};
use super::serial::Serial;

/// One swapchain's per-image present histories and what proves it idle.
#[derive(Debug)]
pub struct SwapchainState<S, W> {
    /// The shell's handle.
    pub handle: W,
    /// One present history per image.
    pub images: Vec<ImageHistory<S>>,
    /// Whether any present was queued to it (a never-presented swapchain needs no proof).
    pub presented: bool,
    /// The last serial that used one of its images or semaphores.
    pub last_serial: Serial,
    /// Presents to it whose present fence has not signalled yet.
    pub pending_present_fences: u32,
    /// Presents to it made without a present fence (legacy path, or a failed present).
    pub unfenced_presents: u32,
}

impl<S: std::fmt::Debug, W: std::fmt::Debug> SwapchainState<S, W> {
    /// Its lines of the state dump: the handle, what it waits for, each image's history.
    pub(crate) fn dump(&self, out: &mut std::fmt::Formatter<'_>, indent: &str) -> std::fmt::Result {
        writeln!(
            out,
            "{indent}swapchain {:?}: last used by {}, {} present fence(s) pending, {} unfenced present(s){}",
            self.handle,
            self.last_serial,
            self.pending_present_fences,
            self.unfenced_presents,
            if self.presented { "" } else { ", never presented" }
        )?;
        for (i, image) in self.images.iter().enumerate() {
            write!(out, "{indent}  image {i}: ")?;
            image.dump(out)?;
            writeln!(out)?;
        }
        Ok(())
    }
}

impl<S: Copy, W> SwapchainState<S, W> {
    /// A new swapchain with `image_count` empty histories of room `depth`.
    pub fn new(handle: W, image_count: u32, depth: usize) -> Self {
        Self {
            handle,
            images: (0..image_count)
                .map(|_| ImageHistory::with_depth(depth))
                .collect(),
            presented: false,
            last_serial: Serial::NONE,
            pending_present_fences: 0,
            unfenced_presents: 0,
        }
    }

    /// Image `index`'s history; an index past the image count (a shell's or driver's error) is
    /// refused, for both doors' acquires and presents.
    pub fn image_mut(&mut self, index: u32) -> Result<&mut ImageHistory<S>, CoreError> {
        let count = u32::try_from(self.images.len()).unwrap_or(u32::MAX);
        self.images
            .get_mut(index as usize)
            .ok_or(CoreError::ImageOutOfRange { index, count })
    }

    /// Present semaphores held by all its images.
    #[must_use]
    pub fn present_semaphores(&self) -> usize {
        self.images.iter().map(ImageHistory::len).sum()
    }

    /// Whether every present to it had a present fence and all of them signalled: with
    /// `VK_EXT_swapchain_maintenance1` that alone proves it idle ("the application can destroy
    /// the swapchain once all its present fences signalled").
    #[must_use]
    pub fn present_fences_all_signalled(&self) -> bool {
        self.presented && self.unfenced_presents == 0 && self.pending_present_fences == 0
    }

    /// A present to it was queued (or failed), with the present fence it can rely on, if any.
    pub fn present_recorded(&mut self, fence: Option<u64>) {
        self.presented = true;
        match fence {
            Some(_) => self.pending_present_fences += 1,
            None => self.unfenced_presents += 1,
        }
    }

    /// `serial` proves waited on every present to each image before the image's newest one
    /// ([`ImageHistory::prove_previous`]).
    pub fn prove_previous(&mut self, serial: Serial) {
        for h in &mut self.images {
            h.prove_previous(serial);
        }
    }

    /// Every image's present records, taken out (the swapchain is being destroyed).
    pub fn drain_records(&mut self) -> Vec<PresentRecord<S>> {
        self.images
            .iter_mut()
            .flat_map(ImageHistory::drain)
            .collect()
    }

    /// The deepest image history.
    #[must_use]
    pub fn deepest_history(&self) -> usize {
        self.images.iter().map(ImageHistory::len).max().unwrap_or(0)
    }
}
