//! The vkpace demo: paced presentation with stall-free resizing, windowed or headless.
//! `cargo run --release -- --help` lists the flags.

mod alloc_counter;
mod cli;
mod display_time;
mod headless;
mod hud_view;
mod keys;
mod logger;
mod present_timing_report;
mod producer;
mod report;
mod resize_log;
mod session;
mod stop_signal;
mod window;
mod x11_connection;

use vkpace_demo::{frame_history, renderer, virtual_display, vulkan_context};

use std::process::ExitCode;
use std::time::Duration;

use std::io::Write as _;

use anyhow::Context as _;
use clap::Parser;

#[global_allocator]
static ALLOCATOR: alloc_counter::CountingAllocator = alloc_counter::CountingAllocator;

fn main() -> ExitCode {
    logger::install();
    ensure_runtime_dir();
    let args = cli::Args::parse();
    // A report path that cannot be written is refused now, not after the run: the file is
    // opened (created or truncated) here and written at the end.
    let mut report_file = match args.report.as_deref().map(open_report).transpose() {
        Ok(f) => f,
        Err(e) => {
            eprintln!("vkpace demo: error: {e:#}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = stop_signal::install() {
        eprintln!("vkpace demo: error: {e:#}");
        return ExitCode::from(2);
    }
    if args.virtual_display {
        // Before anything loads the Vulkan loader, while this is the only thread.
        match virtual_display::enable_for_process(args.validation) {
            Ok(lib) => eprintln!("vkpace demo: virtual display ({})", lib.display()),
            Err(e) => {
                eprintln!("vkpace demo: error: --virtual-display: {e:#}");
                return ExitCode::from(2);
            }
        }
    }
    let report = match run(&args) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("vkpace demo: error: {e:#}");
            if let Some(dump) = session::take_state_at_failure() {
                eprintln!("{dump}");
            }
            return ExitCode::from(2);
        }
    };
    println!("{}", report.summary());
    if let (Some(file), Some(path)) = (report_file.as_mut(), &args.report) {
        if let Err(e) = file.write_all(report.to_json().as_bytes()) {
            eprintln!("vkpace demo: error: writing {}: {e}", path.display());
            return ExitCode::from(2);
        }
    }
    if report.validation_messages > 0 {
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

/// Sets `XDG_RUNTIME_DIR` to a private directory when the environment has none.
fn ensure_runtime_dir() {
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        // Mesa's WSI wants it; a private directory under /tmp is enough for the demo.
        let dir = std::env::temp_dir().join(format!("vkpace-xdg-{}", std::process::id()));
        if std::fs::create_dir_all(&dir).is_ok() {
            std::env::set_var("XDG_RUNTIME_DIR", &dir);
        }
    }
}

/// Runs the demo where `args` asks: headless or on the virtual display, else in a window,
/// falling back to a short headless run when no display answers and none was asked for.
fn run(args: &cli::Args) -> anyhow::Result<report::Report> {
    if args.headless || args.virtual_display {
        let name = if args.virtual_display {
            "virtual display"
        } else {
            "headless"
        };
        headless::run(args, None).map(|mut report| {
            report.window_system = name;
            report
        })
    } else {
        match window::event_loop() {
            Ok(event_loop) => window::run(args, event_loop),
            Err(e) if args.window || window::display_named() => Err(e.context(
                "no window system answered (--window, DISPLAY or WAYLAND_DISPLAY asked for one): \
                 start an X server or a Wayland compositor, or run with --headless",
            )),
            Err(e) => {
                println!("vkpace demo: no display ({e}); running headless for 3 seconds instead");
                let duration = if args.frames.is_some() {
                    None
                } else {
                    Some(Duration::from_secs(3))
                };
                headless::run(args, duration)
            }
        }
    }
}

/// Opens the report file for writing (created, or emptied if it exists).
fn open_report(path: &std::path::Path) -> anyhow::Result<std::fs::File> {
    std::fs::File::create(path)
        .with_context(|| format!("--report {}: cannot be written", path.display()))
}
