//! The crate documentation: the README with its links to files of the repository
//! (`docs/design.md`, `examples/...`) turned into plain paths, since docs.rs would resolve them
//! against its own pages, where they do not exist (`README.md` in `OUT_DIR`, which `lib.rs`
//! includes). (The mutations of `scripts/mutation-check` are the core's: `core/build.rs`.)

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    crate_docs();
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
