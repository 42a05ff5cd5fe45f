//! `rigscope record` as a user runs it: the same arguments write the same bytes, OUT is
//! never replaced without `--force`, and what is wrong is named with exit 2.

use super::cli::{rigscope, sample};

fn folder(tag: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    super::temp::folder(&format!("record-{tag}"))
}

#[test]
fn recording_twice_writes_the_same_bytes_in_both_formats() {
    let (_guard, dir) = folder("twice");
    let walker = sample("walker.glb");
    for ext in ["cast", "gif"] {
        let (a, b) = (dir.join(format!("a.{ext}")), dir.join(format!("b.{ext}")));
        for out in [&a, &b] {
            let args = [
                "record",
                &walker,
                "-o",
                out.to_str().unwrap(),
                "--clip",
                "walk",
                "--fps",
                "12",
                "--size",
                "60x20",
            ];
            let run = rigscope(&args);
            assert_eq!(run.code, 0, "{}", run.stderr);
        }
        let (a, b) = (std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert!(a.len() > 1000, "{ext}: {} bytes", a.len());
        assert_eq!(a, b, "{ext} differs between two runs");
    }
    // Nothing but the four recordings: no temporary file left behind.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 4);
}

#[test]
fn an_existing_out_needs_force_and_a_bad_request_exits_2() {
    let (_guard, dir) = folder("force");
    let walker = sample("walker.glb");
    let out = dir.join("walk.cast");
    std::fs::write(&out, "mine").unwrap();
    let run = rigscope(&["record", &walker, "-o", out.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("already exists (use --force"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "mine");
    let run = rigscope(&["record", &walker, "-o", out.to_str().unwrap(), "--force", "--to", "0.2"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(std::fs::read_to_string(&out).unwrap().starts_with("{\"version\":2,"));

    let png = dir.join("walk.png");
    let run = rigscope(&["record", &walker, "-o", png.to_str().unwrap()]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("walk.png: OUT must end in .cast"), "{}", run.stderr);
    let gif = dir.join("walk.gif");
    let run = rigscope(&["record", &walker, "-o", gif.to_str().unwrap(), "--from", "1", "--to", "0.5"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("--to 0.5 is before --from 1"), "{}", run.stderr);
    let run = rigscope(&["record", &walker, "-o", gif.to_str().unwrap(), "--clip", "fly"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no clip named or numbered 'fly'"), "{}", run.stderr);
    assert!(!gif.exists());
}

#[test]
fn a_cast_frame_is_what_render_prints_for_the_same_view() {
    let (_guard, dir) = folder("render");
    let walker = sample("walker.glb");
    let out = dir.join("one.cast");
    let view = ["--clip", "walk", "--size", "60x20", "--yaw", "25", "--pitch", "10"];
    let mut args =
        vec!["record", &walker, "-o", out.to_str().unwrap(), "--from", "0.2", "--to", "0.2", "--no-color"];
    args.extend(view);
    let run = rigscope(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut args = vec!["render", &walker, "--time", "0.2", "--bones", "--color", "never"];
    args.extend(view);
    let rendered = rigscope(&args);
    assert_eq!(rendered.code, 0, "{}", rendered.stderr);

    let cast = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = cast.lines().collect();
    // Header, the one frame, the end.
    assert_eq!(lines.len(), 3);
    let event: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    let data = event[2].as_str().unwrap();
    let frame = data.strip_prefix("\u{1b}[?25l\u{1b}[2J\u{1b}[H").expect("cleared, then home");
    assert_eq!(format!("{}\n", frame.replace("\r\n", "\n")), rendered.stdout);
}

/// `--to` past the clip's end records the clip and says so, as `pose` and `render` do for
/// `--time`: the same bytes as a recording to the end.
#[test]
fn a_range_past_the_clip_is_clamped_and_said() {
    let (_guard, dir) = folder("clamp");
    let walker = sample("walker.glb");
    let (whole, past) = (dir.join("whole.cast"), dir.join("past.cast"));
    let run = rigscope(&["record", &walker, "-o", whole.to_str().unwrap(), "--fps", "5"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The walk is 1 s: at 5 fps, frames at 0, 0.2, 0.4, 0.6 and 0.8 s (the end is not
    // included); the size is the file's on disk.
    let size = std::fs::metadata(&whole).expect("whole").len();
    assert_eq!(run.stderr, format!("rigscope: wrote {}: 5 frames at 5 fps, {size} bytes\n", whole.display()));
    let run = rigscope(&["record", &walker, "-o", past.to_str().unwrap(), "--fps", "5", "--to", "99"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stderr.contains("--to 99 is past the end of clip walk (1 s long)"), "{}", run.stderr);
    assert_eq!(std::fs::read(&whole).expect("whole"), std::fs::read(&past).expect("past"));
}

/// `record --force` killed at moments spread over its run leaves OUT old or complete, as
/// `normalize` does: both write through the same temporary file renamed into place.
#[test]
fn an_interrupted_record_never_leaves_out_truncated() {
    let (_guard, dir) = folder("interrupted");
    let walker = sample("walker.glb");
    for ext in ["cast", "gif"] {
        let out = dir.join(format!("walk.{ext}"));
        let out_str = out.to_str().expect("UTF-8 temp path");
        let args = ["record", &walker, "-o", out_str, "--clip", "walk", "--size", "60x20", "--force"];
        super::normalize::assert_interrupted_writes_leave_old_or_complete(&args, &out);
    }
}

/// A one-node file in `dir` whose clip "long" moves the node over key times 0 and `end`.
fn long_clip(dir: &std::path::Path, end: f32) -> String {
    use base64::Engine as _;
    let mut bytes: Vec<u8> = Vec::new();
    for v in [0.0f32, end, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0] {
        bytes.extend(v.to_le_bytes());
    }
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64::engine::general_purpose::STANDARD.encode(&bytes)
    );
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "mover"}],
        "buffers": [{"byteLength": 32, "uri": uri}],
        "bufferViews": [{"buffer": 0, "byteLength": 8}, {"buffer": 0, "byteOffset": 8, "byteLength": 24}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR"},
            {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC3"}
        ],
        "animations": [{"name": "long",
            "samplers": [{"input": 0, "output": 1}],
            "channels": [{"sampler": 0, "target": {"node": 0, "path": "translation"}}]}]
    });
    let path = dir.join(format!("long-{end}.gltf"));
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn a_clip_too_long_to_record_is_refused_naming_it_and_a_part_of_it_records() {
    let (_guard, dir) = folder("long");
    let out = dir.join("long.cast");
    for end in [f32::INFINITY, 3e38, 1e8, 1e5] {
        let file = long_clip(&dir, end);
        let run = rigscope(&["record", &file, "-o", out.to_str().unwrap()]);
        assert_eq!(run.code, 2, "{end}: {}", run.stderr);
        assert!(run.stderr.contains("clip 'long'"), "{end}: {}", run.stderr);
        assert!(run.stderr.contains("--from and --to"), "{end}: {}", run.stderr);
        assert!(!out.exists());
        // One second of it: 15 frames at the default 15 fps.
        let run = rigscope(&["record", &file, "-o", out.to_str().unwrap(), "--force", "--to", "1"]);
        assert_eq!(run.code, 0, "{end}: {}", run.stderr);
        assert!(run.stderr.contains(": 15 frames at 15 fps"), "{end}: {}", run.stderr);
        std::fs::remove_file(&out).unwrap();
    }
    // 1e5 s at 15 fps is 1.5 million frames; the message says so.
    let run = rigscope(&["record", &long_clip(&dir, 1e5), "-o", out.to_str().unwrap()]);
    assert!(run.stderr.contains("1500000 frames"), "{}", run.stderr);
    assert!(run.stderr.contains("(100000 s long)"), "{}", run.stderr);
}
