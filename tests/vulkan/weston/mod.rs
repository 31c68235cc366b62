//! A real Wayland compositor for the tests: Debian sid's weston 16 on its headless backend with
//! a 60 Hz repaint grid, on a private socket, and (where a test asks) its own record of what it
//! showed when (`record.rs`).

pub mod record;

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};

/// The shell: how weston places and sizes windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shell {
    /// Every window fullscreen on the output, configured once (`--shell=kiosk`).
    Kiosk,
    /// Floating windows that can be maximized and made fullscreen, each a configure with a
    /// new size (`--shell=desktop`; weston starts its panel client, weston-desktop-shell).
    Desktop,
}

/// The output weston makes, its shell, and whether it keeps its record.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The shell.
    pub shell: Shell,
    /// The headless output's size (weston's default is 1024x640).
    pub size: Option<(u32, u32)>,
    /// Log weston's timeline and protocol scopes (`--debug`): what [`Weston::record`] reads.
    pub record: bool,
}

impl Options {
    /// weston's defaults, no record.
    pub const PLAIN: Options = Options {
        shell: Shell::Kiosk,
        size: None,
        record: false,
    };
}

/// A headless weston 16 on a private socket, killed on drop.
pub struct Weston {
    child: Child,
    socket: String,
    runtime_dir: PathBuf,
    log: PathBuf,
}

impl Weston {
    /// Starts weston with its defaults and waits (at most 10 s) for its socket.
    pub fn start(name: &str) -> Result<Self> {
        Self::start_with(name, Options::PLAIN)
    }

    /// Starts weston with `options` and waits (at most 10 s) for its socket.
    pub fn start_with(name: &str, options: Options) -> Result<Self> {
        let runtime_dir = private_runtime_dir()?;
        let socket = format!("vkpace-{name}-{}", std::process::id());
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let log = dir.join(format!("weston-{name}.log"));
        // With the record on, weston writes its log itself (`--log`); its own output and its
        // shell client's go to a file of their own, so nothing overwrites the record.
        let out = if options.record {
            dir.join(format!("weston-{name}.out"))
        } else {
            log.clone()
        };
        let log_file = std::fs::File::create(&out)?;
        if options.record {
            // `--log` appends: a run's record starts empty.
            let _ = std::fs::remove_file(&log);
        }
        let mut cmd = weston_command(&options, &socket, &log);
        let child = cmd
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

    /// weston's log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// What weston showed when, read from its log (started with `record: true`) once weston
    /// has settled: a client's last frames are shown at the next repaints, which can come after
    /// the client exited, so the log is read when the repaint loop went idle after the last
    /// commit (or after 3 s, when the record is whatever weston wrote).
    pub fn record(&self) -> Result<record::Record> {
        let start = Instant::now();
        loop {
            let text = self.log_text();
            if record::settled(&text) || start.elapsed() > Duration::from_secs(3) {
                return record::Record::parse(&text);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The demo, told to use this compositor and nothing else.
    ///
    /// `MESA_VK_WSI_DEBUG=nowlts`: Mesa 26.2 sends commit-timing targets in CLOCK_MONOTONIC
    /// while headless weston keeps its presentation clock in CLOCK_MONOTONIC_RAW; on a machine
    /// where the two differ (docs/wayland.md has the figures measured here), FIFO runs far
    /// below the refresh rate, frames held back by that difference. Not vkpace's to fix; the
    /// variable turns Mesa's timestamps off.
    pub fn demo(&self, args: &[&str]) -> Command {
        self.client(env!("CARGO_BIN_EXE_vkpace-demo").as_ref(), args)
    }

    /// `program` as a client of this compositor only (see [`Weston::demo`]).
    pub fn client(&self, program: &std::path::Path, args: &[&str]) -> Command {
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
    pub fn kill(&mut self) -> Result<()> {
        self.child.kill()?;
        self.child.wait()?;
        Ok(())
    }

    /// Stops (SIGSTOP) or continues (SIGCONT) the compositor: stopped, it neither repaints nor
    /// hands buffers back, as a compositor does for a window it does not show.
    pub fn pause(&self, paused: bool) -> Result<()> {
        let signal = if paused { "-STOP" } else { "-CONT" };
        let status = Command::new("kill")
            .arg(signal)
            .arg(self.child.id().to_string())
            .status()?;
        anyhow::ensure!(status.success(), "kill {signal}: {status}");
        Ok(())
    }
}

/// The process's private Wayland runtime directory (made if missing, mode 0700).
fn private_runtime_dir() -> Result<PathBuf> {
    let runtime_dir = std::env::temp_dir().join(format!("vkpace-wl-{}", std::process::id()));
    std::fs::create_dir_all(&runtime_dir)?;
    // Wayland requires the runtime directory to be private.
    std::fs::set_permissions(
        &runtime_dir,
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )?;
    Ok(runtime_dir)
}

/// weston's command line: headless at 60 Hz on `socket`, with `options`'s shell and size,
/// logging its record to `log` where `options.record` asks.
fn weston_command(options: &Options, socket: &str, log: &std::path::Path) -> Command {
    let mut cmd = Command::new("weston");
    cmd.args([
        "--backend=headless",
        "--renderer=noop",
        "--refresh-rate=60000",
        "--idle-time=0",
        "--no-config",
    ])
    .arg(match options.shell {
        Shell::Kiosk => "--shell=kiosk",
        Shell::Desktop => "--shell=desktop",
    })
    .arg(format!("--socket={socket}"));
    if let Some((w, h)) = options.size {
        cmd.arg(format!("--width={w}")).arg(format!("--height={h}"));
    }
    if options.record {
        cmd.args(["--debug", "--logger-scopes=log,timeline,proto"])
            .arg(format!("--log={}", log.display()));
    }
    cmd
}

impl Drop for Weston {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(self.runtime_dir.join(&self.socket));
        let _ = std::fs::remove_file(self.runtime_dir.join(format!("{}.lock", self.socket)));
    }
}
