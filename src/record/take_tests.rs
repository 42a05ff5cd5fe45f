//! Recordings of the walker sample decoded again: the GIF with the gif crate's decoder, the
//! cast as JSON lines, each checked against the frame count and times the arguments ask for.

use super::*;
use crate::render::ColorDepth;

fn walker() -> Rig {
    crate::import::load_bytes(crate::cli::BUNDLED_SAMPLE, "walker.glb", None).unwrap()
}

fn take(rig: &Rig, mode: GlyphMode, from: f32, to: f32, fps: u32) -> Take<'_> {
    Take {
        rig,
        clip: rig.clips.first(),
        cols: 40,
        rows: 12,
        mode,
        scene: SceneOptions { bones: true, skin: Some(0), ..SceneOptions::default() },
        yaw: 0.4,
        pitch: 0.2,
        zoom: 1.0,
        times: frame_times(from, to, fps, 40 * 12).expect("within the limit"),
        fps,
        engine: crate::anim::Engine::Stored,
        spring_dt: None,
        look_at: None,
    }
}

#[test]
fn a_gif_has_one_frame_per_tick_at_dot_resolution() {
    let rig = walker();
    let duration = rig.clips[0].duration;
    let t = take(&rig, GlyphMode::Braille, 0.0, duration, 10);
    let bytes = gif(&t, 2).unwrap();
    assert_eq!(bytes, gif(&t, 2).unwrap(), "the same take writes the same bytes");

    let mut options = ::gif::DecodeOptions::new();
    options.set_color_output(::gif::ColorOutput::Indexed);
    let mut decoder = options.read_info(&bytes[..]).unwrap();
    // Braille: 2x4 dots a cell, each dot 2x2 pixels.
    assert_eq!((decoder.width(), decoder.height()), (40 * 2 * 2, 12 * 4 * 2));
    let palette = decoder.global_palette().unwrap().to_vec();
    let mut frames = 0;
    let mut centiseconds = 0u32;
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        frames += 1;
        centiseconds += u32::from(frame.delay);
        // Something other than the background is drawn, in more than one colour.
        let mut seen: Vec<u8> = frame.buffer.iter().copied().filter(|&i| i != 16).collect();
        seen.sort_unstable();
        seen.dedup();
        assert!(seen.len() > 3, "frame {frames} has colours {seen:?}");
    }
    assert_eq!(frames, (duration * 10.0).round() as usize);
    assert_eq!(centiseconds, frames as u32 * 10);
    // Entry 196 of the xterm palette is the cube's (255, 0, 0).
    assert_eq!(&palette[196 * 3..196 * 3 + 3], &[255, 0, 0]);
}

#[test]
fn ascii_cells_are_twice_as_tall_in_the_gif() {
    let rig = walker();
    let bytes = gif(&take(&rig, GlyphMode::Ascii, 0.0, 0.0, 10), 1).unwrap();
    let decoder = ::gif::DecodeOptions::new().read_info(&bytes[..]).unwrap();
    assert_eq!((decoder.width(), decoder.height()), (40, 24));
}

#[test]
fn a_cast_has_a_header_then_one_event_per_frame_and_an_end() {
    let rig = walker();
    let t = take(&rig, GlyphMode::Braille, 0.2, 0.7, 30);
    let bytes = cast(&t, "walker.glb: walk", ColorDepth::TrueColor);
    assert_eq!(bytes, cast(&t, "walker.glb: walk", ColorDepth::TrueColor));
    let text = String::from_utf8(bytes).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let header: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(header["version"], 2);
    assert_eq!(header["width"], 40);
    assert_eq!(header["height"], 12);
    assert!(header.get("timestamp").is_none());
    // 0.5 s at 30 fps: 15 frames, then the closing event at 0.5 s.
    assert_eq!(lines.len(), 1 + 15 + 1);
    for (i, line) in lines[1..].iter().enumerate() {
        let event: serde_json::Value = serde_json::from_str(line).unwrap();
        let time = event[0].as_f64().unwrap();
        assert!((time - i as f64 / 30.0).abs() < 1e-6, "event {i} at {time}");
        assert_eq!(event[1], "o");
        let data = event[2].as_str().unwrap();
        if i < 15 {
            // Home, then 12 rows: 11 row breaks, each a CR LF.
            assert!(data.contains("\u{1b}[H"));
            assert_eq!(data.matches("\r\n").count(), 11);
            assert_eq!(data.matches('\n').count(), 11);
        }
    }
    // Frames differ as the walker walks.
    assert_ne!(lines[1], lines[8]);
}

#[test]
fn without_colour_a_cast_has_no_colour_escapes() {
    let rig = walker();
    let text = String::from_utf8(cast(&take(&rig, GlyphMode::Braille, 0.0, 0.1, 10), "w", ColorDepth::None))
        .unwrap();
    assert!(!text.contains("38;2;") && !text.contains("38;5;"));
    assert!(text.contains('⣿'));
}
