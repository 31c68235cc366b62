//! The frame order is enforced by types: each file in `tests/compile_fail/` must fail to compile
//! against vkpace with the error code its first line names (`// expect: E0382`), or compile
//! (`// expect: compiles`, the control that shows the harness builds against vkpace at all).
//!
//! Rustdoc checks a `compile_fail` doc test's error code only on nightly, so on stable a doc
//! test that failed for another reason (a renamed method) would pass. Here each case is built
//! as a binary of a throwaway package that depends on this checkout's vkpace, with
//! `cargo check --message-format=json`, and the codes rustc reported are compared with the
//! expected one. The package's target directory (`target/compile-fail`) is kept between runs.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, ensure, Context, Result};

/// What a case expects.
#[derive(Debug, PartialEq)]
enum Expect {
    Compiles,
    Error(String),
}

fn main() -> Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases = cases(&root.join("tests/compile_fail"))?;
    ensure!(
        cases.len() >= 5,
        "expected the cases of tests/compile_fail, found {cases:?}"
    );
    let package = package(root, &cases)?;
    let mut failures = Vec::new();
    for (name, expect) in &cases {
        let codes = check(root, &package, name)?;
        let ok = match expect {
            Expect::Compiles => codes.is_empty(),
            Expect::Error(code) => codes.iter().any(|c| c == code),
        };
        println!("compile_fail: {name}: expected {expect:?}, rustc reported {codes:?}");
        if !ok {
            failures.push(name.clone());
        }
    }
    ensure!(failures.is_empty(), "cases not as expected: {failures:?}");
    println!("compile_fail: {} cases as expected", cases.len());
    Ok(())
}

/// The cases, by file stem, with their expectation from the first line.
fn cases(dir: &Path) -> Result<Vec<(String, Expect)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path)?;
        let first = text.lines().next().unwrap_or_default();
        let expect = match first.strip_prefix("// expect: ").map(str::trim) {
            Some("compiles") => Expect::Compiles,
            Some(code) if code.starts_with('E') => Expect::Error(code.to_string()),
            _ => bail!(
                "{}: first line must be `// expect: E0xxx` or `// expect: compiles`",
                path.display()
            ),
        };
        let stem = path
            .file_stem()
            .context("file name")?
            .to_string_lossy()
            .into_owned();
        out.push((stem, expect));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

/// A package of its own (not a workspace member) with each case as a binary, depending on
/// vkpace by path and resolved with this workspace's lock file, so it builds offline.
fn package(root: &Path, cases: &[(String, Expect)]) -> Result<PathBuf> {
    let dir = root.join("target/compile-fail/package");
    let src = dir.join("src/bin");
    if src.exists() {
        std::fs::remove_dir_all(&src)?;
    }
    std::fs::create_dir_all(&src)?;
    let manifest = format!(
        "[package]\nname = \"vkpace-compile-fail\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\nvkpace = {{ path = {:?} }}\n\n[workspace]\n",
        root.join("layer").display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest)?;
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock"))?;
    for (name, _) in cases {
        let from = root.join("tests/compile_fail").join(format!("{name}.rs"));
        std::fs::copy(&from, src.join(format!("{name}.rs")))?;
    }
    Ok(dir)
}

/// `cargo check` of one case: the error codes rustc reported (empty if it compiled).
fn check(root: &Path, package: &Path, name: &str) -> Result<Vec<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(package)
        .env("CARGO_TARGET_DIR", root.join("target/compile-fail/target"))
        .env_remove("RUSTFLAGS")
        .args([
            "check",
            "--offline",
            "--quiet",
            "--message-format=json",
            "--bin",
            name,
        ])
        .output()
        .context("running cargo check")?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut codes: Vec<String> = stdout
        .lines()
        .filter(|l| l.contains("\"level\":\"error\""))
        .filter_map(|l| l.split("\"code\":{\"code\":\"").nth(1))
        .filter_map(|rest| rest.split('"').next())
        .map(str::to_string)
        .collect();
    codes.dedup();
    if output.status.success() {
        ensure!(
            codes.is_empty(),
            "{name}: cargo succeeded but reported {codes:?}"
        );
    } else if codes.is_empty() {
        // A failure without a rustc error code (a missing dependency, a broken manifest) is
        // the harness failing, not the case.
        bail!(
            "{name}: cargo check failed without an error code:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(codes)
}
