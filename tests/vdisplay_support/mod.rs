//! Running vkpace over the virtual display (vdisplay) in a test binary: the loader's
//! environment set once, before the first instance; vdisplay's settings per run through its
//! settings file (read at each `vkCreateInstance`); every Vulkan call of the binary on one
//! thread, one run at a time; and the layer's per-present log read back.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

use anyhow::{Context as _, Result};

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
        Err(p) => std::panic::resume_unwind(p),
    }
}

/// One line of vdisplay's present log (the fields the tests read).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Present {
    pub swapchain: u64,
    pub seq: u64,
    pub present_id: u64,
    pub image: u64,
    pub queued_ns: u64,
    pub ready_ns: Option<u64>,
    pub shown_ns: Option<u64>,
}

/// The raw text after `"key":` up to the next `,` or `}`.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("\"{key}\":");
    let at = line.find(&pat)? + pat.len();
    let rest = &line[at..];
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim())
}

fn number(line: &str, key: &str) -> Result<Option<u64>> {
    let raw = field(line, key).with_context(|| format!("{key} missing: {line}"))?;
    if raw == "null" {
        return Ok(None);
    }
    Ok(Some(raw.parse().with_context(|| format!("{key}: {line}"))?))
}

/// Reads vdisplay's JSON-lines present log.
pub fn read_log(path: &std::path::Path) -> Result<Vec<Present>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let req = |k| number(l, k)?.with_context(|| format!("{k} is null: {l}"));
            Ok(Present {
                swapchain: req("swapchain")?,
                seq: req("seq")?,
                present_id: req("present_id")?,
                image: req("image")?,
                queued_ns: req("queued_ns")?,
                ready_ns: number(l, "ready_ns")?,
                shown_ns: number(l, "shown_ns")?,
            })
        })
        .collect()
}

#[test]
fn log_lines_are_read() -> Result<()> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    std::fs::create_dir_all(&dir)?;
    let p = dir.join(format!("log-parse-{}.jsonl", std::process::id()));
    std::fs::write(
        &p,
        "{\"surface\":1,\"swapchain\":2,\"seq\":17,\"present_id\":17,\"image\":1,\"mode\":\"FIFO\",\
         \"queued_ns\":8459177834285,\"ready_ns\":8459177873980,\"shown_ns\":8459183333333,\
         \"dropped\":false,\"reason\":null,\"result\":\"SUCCESS\"}\n\
         {\"surface\":1,\"swapchain\":2,\"seq\":18,\"present_id\":0,\"image\":0,\"mode\":\"MAILBOX\",\
         \"queued_ns\":5,\"ready_ns\":null,\"shown_ns\":null,\"dropped\":true,\
         \"reason\":\"replaced\",\"result\":\"SUCCESS\"}\n",
    )?;
    let log = read_log(&p)?;
    let _ = std::fs::remove_file(&p);
    assert_eq!(log.len(), 2);
    assert_eq!(log[0].shown_ns, Some(8_459_183_333_333));
    assert_eq!(log[0].image, 1);
    assert_eq!(
        (log[1].seq, log[1].ready_ns, log[1].shown_ns),
        (18, None, None)
    );
    Ok(())
}
