//! Where a layer's manifests go: the user's explicit- or implicit-layer directory, which the
//! loader searches by itself, found by the XDG base directory rules.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::error::InstallError;

/// The directory kind of a layer's manifests, below `$XDG_DATA_HOME/vulkan/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerDir {
    /// `explicit_layer.d`: a layer enabled by name (`VK_INSTANCE_LAYERS`, a meta layer, the
    /// application's own list).
    Explicit,
    /// `implicit_layer.d`: a layer the loader loads when its manifest's
    /// `enable_environment` variable is set (and no `disable_environment` variable is).
    Implicit,
}

impl LayerDir {
    /// The directory's name below `vulkan/`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Explicit => "explicit_layer.d",
            Self::Implicit => "implicit_layer.d",
        }
    }

    /// The line that makes a loader search a directory of this kind it does not search by
    /// itself (`VK_LAYER_PATH` holds explicit layers only; the implicit variable is known to
    /// sid's loader 1.4.363, not to bookworm's 1.3.239).
    pub(crate) fn path_hint(self, dir: &Path) -> String {
        match self {
            Self::Explicit => format!("  export VK_LAYER_PATH={}", dir.display()),
            Self::Implicit => format!(
                "  export VK_ADD_IMPLICIT_LAYER_PATH={}   # newer loaders only (1.4.363 \
                 yes, 1.3.239 no); else install where the loader searches",
                dir.display()
            ),
        }
    }
}

/// The user's layer directory the loader searches by itself (the XDG base directory rules:
/// an empty `XDG_DATA_HOME` counts as unset), from `var` (the environment, or a test's).
pub(crate) fn default_dir(
    kind: LayerDir,
    var: impl Fn(&str) -> Option<OsString>,
) -> Result<PathBuf, InstallError> {
    let non_empty = |k: &str| var(k).filter(|v| !v.is_empty());
    let data = match (non_empty("XDG_DATA_HOME"), non_empty("HOME")) {
        (Some(xdg), _) => PathBuf::from(xdg),
        (None, Some(home)) => Path::new(&home).join(".local/share"),
        (None, None) => return Err(InstallError::NoDirectory),
    };
    Ok(data.join("vulkan").join(kind.name()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.into())
    }

    #[test]
    fn xdg_data_home_wins_then_home() {
        let both = [("XDG_DATA_HOME", "/x"), ("HOME", "/h")];
        let dir = default_dir(LayerDir::Implicit, env(&both)).unwrap();
        assert_eq!(dir, Path::new("/x/vulkan/implicit_layer.d"));
        let home = [("HOME", "/h")];
        let dir = default_dir(LayerDir::Explicit, env(&home)).unwrap();
        assert_eq!(dir, Path::new("/h/.local/share/vulkan/explicit_layer.d"));
    }

    #[test]
    fn an_empty_variable_counts_as_unset() {
        let empty_xdg = [("XDG_DATA_HOME", ""), ("HOME", "/h")];
        let dir = default_dir(LayerDir::Implicit, env(&empty_xdg)).unwrap();
        assert_eq!(dir, Path::new("/h/.local/share/vulkan/implicit_layer.d"));
        let none = [("XDG_DATA_HOME", ""), ("HOME", "")];
        let e = default_dir(LayerDir::Implicit, env(&none)).unwrap_err();
        assert!(matches!(e, InstallError::NoDirectory), "{e:?}");
    }

    #[test]
    fn each_kind_names_its_own_path_variable() {
        let d = Path::new("/d");
        assert!(LayerDir::Explicit.path_hint(d).contains("VK_LAYER_PATH=/d"));
        assert!(LayerDir::Implicit
            .path_hint(d)
            .contains("VK_ADD_IMPLICIT_LAYER_PATH=/d"));
    }
}
