//! vdisplay as a user installs it, for a program that is not part of this repository and links
//! libvulkan directly (the case that hung before `src/exports.rs`): `vdisplay-install` writes
//! the manifests into a fresh home directory's explicit-layer directory (the loader's default
//! search path, no `VK_LAYER_PATH`); the example `linked_frames`, copied to another directory
//! and run from there with the README's variables, presents 600 frames over the virtual
//! display under the validation layer (synchronization validation on), with no message, and
//! the virtual display's log shows every present. A run with deliberate mistakes shows the
//! validation layer really sits above vdisplay and checks synchronization; `--uninstall`
//! removes what was installed. vkcube, unmodified (linked to libvulkan, X11 window only), runs
//! 600 frames over it with `window_surfaces = virtual`. Runs on both stacks (scripts/test),
//! each run bounded.

// A test: a failed step is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// 600 frames at 60 Hz take 10 s; this only stops a hang (the bug this test exists for).
const LIMIT: Duration = Duration::from_secs(120);
const FRAMES: usize = 600;
const MANIFESTS: [&str; 2] = [
    "VkLayer_VKPACE_vdisplay.json",
    "VkLayer_VKPACE_vdisplay_validated.json",
];

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vdisplay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `target/<profile>/examples/linked_frames`, from this test's `target/<profile>/deps/...`.
fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let profile = exe.parent().and_then(Path::parent).unwrap();
    let path = profile.join("examples/linked_frames");
    assert!(
        path.is_file(),
        "{} not built (`cargo test` builds the examples; with a target selection, run `cargo \
         build --release -p vkpace-vdisplay --example linked_frames` first)",
        path.display()
    );
    path
}

/// A command with the loader's variables of the caller's environment removed and `home` as
/// the user's home, so only what the installer wrote can make the layer known.
fn in_home(program: &Path, home: &Path) -> Command {
    let mut cmd = Command::new(program);
    for var in [
        "VK_LAYER_PATH",
        "VK_ADD_LAYER_PATH",
        "VK_INSTANCE_LAYERS",
        "VK_LOADER_LAYERS_ENABLE",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home);
    cmd
}

/// Runs `cmd` to its end or kills it after [`LIMIT`].
fn bounded(mut cmd: Command, what: &str) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "{what}: still running after {LIMIT:?}, killed (a hang)\nstderr:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

/// The number just before `what` in `summary` ("... (3 synchronization hazards, ...").
fn count_before(summary: &str, what: &str) -> u64 {
    let at = summary
        .find(what)
        .unwrap_or_else(|| panic!("{what:?} missing: {summary}"));
    let digits: String = summary[..at]
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.chars().rev().collect::<String>().parse().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs the installer with `args` in `home`; it must succeed.
fn install(home: &Path, args: &[&str]) -> String {
    let mut cmd = in_home(Path::new(env!("CARGO_BIN_EXE_vdisplay-install")), home);
    cmd.args(args);
    let out = bounded(cmd, "vdisplay-install");
    assert!(
        out.status.success(),
        "vdisplay-install: {}",
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The variable that turns synchronization validation on for the validation layer installed
/// on this stack: `VK_LAYER_ENABLES` up to 1.3.267 (bookworm's 1.3.239), `validate_sync` after
/// (sid's 1.4.363 warns about the old one at vkCreateInstance, before any messenger exists).
fn sync_validation_variable() -> (&'static str, &'static str) {
    let manifest = "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json";
    let text = std::fs::read_to_string(manifest)
        .unwrap_or_else(|e| panic!("the validation layer is not installed ({manifest}): {e}"));
    let line = text
        .lines()
        .find(|l| l.contains("\"api_version\""))
        .unwrap();
    let version: Vec<u32> = line
        .split('"')
        .nth(3)
        .unwrap()
        .split('.')
        .map(|n| n.parse().unwrap())
        .collect();
    if version[..] < [1, 3, 268][..] {
        (
            "VK_LAYER_ENABLES",
            "VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT",
        )
    } else {
        ("VK_KHRONOS_VALIDATION_VALIDATE_SYNC", "true")
    }
}

/// `program` run from its own directory with the README's variables.
fn linked_frames(app: &Path, home: &Path, args: &[&str]) -> Command {
    let mut cmd = in_home(app, home);
    let (sync_key, sync_value) = sync_validation_variable();
    cmd.current_dir(app.parent().unwrap())
        .args(args)
        .env("VK_INSTANCE_LAYERS", "VK_LAYER_VKPACE_vdisplay_validated")
        .env("VK_LOADER_DISABLE_INST_EXT_FILTER", "1")
        .env(sync_key, sync_value);
    cmd
}

/// Whether the validation layer printed anything itself (its own log, used while no
/// messenger exists: around vkCreateInstance, or in a program without one).
fn validation_printed(output: &str) -> bool {
    output.contains("Validation Error") || output.contains("Validation Warning")
}

/// What the manifest says the library is: an absolute path to an existing file.
fn check_manifest(dir: &Path) {
    let text = std::fs::read_to_string(dir.join(MANIFESTS[0])).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("\"library_path\""))
        .unwrap();
    let path = line.split('"').nth(3).unwrap();
    assert!(
        Path::new(path).is_absolute() && Path::new(path).is_file(),
        "{line}"
    );
    let meta = std::fs::read_to_string(dir.join(MANIFESTS[1])).unwrap();
    assert!(meta.contains("\"component_layers\""), "{meta}");
}

/// The virtual display's log: one line per present, the shown ones counted.
fn presents(log: &Path) -> (usize, usize) {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let shown = lines.iter().filter(|l| l.contains("\"shown_ns\":")).count();
    let not_shown = lines
        .iter()
        .filter(|l| l.contains("\"shown_ns\":null"))
        .count();
    (lines.len(), shown - not_shown)
}

#[test]
fn a_linked_application_runs_over_the_installed_layer_from_anywhere() {
    let root = scratch("installed");
    let home = root.join("home");
    let said = install(&home, &[]);
    let layers = home.join(".local/share/vulkan/explicit_layer.d");
    assert!(said.contains(&layers.display().to_string()), "{said}");
    check_manifest(&layers);

    let elsewhere = root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let app = elsewhere.join("linked_frames");
    std::fs::copy(example(), &app).unwrap();
    let ldd = Command::new("ldd").arg(&app).output().unwrap();
    assert!(
        text(&ldd.stdout).contains("libvulkan.so.1 =>"),
        "the application must link libvulkan: {}",
        text(&ldd.stdout)
    );

    let log = root.join("present-log.jsonl");
    let mut run = linked_frames(&app, &home, &["--frames", &FRAMES.to_string()]);
    run.env("VDISPLAY_LOG", &log);
    let out = bounded(run, "linked_frames");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(
        !validation_printed(&stdout) && !validation_printed(&stderr),
        "{stdout}{stderr}"
    );
    assert!(
        stdout.contains(&format!("{FRAMES} frames presented"))
            && stdout.contains(" 0 validation messages"),
        "{stdout}"
    );
    let (logged, shown) = presents(&log);
    assert_eq!(logged, FRAMES, "every present in vdisplay's log");
    // FIFO shows every frame; only those still queued when the swapchain goes are not.
    assert!(shown + 8 >= FRAMES, "{shown} of {FRAMES} shown");
    eprintln!("{stdout}{shown} of {logged} presents shown by the virtual display");

    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn validation_checks_the_application_above_the_installed_layer() {
    let root = scratch("mistakes");
    let home = root.join("home");
    install(&home, &[]);
    let app = root.join("linked_frames");
    std::fs::copy(example(), &app).unwrap();
    let out = bounded(
        linked_frames(&app, &home, &["--frames", "10", "--mistakes"]),
        "linked_frames --mistakes",
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    // The extent error needs validation to see vdisplay's surface capabilities (above it); the
    // hazard needs synchronization validation.
    let hazards = count_before(&stdout, " synchronization hazards");
    let extents = count_before(&stdout, " extents not offered");
    assert!(hazards > 0 && extents > 0, "{stdout}");

    install(&home, &["--uninstall"]);
    let layers = home.join(".local/share/vulkan/explicit_layer.d");
    for m in MANIFESTS {
        assert!(!layers.join(m).exists(), "{m} left behind");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// vkcube as the distribution ships it: an X11 program linked to libvulkan that knows nothing
/// of headless surfaces. With `window_surfaces = virtual` its window surface becomes a virtual
/// display: 600 frames, every one in vdisplay's log, under the validation layer (which, with
/// no messenger of vkcube's, prints to vkcube's output; `--force_errors` shows it does).
#[test]
fn vkcube_runs_unmodified_over_the_installed_layer() {
    let display = std::env::var_os("DISPLAY")
        .expect("DISPLAY must name an X server for vkcube's window (scripts/test starts Xvfb)");
    let root = scratch("vkcube");
    let home = root.join("home");
    install(&home, &[]);
    let log = root.join("present-log.jsonl");
    let vkcube = |args: &[&str]| {
        let mut cmd = linked_frames(Path::new("vkcube"), &home, args);
        cmd.current_dir(&root)
            .env("DISPLAY", &display)
            .env("VDISPLAY_WINDOW_SURFACES", "virtual")
            .env("VDISPLAY_LOG", &log);
        let out = bounded(cmd, "vkcube");
        let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
        (out.status.success(), all)
    };
    let (ok, said) = vkcube(&["--c", &FRAMES.to_string()]);
    assert!(ok, "{said}");
    assert!(!validation_printed(&said), "{said}");
    let (logged, shown) = presents(&log);
    assert_eq!(
        logged, FRAMES,
        "every vkcube frame presented to the virtual display"
    );
    assert!(shown + 8 >= FRAMES, "{shown} of {FRAMES} shown");
    eprintln!("vkcube: {shown} of {logged} presents shown by the virtual display");

    let (_, said) = vkcube(&["--c", "10", "--force_errors"]);
    assert!(
        said.contains("VUID-"),
        "validation did not report vkcube's forced errors: {said}"
    );
    let _ = std::fs::remove_dir_all(&root);
}
