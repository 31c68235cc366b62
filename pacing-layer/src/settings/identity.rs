//! Who the layer runs in: the program's name that `pacing.conf`'s sections, the log and the
//! other limiters' files use, and the engine the application names.
//!
//! Under Wine (and Proton, which is Wine) the process's executable is Wine's own (`wine`,
//! `wine64-preloader`), the same for every Windows program: naming the program by it would make
//! every game `wine`, and a `[game.exe]` section could never apply. The Windows executable's
//! name is known two ways: the application info (DXVK and vkd3d-proton give the executable's
//! file name as `pApplicationName`), and Wine's command line, which it rewrites to the Windows
//! program's path (`C:\Games\game.exe`, `Z:\home\u\game.exe`).

use std::path::{Path, PathBuf};

/// The engine an application names in its `VkApplicationInfo`, with its version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Engine {
    /// `pEngineName` (`DXVK`, `vkd3d`).
    pub name: String,
    /// `engineVersion`'s major, minor and patch (`VK_MAKE_API_VERSION`'s layout).
    pub version: (u32, u32, u32),
}

impl Engine {
    /// The engine of an application info's name and packed version.
    #[must_use]
    pub fn new(name: &str, packed: u32) -> Self {
        let version = (
            (packed >> 22) & 0x7f,
            (packed >> 12) & 0x3ff,
            packed & 0xfff,
        );
        Self {
            name: name.to_string(),
            version,
        }
    }

    /// DXVK, before 3.0 (which removed `DXVK_FRAME_RATE`).
    #[must_use]
    pub fn is_dxvk_before_3(&self) -> bool {
        self.name == "DXVK" && self.version.0 < 3
    }
}

/// The program the layer runs in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    /// Its name for `pacing.conf`'s sections and the log: the Windows executable's file name
    /// under Wine (`game.exe`), else the executable's file name (`vkcube`).
    pub name: String,
    /// The process's own executable (`/proc/self/exe`): MangoHud's `<exe>.conf` and
    /// `<exe dir>/MangoHud.conf` use it, Wine's included.
    pub exe_path: PathBuf,
    /// The process runs in Wine's preloader, as MangoHud recognises Wine (its
    /// `wine-<program>.conf` is read only there).
    pub wine_preloader: bool,
    /// The engine the application named, if any.
    pub engine: Option<Engine>,
}

/// The executables that are Wine's own.
const WINE_EXECUTABLES: [&str; 4] = ["wine", "wine64", "wine-preloader", "wine64-preloader"];

impl Identity {
    /// The identity of a process whose executable is `exe_path`, with command line `args`
    /// (its first word included), whose application info named `app_name` and `engine`.
    #[must_use]
    pub fn detect(
        exe_path: &Path,
        args: &[String],
        app_name: Option<&str>,
        engine: Option<Engine>,
    ) -> Self {
        let unix_name = exe_path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let in_wine = WINE_EXECUTABLES.contains(&unix_name.as_str());
        let windows_name = app_name
            .filter(|n| is_exe(n))
            .map(|n| file_name(n).to_string())
            .or_else(|| {
                in_wine
                    .then(|| args.iter().find(|a| is_exe(a)).map(|a| file_name(a)))
                    .flatten()
                    .map(str::to_string)
            });
        Self {
            name: windows_name.unwrap_or(unix_name.clone()),
            exe_path: exe_path.to_path_buf(),
            wine_preloader: unix_name.ends_with("-preloader"),
            engine,
        }
    }

    /// The Windows program's name without its extension, under Wine's preloader (MangoHud's
    /// `wine-<program>.conf`).
    #[must_use]
    pub fn wine_program(&self) -> Option<&str> {
        if !self.wine_preloader || !is_exe(&self.name) {
            return None;
        }
        self.name.get(..self.name.len() - 4)
    }
}

/// Whether `name` ends with `.exe`, in any case (Windows file names).
fn is_exe(name: &str) -> bool {
    name.len() > 4
        && name
            .get(name.len() - 4..)
            .is_some_and(|e| e.eq_ignore_ascii_case(".exe"))
}

/// The last component of a Unix or Windows path.
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_native_program_is_its_executable() {
        let id = Identity::detect(Path::new("/usr/bin/vkcube"), &args(&["vkcube"]), None, None);
        assert_eq!(id.name, "vkcube");
        assert_eq!(id.wine_program(), None);
        // A native program that names itself: its executable still names it.
        let id = Identity::detect(Path::new("/opt/g/game"), &[], Some("My Game"), None);
        assert_eq!(id.name, "game");
    }

    #[test]
    fn a_windows_program_is_its_windows_executable() {
        let dxvk = Engine::new("DXVK", (3 << 22) | (1 << 12) | 1);
        assert_eq!(dxvk.version, (3, 1, 1));
        assert!(!dxvk.is_dxvk_before_3());
        assert!(Engine::new("DXVK", (2 << 22) | (7 << 12)).is_dxvk_before_3());
        // The application info first (DXVK gives the executable's file name)...
        let id = Identity::detect(
            Path::new("/usr/lib/wine/wine64"),
            &args(&["C:\\windows\\system32\\start.exe"]),
            Some("d3d11pace.exe"),
            Some(dxvk.clone()),
        );
        assert_eq!(id.name, "d3d11pace.exe");
        assert_eq!(id.engine, Some(dxvk));
        // ... else Wine's command line, a Windows path.
        let id = Identity::detect(
            Path::new("/usr/lib/wine/wine64-preloader"),
            &args(&["Z:\\home\\u\\Games\\Game.EXE", "-windowed"]),
            None,
            None,
        );
        assert_eq!(id.name, "Game.EXE");
        assert_eq!(id.wine_program(), Some("Game"));
        // Not Wine: a `.exe` argument names nothing.
        let id = Identity::detect(
            Path::new("/usr/bin/tool"),
            &args(&["tool", "x.exe"]),
            None,
            None,
        );
        assert_eq!(id.name, "tool");
    }
}
