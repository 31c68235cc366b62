//! `vkpace-pacing-install`: writes the loader manifest of `VK_LAYER_VKPACE_pacing` with the
//! absolute path of the layer library built next to this program into the user's
//! implicit-layer directory, so that any Vulkan application on this machine is paced when it
//! runs with `VKPACE_PACING=1` (and untouched without it).
//!
//! ```sh
//! cargo run --release -p vkpace-pacing-layer --bin vkpace-pacing-install
//! VKPACE_PACING=1 VKPACE_FPS=60 my-app
//! ```
//!
//! By default the manifest goes to `$XDG_DATA_HOME/vulkan/implicit_layer.d`, or
//! `~/.local/share/vulkan/implicit_layer.d`, which every loader searches on its own.
//! `--dir DIR` names another, `--library PATH` another build of the library (a 32-bit one, for
//! example: docs/layer.md), `--uninstall` removes the manifest again. The manifest names the
//! library by absolute path, never with `$LIB`. Exit status 0 on success, 1 on an error, 2 on
//! a usage error. The installer is the layers' shared one (`vkpace_layer_plumbing::install`).

use std::process::ExitCode;

use vkpace_layer_plumbing::install::{Installer, LayerDir, ManifestFile};

const INSTALLER: Installer = Installer {
    program: "vkpace-pacing-install",
    package: "vkpace-pacing-layer",
    library: "libvkpace_pacing_layer.so",
    dir: LayerDir::Implicit,
    manifests: &[ManifestFile {
        name: "VkLayer_VKPACE_pacing.json",
        template: include_str!("../../manifest/VkLayer_VKPACE_pacing.json"),
        names_library: true,
    }],
    enable_intro: "the layer is off unless enabled; pace a program with:",
    enable: &[
        "  VKPACE_PACING=1 VKPACE_FPS=60 my-app",
        "  Steam launch options: VKPACE_PACING=1 VKPACE_FPS=60 %command%",
        "DISABLE_VKPACE_PACING=1 always turns it off; docs/layer.md lists the settings",
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
    fn the_committed_manifest_installs_naming_the_library_and_no_lib_variable() {
        let library = Path::new("/opt/vkpace/libvkpace_pacing_layer.so");
        let texts = INSTALLER.manifest_texts(library).unwrap();
        let [(name, text)] = &texts[..] else {
            panic!("one manifest: {texts:?}")
        };
        assert_eq!(*name, "VkLayer_VKPACE_pacing.json");
        assert!(text.contains(r#""library_path": "/opt/vkpace/libvkpace_pacing_layer.so""#));
        assert!(
            !text.contains("$LIB") && !text.contains("../../target"),
            "{text}"
        );
        assert!(text.contains(r#""enable_environment": { "VKPACE_PACING": "1" }"#));
        assert!(text.contains("\"disable_environment\""));
    }
}
