//! What else runs on the machine during a benchmark run: nothing, or busy threads of the
//! benchmark's own spinning beside it (the guide's "busy machine").

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Busy threads beside the loaded runs (as many as this machine has cores).
pub const BUSY_THREADS: usize = 2;

/// The modelled GPU of [`Load::GpuModel`] (vdisplay's `gpu_ms`: milliseconds after the present
/// call, normal with mean 8 and sd 1).
pub const GPU_MODEL: &str = "8~1";

/// What else runs on the machine during a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    /// Nothing of the benchmark's.
    Idle,
    /// [`BUSY_THREADS`] threads of the benchmark spinning for the whole run.
    Busy,
    /// Nothing of the benchmark's on the CPU, but vdisplay's modelled GPU ([`GPU_MODEL`]): each
    /// frame ready no sooner than a drawn time after its present, as a GPU-bound frame on a
    /// GPU that is not the CPU. Only where vdisplay is the display ([`Load::WITH_GPU_MODEL`]).
    GpuModel,
}

impl Load {
    /// The CPU loads, for every comparison.
    pub const ALL: [Load; 2] = [Load::Idle, Load::Busy];
    /// The CPU loads and the modelled GPU (the drop-in limiters' comparison).
    pub const WITH_GPU_MODEL: [Load; 3] = [Load::Idle, Load::Busy, Load::GpuModel];

    pub fn name(self) -> &'static str {
        match self {
            Load::Idle => "idle",
            Load::Busy => "busy",
            Load::GpuModel => "gpu-model",
        }
    }
}

/// [`BUSY_THREADS`] threads spinning on arithmetic until dropped (then joined): CPU work
/// competing with the loop, the display engine and lavapipe's threads for the cores.
pub struct Busy {
    stop: Arc<AtomicBool>,
    threads: Vec<std::thread::JoinHandle<u64>>,
}

impl Busy {
    pub fn start() -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..BUSY_THREADS)
            .map(|_| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut x = 1u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005) + 1);
                    }
                    x
                })
            })
            .collect();
        Self { stop, threads }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}
