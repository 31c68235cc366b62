//! Wine and DXVK for the tests (sid's, in the root file system `scripts/sid-rootfs` makes): a
//! Wine prefix with DXVK installed into it, and the Direct3D 11 test program
//! (`tests/programs/d3d11pace.c`) built with mingw-w64, both made once per test process, and
//! the program run through them.

use crate::demo_process;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{bail, ensure, Context as _, Result};
use demo_process::{run_to_files, Display, Finished};

/// A run ends within this (a hang, not a measurement).
const LIMIT: Duration = Duration::from_secs(120);
/// Wine's server (Debian installs it outside the PATH).
const WINESERVER: &str = "/usr/lib/x86_64-linux-gnu/wine/wineserver";

/// One run of [`Wine::run_after_desktop`]: its tag, the program's arguments, its environment.
pub type RunArgs<'a> = (&'a str, &'a [&'a str], Vec<(&'a str, std::ffi::OsString)>);

/// The Wine prefix and the program, made once.
pub struct Wine {
    prefix: PathBuf,
    exe: PathBuf,
}

static WINE: OnceLock<std::result::Result<Wine, String>> = OnceLock::new();

/// The tests' Wine prefix with DXVK, and the program built (made at the first call).
pub fn wine() -> Result<&'static Wine> {
    WINE.get_or_init(|| Wine::make().map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(|e| anyhow::anyhow!("{e}"))
}

impl Wine {
    fn make() -> Result<Self> {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("wine");
        std::fs::create_dir_all(&dir)?;
        let exe = dir.join("d3d11pace.exe");
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/programs/d3d11pace.c");
        let status = Command::new("x86_64-w64-mingw32-gcc")
            .args(["-O2", "-o"])
            .arg(&exe)
            .arg(&source)
            .args(["-ld3d11", "-ldxgi", "-luuid"])
            .status()
            .context("x86_64-w64-mingw32-gcc (sid's gcc-mingw-w64-x86-64-win32)")?;
        ensure!(status.success(), "building {}: {status}", source.display());
        // The tests' own prefix, never a user's; made once and kept (12 s to make), a
        // half-made one made again.
        let prefix = dir.join("prefix");
        let ready = prefix.join(".vkpace-ready");
        if ready.exists() {
            return Ok(Self { prefix, exe });
        }
        let _ = std::fs::remove_dir_all(&prefix);
        let quiet = |cmd: &mut Command| {
            cmd.env("WINEPREFIX", &prefix)
                .env("WINEDEBUG", wine_debug())
                .env_remove("DISPLAY")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status()
        };
        let booted = quiet(Command::new("wineboot").arg("-i"))?;
        ensure!(booted.success(), "wineboot -i: {booted}");
        // wineboot returns before its server has written the registry, which dxvk-setup reads.
        let waited = quiet(Command::new(WINESERVER).arg("-w"))?;
        ensure!(waited.success(), "wineserver -w: {waited}");
        let setup = quiet(Command::new("dxvk-setup").args(["install", "-y"]))?;
        ensure!(setup.success(), "dxvk-setup install: {setup}");
        let waited = quiet(Command::new(WINESERVER).arg("-w"))?;
        ensure!(waited.success(), "wineserver -w: {waited}");
        std::fs::write(&ready, "")?;
        Ok(Self { prefix, exe })
    }

    /// The program's folder (its working directory when it runs: a `dxvk.conf` there is
    /// DXVK's).
    pub fn program_dir(&self) -> &Path {
        self.exe.parent().unwrap_or(Path::new("/"))
    }

    /// Runs the program once per entry of `runs` (`(tag, args, env)`, as [`Self::run`]) with
    /// one Wine server kept alive between them, after a first run with none of their
    /// environments: Wine's desktop process, which makes a Vulkan instance of its own at its
    /// start (the display driver asks Vulkan about the GPUs), is then started by that first
    /// run, and each run's own Vulkan instance is the only one made with its environment (a
    /// validation layer's log file, for one, is then that program's alone).
    pub fn run_after_desktop(
        &self,
        display: &Display,
        runs: &[RunArgs<'_>],
    ) -> Result<Vec<Finished>> {
        let server = |arg: &str| {
            Command::new(WINESERVER)
                .arg(arg)
                .env("WINEPREFIX", &self.prefix)
                .status()
        };
        server("-p")?;
        let done = self
            .run_kept(display, "desktop", &["2"], &[])
            .and_then(|first| {
                ensure!(first.status.success(), "the first run: {}", first.status);
                runs.iter()
                    .map(|(tag, args, env)| self.run_kept(display, tag, args, env))
                    .collect::<Result<Vec<_>>>()
            });
        let _ = server("-k");
        done
    }

    /// Runs the program for `frames` frames (`args` after it) in an X11 window on `display`
    /// with `env`, its output kept under `tag`.
    pub fn run(
        &self,
        display: &Display,
        tag: &str,
        args: &[&str],
        env: &[(&str, std::ffi::OsString)],
    ) -> Result<Finished> {
        let finished = self.run_kept(display, tag, args, env);
        // Wine's server and its services outlive the program; each run starts with none, and
        // none outlives the test.
        let _ = Command::new(WINESERVER)
            .arg("-k")
            .env("WINEPREFIX", &self.prefix)
            .status();
        finished
    }

    /// [`Self::run`], leaving Wine's server as it is.
    fn run_kept(
        &self,
        display: &Display,
        tag: &str,
        args: &[&str],
        env: &[(&str, std::ffi::OsString)],
    ) -> Result<Finished> {
        let mut cmd = Command::new("wine");
        cmd.arg(&self.exe)
            .args(args)
            .current_dir(self.program_dir())
            .env("WINEPREFIX", &self.prefix)
            .env("WINEDEBUG", wine_debug())
            .env("DXVK_LOG_LEVEL", "warn")
            .env("DISPLAY", display.name())
            .env_remove("WAYLAND_DISPLAY")
            .envs(env.iter().map(|(k, v)| (*k, v)));
        run_to_files(&mut cmd, "wine", tag, LIMIT)
    }
}

/// Wine's debug channels: none (`-all`), or `VKPACE_WINEDEBUG`'s (`fixme-all` shows Wine's
/// errors, for a run that ended oddly).
fn wine_debug() -> String {
    std::env::var("VKPACE_WINEDEBUG").unwrap_or_else(|_| "-all".into())
}

/// The frame start times the program printed (`frame N start_us`), ms.
pub fn frame_starts(stdout: &str) -> Result<Vec<f64>> {
    let starts: Vec<f64> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("frame "))
        .filter_map(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .map(|us| us / 1e3)
        .collect();
    if starts.is_empty() {
        bail!("the program printed no frame: {stdout}");
    }
    Ok(starts)
}

/// The mean interval between the frame starts after `settle`, ms.
pub fn mean_interval(starts: &[f64], settle: usize) -> Result<f64> {
    ensure!(starts.len() > settle + 1, "{} frames", starts.len());
    let s = &starts[settle..];
    Ok((s[s.len() - 1] - s[0]) / (s.len() - 1) as f64)
}
