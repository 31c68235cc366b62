//! Links the layer library with `-Bsymbolic`: its references to its own exported symbols
//! (`vkGetInstanceProcAddr` and the rest) bind to its own definitions, never to libvulkan's
//! exports of the same names that an application linking libvulkan puts in the global scope
//! (see `src/exports.rs`).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-cdylib-link-arg=-Wl,-Bsymbolic");
}
