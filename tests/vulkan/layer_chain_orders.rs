//! The pacing layer in every position of the layer chain a user meets (issue 50, "never crash
//! a program"): Debian's vkcube, unmodified, at `VKPACE_FPS=30` for 30 frames, must exit 0
//! with the layer having paced it, its instance destroyed through the layer once, and the
//! driver's `vkDestroyInstance` reached once per instance made. Three orders:
//!
//! - **by name, last**: the manifest on `VK_LAYER_PATH`, `VK_INSTANCE_LAYERS` naming it (as
//!   many guides and launchers enable layers); Mesa's implicit device-select layer then sits
//!   above it and nothing but the loader's terminator below. Bookworm's loader (1.3.239)
//!   answered a late lookup of `vkDestroyInstance` there with the top of the chain, and vkcube
//!   died with SIGSEGV in device-select at every exit (10 of 10); the layer now looks its
//!   commands up when the instance is made. The driver's destroy is the terminator's, which
//!   the layer's line shows it called;
//! - **by name, above vdisplay**: `VK_INSTANCE_LAYERS=pacing:vdisplay`, vdisplay (a real layer
//!   just above the driver, passing vkcube's window to it) saying each instance the driver
//!   made and destroyed (`trace_instances`): as many destroyed as made;
//! - **implicit**: the committed manifest installed as an implicit layer (`XDG_DATA_HOME`,
//!   `VKPACE_PACING=1`) above vdisplay enabled by name: as many destroyed as made.
//!
//! Each order 3 runs per push, 20 in the whole matrix; on both stacks per push (bookworm's
//! loader is where the crash was).

use crate::demo_process;
use crate::pacing_layer_support;

use std::ffi::OsString;
use std::process::Command;
use std::time::Duration;

use anyhow::{ensure, Result};
use demo_process::{run_to_files, Display};
use pacing_layer_support::Installed;
use vkpace_demo::virtual_display;

/// A run ends within this (a hang, not a measurement).
const LIMIT: Duration = Duration::from_secs(60);
/// The layer's lines a run must have: it paced vkcube, and destroyed its instance.
const PACED: &str = "vkpace-pacing: vkcube: paces";
const DESTROYED: &str = "vkDestroyInstance: instance destroyed through the layer";
/// vdisplay's lines (`trace_instances`).
const DRIVER_MADE: &str = "vdisplay: vkCreateInstance: instance made by the driver";
const DRIVER_DESTROYED: &str = "vdisplay: vkDestroyInstance: instance destroyed by the driver";

/// Where the layer sits.
#[derive(Clone, Copy, Debug)]
enum Order {
    ByNameLast,
    ByNameAboveVdisplay,
    ImplicitAboveVdisplay,
}

#[test]
fn enabled_by_name_last_in_the_chain_vkcube_exits_cleanly() -> Result<()> {
    runs(Order::ByNameLast)
}

#[test]
fn enabled_by_name_above_another_layer_the_drivers_destroy_is_reached_once() -> Result<()> {
    runs(Order::ByNameAboveVdisplay)
}

#[test]
fn enabled_implicitly_above_another_layer_the_drivers_destroy_is_reached_once() -> Result<()> {
    runs(Order::ImplicitAboveVdisplay)
}

/// Runs vkcube in `order` 3 times (20 in the whole matrix), judging each run.
fn runs(order: Order) -> Result<()> {
    let display = Display::get()?;
    let layer = Installed::new(&format!("chain_{order:?}"))?;
    let runs = crate::run_length::frames(3, 20);
    for i in 0..runs {
        let mut cmd = vkcube(&display, &layer, order)?;
        let tag = format!("{order:?}_{i}");
        let done = run_to_files(&mut cmd, "layer_chain_orders", &tag, LIMIT)?;
        let output = format!("{}\n{}", done.stdout, done.stderr);
        ensure!(
            done.status.success(),
            "{order:?}, run {i} of {runs}: vkcube ended with {}: {output}",
            done.status
        );
        judge(order, &output).map_err(|e| e.context(format!("{order:?}, run {i}: {output}")))?;
    }
    eprintln!("vkcube, layer {order:?}: {runs} of {runs} runs exit 0, the driver's destroy reached once per instance");
    Ok(())
}

/// The lines of one run: paced, one destroy through the layer (vkcube makes one instance),
/// and where vdisplay is below, as many destroyed by the driver as made.
fn judge(order: Order, output: &str) -> Result<()> {
    let count = |line: &str| output.lines().filter(|l| l.contains(line)).count();
    ensure!(output.contains(PACED), "the layer did not pace vkcube");
    ensure!(
        count(DESTROYED) == 1,
        "{} destroys through the layer",
        count(DESTROYED)
    );
    match order {
        Order::ByNameLast => ensure!(
            output.contains("below it: libvulkan.so.1"),
            "the layer should be last before the loader's terminator"
        ),
        Order::ByNameAboveVdisplay | Order::ImplicitAboveVdisplay => {
            let (made, destroyed) = (count(DRIVER_MADE), count(DRIVER_DESTROYED));
            ensure!(
                made >= 1 && destroyed == made,
                "the driver made {made} instances and destroyed {destroyed}"
            );
        }
    }
    Ok(())
}

/// vkcube in an X11 window for 30 frames at 30 fps with the layer in `order`.
fn vkcube(display: &Display, layer: &Installed, order: Order) -> Result<Command> {
    let mut cmd = Command::new("vkcube");
    cmd.args(["--c", "30"])
        .env("DISPLAY", display.name())
        .env_remove("WAYLAND_DISPLAY")
        .env("VKPACE_CONFIG", layer.root.join("none.conf"))
        .env("VKPACE_FPS", "30")
        .env("VDISPLAY_TRACE_INSTANCES", "on");
    let implicit_dir = layer.root.join("vulkan/implicit_layer.d");
    let vdisplay_dir = || -> Result<OsString> {
        Ok(virtual_display::write_manifest(&virtual_display::find_library()?)?.into_os_string())
    };
    match order {
        Order::ByNameLast => {
            cmd.env("VK_LAYER_PATH", &implicit_dir)
                .env("XDG_DATA_HOME", layer.root.join("none"))
                .env("VK_INSTANCE_LAYERS", "VK_LAYER_VKPACE_pacing");
        }
        Order::ByNameAboveVdisplay => {
            let mut path = implicit_dir.into_os_string();
            path.push(":");
            path.push(vdisplay_dir()?);
            cmd.env("VK_LAYER_PATH", path)
                .env("XDG_DATA_HOME", layer.root.join("none"))
                .env(
                    "VK_INSTANCE_LAYERS",
                    "VK_LAYER_VKPACE_pacing:VK_LAYER_VKPACE_vdisplay",
                );
        }
        Order::ImplicitAboveVdisplay => {
            cmd.envs(layer.env())
                .env("VK_LAYER_PATH", vdisplay_dir()?)
                .env("VK_INSTANCE_LAYERS", "VK_LAYER_VKPACE_vdisplay");
        }
    }
    Ok(cmd)
}
