//! What can go wrong while installing, each said with what to do.

use std::fmt;
use std::path::PathBuf;

/// What went wrong, each with what to do.
#[derive(Debug)]
pub enum InstallError {
    /// A bad command line (empty for `--help`).
    Usage(String),
    /// No layer library where expected.
    NoLibrary(PathBuf),
    /// Neither `--dir`, `XDG_DATA_HOME` nor `HOME` says where to write.
    NoDirectory,
    /// A path the manifest (JSON, UTF-8) cannot hold.
    BadPath(PathBuf),
    /// A committed manifest (its file name) that should name the library lacks the relative
    /// path `../../target/release/<library>`.
    Template(&'static str),
    /// A file-system operation (what) on a path failed.
    Io(&'static str, PathBuf, std::io::Error),
}

impl InstallError {
    /// The exit status this error ends the program with: 2 for a usage error, else 1.
    pub fn exit_status(&self) -> u8 {
        if matches!(self, Self::Usage(_)) {
            2
        } else {
            1
        }
    }
}

/// An [`InstallError`] said for one installer: its program, the package that builds its
/// library, the library's file name.
pub(crate) struct Report<'a> {
    pub error: &'a InstallError,
    pub program: &'a str,
    pub package: &'a str,
    pub library: &'a str,
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error {
            InstallError::Usage(what) => write!(
                f,
                "{what}\nusage: {} [--dir DIR] [--library PATH] [--uninstall]",
                self.program
            ),
            InstallError::NoLibrary(p) => write!(
                f,
                "no layer library at {} (build it first: `cargo build --release -p {}`, or \
                 name it with --library)",
                p.display(),
                self.package
            ),
            InstallError::NoDirectory => write!(
                f,
                "neither XDG_DATA_HOME nor HOME is set: name the directory with --dir"
            ),
            InstallError::BadPath(p) => write!(f, "{} is not a UTF-8 path", p.display()),
            InstallError::Template(name) => write!(
                f,
                "the committed {name} does not name ../../target/release/{}",
                self.library
            ),
            InstallError::Io(what, p, e) => write!(f, "cannot {what} {}: {e}", p.display()),
        }
    }
}
