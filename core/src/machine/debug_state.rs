//! The state dump (Android's `/d/sync` for vkpace): everything the machine is waiting for, in
//! one text a person can read when a frame loop is stuck or a validation message needs context.
//! Handles print as the shell's handle type does (Vulkan handles in hex, as the validation layer
//! names them).

use std::fmt;

use super::{FrameMachine, Op};
use crate::handle::Handle;

/// A view of a machine that prints its state; see [`FrameMachine::debug_state`].
pub struct DebugState<'a, S, W, F> {
    machine: &'a FrameMachine<S, W, F>,
}

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    /// The machine's state as text: its stream's submitted and completed values, every
    /// registered stream's, the GPU waits between them that may be pending, the pending
    /// submissions (with their fence or timeline value) and present fences, the frame in
    /// progress, the acquire ring, each image's present history and what proves it, every
    /// retired swapchain and the proof it waits for.
    ///
    /// ```
    /// use vkpace_core::{FrameMachine, MachineConfig};
    /// let machine = FrameMachine::<u64, u64, u64>::new(MachineConfig::default())?;
    /// let text = machine.debug_state().to_string();
    /// assert!(text.contains("submitted #0, completed #0"));
    /// # Ok::<(), vkpace_core::CoreError>(())
    /// ```
    #[must_use]
    pub fn debug_state(&self) -> DebugState<'_, S, W, F> {
        DebugState { machine: self }
    }
}

impl<S: Handle, W: Handle, F: Handle> fmt::Display for DebugState<'_, S, W, F> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.machine;
        let last = m.last_submitted();
        writeln!(
            out,
            "vkpace state: stream {}, submitted #{}, completed {}; operation {}",
            last.stream(),
            last.value(),
            m.presenter.completed(),
            op_name(m.op)
        )?;
        m.dump_settings(out)?;
        m.sync.dump(out)?;
        m.fences.dump(out, m.presenter.completed())?;
        m.presenter.dump(out)
    }
}

impl<S: Handle, W: Handle, F: Handle> FrameMachine<S, W, F> {
    fn dump_settings(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            out,
            "  pacing {:?}, frame limit {:?}, maintenance1 {}, present ids {}, completion by {}",
            self.pacing.policy(),
            self.pacing.frame_limit(),
            self.config.maintenance1,
            self.config.present_ids,
            self.config.completion.name()
        )?;
        match &self.live {
            Some(live) => write!(
                out,
                "\n  live swapchain generation {}: {}x{}, {:?}, {:?}, {} images asked",
                live.generation,
                live.plan.extent.width,
                live.plan.extent.height,
                live.plan.format,
                live.plan.present_mode,
                live.plan.image_count
            )?,
            None => write!(out, "\n  no live swapchain")?,
        }
        if self.needs_recreate {
            write!(out, " (recreation due)")?;
        }
        if let Some(f) = &self.frame {
            write!(
                out,
                "\n  frame #{} {}",
                f.number,
                if f.handed_out {
                    "handed to the renderer"
                } else {
                    "being acquired"
                }
            )?;
        }
        writeln!(out)
    }
}

fn op_name(op: Op) -> &'static str {
    match op {
        Op::Idle => "idle",
        Op::Setup => "setup",
        Op::Acquire(_) => "acquire",
        Op::Present => "present",
        Op::Shutdown => "teardown",
        Op::Token(_) => "token wait",
    }
}
