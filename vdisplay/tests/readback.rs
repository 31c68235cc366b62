//! Read-back of shown frames to PNG: every shown frame of a FIFO run is written, and its pixels
//! are exactly what the application copied into the swapchain image.

// Helpers of the tests: a failed call is a failed test.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::context::{Options, Vk};
use common::textbook::{self, LoopDesc};
use common::{env, log, swap};

#[test]
fn shown_frames_are_read_back_exactly() {
    env::run(|| {
        let dir = env::scratch("readback");
        let path = dir.join("present.jsonl");
        let opts = Options {
            settings: vec![
                ("extent", "320x200".into()),
                ("readback_dir", dir.join("png").display().to_string()),
                ("log", path.display().to_string()),
            ],
            ..Options::default()
        };
        let vk = Vk::new(&opts);
        let sc = swap::create(&vk, &swap::SwapDesc::default()).unwrap();
        textbook::run(
            &vk,
            &sc,
            &LoopDesc {
                frames: 6,
                ..Default::default()
            },
        );
        textbook::wait_shown(&vk, &sc, 6);
        swap::destroy(&vk, &sc);
        assert!(vk.all_messages().is_empty(), "{:#?}", vk.all_messages());
        drop(vk); // the layer writes the last files before vkDestroyDevice returns
        let entries = log::read(&path);
        let mut files: Vec<_> = std::fs::read_dir(dir.join("png"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert_eq!(
            files.len(),
            entries.iter().filter(|e| e.shown_ns.is_some()).count()
        );
        for f in &files {
            assert_png_holds_its_frame(f);
        }
        println!("{} PNGs, e.g. {}", files.len(), files[0].display());
    })
}

/// The read-back PNG `f` (named for its present's sequence number) holds exactly the pattern
/// the loop copied into that frame, 320x200.
fn assert_png_holds_its_frame(f: &std::path::Path) {
    let name = f.file_name().unwrap().to_string_lossy().into_owned();
    let seq: usize = name.split("_p").nth(1).unwrap()[..6].parse().unwrap();
    let frame = seq - 1;
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(f).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (320, 200));
    for y in 0..200u32 {
        for x in 0..320u32 {
            let p = textbook::pattern(frame, x, y); // B, G, R, A in the image
            let i = ((y * 320 + x) * 4) as usize;
            assert_eq!(
                &buf[i..i + 4],
                &[p[2], p[1], p[0], 255],
                "{name} at ({x}, {y})"
            );
        }
    }
}
