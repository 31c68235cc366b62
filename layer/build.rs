//! Two jobs. The crate documentation: the README with its links to files of the repository
//! (`docs/design.md`, `examples/...`) turned into plain paths, since docs.rs would resolve them
//! against its own pages, where they do not exist (`README.md` in `OUT_DIR`, which `lib.rs`
//! includes).
//!
//! Test only: `scripts/mutation-check` sets `VKPACE_MUTATION` to weaken one rule or step of the
//! core on purpose and shows the property tests catch it. The variable becomes the cfg
//! `vkpace_mutation="..."` of this crate alone, so only vkpace and what depends on it rebuild for
//! each mutation (a `--cfg` in RUSTFLAGS rebuilt every dependency four times). Unset, as in
//! every normal build, nothing changes. No Cargo feature can turn a mutation on.

/// The mutations the core knows (`cfg!(vkpace_mutation = "...")` in `core/`).
const MUTATIONS: [&str; 7] = [
    "weak_reuse",
    "early_retire",
    "submit_at_present",
    "skip_consume",
    "late_frame_stays",
    "present_before_signal",
    "weak_repair",
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    crate_docs();
    println!("cargo::rerun-if-env-changed=VKPACE_MUTATION");
    let values: Vec<String> = MUTATIONS.iter().map(|m| format!("\"{m}\"")).collect();
    println!(
        "cargo::rustc-check-cfg=cfg(vkpace_mutation, values({}))",
        values.join(", ")
    );
    match std::env::var("VKPACE_MUTATION") {
        Ok(m) if MUTATIONS.contains(&m.as_str()) => {
            println!("cargo::rustc-cfg=vkpace_mutation=\"{m}\"");
        }
        Ok(other) => println!(
            "cargo::error=VKPACE_MUTATION={other:?} is not a mutation of the core: one of {MUTATIONS:?}"
        ),
        Err(_) => {}
    }
}

/// Writes the README for the crate documentation, each link to a repository file (a relative
/// target) replaced by its text and the path in code: `[the design](docs/design.md)` becomes
/// ``the design (`docs/design.md`)``. Links with a scheme or an anchor only are kept.
fn crate_docs() {
    // In the repository the README is the workspace's; in a packaged crate, cargo copies it in.
    println!("cargo::rerun-if-changed=../README.md");
    let readme = std::fs::read_to_string("../README.md")
        .or_else(|_| std::fs::read_to_string("README.md"))
        .unwrap_or_default();
    let mut out = String::with_capacity(readme.len());
    let mut rest = readme.as_str();
    while let Some(open) = rest.find("](") {
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let target = &rest[open + 2..open + close];
        let text_start = rest[..open].rfind('[').unwrap_or(open);
        let relative = !target.contains("://") && !target.starts_with('#') && !target.is_empty();
        if relative {
            let text = &rest[text_start + 1..open];
            out.push_str(&rest[..text_start]);
            let path = target.split('#').next().unwrap_or(target);
            if text.trim_matches('`') == path {
                out.push_str(&format!("`{path}`"));
            } else {
                out.push_str(&format!("{text} (`{path}`)"));
            }
        } else {
            out.push_str(&rest[..open + close + 1]);
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    let dir = std::env::var("OUT_DIR").unwrap_or_else(|_| ".".into());
    if let Err(e) = std::fs::write(format!("{dir}/README.md"), out) {
        println!("cargo::error=writing the crate docs' README: {e}");
    }
}
