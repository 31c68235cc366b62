//! The pacing layer (`VK_LAYER_VKPACE_pacing`) as the tests and the benchmark install it: its
//! committed implicit manifest, pointing at the library cargo built beside the running
//! executable, under a private `XDG_DATA_HOME` (both stacks' loaders search
//! `$XDG_DATA_HOME/vulkan/implicit_layer.d`).

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context as _, Result};

const MANIFEST: &str = include_str!("../pacing-layer/manifest/VkLayer_VKPACE_pacing.json");
/// The library path the committed manifest names (relative, for a checkout).
const MANIFEST_LIBRARY: &str = "../../target/release/libvkpace_pacing_layer.so";
const LIBRARY: &str = "libvkpace_pacing_layer.so";

/// Writes the manifest, its library `library`, under `data_home/vulkan/implicit_layer.d`.
pub fn write_manifest(data_home: &Path, library: &Path) -> Result<()> {
    let text = MANIFEST.replace(MANIFEST_LIBRARY, &library.display().to_string());
    ensure!(
        text != MANIFEST,
        "the manifest's library_path is not the one expected"
    );
    let dir = data_home.join("vulkan/implicit_layer.d");
    std::fs::create_dir_all(&dir).with_context(|| format!("{}", dir.display()))?;
    std::fs::write(dir.join("VkLayer_VKPACE_pacing.json"), text)?;
    Ok(())
}

/// The layer library cargo built with the running executable: in `target/<profile>/` or, in
/// a build where it was only a dependency, `target/<profile>/deps/`; the newer where both are.
pub fn find_library() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().context("the executable has no directory")?;
    // A test executable sits in target/<profile>/deps, a binary in target/<profile>.
    let profile = if dir.ends_with("deps") {
        dir.parent().context("no profile directory")?
    } else {
        dir
    };
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    [profile.to_path_buf(), profile.join("deps")]
        .iter()
        .map(|d| d.join(LIBRARY))
        .filter(|p| p.is_file())
        .max_by_key(modified)
        .with_context(|| {
            format!(
                "{LIBRARY} not built near {} (cargo build --release -p vkpace-pacing-layer)",
                exe.display()
            )
        })
}
