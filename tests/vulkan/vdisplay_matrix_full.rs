//! The 16 cases of `vdisplay_matrix` that `scripts/test` runs only with `--full`: the same run
//! and checks (`vdisplay_matrix::run_case`), for the combinations of present mode, frames in
//! flight and sync path that the per-push eight do not make. Its own module, so the suite's
//! lists (`scripts/test`) can leave it out per push.

use crate::vdisplay_matrix::matrix;

matrix! {
    legacy_fifo_2: FIFO, 2, false; legacy_fifo_3: FIFO, 3, false;
    legacy_fifo_relaxed_1: FIFO_RELAXED, 1, false; legacy_fifo_relaxed_3: FIFO_RELAXED, 3, false;
    legacy_mailbox_1: MAILBOX, 1, false; legacy_mailbox_2: MAILBOX, 2, false;
    legacy_immediate_1: IMMEDIATE, 1, false; legacy_immediate_3: IMMEDIATE, 3, false;
    m1_fifo_1: FIFO, 1, true; m1_fifo_2: FIFO, 2, true;
    m1_fifo_relaxed_2: FIFO_RELAXED, 2, true; m1_fifo_relaxed_3: FIFO_RELAXED, 3, true;
    m1_mailbox_1: MAILBOX, 1, true; m1_mailbox_3: MAILBOX, 3, true;
    m1_immediate_2: IMMEDIATE, 2, true; m1_immediate_3: IMMEDIATE, 3, true;
}
