//! The build script of every layer library of the workspace (each layer package names this
//! file in its `Cargo.toml`, `build = "../layer-plumbing/build/link_symbolic.rs"`): links the
//! cdylib with `-Bsymbolic`, so that the library's references to its own exported symbols
//! (`vkGetInstanceProcAddr` and the rest) bind to its own definitions, never to libvulkan's
//! exports of the same names that an application linking libvulkan puts in the global scope
//! (the plumbing's `exports` module tells what goes wrong otherwise). Cargo takes a cdylib's
//! link arguments only from its own package's build script (`cargo::rustc-cdylib-link-arg`
//! from a dependency does nothing), hence one script shared by path rather than a function of
//! the plumbing crate.

fn main() {
    // Cargo recompiles and reruns this script when it changes; naming the manifest keeps it
    // from rerunning on every other change to the package.
    println!("cargo::rerun-if-changed=Cargo.toml");
    println!("cargo::rustc-cdylib-link-arg=-Wl,-Bsymbolic");
}
