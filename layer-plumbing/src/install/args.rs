//! The installers' command line: `[--dir DIR] [--library PATH] [--uninstall]`.

use std::ffi::OsString;
use std::path::PathBuf;

use super::error::InstallError;

/// The parsed command line.
#[derive(Debug, Default)]
pub(crate) struct Args {
    /// `--dir DIR`: the directory instead of the user's default.
    pub dir: Option<PathBuf>,
    /// `--library PATH`: the library instead of the one built beside the program.
    pub library: Option<PathBuf>,
    /// `--uninstall`: remove the manifests.
    pub uninstall: bool,
}

/// Parses the arguments after the program's name; `--help` is a usage error with no text.
pub(crate) fn parse_args(mut args: impl Iterator<Item = OsString>) -> Result<Args, InstallError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn args(v: &[&str]) -> Result<Args, InstallError> {
        parse_args(v.iter().map(OsString::from))
    }

    #[test]
    fn bad_command_lines_are_usage_errors() {
        for bad in [&["--dir"][..], &["--library"], &["--frobnicate"], &["-h"]] {
            let e = args(bad).unwrap_err();
            assert!(matches!(e, InstallError::Usage(_)), "{bad:?}: {e:?}");
            assert_eq!(e.exit_status(), 2);
        }
    }

    #[test]
    fn every_option_is_read() {
        let ok = args(&["--dir", "/x", "--uninstall", "--library", "/l.so"]).unwrap();
        assert_eq!(ok.dir.as_deref(), Some(Path::new("/x")));
        assert_eq!(ok.library.as_deref(), Some(Path::new("/l.so")));
        assert!(ok.uninstall);
        let none = args(&[]).unwrap();
        assert!(none.dir.is_none() && none.library.is_none() && !none.uninstall);
    }
}
