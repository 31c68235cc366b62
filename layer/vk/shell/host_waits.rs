//! The host-timeline values a frame's batches wait for on the GPU, settled before its present.

use std::sync::Arc;
use std::time::Instant;

use super::Shell;
use crate::vk::batch::Batch;
use crate::vk::error::Result;

impl Shell {
    /// Remembers the host-timeline values the frame waits for, to be settled before its present.
    pub(crate) fn note_host_waits(&mut self, batches: &[Batch<'_>]) {
        let sh = self;
        sh.frame_host_waits.clear();
        for &(token, _) in batches.iter().flat_map(|b| b.waits) {
            if let Some(t) = sh.timelines.iter().find(|t| t.stream == token.stream()) {
                sh.frame_host_waits.push((Arc::clone(t), token.value()));
            }
        }
    }

    /// Waits (bounded) until every host-timeline value the submitted frame waits for has been
    /// signalled. A present may not wait on a semaphore whose signal depends on a timeline
    /// value not yet signalled ("any semaphore signal operations on which it depends must have
    /// also been submitted for execution", VUID-vkQueuePresentKHR-pWaitSemaphores-03268), so a
    /// frame that waits before the producer's signal is presented only after it.
    /// One bound for all of them; a timeline destroyed meanwhile (against its contract) is
    /// skipped rather than waited on.
    pub(crate) fn settle_host_waits(&mut self) -> Result<()> {
        let sh = &*self;
        if sh.frame_host_waits.is_empty() {
            return Ok(());
        }
        let deadline = Instant::now() + sh.wait_timeout;
        for (timeline, value) in &sh.frame_host_waits {
            if timeline.destroyed() {
                continue;
            }
            timeline.wait_signalled(*value, deadline, sh.wait_timeout)?;
        }
        self.frame_host_waits.clear();
        Ok(())
    }
}
