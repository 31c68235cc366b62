//! A GPU that is not the CPU (the `gpu_ms` setting): a present's image becomes ready no sooner
//! than a drawn time after its `vkQueuePresentKHR` call, whatever the CPU's load.
//!
//! Why: lavapipe renders on the CPU, so on a small machine a frame's rendering time is the
//! machine's (it grows with any other load), not the program's. A real GPU renders beside the
//! CPU: its part of a frame does not grow when the CPU is busy. With this model a small, cheap
//! render stands for a GPU-bound frame on hardware, and a pacer can be judged on how it places
//! frames whose readiness it does not control.
//!
//! The modelled ready time is `max(real ready, present call + drawn delay, previous present's
//! ready)`: the last term because a queue completes its work in order (the device's presents
//! are handled in order by one submitter thread). Only the presentation engine sees it (the display, the log's `ready_ns`,
//! present timing's QUEUE_OPERATIONS_END, maintenance1 present fences); the application's own
//! fences, semaphores and timestamps still see the real rendering.

use std::sync::Mutex;

use crate::faults::Rng;
use crate::settings::Settings;

/// How long the modelled GPU takes per frame, in milliseconds after the present call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GpuModel {
    /// `0` (the default): no model; images are ready when their rendering is.
    Off,
    /// `8`: always this long.
    Fixed(f64),
    /// `6..12`: uniform in `[lo, hi)`.
    Uniform {
        /// Lower bound, ms.
        lo: f64,
        /// Upper bound, ms.
        hi: f64,
    },
    /// `8~2`: normal with this mean and standard deviation, drawn values below 0 taken as 0.
    Normal {
        /// Mean, ms.
        mean: f64,
        /// Standard deviation, ms.
        sd: f64,
    },
}

impl GpuModel {
    /// Parses `MS`, `LO..HI` or `MEAN~SD` (milliseconds, finite, not negative; `LO <= HI`).
    pub fn parse(v: &str) -> Option<Self> {
        let ms = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
        };
        if let Some((lo, hi)) = v.split_once("..") {
            let (lo, hi) = (ms(lo)?, ms(hi)?);
            return (lo <= hi).then_some(Self::Uniform { lo, hi });
        }
        if let Some((mean, sd)) = v.split_once('~') {
            return Some(Self::Normal {
                mean: ms(mean)?,
                sd: ms(sd)?,
            });
        }
        let fixed = ms(v)?;
        Some(if fixed == 0.0 {
            Self::Off
        } else {
            Self::Fixed(fixed)
        })
    }

    /// One frame's delay in nanoseconds (0 with [`GpuModel::Off`]; draws nothing then).
    pub fn draw_ns(&self, rng: &mut Rng) -> u64 {
        let ms = match *self {
            Self::Off => return 0,
            Self::Fixed(ms) => ms,
            Self::Uniform { lo, hi } => lo + (hi - lo) * unit(rng),
            Self::Normal { mean, sd } => mean + sd * standard_normal(rng),
        };
        (ms.max(0.0) * 1e6).round() as u64
    }
}

/// Uniform in `[0, 1)` from the top 53 bits.
fn unit(rng: &mut Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A standard normal draw (Box-Muller; one of the pair is used, so each draw costs two words
/// and the sequence depends on nothing but the seed).
fn standard_normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - unit(rng); // (0, 1]: the logarithm stays finite
    let u2 = unit(rng);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The modelled ready time of a present: not before its real ready time, not before
/// `not_before_ns` (the present call plus the drawn delay), not before the previous present's
/// ready time `previous_ns` (a queue completes in order).
pub fn ready_at(real_ns: u64, not_before_ns: u64, previous_ns: u64) -> u64 {
    real_ns.max(not_before_ns).max(previous_ns)
}

/// Separates the model's stream from the faults' for the same seed and salt ("gpu_mode").
const STREAM: u64 = 0x6770_755F_6D6F_6465;

/// The model of one swapchain, with its own generator (seeded by `seed` and the swapchain's
/// creation ordinal, apart from the fault generator's stream, so turning the model on does not
/// change which faults a run draws).
#[derive(Debug)]
pub struct GpuClock {
    model: GpuModel,
    rng: Mutex<Rng>,
}

impl GpuClock {
    /// The model `settings` ask for; `salt` as in [`crate::faults::Faults::new`].
    pub fn new(settings: &Settings, salt: u64) -> Self {
        Self {
            model: settings.gpu_ms,
            rng: Mutex::new(Rng::new(
                settings.seed ^ STREAM ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            )),
        }
    }

    /// The next present's delay after its present call, ns (0: no model).
    pub fn draw_ns(&self) -> u64 {
        if self.model == GpuModel::Off {
            return 0;
        }
        let mut rng = self.rng.lock().unwrap_or_else(|e| e.into_inner());
        self.model.draw_ns(&mut rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grammar() {
        assert_eq!(GpuModel::parse("0"), Some(GpuModel::Off));
        assert_eq!(GpuModel::parse(" 8 "), Some(GpuModel::Fixed(8.0)));
        assert_eq!(
            GpuModel::parse("6..12"),
            Some(GpuModel::Uniform { lo: 6.0, hi: 12.0 })
        );
        assert_eq!(
            GpuModel::parse("8 ~ 1.5"),
            Some(GpuModel::Normal { mean: 8.0, sd: 1.5 })
        );
        for bad in [
            "", "-1", "12..6", "x", "8~", "~2", "1..2..3", "nan", "inf", "5~-1",
        ] {
            assert_eq!(GpuModel::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn fixed_and_off_draw_exactly() {
        let mut rng = Rng::new(1);
        assert_eq!(GpuModel::Off.draw_ns(&mut rng), 0);
        assert_eq!(GpuModel::Fixed(12.0).draw_ns(&mut rng), 12_000_000);
        assert_eq!(GpuModel::Fixed(0.0005).draw_ns(&mut rng), 500);
    }

    #[test]
    fn uniform_stays_in_range_and_covers_it() {
        let mut rng = Rng::new(7);
        let m = GpuModel::Uniform { lo: 6.0, hi: 12.0 };
        let d: Vec<u64> = (0..10_000).map(|_| m.draw_ns(&mut rng)).collect();
        assert!(d.iter().all(|x| (6_000_000..=12_000_000).contains(x)));
        let mean = d.iter().sum::<u64>() as f64 / d.len() as f64 / 1e6;
        assert!((mean - 9.0).abs() < 0.1, "mean {mean}");
        assert!(d.iter().any(|x| *x < 6_300_000) && d.iter().any(|x| *x > 11_700_000));
    }

    #[test]
    fn normal_has_its_mean_and_sd_and_never_goes_negative() {
        let mut rng = Rng::new(3);
        let m = GpuModel::Normal { mean: 8.0, sd: 2.0 };
        let d: Vec<f64> = (0..20_000)
            .map(|_| m.draw_ns(&mut rng) as f64 / 1e6)
            .collect();
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        let sd = (d.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / d.len() as f64).sqrt();
        assert!((mean - 8.0).abs() < 0.05, "mean {mean}");
        assert!((sd - 2.0).abs() < 0.05, "sd {sd}");
        // N(1, 5) is below 0 about 42% of the time: those draws are 0, not huge.
        let wide = GpuModel::Normal { mean: 1.0, sd: 5.0 };
        let w: Vec<u64> = (0..1000).map(|_| wide.draw_ns(&mut rng)).collect();
        let zeros = w.iter().filter(|x| **x == 0).count();
        assert!((350..500).contains(&zeros), "{zeros} zeros");
        assert!(w.iter().all(|x| *x < 60_000_000));
    }

    #[test]
    fn same_seed_same_draws_and_off_draws_nothing() {
        let s = Settings {
            gpu_ms: GpuModel::Uniform { lo: 6.0, hi: 12.0 },
            ..Settings::default()
        };
        let (a, b) = (GpuClock::new(&s, 2), GpuClock::new(&s, 2));
        let da: Vec<u64> = (0..100).map(|_| a.draw_ns()).collect();
        assert_eq!(da, (0..100).map(|_| b.draw_ns()).collect::<Vec<_>>());
        let c = GpuClock::new(&s, 3);
        assert_ne!(da, (0..100).map(|_| c.draw_ns()).collect::<Vec<_>>());
        let off = GpuClock::new(&Settings::default(), 2);
        assert!((0..10).all(|_| off.draw_ns() == 0));
    }

    #[test]
    fn ready_is_the_later_of_real_and_modelled() {
        assert_eq!(ready_at(5, 0, 0), 5, "no model: the real time");
        assert_eq!(ready_at(5, 12, 0), 12, "the model holds a fast frame back");
        assert_eq!(ready_at(20, 12, 0), 20, "a slow real frame stays slow");
        assert_eq!(ready_at(5, 12, 15), 15, "not before the previous present");
    }

    /// A fixed 12 ms model at 60 Hz on the display's rules: a frame presented 1 ms after a
    /// blank and rendered 2 ms later is ready at 13 ms and shown at the blank after that
    /// (16.7 ms); one presented 5 ms after a blank, at 33.3 ms instead of 16.7 ms.
    #[test]
    fn the_display_shows_at_the_first_blank_after_the_modelled_ready() {
        use crate::engine::display::{Display, Event, Mode, Pending, Target};
        let period = 16_666_667;
        for (queued, shown) in [(1_000_000, period), (5_000_000, 2 * period)] {
            let mut d = Display::new(period, 0);
            d.push(Pending {
                id: 1,
                mode: Mode::Fifo,
                target: Target::None,
                discard: false,
                eligible_ns: None,
            });
            let model = GpuModel::Fixed(12.0).draw_ns(&mut Rng::new(1));
            let ready = ready_at(queued + 2_000_000, queued + model, 0);
            d.mark_ready(1, ready);
            let mut events = Vec::new();
            d.pump(3 * period, &mut events);
            assert_eq!(events.first(), Some(&Event::Shown { id: 1, at: shown }));
            assert!(shown - queued >= model);
        }
    }
}
