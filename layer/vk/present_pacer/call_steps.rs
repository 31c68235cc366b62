//! The steps of a [`PacerCall`]: each plan moves the call to its next [`Stage`] and says what
//! to do without the pacer ([`Down`]); each report takes what was done ([`Made`]). The
//! decisions are the pacer's own steps: the present's plan and report (`present_plan.rs`,
//! `present.rs`), the pacing pauses (`pause.rs`), the bounded waits (`waits.rs`), creation and
//! destruction (`create.rs`); this file only orders them.

use ash::vk;

use super::call::PacerCall;
use super::call_state::{Down, Made, Op, Outcome, Stage};
use super::create::{keep, Doomed};
use super::pause::Paused;
use super::waits::WaitStep;
use super::PresentPacer;
use vkpace_core::{BoundedWait, DestroyOutcome};

impl PresentPacer {
    /// The plan of `call`'s next step (moving over stages that need no call down); `None`:
    /// the call is over.
    pub(super) fn plan_step<T>(&mut self, call: &mut PacerCall<'_, T>) -> Option<Down> {
        loop {
            let stage = std::mem::replace(&mut call.stage, Stage::Done);
            let (next, down) = self.plan_stage(call, stage);
            call.stage = next;
            if down.is_some() || matches!(call.stage, Stage::Done) {
                return down;
            }
        }
    }

    /// One stage's plan: the stage after it, and its call down (if any).
    fn plan_stage<T>(
        &mut self,
        call: &mut PacerCall<'_, T>,
        stage: Stage,
    ) -> (Stage, Option<Down>) {
        match (stage, call.op) {
            (Stage::Start, op) => self.start(call, op),
            (
                Stage::PresentPlan {
                    mut deadline,
                    waited,
                },
                Op::Present { queue, info },
            ) => {
                // SAFETY: the contract of the call's maker (`present_call`).
                let down =
                    unsafe { self.present_step(queue, info, &mut deadline, waited, call.in_call) };
                let stage = match down {
                    // A wait for a repair semaphore's proof, then the plan again.
                    Down::Pause(_) => Stage::PresentPlan {
                        deadline,
                        waited: None,
                    },
                    _ => Stage::Done,
                };
                (stage, Some(down))
            }
            (
                Stage::Pacing {
                    swapchain,
                    deadline,
                },
                op,
            ) => self.plan_pause(op, swapchain, deadline),
            (Stage::Acquiring, _) => (Stage::Done, Some(Down::Through)),
            (Stage::DestroyWaits { deadline, waited }, op) => {
                self.plan_bounded(op, deadline, waited, call.in_call)
            }
            (Stage::Dooming { unpaced }, op) => self.dooming(op, unpaced),
            (_, _) => (Stage::Done, None),
        }
    }

    /// The next pause before `swapchain`'s lineage may begin a frame, if any.
    fn plan_pause(
        &mut self,
        op: Op<'_>,
        swapchain: vk::SwapchainKHR,
        mut deadline: Option<u64>,
    ) -> (Stage, Option<Down>) {
        match self.next_pause(swapchain, &mut deadline) {
            Ok(Some(pause)) => {
                let stage = Stage::Pacing {
                    swapchain,
                    deadline,
                };
                (stage, Some(Down::Pause(pause)))
            }
            Ok(None) => (after_pacing(op), None),
            Err(e) => {
                log::error!("vkpace: pacing {swapchain:?}: {e}");
                (after_pacing(op), None)
            }
        }
    }

    /// A destruction's next bounded wait, if any ([`PresentPacer::bounded_step`]).
    fn plan_bounded(
        &mut self,
        op: Op<'_>,
        mut deadline: Option<u64>,
        waited: Option<(BoundedWait, Paused)>,
        in_call: bool,
    ) -> (Stage, Option<Down>) {
        let done = Stage::Dooming { unpaced: false };
        match self.bounded_step(&mut deadline, waited, in_call) {
            Ok(WaitStep::Wait(w, pause)) => {
                let stage = Stage::DestroyWaits {
                    deadline,
                    waited: None,
                };
                (stage, Some(Down::Bounded(w, pause)))
            }
            Ok(WaitStep::Done(_)) => (done, None),
            Err(e) => {
                if let Op::Destroy { swapchain, .. } = op {
                    log::error!("vkpace: waiting to destroy swapchain {swapchain:?}: {e}");
                }
                (done, None)
            }
        }
    }

    /// A call's first stage.
    fn start<T>(&mut self, call: &mut PacerCall<'_, T>, op: Op<'_>) -> (Stage, Option<Down>) {
        match op {
            Op::Present { .. } => (
                Stage::PresentPlan {
                    deadline: None,
                    waited: None,
                },
                None,
            ),
            Op::Acquire { .. } | Op::Acquire2 { .. } => (
                Stage::Pacing {
                    swapchain: op.acquired_swapchain(),
                    deadline: None,
                },
                None,
            ),
            Op::Create { info, .. } => match self.paced_creation(info) {
                true => (Stage::Done, Some(Down::Create)),
                false => (Stage::Done, Some(Down::Through)),
            },
            Op::Destroy {
                swapchain,
                allocator,
            } => {
                call.outcome = Some(Outcome::Destroyed);
                if swapchain == vk::SwapchainKHR::null() {
                    return (Stage::Done, None);
                }
                let stage = match self.destroy_asked(swapchain, allocator.map(keep)) {
                    Some(DestroyOutcome::Now) => Stage::DestroyWaits {
                        deadline: None,
                        waited: None,
                    },
                    outcome => Stage::Dooming {
                        unpaced: outcome == Some(DestroyOutcome::Unpaced),
                    },
                };
                (stage, None)
            }
        }
    }

    /// A destruction's driver calls: the machine's destructions, and the swapchain itself
    /// where the pacer does not pace it.
    fn dooming(&mut self, op: Op<'_>, unpaced: bool) -> (Stage, Option<Down>) {
        let mut doomed = self.doomed();
        if let (
            true,
            Op::Destroy {
                swapchain,
                allocator,
            },
        ) = (unpaced, op)
        {
            doomed.push(Doomed::Swapchain(swapchain, allocator.map(keep)));
        }
        if doomed.is_empty() {
            return (Stage::Done, None);
        }
        (Stage::Done, Some(Down::Destroy(doomed)))
    }

    /// The report of `call`'s last step.
    pub(super) fn report_step<T>(&mut self, call: &mut PacerCall<'_, T>, made: Made) {
        let stage = std::mem::replace(&mut call.stage, Stage::Done);
        call.stage = match (made, stage) {
            (Made::Paused(paused), Stage::PresentPlan { deadline, .. }) => Stage::PresentPlan {
                deadline,
                waited: Some(paused),
            },
            (
                Made::Paused(paused),
                Stage::Pacing {
                    swapchain,
                    deadline,
                },
            ) => match self.pause_done(swapchain, paused, call.in_call) {
                Ok(()) => Stage::Pacing {
                    swapchain,
                    deadline,
                },
                Err(e) => {
                    log::error!("vkpace: pacing {swapchain:?}: {e}");
                    after_pacing(call.op)
                }
            },
            (Made::Bounded(w, paused), Stage::DestroyWaits { deadline, .. }) => {
                Stage::DestroyWaits {
                    deadline,
                    waited: Some((w, paused)),
                }
            }
            (made, _) => self.report_call(call, made),
        };
    }

    /// The report of the application's call itself (the driver's present, acquire, creation or
    /// destruction): its result kept for the call; the stage after it.
    fn report_call<T>(&mut self, call: &mut PacerCall<'_, T>, made: Made) -> Stage {
        let outcome = match made {
            Made::Presented(made) => {
                let (result, next) = self.present_reported(made, call.in_call);
                call.outcome = Some(Outcome::Presented(result));
                return match next {
                    Some(swapchain) => Stage::Pacing {
                        swapchain,
                        deadline: None,
                    },
                    None => Stage::Done,
                };
            }
            Made::Acquired(got) => {
                self.record_acquire(call.op.acquired_swapchain(), &got, call.in_call);
                Outcome::Acquired(got)
            }
            Made::Created(got) => match call.op {
                Op::Create { info, allocator } => {
                    Outcome::Created(self.created(info, allocator, got, call.in_call))
                }
                _ => return Stage::Done,
            },
            Made::Destroyed { swapchains } => {
                if swapchains {
                    self.calls_down.count(call.in_call);
                }
                return Stage::Done;
            }
            Made::Through(outcome) => outcome,
            // A wait's report that does not fit the stage: the call ends.
            Made::Paused(_) | Made::Bounded(..) => return Stage::Done,
        };
        call.outcome = Some(outcome);
        Stage::Done
    }
}

/// The stage after the pacing of the lineage's next frame: the driver's acquire for an
/// acquire; over for a present.
fn after_pacing(op: Op<'_>) -> Stage {
    match op {
        Op::Acquire { .. } | Op::Acquire2 { .. } => Stage::Acquiring,
        _ => Stage::Done,
    }
}
