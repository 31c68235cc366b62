//! `vdisplay-install`: writes the loader manifest of `VK_LAYER_VKPACE_vdisplay` with the
//! absolute path of the layer library built next to this program, so that any Vulkan
//! application on this machine can enable the layer by name.
//!
//! ```sh
//! cargo run --release -p vkpace-vdisplay --bin vdisplay-install
//! VK_INSTANCE_LAYERS=VK_LAYER_VKPACE_vdisplay VK_LOADER_DISABLE_INST_EXT_FILTER=1 my-app
//! ```
//!
//! It also installs `VK_LAYER_VKPACE_vdisplay_validated`, a meta layer that stacks the Khronos
//! validation layer above vdisplay (enable it instead of the two by name).
//!
//! By default the manifests go to the user's explicit-layer directory, which the Vulkan
//! loader searches on its own: `$XDG_DATA_HOME/vulkan/explicit_layer.d`, or
//! `~/.local/share/vulkan/explicit_layer.d`. `--dir DIR` names another (then list it in
//! `VK_LAYER_PATH`), `--library PATH` another build of the library, `--uninstall` removes the
//! manifests again. Exit status 0 on success, 1 on an error, 2 on a usage error.

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The committed manifest; only its `library_path` changes.
const TEMPLATE: &str = include_str!("../../manifest/VkLayer_VKPACE_vdisplay.json");
/// The relative library path the committed manifest holds.
const TEMPLATE_LIBRARY: &str = "../../target/release/libvkpace_vdisplay.so";
/// The layer manifest's file name.
const MANIFEST: &str = "VkLayer_VKPACE_vdisplay.json";
/// The meta layer `VK_LAYER_VKPACE_vdisplay_validated`: the Khronos validation layer above
/// vdisplay. Layers enabled by name are stacked in the order the loader *found* their
/// manifests, and the user's directory is searched before `/usr/share`, so enabling both by
/// name would put vdisplay above validation (validation would then check vdisplay's calls to
/// the driver, not the application's). A meta layer fixes the order itself.
const META: (&str, &str) = (
    "VkLayer_VKPACE_vdisplay_validated.json",
    include_str!("../../manifest/VkLayer_VKPACE_vdisplay_validated.json"),
);
/// The library's file name, as cargo builds it.
const LIBRARY: &str = "libvkpace_vdisplay.so";

/// What went wrong, each with what to do.
#[derive(Debug)]
enum InstallError {
    /// A bad command line.
    Usage(String),
    /// No layer library where expected.
    NoLibrary(PathBuf),
    /// Neither `--dir`, `XDG_DATA_HOME` nor `HOME` says where to write.
    NoDirectory,
    /// A path the manifest (JSON, UTF-8) cannot hold.
    BadPath(PathBuf),
    /// A file-system operation failed.
    Io(String, PathBuf, std::io::Error),
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(what) => write!(
                f,
                "{what}\nusage: vdisplay-install [--dir DIR] [--library PATH] [--uninstall]"
            ),
            Self::NoLibrary(p) => write!(
                f,
                "no layer library at {} (build it first: `cargo build --release -p \
                 vkpace-vdisplay`, or name it with --library)",
                p.display()
            ),
            Self::NoDirectory => write!(
                f,
                "neither XDG_DATA_HOME nor HOME is set: name the directory with --dir"
            ),
            Self::BadPath(p) => write!(f, "{} is not a UTF-8 path", p.display()),
            Self::Io(what, p, e) => write!(f, "cannot {what} {}: {e}", p.display()),
        }
    }
}

/// The parsed command line.
#[derive(Debug, Default)]
struct Args {
    dir: Option<PathBuf>,
    library: Option<PathBuf>,
    uninstall: bool,
}

fn parse_args(mut args: impl Iterator<Item = OsString>) -> Result<Args, InstallError> {
    let mut parsed = Args::default();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .map(PathBuf::from)
                .ok_or_else(|| InstallError::Usage(format!("{name} needs a value")))
        };
        match arg.to_str() {
            Some("--dir") => parsed.dir = Some(value("--dir")?),
            Some("--library") => parsed.library = Some(value("--library")?),
            Some("--uninstall") => parsed.uninstall = true,
            Some("--help" | "-h") => return Err(InstallError::Usage(String::new())),
            _ => return Err(InstallError::Usage(format!("unknown argument {arg:?}"))),
        }
    }
    Ok(parsed)
}

/// The user's explicit-layer directory, the one the loader searches without `VK_LAYER_PATH`.
fn default_dir() -> Result<PathBuf, InstallError> {
    let non_empty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    let data = match (non_empty("XDG_DATA_HOME"), non_empty("HOME")) {
        (Some(xdg), _) => PathBuf::from(xdg),
        (None, Some(home)) => Path::new(&home).join(".local/share"),
        (None, None) => return Err(InstallError::NoDirectory),
    };
    Ok(data.join("vulkan/explicit_layer.d"))
}

/// The library cargo built with this program, made absolute: `target/<profile>/` holds both
/// after `cargo build`, while `cargo run --bin vdisplay-install` leaves the fresh library in
/// `target/<profile>/deps/` only; the newer of the two wins.
fn library_path(given: Option<PathBuf>) -> Result<PathBuf, InstallError> {
    let candidates = match given {
        Some(p) => vec![p],
        None => {
            let exe = std::env::current_exe()
                .map_err(|e| InstallError::Io("locate".into(), "this program".into(), e))?;
            let beside = exe.with_file_name(LIBRARY);
            let deps = exe.with_file_name("deps").join(LIBRARY);
            vec![beside, deps]
        }
    };
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let newest = candidates
        .iter()
        .filter(|p| p.is_file())
        .rev()
        .max_by_key(|p| modified(p))
        .cloned();
    newest
        .and_then(|p| std::fs::canonicalize(p).ok())
        .ok_or_else(|| InstallError::NoLibrary(candidates[0].clone()))
}

/// The manifest text for `library` (an absolute path, JSON-escaped).
fn manifest_text(library: &Path) -> Result<String, InstallError> {
    let path = library
        .to_str()
        .ok_or_else(|| InstallError::BadPath(library.to_path_buf()))?;
    let mut escaped = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '"' => escaped.push_str("\\\""),
            '\\' => escaped.push_str("\\\\"),
            c if (c as u32) < 0x20 => escaped.push_str(&format!("\\u{:04x}", c as u32)),
            c => escaped.push(c),
        }
    }
    Ok(TEMPLATE.replace(TEMPLATE_LIBRARY, &escaped))
}

/// Removes the manifests from `dir`.
fn uninstall(dir: &Path) -> Result<(), InstallError> {
    for name in [MANIFEST, META.0] {
        let path = dir.join(name);
        match std::fs::remove_file(&path) {
            Ok(()) => println!("removed {}", path.display()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                println!("nothing to remove at {}", path.display())
            }
            Err(e) => return Err(InstallError::Io("remove".into(), path, e)),
        }
    }
    Ok(())
}

/// Writes `text` to `dir/name` whole: beside, then renamed, so a loader reading the directory
/// meanwhile never sees half a file.
fn write_whole(dir: &Path, name: &str, text: &str) -> Result<(), InstallError> {
    let partial = dir.join(format!(".{name}.partial"));
    let path = dir.join(name);
    std::fs::write(&partial, text)
        .map_err(|e| InstallError::Io("write".into(), partial.clone(), e))?;
    std::fs::rename(&partial, &path)
        .map_err(|e| InstallError::Io("write".into(), path.clone(), e))?;
    println!("installed {}", path.display());
    Ok(())
}

fn install(args: Args) -> Result<(), InstallError> {
    let dir = match args.dir {
        Some(d) => d,
        None => default_dir()?,
    };
    if args.uninstall {
        return uninstall(&dir);
    }
    let text = manifest_text(&library_path(args.library)?)?;
    std::fs::create_dir_all(&dir).map_err(|e| InstallError::Io("create".into(), dir.clone(), e))?;
    write_whole(&dir, MANIFEST, &text)?;
    write_whole(&dir, META.0, META.1)?;
    println!("run any Vulkan application over the virtual display with:");
    if Some(dir.as_path()) != default_dir().ok().as_deref() {
        println!("  export VK_LAYER_PATH={}", dir.display());
    }
    println!("  export VK_INSTANCE_LAYERS=VK_LAYER_VKPACE_vdisplay   # or ..._vdisplay_validated");
    println!("  export VK_LOADER_DISABLE_INST_EXT_FILTER=1");
    Ok(())
}

fn main() -> ExitCode {
    let result = parse_args(std::env::args_os().skip(1)).and_then(install);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vdisplay-install: {e}");
            ExitCode::from(if matches!(e, InstallError::Usage(_)) {
                2
            } else {
                1
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_holds_the_escaped_absolute_path() {
        let text = manifest_text(Path::new("/opt/a \"b\"\\c/libvkpace_vdisplay.so")).unwrap();
        assert!(text.contains(r#""library_path": "/opt/a \"b\"\\c/libvkpace_vdisplay.so""#));
        assert!(!text.contains(TEMPLATE_LIBRARY));
    }

    #[test]
    fn bad_command_lines_are_usage_errors() {
        let args = |v: &[&str]| parse_args(v.iter().map(OsString::from));
        assert!(matches!(args(&["--dir"]), Err(InstallError::Usage(_))));
        assert!(matches!(
            args(&["--frobnicate"]),
            Err(InstallError::Usage(_))
        ));
        let ok = args(&["--dir", "/x", "--uninstall"]).unwrap();
        assert_eq!(ok.dir.as_deref(), Some(Path::new("/x")));
        assert!(ok.uninstall);
    }

    #[test]
    fn a_missing_library_says_how_to_build_it() {
        let e = library_path(Some("/nonexistent/libvkpace_vdisplay.so".into())).unwrap_err();
        assert!(matches!(e, InstallError::NoLibrary(_)));
        assert!(e
            .to_string()
            .contains("cargo build --release -p vkpace-vdisplay"));
    }
}
