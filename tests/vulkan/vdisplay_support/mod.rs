//! Running vkpace over the virtual display (vdisplay) in a test binary: the loader's
//! environment set once, before the first instance; vdisplay's settings per run through its
//! settings file (read at each `vkCreateInstance`); every Vulkan call of the binary on one
//! thread, one run at a time; and the layer's per-present log read back.

use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

type Job = Box<dyn FnOnce() + Send>;

/// Where this binary keeps what it wants to show (logs, pictures): `target/vdisplay/`.
pub fn artifacts_dir() -> PathBuf {
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    tmp.parent().map_or(tmp.clone(), |t| t.join("vdisplay"))
}

/// The settings file vdisplay reads (`VDISPLAY_SETTINGS_FILE`), private to this process.
fn settings_file() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("vdisplay-settings-{}.conf", std::process::id()))
}

/// Loads the layer for this process (validation above it) once; panics with the reason when
/// the layer library is missing (`cargo build --release -p vkpace-vdisplay`).
fn setup() {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        let lib = vkpace_demo::virtual_display::enable_for_process(true)
            .unwrap_or_else(|e| panic!("the virtual display cannot be loaded: {e:#}"));
        eprintln!("vdisplay: {}", lib.display());
        std::env::set_var("VDISPLAY_SETTINGS_FILE", settings_file());
        if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
            let dir = std::env::temp_dir().join("vkpace-test-xdg");
            let _ = std::fs::create_dir_all(&dir);
            std::env::set_var("XDG_RUNTIME_DIR", dir);
        }
    });
}

/// Runs `body` with vdisplay `settings` (`key = value` lines) on the binary's one Vulkan
/// thread, after every earlier run finished; a panic in `body` is raised again here. One
/// thread for all: the validation layer keeps per-thread records keyed by driver handles that
/// a later run on another thread could reuse (vdisplay's tests saw false "simultaneous use").
pub fn run<T: Send + 'static>(
    settings: &[(&str, String)],
    body: impl FnOnce() -> T + Send + 'static,
) -> T {
    static WORKER: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();
    static RUNS: Mutex<()> = Mutex::new(());
    let _one_at_a_time = RUNS.lock().unwrap_or_else(|e| e.into_inner());
    setup();
    let text: String = settings
        .iter()
        .map(|(k, v)| format!("{k} = {v}\n"))
        .collect();
    std::fs::write(settings_file(), text).expect("writing vdisplay's settings file");
    let tx = WORKER.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        std::thread::Builder::new()
            .name("vulkan".into())
            .spawn(move || rx.into_iter().for_each(|job| job()))
            .expect("spawning the Vulkan thread");
        Mutex::new(tx)
    });
    let (rtx, rrx) = channel();
    let job: Job = Box::new(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(body));
        let _ = rtx.send(r);
    });
    tx.lock()
        .unwrap_or_else(|e| e.into_inner())
        .send(job)
        .expect("the Vulkan thread is gone");
    match rrx.recv().expect("the Vulkan thread is gone") {
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

pub use vkpace_demo::virtual_display::{read_present_log as read_log, LoggedPresent as Present};
