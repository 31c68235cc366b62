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
//! manifests again. Exit status 0 on success, 1 on an error, 2 on a usage error. The
//! installer is the layers' shared one (`vkpace_layer_plumbing::install`).

use std::process::ExitCode;

use vkpace_layer_plumbing::install::{Installer, LayerDir, ManifestFile};

const INSTALLER: Installer = Installer {
    program: "vdisplay-install",
    package: "vkpace-vdisplay",
    library: "libvkpace_vdisplay.so",
    dir: LayerDir::Explicit,
    manifests: &[
        ManifestFile {
            name: "VkLayer_VKPACE_vdisplay.json",
            template: include_str!("../../manifest/VkLayer_VKPACE_vdisplay.json"),
            names_library: true,
        },
        // The meta layer `VK_LAYER_VKPACE_vdisplay_validated`: the Khronos validation layer
        // above vdisplay. Layers enabled by name are stacked in the order the loader *found*
        // their manifests, and the user's directory is searched before `/usr/share`, so
        // enabling both by name would put vdisplay above validation (validation would then
        // check vdisplay's calls to the driver, not the application's). A meta layer fixes
        // the order itself.
        ManifestFile {
            name: "VkLayer_VKPACE_vdisplay_validated.json",
            template: include_str!("../../manifest/VkLayer_VKPACE_vdisplay_validated.json"),
            names_library: false,
        },
    ],
    enable_intro: "run any Vulkan application over the virtual display with:",
    enable: &[
        "  export VK_INSTANCE_LAYERS=VK_LAYER_VKPACE_vdisplay   # or ..._vdisplay_validated",
        "  export VK_LOADER_DISABLE_INST_EXT_FILTER=1",
    ],
};

fn main() -> ExitCode {
    INSTALLER.main()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_committed_manifests_install_naming_the_library() {
        let library = Path::new("/opt/vkpace/libvkpace_vdisplay.so");
        let texts = INSTALLER.manifest_texts(library).unwrap();
        assert_eq!(texts.len(), 2);
        assert!(texts[0]
            .1
            .contains(r#""library_path": "/opt/vkpace/libvkpace_vdisplay.so""#));
        assert!(texts[1].1.contains("\"component_layers\""));
        assert!(texts.iter().all(|(_, t)| !t.contains("../../target")));
    }
}
