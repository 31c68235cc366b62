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

/// A native program at `/usr/bin/NAME`.
fn native(name: &str) -> Identity {
    Identity::detect(&Path::new("/usr/bin").join(name), &[], None, None)
}

/// A Windows program under Wine's preloader, named by DXVK `version` in its application info.
fn windows(exe: &str, version: Option<(u32, u32, u32)>) -> Identity {
    let engine = version.map(|(a, b, c)| Engine::new("DXVK", (a << 22) | (b << 12) | c));
    Identity::detect(
        Path::new("/usr/lib/wine/wine64-preloader"),
        &[format!("Z:\\games\\{exe}")],
        Some(exe),
        engine,
    )
}

fn peers(vars: &[(&str, &str)], id: &Identity) -> Vec<Peer> {
    detect_peers(env(vars), no_files, id, None)
}

#[test]
fn mangohuds_limit_is_found_in_its_environment_and_its_files() {
    let vkcube = native("vkcube");
    let found = peers(
        &[
            ("MANGOHUD", "1"),
            ("MANGOHUD_CONFIG", "fps_limit=60+30,no_display"),
        ],
        &vkcube,
    );
    assert!(matches!(found.as_slice(), [Peer::MangoHud { fps_limit, .. }] if *fps_limit == 60.0));
    // Not enabled: its configuration alone limits nothing.
    assert!(peers(&[("MANGOHUD_CONFIG", "fps_limit=60")], &vkcube).is_empty());
    // fps_limit=0 is unlimited.
    assert!(peers(
        &[("MANGOHUD", "1"), ("MANGOHUD_CONFIG", "fps_limit=0")],
        &vkcube
    )
    .is_empty());
    // The executable's own file comes before MangoHud.conf.
    let read = |p: &Path| match p.to_str()? {
        "/home/u/.config/MangoHud/vkcube.conf" => Some("# mine\nfps_limit = 45\n".to_string()),
        "/home/u/.config/MangoHud/MangoHud.conf" => Some("fps_limit=144".to_string()),
        _ => None,
    };
    let vars = env(&[("MANGOHUD", "1"), ("HOME", "/home/u")]);
    let found = detect_peers(&vars, read, &vkcube, None);
    assert!(
        matches!(found.as_slice(), [Peer::MangoHud { fps_limit, from }]
        if *fps_limit == 45.0 && from.ends_with("vkcube.conf"))
    );
    let found = detect_peers(&vars, read, &native("other"), None);
    assert!(matches!(found.as_slice(), [Peer::MangoHud { fps_limit, .. }] if *fps_limit == 144.0));
}

/// MangoHud's whole order: a `MANGOHUD_CONFIG` without `read_cfg` is the whole configuration
/// (no file is read); with it, the file first and the variable's 0 turning its limit off; the
/// Wine program's own file, then the one beside the executable, before the rest.
#[test]
fn mangohuds_lookup_order_and_its_zero_are_mangohuds() {
    let files = |p: &Path| match p.to_str()? {
        "/home/u/.config/MangoHud/wine-Game.conf" => Some("fps_limit=50".to_string()),
        "/usr/lib/wine/MangoHud.conf" => Some("fps_limit=40".to_string()),
        "/home/u/.config/MangoHud/MangoHud.conf" => Some("fps_limit=144".to_string()),
        _ => None,
    };
    let game = windows("Game.exe", None);
    let limit = |vars: &[(&str, &str)], id: &Identity| {
        let vars: Vec<_> = [("MANGOHUD", "1"), ("HOME", "/home/u")]
            .into_iter()
            .chain(vars.iter().copied())
            .collect();
        match detect_peers(env(&vars), files, id, None).as_slice() {
            [Peer::MangoHud { fps_limit, from }] => Some((*fps_limit, from.clone())),
            [] => None,
            other => panic!("{other:?}"),
        }
    };
    let (fps, from) = limit(&[], &game).unwrap();
    assert!(fps == 50.0 && from.ends_with("wine-Game.conf"), "{from}");
    // Not under the preloader (a native program in Wine's directory): the file beside it.
    let beside = Identity::detect(Path::new("/usr/lib/wine/tool"), &[], None, None);
    assert_eq!(limit(&[], &beside).map(|l| l.0), Some(40.0));
    // The variable alone, without read_cfg: no file, so no limit.
    assert_eq!(limit(&[("MANGOHUD_CONFIG", "no_display")], &game), None);
    // With read_cfg: the file's, unless the variable sets its own (0 included).
    assert_eq!(
        limit(&[("MANGOHUD_CONFIG", "read_cfg,no_display")], &game).map(|l| l.0),
        Some(50.0)
    );
    assert_eq!(
        limit(&[("MANGOHUD_CONFIG", "read_cfg,fps_limit=0")], &game),
        None
    );
    // A file that sets fps_limit=0 is read, and is the end of the search.
    let zero = |p: &Path| match p.to_str()? {
        "/home/u/.config/MangoHud/wine-Game.conf" => Some("fps_limit=0".to_string()),
        _ => files(p),
    };
    let vars = env(&[("MANGOHUD", "1"), ("HOME", "/home/u")]);
    assert!(detect_peers(&vars, zero, &game, None).is_empty());
}

#[test]
fn dxvk_vkd3d_proton_and_gamescope_are_found() {
    let game = windows("game.exe", Some((2, 7, 1)));
    let found = peers(
        &[
            ("DXVK_FRAME_RATE", "60"),
            ("VKD3D_FRAME_RATE", "0"),
            ("GAMESCOPE_WAYLAND_DISPLAY", "gamescope-0"),
        ],
        &game,
    );
    assert!(
        matches!(found.as_slice(), [Peer::Dxvk { fps, .. }, Peer::Gamescope] if *fps == 60.0),
        "{found:?}"
    );
    let found = peers(
        &[("DXVK_CONFIG", "dxgi.syncInterval=1; dxgi.maxFrameRate = 72")],
        &game,
    );
    assert!(
        matches!(found.as_slice(), [Peer::Dxvk { fps, from }] if *fps == 72.0 && from == "DXVK_CONFIG")
    );
    assert_eq!(
        peers(&[("VKD3D_FRAME_RATE", "90")], &game),
        vec![Peer::Vkd3dProton { fps: 90.0 }]
    );
}

/// DXVK 3 removed `DXVK_FRAME_RATE`: set for it (or for a program that is not DXVK), it limits
/// nothing and the layer paces. Its limit is `dxgi.maxFrameRate` in a `dxvk.conf`: the one
/// `DXVK_CONFIG_FILE` names, else the one in the working directory, with `[game.exe]` sections.
#[test]
fn dxvk_3_is_found_by_its_configuration_not_by_a_variable_it_removed() {
    let dxvk_3 = windows("d3d11pace.exe", Some((3, 1, 1)));
    assert!(peers(&[("DXVK_FRAME_RATE", "30")], &dxvk_3).is_empty());
    assert!(peers(&[("DXVK_FRAME_RATE", "30")], &native("vkcube")).is_empty());
    let conf = |p: &Path| {
        match p.to_str()? {
        "/games/dxvk.conf" => Some(
            "# dxgi.maxFrameRate = 10\n[other.exe]\ndxgi.maxFrameRate = 20\n[d3d11pace.exe]\ndxgi.maxFrameRate = 30 # mine\n"
                .to_string(),
        ),
        "/etc/my.conf" => Some("d3d9.maxFrameRate = 45\n".to_string()),
        "/games/zero/dxvk.conf" => Some("dxgi.maxFrameRate = 0\n".to_string()),
        _ => None,
    }
    };
    let found = detect_peers(env(&[]), conf, &dxvk_3, Some(Path::new("/games")));
    assert!(
        matches!(found.as_slice(), [Peer::Dxvk { fps, from }] if *fps == 30.0 && from == "/games/dxvk.conf"),
        "{found:?}"
    );
    // Another program's section only: no limit for this one.
    let other = windows("third.exe", Some((3, 1, 1)));
    assert!(detect_peers(env(&[]), conf, &other, Some(Path::new("/games"))).is_empty());
    // DXVK_CONFIG_FILE instead of the working directory's; a limit of 0 is none.
    let vars = env(&[("DXVK_CONFIG_FILE", "/etc/my.conf")]);
    let found = detect_peers(&vars, conf, &dxvk_3, Some(Path::new("/games")));
    assert!(
        matches!(found.as_slice(), [Peer::Dxvk { fps, .. }] if *fps == 45.0),
        "{found:?}"
    );
    let found = detect_peers(env(&[]), conf, &dxvk_3, Some(Path::new("/games/zero")));
    assert!(found.is_empty(), "{found:?}");
}

/// A `[d3d11pace.exe]` section applies to that program under Wine, named by its application
/// info or Wine's command line, not by Wine's own executable.
#[test]
fn a_windows_programs_section_applies_to_it_under_wine() {
    let file = "fps = 60\n[d3d11pace.exe]\nfps = 30\n[wine64-preloader]\nfps = 10\n";
    let id = windows("d3d11pace.exe", Some((3, 1, 1)));
    let (s, _) = Settings::resolve(env(&[]), Some(file), &id.name);
    assert_eq!(s.fps, Some(30.0));
    let by_cmdline = Identity::detect(
        Path::new("/usr/lib/wine/wine64-preloader"),
        &["C:\\Games\\d3d11pace.exe".to_string()],
        None,
        None,
    );
    assert_eq!(by_cmdline.name, "d3d11pace.exe");
}

#[test]
fn the_layer_steps_aside_for_another_limiter_unless_forced() {
    let peers = [Peer::Dxvk {
        fps: 60.0,
        from: "DXVK_CONFIG".to_string(),
    }];
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

#[test]
fn the_fps_range_is_the_frame_limits_and_its_text_says_so() {
    let (min, max) = (vkpace::FrameLimit::MIN_FPS, vkpace::FrameLimit::MAX_FPS);
    assert_eq!(parse_fps(&max.to_string()), Some(Some(max)));
    assert_eq!(parse_fps(&min.to_string()), Some(Some(min)));
    assert_eq!(parse_fps(&(max + 1.0).to_string()), None);
    assert_eq!(parse_fps("0.5"), None);
    assert!(FPS_EXPECTED.contains(&format!("from {min} to {max}")));
}
