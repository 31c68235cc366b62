//! Test environment: locates the layer built by this `cargo test`, writes a manifest for it,
//! points the Vulkan loader at it (VK_LAYER_PATH, VK_INSTANCE_LAYERS with the Khronos
//! validation layer above vdisplay), and serializes the tests of a binary (they share the
//! process environment and two cores).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

/// The layer's name.
pub const LAYER: &str = "VK_LAYER_VKPACE_vdisplay";
/// The Khronos validation layer's name.
pub const VALIDATION: &str = "VK_LAYER_KHRONOS_validation";

static LOCK: Mutex<()> = Mutex::new(());
static INIT: Once = Once::new();

/// The layer library next to the test executable (target/<profile>/deps or target/<profile>).
pub fn layer_library() -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let deps = exe.parent().expect("deps directory").to_path_buf();
    let name = "libvkpace_vdisplay.so";
    let profile = deps.parent().map(Path::to_path_buf).unwrap_or_default();
    for dir in [deps.clone(), profile.clone(), profile.join("deps")] {
        let p = dir.join(name);
        if p.exists() {
            return p;
        }
    }
    panic!(
        "{name} not found next to {} (cargo builds the cdylib with the tests)",
        exe.display()
    );
}

/// Writes the manifest (the committed one with an absolute library path) and returns its
/// directory.
fn write_manifest(lib: &Path) -> PathBuf {
    let template = include_str!("../../manifest/VkLayer_VKPACE_vdisplay.json");
    let text = template.replace(
        "../../target/release/libvkpace_vdisplay.so",
        &lib.display().to_string(),
    );
    assert_ne!(text, template, "manifest template lost its library_path");
    let dir = lib.parent().unwrap().join("vdisplay-layer");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("VkLayer_VKPACE_vdisplay.json"), text).unwrap();
    dir
}

type Job = Box<dyn FnOnce() + Send>;

/// Runs `body` on the binary's one Vulkan thread (started on first use), after [`setup`], and
/// returns its result; a panic in `body` is re-raised here. One thread for every test of a
/// binary: the validation layer keeps per-thread records keyed by driver handles, which a
/// later test (on another harness thread) can reuse after a device was destroyed, and then
/// reports a "simultaneous use" that never happened.
pub fn run<T: Send + 'static>(body: impl FnOnce() -> T + Send + 'static) -> T {
    use std::sync::mpsc::{channel, Sender};
    use std::sync::OnceLock;
    static WORKER: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    let tx = WORKER.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        std::thread::Builder::new()
            .name("vulkan-tests".into())
            .spawn(move || {
                for job in rx {
                    job();
                }
            })
            .unwrap();
        Mutex::new(tx)
    });
    let _g = setup();
    let (rtx, rrx) = channel();
    let job: Job = Box::new(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
        let _ = rtx.send(r);
    });
    tx.lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(job)
        .unwrap();
    match rrx.recv().unwrap() {
        Ok(v) => v,
        Err(p) => panic!("on the Vulkan thread: {}", panic_text(&*p)),
    }
}

/// A panic's message. The Vulkan thread's own report of it is lost: a thread inherits the
/// output capture of the test that spawned it, which has ended by the time a later test
/// fails, so the test's thread raises the panic again with its text.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> &str {
    match payload.downcast_ref::<String>() {
        Some(s) => s,
        None => payload
            .downcast_ref::<&str>()
            .copied()
            .unwrap_or("(no message)"),
    }
}

/// Sets up the environment once and returns the lock every test holds while it runs.
pub fn setup() -> MutexGuard<'static, ()> {
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    INIT.call_once(|| {
        let dir = write_manifest(&layer_library());
        // VK_LAYER_PATH replaces the loader's explicit-layer search path, so the validation
        // layer's directory is listed too, and first: the Debian loader (1.3.239) orders the
        // layers enabled through VK_INSTANCE_LAYERS by discovery order, not by their order in
        // the variable, and the layer found first is the closest to the application. Checked
        // by `validation_sits_above_vdisplay`.
        std::env::set_var(
            "VK_LAYER_PATH",
            format!("/usr/share/vulkan/explicit_layer.d:{}", dir.display()),
        );
        std::env::set_var("VK_INSTANCE_LAYERS", format!("{VALIDATION}:{LAYER}"));
        // The loader (1.3.239) refuses instance extensions newer than itself, such as the
        // VK_KHR_surface_maintenance1 the layer provides, unless told not to filter.
        std::env::set_var("VK_LOADER_DISABLE_INST_EXT_FILTER", "1");
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            let xdg = std::env::temp_dir().join(format!("vdisplay-xdg-{}", std::process::id()));
            std::fs::create_dir_all(&xdg).unwrap();
            std::env::set_var("XDG_RUNTIME_DIR", xdg);
        }
    });
    guard
}

/// A fresh scratch directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("vdisplay-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Calls one of the layer's exported control functions (`control.rs`) in the copy of the
/// library the loader loaded.
pub fn control_set_extent(surface_seq: u64, width: u32, height: u32) -> u32 {
    type F = extern "C" fn(u64, u32, u32) -> u32;
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let f: F = unsafe { std::mem::transmute(symbol(c"vdisplay_set_extent")) };
    f(surface_seq, width, height)
}

/// As [`control_set_extent`], for `vdisplay_lose_surface`.
pub fn control_lose_surface(surface_seq: u64) -> u32 {
    type F = extern "C" fn(u64) -> u32;
    // SAFETY: objects this test created and owns; the validation layer above checks the call's valid usage.
    let f: F = unsafe { std::mem::transmute(symbol(c"vdisplay_lose_surface")) };
    f(surface_seq)
}

fn symbol(name: &std::ffi::CStr) -> *mut std::ffi::c_void {
    let path = std::ffi::CString::new(layer_library().display().to_string()).unwrap();
    // SAFETY: RTLD_NOLOAD returns the library the loader already loaded (or null).
    let handle = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
    assert!(!handle.is_null(), "the layer library is not loaded");
    // SAFETY: a valid handle and a C string.
    let sym = unsafe { libc::dlsym(handle, name.as_ptr()) };
    assert!(!sym.is_null(), "{name:?} not exported");
    sym
}
