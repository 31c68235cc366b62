//! Links the layer library with `-Bsymbolic` (the line `vkpace_layer_plumbing::SYMBOLIC_LINK_ARG`
//! names; the plumbing's `exports` module says why every layer needs it and why each layer
//! package prints it itself: cargo takes a cdylib's link arguments only from its own build
//! script).

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rustc-cdylib-link-arg=-Wl,-Bsymbolic");
}
