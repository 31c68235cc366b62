//! Calibrates the cost model of vkpace's frame path on this machine and driver: what one more
//! code page, code line or data page touched per frame costs the textbook loop.
//!
//! Between two frames the driver's code and rendering evict a loop's code and data from the
//! caches and TLBs, so a loop's own time per frame follows how much it touches, not how many
//! instructions it runs. `--calibrate-footprint` makes the textbook loop touch a known extra
//! amount inside its timed steps and measures what that adds, run against run, with the
//! probe off in between. The probes:
//! - code pages: a jump onto each of 32 code pages of its own (4 KiB apart);
//! - code lines: 64 code lines in a row (each jumps to the next);
//! - data pages: one line on each of 32 data pages of its own.

use std::hint::black_box;

/// What the textbook loop touches on top of its own work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    Off,
    CodePages,
    CodeLines,
    DataPages,
}

/// Units each probe touches.
pub const CODE_PAGES: usize = 32;
pub const CODE_LINES: usize = 64;
pub const DATA_PAGES: usize = 32;
/// Stride of the data probe: a page and a line, so each touch is on a page and in a cache
/// set of its own.
const DATA_STRIDE: usize = 4096 + 64;

impl Probe {
    /// How many pages or lines the probe touches.
    pub fn units(self) -> usize {
        match self {
            Probe::Off => 0,
            Probe::CodePages => CODE_PAGES,
            Probe::CodeLines => CODE_LINES,
            Probe::DataPages => DATA_PAGES,
        }
    }
}

/// The probe's state: the data pages it touches.
pub struct Toucher {
    data: Vec<u8>,
}

impl Toucher {
    pub fn new() -> Self {
        Self {
            data: vec![0u8; DATA_PAGES * DATA_STRIDE],
        }
    }

    /// Touches what `probe` says.
    #[inline(never)]
    pub fn touch(&mut self, probe: Probe) {
        match probe {
            Probe::Off => {}
            Probe::CodePages => code_pages(),
            Probe::CodeLines => code_lines(),
            Probe::DataPages => {
                for i in 0..DATA_PAGES {
                    let b = &mut self.data[i * DATA_STRIDE];
                    *b = b.wrapping_add(1);
                }
                black_box(&mut self.data);
            }
        }
    }
}

/// A function that jumps forward `$count` times, each jump landing on the next `$align`
/// boundary: `$count` code lines (align 64) or code pages (align 4096) it runs once each.
/// The counts are literals because the assembler's `.rept` needs them.
#[cfg(target_arch = "x86_64")]
macro_rules! jump_chain {
    ($(#[$doc:meta])* $name:ident, $count:literal, $align:literal) => {
        $(#[$doc])*
        #[inline(never)]
        fn $name() {
            // SAFETY: the block only jumps forward to its own labels and falls through at its
            // end; it reads and writes no register, memory or flag the compiler relies on
            // (`nomem, nostack`, and jumps leave the flags alone).
            unsafe {
                std::arch::asm!(
                    ".balign 64",
                    concat!(".rept ", $count),
                    "jmp 2f",
                    concat!(".balign ", $align),
                    "2:",
                    ".endr",
                    options(nomem, nostack, preserves_flags)
                );
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
jump_chain!(
    /// Jumps through [`CODE_PAGES`] code pages, one line on each.
    code_pages,
    32,
    4096
);

#[cfg(target_arch = "x86_64")]
jump_chain!(
    /// Jumps through [`CODE_LINES`] code lines in a row.
    code_lines,
    64,
    64
);

#[cfg(not(target_arch = "x86_64"))]
fn code_pages() {}

#[cfg(not(target_arch = "x86_64"))]
fn code_lines() {}

/// Whether the code probes exist on this architecture.
pub const CODE_PROBES: bool = cfg!(target_arch = "x86_64");

// The `.rept` counts above are literal; keep them equal to the constants.
const _: () = assert!(CODE_PAGES == 32 && CODE_LINES == 64);
