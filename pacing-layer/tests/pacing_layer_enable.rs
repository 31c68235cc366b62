//! `VK_LAYER_VKPACE_pacing` installed as an implicit layer (its committed manifest, in a
//! private `$XDG_DATA_HOME/vulkan/implicit_layer.d`, which both loaders search; bookworm's
//! 1.3.239 has no `VK_ADD_IMPLICIT_LAYER_PATH`) and a probe application (this executable run
//! again with `--probe`, linked to nothing but the loader) that creates an instance and a
//! device on the stack's driver, uses them, and destroys them:
//! * not enabled: the loader does not load the layer, which intercepts nothing (no line of its
//!   log);
//! * `VKPACE_PACING=1`: instance and device creation and destruction go through the layer, one
//!   log line each, in order, and everything else passes through to a working device;
//! * `VKPACE_PACING=1` with `DISABLE_VKPACE_PACING=0`: the disable variable wins, whatever its
//!   value (both loaders disable an implicit layer whose disable variable is set at all).
//!
//! Run: `cargo test --release -p vkpace-pacing-layer --test pacing_layer_enable` (cargo builds
//! the layer library next to it); on sid through `scripts/on-stack sid -- EXE`.

use std::error::Error;
use std::path::{Path, PathBuf};
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
    let data_home = install_manifest()?;
    let outcome = run_cases(&data_home);
    std::fs::remove_dir_all(&data_home)?;
    outcome?;
    println!("pacing_layer_enable: 3 cases passed");
    Ok(())
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
    for (name, env, expected) in cases {
        let lines = run_probe(data_home, env)?;
        println!("case {name}: layer lines {lines:?}");
        assert_eq!(lines.len(), expected.len(), "case {name}: {lines:?}");
        for (line, want) in lines.iter().zip(expected.iter()) {
            assert!(
                line.contains(want),
                "case {name}: {line:?} should contain {want:?}"
            );
        }
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

/// Writes the committed manifest, with the absolute path of the library cargo built, into a
/// fresh `<tmp>/vulkan/implicit_layer.d`; returns `<tmp>` (the probe's `XDG_DATA_HOME`).
fn install_manifest() -> Result<PathBuf> {
    let template = include_str!("../manifest/VkLayer_VKPACE_pacing.json");
    assert!(!template.contains("$LIB"), "no $LIB in the manifest");
    for key in ["\"enable_environment\"", "\"disable_environment\""] {
        assert!(template.contains(key), "the manifest has {key}");
    }
    let lib = layer_library()?;
    let text = template.replace(
        "../../target/release/libvkpace_pacing_layer.so",
        &lib.display().to_string(),
    );
    assert_ne!(text, template, "the manifest's library_path changed");
    let root = std::env::temp_dir().join(format!("vkpace-pacing-layer-{}", std::process::id()));
    let dir = root.join("vulkan/implicit_layer.d");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("VkLayer_VKPACE_pacing.json"), text)?;
    Ok(root)
}

/// The layer library cargo built with this test (target/<profile>/ or its deps/).
fn layer_library() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let deps = exe.parent().ok_or("no deps directory")?;
    let profile = deps.parent().ok_or("no profile directory")?;
    [profile, deps]
        .iter()
        .map(|d| d.join("libvkpace_pacing_layer.so"))
        .find(|p| p.exists())
        .ok_or_else(|| format!("libvkpace_pacing_layer.so not found near {}", exe.display()).into())
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
