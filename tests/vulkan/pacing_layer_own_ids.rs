//! `VK_LAYER_VKPACE_pacing` under a program that gives its own present ids and waits for them
//! with present wait2 (`VK_KHR_present_id2` + `VK_KHR_present_wait2` with both features on, as
//! vkd3d-proton and newer DXVK do; no such unmodified program is installed here): the second
//! door's example with `--vkpace --only-present-wait2` (vkpace's pacer inside it, without a
//! frame limit, gives every present a `VkPresentId2KHR` id and watches it with present wait2),
//! headless over the virtual display at 60 Hz (which offers present id2, wait2 and present
//! timing) through the layer at `VKPACE_FPS=30`, the validation layer between the layer and
//! vdisplay (so it checks what the layer passes down: its device create info with present
//! timing beside the program's own id2 features, and its presents). The layer says it watches
//! through the program's ids with the program's present wait2 and adds present timing below it;
//! by vdisplay's log every present carries the program's id and the layer's target, and the shown
//! intervals after the first 20 are 2 refreshes (at most 2 not: a frame lavapipe finished after
//! its blank under load); validation says nothing.

use crate::demo_process;
use crate::pacing_layer_support;

use std::process::Command;
use std::time::Duration;

use anyhow::{ensure, Result};
use demo_process::{example, run_to_files};
use pacing_layer_support::Installed;
use vkpace_demo::virtual_display::{self, GridRecord};

const FRAMES: usize = 120;
const SETTLE: usize = 20;
const REFRESH_NS: u64 = 1_000_000_000 / 60;
/// A run ends within this (a hang, not a measurement).
const LIMIT: Duration = Duration::from_secs(90);

#[test]
fn a_programs_own_present_wait2_is_used_and_targets_go_on_beside_its_ids() -> Result<()> {
    if !validation_layer_knows_present_id2()? {
        eprintln!("this stack's validation layer predates present id2 (sid's knows it), and the example leaves present wait2 off under it: skipped here");
        return Ok(());
    }
    let layer = Installed::new("own_ids_wait2")?;
    let manifest = virtual_display::write_manifest(&virtual_display::find_library()?)?;
    let log = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("pacing_layer")
        .join("own_ids_wait2.vdisplay.log");
    std::fs::create_dir_all(log.parent().unwrap_or(&log))?;
    // vdisplay appends to its log: an earlier run's presents are not this run's.
    let _ = std::fs::remove_file(&log);
    let mut cmd = Command::new(example("own_swapchain")?);
    cmd.args([
        "--headless",
        "--vkpace",
        "--only-present-wait2",
        "--validation",
    ])
    .args(["--json", "--frames", &FRAMES.to_string()])
    .envs(layer.env())
    .envs(virtual_display::loader_env(&manifest, false))
    .env(
        "VK_INSTANCE_LAYERS",
        "VK_LAYER_VKPACE_pacing:VK_LAYER_KHRONOS_validation:VK_LAYER_VKPACE_vdisplay",
    )
    .env("VDISPLAY_LOG", &log)
    .env("VKPACE_FPS", "30");
    let done = run_to_files(&mut cmd, "pacing_layer", "own_ids_wait2", LIMIT)?;
    let out = format!("{}\n{}", done.stdout, done.stderr);
    judge_output(&out)?;
    let presents = virtual_display::read_present_log(&log)?;
    let with_ids = presents.iter().filter(|p| p.present_id != 0).count();
    let grid = GridRecord::of(&presents, SETTLE, REFRESH_NS);
    let off = grid.off(2);
    eprintln!(
        "own_swapchain with its own present wait2 through the layer: {} presents, {with_ids} with the program's ids, {} with targets, {off} of {} intervals not 2 refreshes",
        grid.presents,
        grid.targeted,
        grid.refreshes.len()
    );
    ensure!(grid.presents == FRAMES && with_ids == FRAMES, "{out}");
    ensure!(grid.targeted == FRAMES, "{} targeted: {out}", grid.targeted);
    // Beside other work on 2 cores lavapipe now and then finishes a frame after its blank,
    // which is then shown a refresh late (as in the other display-lane tests): at most 2.
    ensure!(off <= 2, "intervals in refreshes: {:?}", grid.refreshes);
    Ok(())
}

/// The layer's lines: it watches with the program's present wait2 and adds present timing below
/// it; and validation (between the layer and vdisplay) says nothing.
fn judge_output(out: &str) -> Result<()> {
    let line = |has: &[&str]| out.lines().any(|l| has.iter().all(|h| l.contains(h)));
    ensure!(
        line(&[
            "to track its own presents",
            "VK_KHR_present_wait2",
            "with its present wait2"
        ]),
        "the layer's line about the program's feedback: {out}"
    );
    ensure!(
        line(&["enabled below the application: ", "VK_EXT_present_timing"])
            && line(&["present wait2 (the application's own", "in use"]),
        "present timing below the program, its present wait2 in use: {out}"
    );
    ensure!(
        !out.contains("VUID-") && out.contains("\"validation_messages\":0"),
        "validation between the layer and vdisplay: {out}"
    );
    Ok(())
}

/// Whether the validation layer knows present id2 and wait2 (1.4.317; sid's does): the example
/// leaves present wait2 off under an older one, which reports their structures as unknown.
fn validation_layer_knows_present_id2() -> Result<bool> {
    // SAFETY: loads the system's Vulkan loader; a plain query.
    let entry = unsafe { ash::Entry::load() }?;
    // SAFETY: as above.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }?;
    Ok(layers.iter().any(|l| {
        l.layer_name_as_c_str() == Ok(c"VK_LAYER_KHRONOS_validation")
            && l.spec_version >= ash::vk::make_api_version(0, 1, 4, 317)
    }))
}
