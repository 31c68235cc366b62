//! Compiles the demo's GLSL shaders in `shaders/` to SPIR-V in `OUT_DIR` with naga (pure Rust:
//! no C++ toolchain, no system shader compiler), and the tests' thread-end shim
//! (`tests/programs/thread_end_shim.c`) with the C compiler Rust links with.

fn main() {
    if let Err(e) = shaders::compile_all() {
        // A build script reports failure by exiting non-zero with a message.
        eprintln!("shader compilation failed: {e}");
        std::process::exit(1);
    }
    thread_end_shim();
}

/// `OUT_DIR/thread_end_shim.so` for `tests/vulkan/pacing_layer_thread_end.rs`, built here
/// because the sid root file system the tests run in has no C compiler. A build without `cc`
/// warns; the test then fails and says so.
fn thread_end_shim() {
    let source = "tests/programs/thread_end_shim.c";
    println!("cargo:rerun-if-changed={source}");
    let Ok(out) = std::env::var("OUT_DIR") else {
        return;
    };
    let lib = std::path::Path::new(&out).join("thread_end_shim.so");
    let built = std::process::Command::new("cc")
        .args(["-O2", "-shared", "-fPIC", "-o"])
        .arg(&lib)
        .args([source, "-lpthread"])
        .status();
    if !matches!(built, Ok(status) if status.success()) {
        println!("cargo:warning=the thread-end shim was not built ({built:?}): its test will fail");
    }
}

mod shaders {
    use std::path::Path;

    /// The stage of a shader file, by its extension (`.vert`, `.frag`); other files are skipped.
    fn stage_of(name: &str) -> Option<naga::ShaderStage> {
        match Path::new(name).extension()?.to_str()? {
            "vert" => Some(naga::ShaderStage::Vertex),
            "frag" => Some(naga::ShaderStage::Fragment),
            _ => None,
        }
    }

    /// Every `shaders/NAME.vert` and `shaders/NAME.frag` becomes `OUT_DIR/NAME.vert.spv` or
    /// `NAME.frag.spv` (the demo's, the examples').
    pub fn compile_all() -> Result<(), String> {
        let out = std::env::var("OUT_DIR").map_err(|e| e.to_string())?;
        println!("cargo:rerun-if-changed=shaders");
        let mut names: Vec<String> = std::fs::read_dir("shaders")
            .map_err(|e| format!("shaders/: {e}"))?
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .collect();
        names.sort();
        for name in &names {
            let Some(stage) = stage_of(name) else {
                continue;
            };
            let src_path = Path::new("shaders").join(name);
            println!("cargo:rerun-if-changed={}", src_path.display());
            let source = std::fs::read_to_string(&src_path).map_err(|e| format!("{name}: {e}"))?;
            let words = compile(&source, stage).map_err(|e| format!("{name}: {e}"))?;
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(Path::new(&out).join(format!("{name}.spv")), bytes)
                .map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(())
    }

    fn compile(source: &str, stage: naga::ShaderStage) -> Result<Vec<u32>, String> {
        let mut frontend = naga::front::glsl::Frontend::default();
        let module = frontend
            .parse(&naga::front::glsl::Options::from(stage), source)
            .map_err(|e| format!("{e:?}"))?;
        let info = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .map_err(|e| format!("{e:?}"))?;
        let mut options = naga::back::spv::Options::default();
        // GLSL written for Vulkan already has Vulkan's coordinate space; naga's flip would
        // render upside down with no validation message.
        options
            .flags
            .remove(naga::back::spv::WriterFlags::ADJUST_COORDINATE_SPACE);
        let pipeline = naga::back::spv::PipelineOptions {
            shader_stage: stage,
            entry_point: "main".into(),
        };
        naga::back::spv::write_vec(&module, &info, &options, Some(&pipeline))
            .map_err(|e| format!("{e:?}"))
    }
}
