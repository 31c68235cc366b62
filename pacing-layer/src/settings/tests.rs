use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::*;

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| map.get(k).cloned()
}

const FILE: &str = "\
# every application
fps = 60
mode = grid   # the default anyway

[vkcube]
fps = 30
mode = low-latency
[other]
fps = 90
";

#[test]
fn the_executables_section_overrides_the_global_one_and_the_environment_both() {
    let (s, errors) = Settings::resolve(env(&[]), Some(FILE), "vkcube");
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!((s.fps, s.mode), (Some(30.0), Mode::LowLatency));
    let (s, _) = Settings::resolve(env(&[]), Some(FILE), "game.exe");
    assert_eq!((s.fps, s.mode), (Some(60.0), Mode::Grid));
    let (s, _) = Settings::resolve(env(&[("VKPACE_FPS", "40")]), Some(FILE), "vkcube");
    assert_eq!((s.fps, s.mode), (Some(40.0), Mode::LowLatency));
}

#[test]
fn defaults_without_any_source() {
    let (s, errors) = Settings::resolve(env(&[]), None, "vkcube");
    assert!(errors.is_empty());
    assert_eq!(s, Settings::default());
    assert!(s.repair && !s.force && s.fps.is_none() && s.mode == Mode::Grid);
}

#[test]
fn fractional_caps_and_every_key_from_the_environment() {
    let vars = env(&[
        ("VKPACE_FPS", "59.94"),
        ("VKPACE_MODE", "LOW_LATENCY"),
        ("VKPACE_FRAMES_IN_FLIGHT", "1"),
        ("VKPACE_REPAIR", "off"),
        ("VKPACE_LOG", "/tmp/frames.csv"),
        ("VKPACE_FORCE", "1"),
    ]);
    let (s, errors) = Settings::resolve(vars, None, "x");
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(s.fps, Some(59.94));
    assert_eq!(s.mode, Mode::LowLatency);
    assert_eq!(s.frames_in_flight, Some(1));
    assert!(!s.repair && s.force);
    assert_eq!(s.log, Some(PathBuf::from("/tmp/frames.csv")));
    let (s, _) = Settings::resolve(env(&[("VKPACE_FPS", "off")]), Some(FILE), "vkcube");
    assert_eq!(s.fps, None, "the environment lifts the file's cap");
}

#[test]
fn bad_values_are_reported_and_the_next_source_wins() {
    let vars = env(&[
        ("VKPACE_FPS", "fast"),
        ("VKPACE_FRAMES_IN_FLIGHT", "4"),
        ("VKPACE_MODE", "turbo"),
    ]);
    let (s, errors) = Settings::resolve(vars, Some(FILE), "vkcube");
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert_eq!(s.fps, Some(30.0), "the file's value stands");
    assert_eq!(s.frames_in_flight, None);
    assert_eq!(s.mode, Mode::LowLatency);
    let text = errors[0].to_string();
    assert!(
        text.contains("VKPACE_FPS") && text.contains("fast"),
        "{text}"
    );
    let (_, errors) = Settings::resolve(env(&[("VKPACE_FPS", "-5")]), None, "x");
    assert_eq!(errors.len(), 1);
    let (_, errors) = Settings::resolve(env(&[("VKPACE_FPS", "1e9")]), None, "x");
    assert_eq!(errors.len(), 1, "beyond the frame limit's range");
}

#[test]
fn unknown_keys_and_malformed_lines_are_named_with_their_line() {
    let (s, errors) = Settings::resolve(env(&[]), Some("fsp = 30\nfps 30\nfps = 45\n"), "x");
    assert_eq!(s.fps, Some(45.0));
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(matches!(&errors[0], SettingError::Malformed { line, .. } if line == "fps 30"));
    assert!(errors[1].to_string().contains("line 1") && errors[1].to_string().contains("fsp"));
}

#[test]
fn the_file_is_found_as_the_xdg_base_directories_say() {
    let p = |pairs: &[(&str, &str)]| config_path(env(pairs));
    assert_eq!(
        p(&[("HOME", "/home/u")]),
        Some(PathBuf::from("/home/u/.config/vkpace/pacing.conf"))
    );
    assert_eq!(
        p(&[("HOME", "/home/u"), ("XDG_CONFIG_HOME", "/cfg")]),
        Some(PathBuf::from("/cfg/vkpace/pacing.conf"))
    );
    assert_eq!(
        p(&[("HOME", "/home/u"), ("XDG_CONFIG_HOME", "")]),
        Some(PathBuf::from("/home/u/.config/vkpace/pacing.conf")),
        "empty counts as unset"
    );
    assert_eq!(
        p(&[("VKPACE_CONFIG", "/etc/p.conf"), ("HOME", "/home/u")]),
        Some(PathBuf::from("/etc/p.conf"))
    );
    assert_eq!(p(&[]), None);
}

fn no_files(_: &Path) -> Option<String> {
    None
}

#[test]
fn mangohuds_limit_is_found_in_its_environment_and_its_files() {
    let peers = detect_peers(
        env(&[
            ("MANGOHUD", "1"),
            ("MANGOHUD_CONFIG", "fps_limit=60+30,no_display"),
        ]),
        no_files,
        "vkcube",
    );
    assert!(matches!(peers.as_slice(), [Peer::MangoHud { fps_limit, .. }] if *fps_limit == 60.0));
    // Not enabled: its configuration alone limits nothing.
    let peers = detect_peers(
        env(&[("MANGOHUD_CONFIG", "fps_limit=60")]),
        no_files,
        "vkcube",
    );
    assert!(peers.is_empty());
    // fps_limit=0 is unlimited.
    let peers = detect_peers(
        env(&[("MANGOHUD", "1"), ("MANGOHUD_CONFIG", "fps_limit=0")]),
        no_files,
        "vkcube",
    );
    assert!(peers.is_empty());
    // The executable's own file comes before MangoHud.conf.
    let read = |p: &Path| match p.to_str()? {
        "/home/u/.config/MangoHud/vkcube.conf" => Some("# mine\nfps_limit = 45\n".to_string()),
        "/home/u/.config/MangoHud/MangoHud.conf" => Some("fps_limit=144".to_string()),
        _ => None,
    };
    let vars = env(&[("MANGOHUD", "1"), ("HOME", "/home/u")]);
    let peers = detect_peers(&vars, read, "vkcube");
    assert!(
        matches!(peers.as_slice(), [Peer::MangoHud { fps_limit, from }]
        if *fps_limit == 45.0 && from.ends_with("vkcube.conf"))
    );
    let peers = detect_peers(&vars, read, "other");
    assert!(matches!(peers.as_slice(), [Peer::MangoHud { fps_limit, .. }] if *fps_limit == 144.0));
}

#[test]
fn dxvk_vkd3d_proton_and_gamescope_are_found() {
    let peers = detect_peers(
        env(&[
            ("DXVK_FRAME_RATE", "60"),
            ("VKD3D_FRAME_RATE", "0"),
            ("GAMESCOPE_WAYLAND_DISPLAY", "gamescope-0"),
        ]),
        no_files,
        "game.exe",
    );
    assert_eq!(peers, vec![Peer::Dxvk { fps: 60.0 }, Peer::Gamescope]);
    let peers = detect_peers(
        env(&[("DXVK_CONFIG", "dxgi.syncInterval=1; dxgi.maxFrameRate = 72")]),
        no_files,
        "game.exe",
    );
    assert_eq!(peers, vec![Peer::Dxvk { fps: 72.0 }]);
    let peers = detect_peers(env(&[("VKD3D_FRAME_RATE", "90")]), no_files, "game.exe");
    assert_eq!(peers, vec![Peer::Vkd3dProton { fps: 90.0 }]);
}

#[test]
fn the_layer_steps_aside_for_another_limiter_unless_forced() {
    let peers = [Peer::Dxvk { fps: 60.0 }];
    let mut s = Settings::default();
    match decide(&s, &peers) {
        Decision::StepAside(why) => {
            assert!(
                why.contains("DXVK") && why.contains("VKPACE_FORCE=1"),
                "{why}"
            )
        }
        d => panic!("{d:?}"),
    }
    assert_eq!(decide(&s, &[]), Decision::Pace);
    s.force = true;
    assert_eq!(decide(&s, &peers), Decision::Pace);
    s.mode = Mode::Off;
    assert_eq!(decide(&s, &peers), Decision::Off);
}
