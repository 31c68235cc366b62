//! The one installer of every vkpace layer: writes a layer's committed loader manifests, with
//! the absolute path of the layer library built next to the installing program, into the
//! user's layer directory, so that the loader finds the layer without `VK_LAYER_PATH`; and
//! removes them again. `vdisplay-install` and `vkpace-pacing-install` are an [`Installer`]
//! each and a one-line `main`:
//!
//! ```no_run
//! use vkpace_layer_plumbing::install::{Installer, LayerDir, ManifestFile};
//!
//! const INSTALLER: Installer = Installer {
//!     program: "example-install",
//!     package: "example-layer",
//!     library: "libexample_layer.so",
//!     dir: LayerDir::Implicit,
//!     manifests: &[ManifestFile {
//!         name: "VkLayer_example.json",
//!         template: r#"{ "layer": { "library_path": "../../target/release/libexample_layer.so" } }"#,
//!         names_library: true,
//!     }],
//!     enable_intro: "enable the layer per program with:",
//!     enable: &["  EXAMPLE=1 my-app"],
//! };
//!
//! fn main() -> std::process::ExitCode {
//!     INSTALLER.main()
//! }
//! ```
//!
//! The command line: `--dir DIR` names another directory, `--library PATH` another build of
//! the library, `--uninstall` removes the manifests. Exit status 0 on success, 1 on an error,
//! 2 on a usage error. The installed manifest names the library by absolute path, never with
//! `$LIB` (a known reason for layers that fail inside Steam's container).

mod args;
mod dir;
mod error;
mod library;
mod manifest;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub use dir::LayerDir;
pub use error::InstallError;
pub use manifest::ManifestFile;

use args::{parse_args, Args};
use error::Report;

/// What an installer installs and says; see the [module](self) documentation.
#[derive(Debug, Clone, Copy)]
pub struct Installer {
    /// The program's name, in usage and error lines.
    pub program: &'static str,
    /// The cargo package that builds the library (the hint when it is missing).
    pub package: &'static str,
    /// The library's file name, as cargo builds it.
    pub library: &'static str,
    /// Explicit or implicit layer directory.
    pub dir: LayerDir,
    /// The manifests, written in this order.
    pub manifests: &'static [ManifestFile],
    /// The line printed after installing, before how to enable the layer.
    pub enable_intro: &'static str,
    /// How to enable the layer, printed after [`enable_intro`](Self::enable_intro) (and, for
    /// a directory the loader does not search, the variable that names it).
    pub enable: &'static [&'static str],
}

impl Installer {
    /// Runs the installer on this process's command line and environment, printing what it
    /// did (stdout) or what went wrong (stderr); the exit status is 0, 1 on an error, 2 on a
    /// usage error.
    pub fn main(&self) -> ExitCode {
        match parse_args(std::env::args_os().skip(1)).and_then(|a| self.run(a)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{}: {}", self.program, self.describe(&e));
                ExitCode::from(e.exit_status())
            }
        }
    }

    /// The text of `e` as this installer prints it (after its name), with what to do.
    pub fn describe(&self, e: &InstallError) -> String {
        let report = Report {
            error: e,
            program: self.program,
            package: self.package,
            library: self.library,
        };
        report.to_string()
    }

    /// The installed manifests' file names and texts, each naming `library` where the
    /// committed one names the build's relative path.
    pub fn manifest_texts(
        &self,
        library: &Path,
    ) -> Result<Vec<(&'static str, String)>, InstallError> {
        self.manifests
            .iter()
            .map(|m| Ok((m.name, manifest::manifest_text(m, self.library, library)?)))
            .collect()
    }

    /// The user's directory for this layer's manifests, from the environment.
    fn default_dir(&self) -> Result<PathBuf, InstallError> {
        dir::default_dir(self.dir, |k| std::env::var_os(k))
    }

    fn run(&self, args: Args) -> Result<(), InstallError> {
        let dir = match args.dir {
            Some(d) => d,
            None => self.default_dir()?,
        };
        if args.uninstall {
            return self.uninstall(&dir);
        }
        let library = self.library_path(args.library)?;
        self.install(&dir, &library)?;
        println!("{}", self.enable_intro);
        if Some(dir.as_path()) != self.default_dir().ok().as_deref() {
            println!("{}", self.dir.path_hint(&dir));
        }
        for line in self.enable {
            println!("{line}");
        }
        Ok(())
    }

    /// Writes every manifest into `dir` (made if missing), naming `library`; a template
    /// error leaves the directory untouched.
    fn install(&self, dir: &Path, library: &Path) -> Result<(), InstallError> {
        let texts = self.manifest_texts(library)?;
        std::fs::create_dir_all(dir)
            .map_err(|e| InstallError::Io("create", dir.to_path_buf(), e))?;
        for (name, text) in texts {
            let path = manifest::write_whole(dir, name, &text)?;
            println!("installed {}", path.display());
        }
        Ok(())
    }

    /// Removes the manifests from `dir`; one already gone is not an error.
    fn uninstall(&self, dir: &Path) -> Result<(), InstallError> {
        for manifest in self.manifests {
            let path = dir.join(manifest.name);
            match std::fs::remove_file(&path) {
                Ok(()) => println!("removed {}", path.display()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    println!("nothing to remove at {}", path.display())
                }
                Err(e) => return Err(InstallError::Io("remove", path, e)),
            }
        }
        Ok(())
    }

    /// `given`, or the library cargo built with this program, made absolute:
    /// `target/<profile>/` holds both after `cargo build`, while `cargo run --bin` leaves the
    /// fresh library in `target/<profile>/deps/` only; the newer of the two wins.
    fn library_path(&self, given: Option<PathBuf>) -> Result<PathBuf, InstallError> {
        let candidates = match given {
            Some(p) => vec![p],
            None => {
                let exe = std::env::current_exe()
                    .map_err(|e| InstallError::Io("locate", "this program".into(), e))?;
                let beside = exe.with_file_name(self.library);
                let deps = exe.with_file_name("deps").join(self.library);
                vec![beside, deps]
            }
        };
        library::newest(&candidates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const INSTALLER: Installer = Installer {
        program: "x-install",
        package: "x-layer",
        library: "libx.so",
        dir: LayerDir::Implicit,
        manifests: &[
            ManifestFile {
                name: "x.json",
                template: r#"{ "library_path": "../../target/release/libx.so" }"#,
                names_library: true,
            },
            ManifestFile {
                name: "x_meta.json",
                template: r#"{ "component_layers": ["X"] }"#,
                names_library: false,
            },
        ],
        enable_intro: "enable:",
        enable: &["  X=1 app"],
    };

    fn args(dir: &Path, library: &Path, uninstall: bool) -> Args {
        Args {
            dir: Some(dir.to_path_buf()),
            library: Some(library.to_path_buf()),
            uninstall,
        }
    }

    #[test]
    fn install_then_uninstall_leaves_the_directory_empty() {
        let root = std::env::temp_dir().join(format!("plumbing-install-{}", std::process::id()));
        let (dir, library) = (root.join("a/b"), root.join("libx.so"));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(&library, "").unwrap();
        INSTALLER.run(args(&dir, &library, false)).unwrap();
        let installed = std::fs::read_to_string(dir.join("x.json")).unwrap();
        let absolute = library.canonicalize().unwrap();
        assert!(
            installed.contains(&format!("\"{}\"", absolute.display())),
            "{installed}"
        );
        let meta = std::fs::read_to_string(dir.join("x_meta.json")).unwrap();
        assert_eq!(meta, INSTALLER.manifests[1].template);
        INSTALLER.run(args(&dir, &library, true)).unwrap();
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        // Uninstalling again finds nothing and is no error.
        INSTALLER.run(args(&dir, &library, true)).unwrap();
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_missing_library_writes_nothing_and_says_how_to_build_it() {
        let root = std::env::temp_dir().join(format!("plumbing-nolib-{}", std::process::id()));
        let e = INSTALLER
            .run(args(&root, &root.join("libx.so"), false))
            .unwrap_err();
        assert!(!root.exists(), "nothing written");
        assert_eq!(e.exit_status(), 1);
        let said = INSTALLER.describe(&e);
        assert!(said.contains("cargo build --release -p x-layer"), "{said}");
        let usage = INSTALLER.describe(&InstallError::Usage(String::new()));
        assert!(usage.contains("usage: x-install [--dir DIR]"), "{usage}");
    }
}
