//! `VK_LAYER_VKPACE_pacing` installed as a user installs it: `vkpace-pacing-install` writes
//! its manifest into a private `$XDG_DATA_HOME/vulkan/implicit_layer.d` (its default there,
//! which both loaders search; bookworm's 1.3.239 has no `VK_ADD_IMPLICIT_LAYER_PATH`), and a
//! probe application (this executable run again with `--probe`, linked to nothing but the
//! loader) creates an instance and a device on the stack's driver, uses them, and destroys
//! them:
//! * not enabled: the loader does not load the layer, which intercepts nothing (no line of its
//!   log);
//! * `VKPACE_PACING=1`: instance and device creation and destruction go through the layer, one
//!   log line each, in order, and everything else passes through to a working device;
//! * `VKPACE_PACING=1` with `DISABLE_VKPACE_PACING=0`: the disable variable wins, whatever its
//!   value (both loaders disable an implicit layer whose disable variable is set at all);
//! * enabled by name (`VK_INSTANCE_LAYERS`, the manifest on `VK_LAYER_PATH`), where Mesa's
//!   implicit device-select layer sits above it and the layer is last before the driver: the
//!   probe exits 0 with the same lines, [`BY_NAME_RUNS`] times (bookworm's loader 1.3.239
//!   answered a late lookup of `vkDestroyInstance` with the top of the chain, and the probe
//!   died with SIGSEGV in device-select at every exit: 3 of 3 before the fix);
//! * after `vkpace-pacing-install --uninstall`: the manifest is gone and `VKPACE_PACING=1`
//!   finds no layer.
//!
//! Run: `cargo test --release -p vkpace-pacing-layer --test pacing_layer_enable` (cargo builds
//! the layer library and the installer next to it); on sid through `scripts/on-stack sid --
//! EXE`.

use std::error::Error;
use std::path::Path;
use std::process::Command;

use ash::vk;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// The argument that makes this executable the probe application.
const PROBE: &str = "--probe";
/// The prefix of every line the layer writes.
const LAYER_LOG: &str = "vkpace-pacing: ";
/// The layer's lines when enabled, in order: what it will do for the program (read at the
/// first instance), then what it intercepts.
const ENABLED_LINES: [&str; 5] = [
    ": paces (",
    "vkCreateInstance:",
    "vkCreateDevice:",
    "vkDestroyDevice:",
    "vkDestroyInstance:",
];

fn main() -> Result<()> {
    if std::env::args().any(|a| a == PROBE) {
        return probe();
    }
    let data_home =
        std::env::temp_dir().join(format!("vkpace-pacing-layer-{}", std::process::id()));
    let outcome = install_and_run_cases(&data_home);
    std::fs::remove_dir_all(&data_home)?;
    outcome?;
    println!("pacing_layer_enable: 5 cases passed");
    Ok(())
}

/// The manifest's file name in the implicit-layer directory.
const MANIFEST: &str = "VkLayer_VKPACE_pacing.json";

/// Installs with the installer, runs the three installed cases, uninstalls and runs the last.
fn install_and_run_cases(data_home: &Path) -> Result<()> {
    let said = installer(data_home, &[])?;
    let manifest = data_home.join("vulkan/implicit_layer.d").join(MANIFEST);
    assert!(
        said.contains(&format!("installed {}", manifest.display())),
        "{said}"
    );
    assert!(
        said.contains("VKPACE_PACING=1 VKPACE_FPS=60 %command%"),
        "{said}"
    );
    check_manifest(&manifest)?;
    run_cases(data_home)?;
    run_by_name(data_home, &manifest)?;
    let said = installer(data_home, &["--uninstall"])?;
    assert!(
        said.contains(&format!("removed {}", manifest.display())),
        "{said}"
    );
    assert!(!manifest.exists(), "the manifest is gone");
    let case: Case<'_> = ("uninstalled", &[("VKPACE_PACING", "1")], &[]);
    run_case(data_home, case)
}

/// One case: its name, the environment set for the probe, the layer's expected lines.
type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a [&'a str]);

/// The three cases.
fn run_cases(data_home: &Path) -> Result<()> {
    let cases: [Case<'_>; 3] = [
        ("not enabled", &[], &[]),
        ("enabled", &[("VKPACE_PACING", "1")], &ENABLED_LINES),
        (
            "enabled and disabled (any value disables, 0 too)",
            &[("VKPACE_PACING", "1"), ("DISABLE_VKPACE_PACING", "0")],
            &[],
        ),
    ];
    for case in cases {
        run_case(data_home, case)?;
    }
    Ok(())
}

/// How many times the probe runs with the layer enabled by name: 20 in the whole matrix
/// (`VKPACE_FULL=1`, the acceptance), 3 per push (under a second each).
fn by_name_runs() -> usize {
    if std::env::var_os("VKPACE_FULL").is_some_and(|v| v == "1") {
        20
    } else {
        3
    }
}

/// The layer enabled by name below device-select, its implicit manifest out of reach: every
/// run exits 0 ([`run_probe`] requires it) with the enabled lines.
fn run_by_name(data_home: &Path, manifest: &Path) -> Result<()> {
    let dir = manifest.parent().ok_or("the manifest has no directory")?;
    let dir = dir.to_str().ok_or("a manifest path that is not UTF-8")?;
    let elsewhere = data_home.join("none");
    let elsewhere = elsewhere.to_str().ok_or("a path that is not UTF-8")?;
    let env = [
        ("VK_LAYER_PATH", dir),
        ("VK_INSTANCE_LAYERS", "VK_LAYER_VKPACE_pacing"),
        ("XDG_DATA_HOME", elsewhere),
    ];
    let runs = by_name_runs();
    for _ in 0..runs {
        run_case(data_home, ("enabled by name", &env, &ENABLED_LINES))?;
    }
    println!("case enabled by name: {runs} runs exited 0");
    Ok(())
}

/// Runs the probe for one case; its layer lines must be the expected ones.
fn run_case(data_home: &Path, (name, env, expected): Case<'_>) -> Result<()> {
    let lines = run_probe(data_home, env)?;
    println!("case {name}: layer lines {lines:?}");
    assert_eq!(lines.len(), expected.len(), "case {name}: {lines:?}");
    for (line, want) in lines.iter().zip(expected.iter()) {
        assert!(
            line.contains(want),
            "case {name}: {line:?} should contain {want:?}"
        );
    }
    Ok(())
}

/// Runs the probe with the layer's manifest under `data_home` and `env` set (the layer's own
/// variables otherwise unset); returns the layer's log lines (prefix removed).
fn run_probe(data_home: &Path, env: &[(&str, &str)]) -> Result<Vec<String>> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.arg(PROBE)
        .env("XDG_DATA_HOME", data_home)
        .env_remove("VKPACE_PACING")
        .env_remove("DISABLE_VKPACE_PACING")
        .env_remove("VK_LOADER_LAYERS_ENABLE")
        .env_remove("VK_INSTANCE_LAYERS")
        .env_remove("VK_LAYER_PATH")
        .env_remove("VK_LOADER_LAYERS_DISABLE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() || !stdout.contains("probe: done") {
        return Err(format!("probe failed ({}):\n{stdout}\n{stderr}", out.status).into());
    }
    Ok(stderr
        .lines()
        .filter_map(|l| l.strip_prefix(LAYER_LOG))
        .map(str::to_string)
        .collect())
}

/// Runs `vkpace-pacing-install` with `args` and `data_home` as `XDG_DATA_HOME` (its default
/// directory then lies there); it must succeed. Returns what it printed.
fn installer(data_home: &Path, args: &[&str]) -> Result<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_vkpace-pacing-install"))
        .args(args)
        .env("XDG_DATA_HOME", data_home)
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(format!("vkpace-pacing-install {args:?} failed: {stdout}{stderr}").into());
    }
    Ok(stdout)
}

/// The installed manifest: no `$LIB`, the enable and disable variables, and the library by
/// absolute path to an existing file.
fn check_manifest(manifest: &Path) -> Result<()> {
    let text = std::fs::read_to_string(manifest)?;
    assert!(!text.contains("$LIB"), "no $LIB in the manifest: {text}");
    for key in ["\"enable_environment\"", "\"disable_environment\""] {
        assert!(text.contains(key), "the manifest has {key}");
    }
    let line = text
        .lines()
        .find(|l| l.contains("\"library_path\""))
        .ok_or("no library_path")?;
    let path = Path::new(line.split('"').nth(3).ok_or("library_path has no value")?);
    assert!(path.is_absolute() && path.is_file(), "{line}");
    Ok(())
}

/// The probe application: an instance and a device on the first physical device, a queue
/// waited on (a command the layer passes through), then both destroyed.
fn probe() -> Result<()> {
    // SAFETY: loads the system's Vulkan loader.
    let entry = unsafe { ash::Entry::load()? };
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    let info = vk::InstanceCreateInfo::default().application_info(&app);
    // SAFETY: a valid create info.
    let instance = unsafe { entry.create_instance(&info, None)? };
    // SAFETY: a valid instance; every object is destroyed below, children first.
    unsafe {
        let pd = *instance
            .enumerate_physical_devices()?
            .first()
            .ok_or("no physical device")?;
        let props = instance.get_physical_device_properties(pd);
        let name = props.device_name_as_c_str()?.to_string_lossy().into_owned();
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&priorities)];
        let device = instance.create_device(
            pd,
            &vk::DeviceCreateInfo::default().queue_create_infos(&queues),
            None,
        )?;
        device.queue_wait_idle(device.get_device_queue(0, 0))?;
        device.destroy_device(None);
        instance.destroy_instance(None);
        println!("probe: done on {name}");
    }
    Ok(())
}
