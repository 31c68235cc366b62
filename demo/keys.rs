//! The demo's keys: what each does, and the list printed on stdout at start.

use winit::keyboard::{Key, NamedKey};

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Command {
    /// 1, 2, 3: frames in flight.
    FramesInFlight(usize),
    /// M: the next present mode the surface offers.
    NextPresentMode,
    /// + / -: GPU load up or down by one unit.
    GpuLoad(f32),
    /// R: resize storm (the window resizes itself every frame) on or off.
    ResizeStorm,
    /// L: switch pacing policy (frames in flight / low latency).
    Policy,
    /// F: frame limit on (at `--fps`, else 60) or off.
    FrameLimit,
    /// D: print vkpace's state dump (what it waits for) on stdout.
    DumpState,
    /// Space: pause or resume.
    Pause,
    /// Esc: quit.
    Quit,
}

/// The key list printed at start.
pub const HELP: &str = "vkpace demo keys: 1/2/3 frames in flight | M next present mode | \
                        +/- GPU load | R resize storm on/off | L pacing policy | F frame limit | \
                        D state dump | Space pause | Esc quit";

/// The command of a pressed key, if it has one.
pub fn command(key: &Key) -> Option<Command> {
    match key {
        Key::Named(NamedKey::Escape) => Some(Command::Quit),
        Key::Named(NamedKey::Space) => Some(Command::Pause),
        Key::Character(c) => match c.as_str() {
            "1" => Some(Command::FramesInFlight(1)),
            "2" => Some(Command::FramesInFlight(2)),
            "3" => Some(Command::FramesInFlight(3)),
            "m" | "M" => Some(Command::NextPresentMode),
            // "=" is the unshifted "+" key on US layouts.
            "+" | "=" => Some(Command::GpuLoad(1.0)),
            "-" | "_" => Some(Command::GpuLoad(-1.0)),
            "r" | "R" => Some(Command::ResizeStorm),
            "l" | "L" => Some(Command::Policy),
            "f" | "F" => Some(Command::FrameLimit),
            "d" | "D" => Some(Command::DumpState),
            " " => Some(Command::Pause),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_key_has_a_command() {
        let ch = |s: &str| Key::Character(s.into());
        assert_eq!(command(&ch("2")), Some(Command::FramesInFlight(2)));
        assert_eq!(command(&ch("m")), Some(Command::NextPresentMode));
        assert_eq!(command(&ch("+")), Some(Command::GpuLoad(1.0)));
        assert_eq!(command(&ch("-")), Some(Command::GpuLoad(-1.0)));
        assert_eq!(command(&ch("R")), Some(Command::ResizeStorm));
        assert_eq!(command(&Key::Named(NamedKey::Space)), Some(Command::Pause));
        assert_eq!(command(&Key::Named(NamedKey::Escape)), Some(Command::Quit));
        assert_eq!(command(&ch("l")), Some(Command::Policy));
        assert_eq!(command(&ch("F")), Some(Command::FrameLimit));
        assert_eq!(command(&ch("d")), Some(Command::DumpState));
        assert_eq!(command(&ch("q")), None);
    }
}
