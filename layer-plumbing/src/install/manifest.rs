//! A layer's committed manifest made into the installed one, and written whole.

use std::path::{Path, PathBuf};

use super::error::InstallError;

/// One manifest an installer writes.
#[derive(Debug, Clone, Copy)]
pub struct ManifestFile {
    /// Its file name in the layer directory.
    pub name: &'static str,
    /// The committed manifest (`include_str!`).
    pub template: &'static str,
    /// Whether it names the library: its `library_path` then is the committed relative path
    /// `../../target/release/<library>` and becomes the library's absolute path. A meta layer
    /// names none and is written as committed.
    pub names_library: bool,
}

/// The manifest text for `library` (an absolute path, JSON-escaped).
pub(crate) fn manifest_text(
    manifest: &ManifestFile,
    library_name: &str,
    library: &Path,
) -> Result<String, InstallError> {
    if !manifest.names_library {
        return Ok(manifest.template.to_string());
    }
    let relative = format!("../../target/release/{library_name}");
    if !manifest.template.contains(&relative) {
        return Err(InstallError::Template(manifest.name));
    }
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
    Ok(manifest.template.replace(&relative, &escaped))
}

/// Writes `text` to `dir/name` whole: beside, then renamed, so a loader reading the directory
/// meanwhile never sees half a file.
pub(crate) fn write_whole(dir: &Path, name: &str, text: &str) -> Result<PathBuf, InstallError> {
    let partial = dir.join(format!(".{name}.partial"));
    let path = dir.join(name);
    std::fs::write(&partial, text).map_err(|e| InstallError::Io("write", partial.clone(), e))?;
    std::fs::rename(&partial, &path).map_err(|e| InstallError::Io("write", path.clone(), e))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = "libx.so";
    const NAMES: ManifestFile = ManifestFile {
        name: "x.json",
        template: r#"{ "library_path": "../../target/release/libx.so" }"#,
        names_library: true,
    };

    #[test]
    fn the_manifest_holds_the_escaped_absolute_path() {
        let text = manifest_text(&NAMES, LIB, Path::new("/opt/a \"b\"\\c\n/libx.so")).unwrap();
        assert_eq!(
            text,
            r#"{ "library_path": "/opt/a \"b\"\\c\u000a/libx.so" }"#
        );
    }

    #[test]
    fn a_template_without_the_library_is_an_error_and_a_meta_layer_is_kept() {
        let wrong = ManifestFile {
            template: r#"{ "library_path": "$LIB/libx.so" }"#,
            ..NAMES
        };
        let e = manifest_text(&wrong, LIB, Path::new("/l/libx.so")).unwrap_err();
        assert!(matches!(e, InstallError::Template("x.json")), "{e:?}");
        let meta = ManifestFile {
            template: r#"{ "component_layers": [] }"#,
            names_library: false,
            ..NAMES
        };
        let text = manifest_text(&meta, LIB, Path::new("/l/libx.so")).unwrap();
        assert_eq!(text, meta.template);
    }

    #[test]
    fn a_whole_write_replaces_and_leaves_nothing_beside() {
        let dir = std::env::temp_dir().join(format!("plumbing-write-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        write_whole(&dir, "m.json", "old").unwrap();
        let path = write_whole(&dir, "m.json", "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["m.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
