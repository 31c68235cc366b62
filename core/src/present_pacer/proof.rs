//! The repair's proof: which present's semaphore a completed repair frees, and which older
//! swapchains of the lineage it proves idle. A present's semaphore may be signalled again only
//! once the present's wait on it has executed (`VUID-vkQueueSubmit-pSignalSemaphores-00067`).
//!
//! The repair of present `p` of image `i` waited on the application's semaphore, which the
//! application's rendering signalled; that rendering waited on the acquire that returned `i`
//! for `p`, and the presentation engine signalled that acquire only after it had processed the
//! previous present of `i` (the engine hands an image back once the present that held it is
//! done with it). So `p`'s repair, once complete, proves the earlier presents of `i` waited on
//! their semaphores: [`crate::present_history::ImageHistory::prove_previous`] with `p`'s
//! serial, *before* `p`'s own semaphore joins the history. `p`'s own wait is proven only by the
//! repair of a later present of `i` (or `p`'s present fence).

use super::present::Target;
use super::PacerMachine;
use crate::error::CoreError;
use crate::handle::Handle;
use crate::serial::Serial;

impl<S: Handle, W: Handle> PacerMachine<S, W> {
    /// The present to `first` (its first paced swapchain) waited on repair semaphore
    /// `semaphore`, signalled by the repair with `serial`.
    pub(super) fn record_repaired(
        &mut self,
        first: &Target<W>,
        semaphore: S,
        serial: Serial,
        failed: bool,
    ) -> Result<(), CoreError> {
        let i = self.find(first.swapchain).ok_or(CoreError::NoSwapchain)?;
        let fence = first.fence.filter(|_| !failed);
        let (chain, generation) = (self.live[i].chain, self.live[i].generation);
        let image = first.image as usize;
        let previous = self.live[i]
            .repaired_present
            .get_mut(image)
            .map(|n| std::mem::replace(n, self.presents_queued))
            .ok_or(CoreError::OutOfOrder("image vanished"))?;
        let history = self.live[i]
            .state
            .images
            .get_mut(image)
            .ok_or(CoreError::OutOfOrder("image vanished"))?;
        let proved = if cfg!(vkpace_mutation = "weak_repair") {
            // Deliberately wrong (`scripts/mutation-check`): trusts the repair of the same
            // present as proof that its own semaphore wait has executed.
            history.push(semaphore, failed, fence);
            history.prove_previous(serial)
        } else {
            let proved = history.prove_previous(serial);
            history.push(semaphore, failed, fence);
            proved
        };
        if proved {
            self.prove_lineage(chain, generation, serial, previous)?;
        }
        Ok(())
    }

    /// Present number `present`, to generation `generation` of lineage `chain`, is proven
    /// processed by `serial`: every older swapchain of the lineage the application destroyed
    /// is idle once `serial` completes if its presents all came before that one (presents are
    /// processed in order, door 1's retire rule). One presented later (an image acquired from
    /// it before the recreation, presented after the successor's) waits for a later proof.
    fn prove_lineage(
        &mut self,
        chain: u64,
        generation: u64,
        serial: Serial,
        present: u64,
    ) -> Result<(), CoreError> {
        self.chain_mut(chain)?
            .proven_by(generation, serial, present);
        for r in self.retired.iter_mut() {
            let old = r.tag;
            let covered =
                old.chain == chain && old.generation < generation && old.last_present < present;
            if covered && r.proof.is_none() {
                r.proof = Some(serial);
            }
        }
        Ok(())
    }

    /// Present fence `id` of a present to `owner` signalled: that present's semaphore waits
    /// executed (`VkSwapchainPresentFenceInfoKHR`: the fence signals once the present's queue
    /// operations completed). By door 1's retire rule ([`crate::retire_queue`]: presents are
    /// processed in queue order, so a present to a newer swapchain of the lineage proven
    /// processed proves every earlier present to an older one processed), every older
    /// swapchain of its lineage the application destroyed before that present was queued
    /// (fence ids grow with each present, so: before `id` was given) is idle. One destroyed
    /// later may have been presented to after it (an application may still present images
    /// acquired from a retired swapchain), so it is not proven by it.
    pub(super) fn prove_by_present_fence(&mut self, owner: W, id: u64) {
        let live = self
            .live
            .iter()
            .map(|p| (p.state.handle, p.chain, p.generation));
        let retired = self
            .retired
            .iter()
            .map(|r| (r.state.handle, r.tag.chain, r.tag.generation));
        let Some((_, chain, generation)) = live.chain(retired).find(|(w, _, _)| *w == owner) else {
            return;
        };
        for r in self.retired.iter_mut() {
            let old = r.tag;
            if old.chain == chain && old.generation < generation && old.fence_floor <= id {
                r.proof = Some(Serial::NONE);
            }
        }
    }
}
