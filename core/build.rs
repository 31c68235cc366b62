//! Test only: `scripts/mutation-check` sets `VKPACE_MUTATION` to weaken one rule or step of the
//! core on purpose and shows the property tests catch it. The variable becomes the cfg
//! `vkpace_mutation="..."` of this crate alone, so only vkpace-core and what depends on it
//! rebuild for each mutation (a `--cfg` in RUSTFLAGS rebuilt every dependency four times).
//! Unset, as in every normal build, nothing changes. No Cargo feature can turn a mutation on.

/// The mutations the core knows (`cfg!(vkpace_mutation = "...")` in `src/`).
const MUTATIONS: [&str; 11] = [
    "weak_reuse",
    "early_retire",
    "submit_at_present",
    "skip_consume",
    "late_frame_stays",
    "present_before_signal",
    "weak_repair",
    "drifting_limiter",
    "reset_lent",
    "lend_exact_unmarked",
    "mode_switch_ignored",
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
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
