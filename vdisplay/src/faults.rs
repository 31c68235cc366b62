//! Faults on demand, drawn from one seeded generator per swapchain so that a run is repeatable
//! for a given seed and call sequence.

use std::sync::Mutex;

use crate::settings::Settings;

/// SplitMix64: small, fast and good enough for fault injection.
#[derive(Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The fault decisions of one swapchain.
#[derive(Debug)]
pub struct Faults {
    rng: Mutex<Rng>,
    out_of_date: f64,
    suboptimal: f64,
    fence_never: f64,
    /// Free images are handed out in random order.
    pub random_order: bool,
}

/// What a present or an acquire should report, fault-wise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Injected {
    /// Nothing.
    None,
    /// VK_SUBOPTIMAL_KHR this time.
    Suboptimal,
    /// VK_ERROR_OUT_OF_DATE_KHR from now on.
    OutOfDate,
}

impl Faults {
    /// The faults `settings` ask for; `salt` separates the swapchains of a surface (their
    /// creation ordinal, so that a run is repeatable in one process and across processes).
    pub fn new(settings: &Settings, salt: u64) -> Self {
        Self {
            rng: Mutex::new(Rng::new(
                settings.seed ^ salt.wrapping_mul(0x2545_F491_4F6C_DD1D),
            )),
            out_of_date: settings.fault_out_of_date,
            suboptimal: settings.fault_suboptimal,
            fence_never: settings.fault_present_fence_never,
            random_order: settings.fault_random_order,
        }
    }

    fn with_rng<T>(&self, f: impl FnOnce(&mut Rng) -> T) -> T {
        let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        f(&mut rng)
    }

    /// Draws the OUT_OF_DATE / SUBOPTIMAL fault of one acquire or present.
    pub fn draw(&self) -> Injected {
        if self.out_of_date == 0.0 && self.suboptimal == 0.0 {
            return Injected::None;
        }
        self.with_rng(|rng| {
            if rng.chance(self.out_of_date) {
                Injected::OutOfDate
            } else if rng.chance(self.suboptimal) {
                Injected::Suboptimal
            } else {
                Injected::None
            }
        })
    }

    /// Whether this present fence should never signal.
    pub fn fence_never(&self) -> bool {
        self.fence_never > 0.0 && self.with_rng(|rng| rng.chance(self.fence_never))
    }

    /// Picks one of `n` free images (`n > 0`): the first unless random order is on.
    pub fn pick(&self, n: usize) -> usize {
        if self.random_order && n > 1 {
            self.with_rng(|rng| rng.below(n))
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_draws() {
        let s = Settings {
            fault_suboptimal: 0.3,
            fault_out_of_date: 0.05,
            ..Settings::default()
        };
        let a = Faults::new(&s, 7);
        let b = Faults::new(&s, 7);
        let da: Vec<_> = (0..200).map(|_| a.draw()).collect();
        let db: Vec<_> = (0..200).map(|_| b.draw()).collect();
        assert_eq!(da, db);
        let subopt = da.iter().filter(|d| **d == Injected::Suboptimal).count();
        assert!(
            (30..90).contains(&subopt),
            "{subopt} suboptimal of 200 at p=0.3"
        );
    }
}
