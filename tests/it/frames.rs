//! `rigscope render` frames of every sample in every mode, as golden text. The frames are
//! deterministic (same arguments, same bytes), so any change to sampling, skinning,
//! projection or glyph packing shows up here as a reviewed snapshot diff.

use super::cli::{rigscope, sample};

const SAMPLES: [(&str, &str, &str); 4] = [
    ("seed-arm.gltf", "translate", "0.5"),
    ("tentacle.glb", "spline", "1.2"),
    ("walker.glb", "walk", "0.25"),
    ("bad-weights.glb", "wiggle", "0.5"),
];

#[test]
fn every_sample_in_every_mode() {
    for (file, clip, time) in SAMPLES {
        for (mode, color) in [("braille", "never"), ("halfblock", "always"), ("ascii", "never")] {
            let run = rigscope(&[
                "render",
                &sample(file),
                "--clip",
                clip,
                "--time",
                time,
                "--size",
                "64x24",
                "--mode",
                mode,
                "--color",
                color,
                "--bones",
                "--yaw",
                "20",
                "--pitch",
                "10",
            ]);
            assert_eq!(run.code, 0, "{file} {mode}: {}", run.stderr);
            assert_eq!(run.stdout.lines().count(), 24, "{file} {mode}");
            let name = format!("render_{}_{mode}", file.replace(['.', '-'], "_"));
            insta::assert_snapshot!(name, run.stdout);
        }
    }
}

/// `rigscope render FILE` with no camera options: the viewer's opening three-quarter view.
#[test]
fn the_default_camera_is_the_viewers_opening_view() {
    for (file, clip, time) in [SAMPLES[1], SAMPLES[2]] {
        let run = rigscope(&[
            "render",
            &sample(file),
            "--clip",
            clip,
            "--time",
            time,
            "--size",
            "64x24",
            "--color",
            "never",
            "--bones",
        ]);
        assert_eq!(run.code, 0, "{file}: {}", run.stderr);
        let name = format!("render_default_camera_{}", file.replace(['.', '-'], "_"));
        insta::assert_snapshot!(name, run.stdout);
    }
}
