//! A thread ended inside the pacing layer the way Wine ends a game's threads at `ExitProcess`
//! (a `SIGQUIT` whose handler calls `pthread_exit`, a forced unwind from wherever the thread
//! was): the process goes on. Debian's vkcube runs through the layer at a 300 fps cap, so that
//! much of its presenting thread's time is in the layer's pause or the driver's present; the
//! preloaded shim (`tests/programs/thread_end_shim.c`, built by the demo's build script) ends
//! that thread a while after the layer starts pacing, then ends the process with status 42
//! once the thread is gone. Before the entry points held the signal back (`layer-plumbing`'s
//! `thread_end.rs`) the process aborted (the unwind met a frame of the layer's whose unwind
//! table stopped it; docs/testing.md has the runs); the Wine test (`wine_dxvk.rs`) is the
//! same end through Wine and DXVK.

use crate::demo_process;
use crate::pacing_layer_support;

use std::process::Command;
use std::time::Duration;

use anyhow::{ensure, Result};
use demo_process::{run_to_files, Display};
use pacing_layer_support::Installed;

/// A run ends within this (a hang, not a measurement).
const LIMIT: Duration = Duration::from_secs(60);
/// The shim's status once the thread ended cleanly.
const ENDED: i32 = 42;

#[test]
fn a_thread_ended_inside_the_layer_ends_and_the_process_goes_on() -> Result<()> {
    let shim = std::path::Path::new(env!("OUT_DIR")).join("thread_end_shim.so");
    ensure!(
        shim.exists(),
        "{} was not built (the build script needs `cc`)",
        shim.display()
    );
    let display = Display::get()?;
    let layer = Installed::new("thread_end")?;
    let runs = crate::run_length::frames(12, 60);
    for i in 0..runs {
        let log = layer.root.join(format!("frames_{i}.csv"));
        let _ = std::fs::remove_file(&log);
        // From 300 ms after the layer began pacing, 47 ms apart: each at its own point of a
        // frame.
        let delay_us = 300_000 + i * 47_000;
        let mut cmd = Command::new("vkcube");
        cmd.args(["--c", "100000"])
            .env("DISPLAY", display.name())
            .env_remove("WAYLAND_DISPLAY")
            .envs(layer.env())
            .env("VKPACE_FPS", "300")
            .env("VKPACE_LOG", &log)
            .env("THREAD_END_AFTER_FILE", &log)
            .env("THREAD_END_DELAY_US", delay_us.to_string())
            .env("LD_PRELOAD", &shim);
        let run = run_to_files(&mut cmd, "thread_end", &format!("vkcube_{i}"), LIMIT)?;
        ensure!(
            run.status.code() == Some(ENDED),
            "run {i} of {runs} (ended {delay_us} us after the layer began pacing): {}: {}",
            run.status,
            run.stderr
        );
        ensure!(
            run.stderr.contains("vkpace-pacing: vkcube: paces"),
            "run {i}: the layer did not pace vkcube: {}",
            run.stderr
        );
    }
    eprintln!("vkcube's presenting thread ended inside the layer: {runs} of {runs} runs went on");
    Ok(())
}
