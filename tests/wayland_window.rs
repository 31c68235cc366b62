//! The demo in a Wayland window on a real compositor: Debian sid's weston 16 on its headless
//! backend with a 60 Hz repaint grid (`--renderer=noop --refresh-rate=60000 --idle-time=0
//! --shell=kiosk`), started here on a private socket and stopped at the end. `scripts/test`
//! runs this on the sid stack only (bookworm's weston 10 has no refresh option); a machine
//! without weston fails here rather than skipping.
//!
//! Every run goes through winit's Wayland backend (DISPLAY removed, so no X11 fallback), with
//! validation and synchronization validation, and must say in its report that it ran on
//! Wayland: FIFO and MAILBOX, the maintenance1 and proof-based paths, both completion backends;
//! the two examples in `examples/` on both paths; the compositor killed mid-run; and vkcube,
//! unmodified, on a Wayland surface that the vdisplay layer takes over (`window_surfaces =
//! virtual`).

mod demo_process;
mod run_length;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _, Result};
use demo_process::{json_number, PATHS};

/// A headless weston 16 on a private socket, killed on drop.
struct Weston {
    child: Child,
    socket: String,
    runtime_dir: PathBuf,
    log: PathBuf,
}

impl Weston {
    /// Starts weston and waits (at most 10 s) for its socket.
    fn start(name: &str) -> Result<Self> {
        let runtime_dir = std::env::temp_dir().join(format!("vkpace-wl-{}", std::process::id()));
        std::fs::create_dir_all(&runtime_dir)?;
        // Wayland requires the runtime directory to be private.
        std::fs::set_permissions(
            &runtime_dir,
            std::os::unix::fs::PermissionsExt::from_mode(0o700),
        )?;
        let socket = format!("vkpace-{name}-{}", std::process::id());
        let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("weston-{name}.log"));
        let log_file = std::fs::File::create(&log)?;
        let child = Command::new("weston")
            .args([
                "--backend=headless",
                "--renderer=noop",
                "--refresh-rate=60000",
                "--idle-time=0",
                "--shell=kiosk",
                "--no-config",
            ])
            .arg(format!("--socket={socket}"))
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            .spawn()
            .context(
                "weston is not installed: the Wayland tests need Debian sid's weston 16 \
                 (scripts/sid-rootfs installs it; run them with scripts/on-stack sid)",
            )?;
        let mut weston = Self {
            child,
            socket,
            runtime_dir,
            log,
        };
        weston.wait_for_socket()?;
        Ok(weston)
    }

    fn wait_for_socket(&mut self) -> Result<()> {
        let path = self.runtime_dir.join(&self.socket);
        let start = Instant::now();
        while !path.exists() {
            if let Some(status) = self.child.try_wait()? {
                bail!("weston exited {status}: {}", self.log_text());
            }
            if start.elapsed() > Duration::from_secs(10) {
                bail!("weston made no socket in 10 s: {}", self.log_text());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(())
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The demo, told to use this compositor and nothing else.
    ///
    /// `MESA_VK_WSI_DEBUG=nowlts`: Mesa 26.2 sends commit-timing targets in CLOCK_MONOTONIC
    /// while headless weston keeps its presentation clock in CLOCK_MONOTONIC_RAW; on a machine
    /// where the two differ (docs/wayland.md has the figures measured here), FIFO runs far
    /// below the refresh rate, frames held back by that difference. Not vkpace's to fix; the
    /// variable turns Mesa's timestamps off.
    fn demo(&self, args: &[&str]) -> Command {
        self.client(env!("CARGO_BIN_EXE_vkpace-demo").as_ref(), args)
    }

    /// `program` as a client of this compositor only (see [`Weston::demo`]).
    fn client(&self, program: &std::path::Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_remove("DISPLAY")
            .env_remove("VKPACE_COMPLETION")
            .env("WAYLAND_DISPLAY", &self.socket)
            .env("XDG_RUNTIME_DIR", &self.runtime_dir)
            .env("MESA_VK_WSI_DEBUG", "nowlts")
            .args(args);
        cmd
    }

    /// Kills the compositor at once (SIGKILL, as a crash would).
    fn kill(&mut self) -> Result<()> {
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }
}

impl Drop for Weston {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(self.runtime_dir.join(&self.socket));
        let _ = std::fs::remove_file(self.runtime_dir.join(format!("{}.lock", self.socket)));
    }
}

/// One demo run on `weston` with validation and a report; the report must say Wayland.
fn run_on(weston: &Weston, args: &[&str]) -> Result<String> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wayland-reports");
    std::fs::create_dir_all(&dir)?;
    let report = dir.join(format!("{}.json", args.join("_").replace(['-', ' '], "")));
    let mut cmd = weston.demo(args);
    cmd.args(["--window", "--validation", "--report"])
        .arg(&report);
    let out = bounded_output(cmd, Duration::from_secs(180))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    ensure!(
        out.status.success(),
        "demo {args:?} exited {:?}\n{stdout}\n{stderr}\nweston: {}",
        out.status.code(),
        weston.log_text()
    );
    let json = std::fs::read_to_string(&report)?;
    ensure!(
        json.contains("\"window_system\": \"wayland\""),
        "{args:?}: not on Wayland: {stdout}"
    );
    ensure!(
        json_number(&json, "validation_messages")? == 0.0,
        "{stdout}"
    );
    Ok(json)
}

/// Runs `cmd` to its end, or kills it after `limit` and fails.
fn bounded_output(mut cmd: Command, limit: Duration) -> Result<std::process::Output> {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn()?;
    let start = Instant::now();
    while child.try_wait()?.is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output()?;
            bail!(
                "still running after {limit:?}, killed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(child.wait_with_output()?)
}

/// FIFO and MAILBOX on both paths and both completion backends, each run validation-clean on
/// Wayland with every frame presented.
#[test]
fn the_demo_runs_on_weston() -> Result<()> {
    let weston = Weston::start("modes")?;
    let frames = run_length::frames(120, 600);
    let frames_arg = frames.to_string();
    for (path, extra) in PATHS {
        for completion in ["timeline", "fences"] {
            for mode in ["fifo", "mailbox"] {
                let mut args = vec![
                    "--frames",
                    &frames_arg,
                    "--present-mode",
                    mode,
                    "--completion",
                    completion,
                ];
                args.extend_from_slice(extra);
                let json = run_on(&weston, &args).with_context(|| path.to_string())?;
                ensure!(json_number(&json, "frames")? == frames as f64, "{json}");
                ensure!(json.contains(&format!("\"path\": \"{path}\"")), "{json}");
                ensure!(
                    json.contains(&format!("\"completion\": \"{completion}\"")),
                    "{json}"
                );
                eprintln!(
                    "wayland: {path} {completion} {mode}: {frames} frames, interval mean {:.2} \
                     ms",
                    interval_mean(&json)?
                );
            }
        }
    }
    Ok(())
}

/// The report's mean present interval (ms).
fn interval_mean(json: &str) -> Result<f64> {
    let at = json.find("\"interval_ms\"").context("no interval_ms")?;
    json_number(&json[at..], "mean")
}

/// The compositor killed mid-run: the demo ends by itself within 10 s with exit code 2 and a
/// line that says why: vkpace's typed error (`Error::SurfaceLost`, "the surface was lost") when
/// a Vulkan call notices first, the lost connection when winit's event loop does (which of the
/// two varies from run to run); either way having destroyed every Vulkan object first: the
/// validation layer, which reports objects left at vkDestroyDevice, says nothing.
#[test]
fn killing_the_compositor_mid_run_is_a_clean_error() -> Result<()> {
    use std::io::BufRead as _;
    let mut weston = Weston::start("kill")?;
    let mut cmd = weston.demo(&["--window", "--validation", "--frames", "1000000"]);
    let mut demo = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn()?;
    let stderr = demo.stderr.take().context("no stderr")?;
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    // Rendering: the device is made, then a second of frames.
    let mut said = Vec::new();
    while !said
        .iter()
        .any(|l: &String| l.contains("vkpace demo: device"))
    {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(line) => said.push(line),
            Err(_) => {
                let _ = demo.kill();
                bail!("the demo did not start: {said:?}");
            }
        }
    }
    std::thread::sleep(Duration::from_secs(1));
    weston.kill()?;
    let killed = Instant::now();
    let status = loop {
        if let Some(status) = demo.try_wait()? {
            break status;
        }
        if killed.elapsed() > Duration::from_secs(10) {
            let _ = demo.kill();
            bail!("the demo still ran 10 s after the compositor died (a hang)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let ended_after = killed.elapsed();
    // The reader ends at the pipe's end: every line the demo wrote is in the channel then.
    let _ = reader.join();
    said.extend(rx.try_iter());
    let text = said.join("\n");
    ensure!(status.code() == Some(2), "exit {status}: {text}");
    let why = [
        "the surface was lost",
        "the connection to the window system was lost",
    ]
    .into_iter()
    .find(|why| text.contains(why))
    .with_context(|| format!("no reason given: {text}"))?;
    ensure!(
        !text.contains("[validation")
            && text.contains("everything destroyed, 0 validation messages"),
        "{text}"
    );
    eprintln!("wayland: compositor killed, the demo ended {ended_after:?} later: {why}");
    Ok(())
}

/// The examples in `examples/` (built beside this test by `cargo test`), in a Wayland window
/// on both paths: exit 0, every frame, no validation message.
#[test]
fn the_examples_run_on_weston() -> Result<()> {
    let weston = Weston::start("examples")?;
    let exe = std::env::current_exe()?;
    let examples = exe
        .parent()
        .and_then(|deps| deps.parent())
        .context("not in target/<profile>/deps")?
        .join("examples");
    let frames = run_length::frames(120, 600).to_string();
    for name in ["render_pass", "producer_batches"] {
        let program = examples.join(name);
        ensure!(
            program.is_file(),
            "{} not built (cargo test builds it)",
            program.display()
        );
        for extra in [&[][..], &["--no-maintenance1"][..]] {
            let mut args = vec!["--frames", &frames, "--validation"];
            args.extend_from_slice(extra);
            let out = bounded_output(weston.client(&program, &args), Duration::from_secs(180))?;
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            ensure!(out.status.success(), "{name} {extra:?}: {stdout}\n{stderr}");
            let summary = stdout
                .lines()
                .find(|l| l.starts_with(&format!("{name}: {frames} frames ")))
                .with_context(|| format!("{name} {extra:?}: no summary: {stdout}"))?;
            ensure!(summary.contains(" 0 validation messages"), "{summary}");
            eprintln!("wayland: {summary}");
        }
    }
    Ok(())
}

/// vkcube (Debian's, linked to libvulkan) with a Wayland surface, over the vdisplay layer with
/// `window_surfaces = virtual` and the validation layer above it: the surface becomes a virtual
/// display, so every one of its frames is in vdisplay's log, and nothing is reported.
#[test]
fn vkcube_on_wayland_runs_over_the_virtual_display() -> Result<()> {
    use vkpace_demo::virtual_display;
    let weston = Weston::start("vkcube")?;
    let library = virtual_display::find_library()?;
    let env = virtual_display::loader_env(&virtual_display::write_manifest(&library)?, true);
    let log = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("vkcube-wayland.jsonl");
    let _ = std::fs::remove_file(&log);
    let frames = 120;
    let mut cmd = weston.client(
        "vkcube".as_ref(),
        &["--wsi", "wayland", "--c", &frames.to_string()],
    );
    cmd.envs(env)
        .env("VK_KHRONOS_VALIDATION_VALIDATE_SYNC", "true")
        .env("VDISPLAY_WINDOW_SURFACES", "virtual")
        .env("VDISPLAY_LOG", &log);
    let out = bounded_output(cmd, Duration::from_secs(120))?;
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    ensure!(out.status.success(), "vkcube: {said}");
    ensure!(
        !said.contains("Validation Error") && !said.contains("Validation Warning"),
        "{said}"
    );
    let presents = virtual_display::read_present_log(&log)?;
    ensure!(
        presents.len() == frames,
        "{} of {frames} presents in vdisplay's log: {said}",
        presents.len()
    );
    Ok(())
}
