//! Live reload end to end: files rewritten on disk under a watch, the results adopted by a
//! running (headless) app. Waits are generous bounds, not timings.

use std::path::Path;
use std::time::Duration;

use rigscope::tui::watch::{Reload, Watch};
use rigscope::tui::{App, Launch};

/// Far longer than a reload takes; only a watcher that never fires runs into it.
const BOUND: Duration = crate::PATIENCE;

fn folder(tag: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    super::temp::folder(&format!("reload-{tag}"))
}

/// Replaces `path` the way editors save: a temporary file renamed over it.
fn save(path: &Path, bytes: &[u8]) {
    let temp = path.with_extension("saving");
    std::fs::write(&temp, bytes).expect("write");
    std::fs::rename(&temp, path).expect("rename");
}

fn next(watch: &Watch) -> Reload {
    watch.next(BOUND).expect("the change was noticed within the bound")
}

#[test]
fn a_broken_save_keeps_the_old_rig_and_the_next_good_one_is_adopted() {
    let (_guard, dir) = folder("glb");
    let file = dir.join("rig.glb");
    std::fs::write(&file, rigscope::samplegen::walker()).unwrap();
    let launch = Launch { paused: true, ..Launch::default() };
    let mut app = App::new(rigscope::load(&file).unwrap(), &launch);
    let watch = Watch::start(&file, &launch, || {}).expect("watch starts");
    let walker_nodes = app.session.rig.nodes.len();

    // Half a file, as a slow exporter leaves it mid-write.
    let walker = rigscope::samplegen::walker();
    std::fs::write(&file, &walker[..walker.len() / 2]).unwrap();
    match next(&watch) {
        Reload::Failed(why) => {
            assert!(why.contains("rig.glb"), "{why}");
            app.reload_failed(&why);
        }
        Reload::Loaded(_) => panic!("half a file loaded"),
    }
    assert_eq!(app.session.rig.nodes.len(), walker_nodes);
    assert!(app.status.file_note.as_ref().unwrap().error);

    // A different rig saved over it: adopted, and the note names what changed.
    let tentacle = rigscope::samplegen::tentacle();
    save(&file, &tentacle);
    let expected = rigscope::load_bytes(&tentacle, "t.glb", None).unwrap();
    match next(&watch) {
        Reload::Loaded(fresh) => app.reload(*fresh),
        Reload::Failed(why) => panic!("the good file failed: {why}"),
    }
    assert_eq!(app.session.rig.nodes.len(), expected.nodes.len());
    let note = app.status.file_note.clone().unwrap();
    assert!(!note.error);
    let old = rigscope::load_bytes(&walker, "w", None).unwrap();
    let joints = |r: &rigscope::Rig| r.skins.iter().map(|s| s.joints.len()).sum::<usize>();
    // The two samples share no joint or clip name: all of one go, all of the other come.
    let text = &note.text;
    assert!(
        text.starts_with(&format!("reloaded (clip walk is gone): +{} joints", joints(&expected))),
        "{text}"
    );
    assert!(text.contains(&format!("-{} joints", joints(&old))), "{text}");
}

#[test]
fn the_polling_watch_sees_a_save_too() {
    let (_guard, dir) = folder("poll");
    let file = dir.join("rig.glb");
    std::fs::write(&file, rigscope::samplegen::walker()).unwrap();
    let launch = Launch { paused: true, ..Launch::default() };
    let watch = Watch::start_polling(&file, &launch, || {}).expect("watch starts");
    assert!(watch.polling);
    // Two saves within a second: both seen (a whole-second mtime would hide the second).
    save(&file, &rigscope::samplegen::tentacle());
    match next(&watch) {
        Reload::Loaded(fresh) => assert_eq!(fresh.rig.skins[0].joints.len(), 10),
        Reload::Failed(why) => panic!("{why}"),
    }
    save(&file, &rigscope::samplegen::walker());
    match next(&watch) {
        Reload::Loaded(fresh) => assert_eq!(fresh.rig.skins[0].joints.len(), 17),
        Reload::Failed(why) => panic!("{why}"),
    }
}

#[test]
fn rewriting_a_gltf_s_external_buffer_reloads_it() {
    let (_guard, dir) = folder("bin");
    // seed-arm.gltf with its embedded buffer moved to a .bin beside it.
    let text = std::fs::read_to_string(super::cli::sample("seed-arm.gltf")).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let raw = rigscope::import::load_raw_bytes(text.as_bytes(), "seed-arm.gltf", None).unwrap();
    json["buffers"][0]["uri"] = "arm.bin".into();
    std::fs::write(dir.join("arm.bin"), &raw.buffers[0]).unwrap();
    let file = dir.join("arm.gltf");
    std::fs::write(&file, serde_json::to_vec(&json).unwrap()).unwrap();
    let launch = Launch { paused: true, ..Launch::default() };
    let watch = Watch::start(&file, &launch, || {}).expect("watch starts");

    // A .bin too short for its byteLength: the file no longer loads.
    save(&dir.join("arm.bin"), &raw.buffers[0][..8]);
    match next(&watch) {
        Reload::Failed(why) => assert!(why.contains("arm.gltf"), "{why}"),
        Reload::Loaded(_) => panic!("a truncated buffer loaded"),
    }
    // Whole again: it loads.
    save(&dir.join("arm.bin"), &raw.buffers[0]);
    assert!(matches!(next(&watch), Reload::Loaded(_)));
    // A file beside it that the rig does not use changes nothing.
    std::fs::write(dir.join("notes.txt"), "x").unwrap();
    assert!(watch.next(Duration::from_millis(500)).is_none());
    // The next export keeps its buffer in a folder of its own: that folder is watched too.
    std::fs::create_dir(dir.join("v2")).unwrap();
    std::fs::write(dir.join("v2/arm.bin"), &raw.buffers[0]).unwrap();
    json["buffers"][0]["uri"] = "v2/arm.bin".into();
    save(&file, &serde_json::to_vec(&json).unwrap());
    assert!(matches!(next(&watch), Reload::Loaded(_)));
    save(&dir.join("v2/arm.bin"), &raw.buffers[0][..8]);
    match next(&watch) {
        Reload::Failed(why) => assert!(why.contains("arm.gltf"), "{why}"),
        Reload::Loaded(_) => panic!("a truncated buffer loaded"),
    }
}

/// The real viewer in tmux, paused on its second clip, while its file is saved over: the
/// same file (clip kept, "same" reported), half a file (error line, picture kept), another
/// rig (taken). Skipped with a note when tmux is not installed.
#[test]
fn the_running_viewer_follows_saves_of_its_file() {
    let Some(tmux) = super::tmux::Tmux::new("the tmux reload test") else { return };
    let file = tmux.dir().join("rig.glb");
    let walker = rigscope::samplegen::walker();
    std::fs::write(&file, &walker).unwrap();
    let cmd = format!("{} {} --paused; sleep 30", env!("CARGO_BIN_EXE_rigscope"), file.display());
    tmux.start("reload", 140, 40, &cmd);
    let wait_for = |needles: &[&str]| tmux.wait_for("reload", needles);
    wait_for(&["Keyframes: walk"]);
    tmux.run(&["send-keys", "-t", "reload", "c"]);
    wait_for(&["Keyframes: idle"]);

    save(&file, &walker);
    wait_for(&["reloaded: same joints, rest pose, vertices and clips", "Keyframes: idle"]);
    std::fs::write(&file, &walker[..walker.len() / 2]).unwrap();
    wait_for(&["reload failed, showing the last good load", "Keyframes: idle", "hips"]);
    save(&file, &rigscope::samplegen::tentacle());
    wait_for(&["reloaded (clip idle is gone): +10 joints", "seg0"]);
}

#[test]
fn saving_an_anim_library_reloads_the_character_with_its_new_clips() {
    let (_guard, dir) = folder("anim");
    let file = dir.join("character.glb");
    let lib = dir.join("lib.glb");
    std::fs::write(&file, rigscope::samplegen::walker()).unwrap();
    let clips = |name: &str| {
        std::fs::read(format!("{}/tests/fixtures/clips/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
    };
    std::fs::write(&lib, clips("anims.glb")).unwrap();
    let set = rigscope::attach::AnimSet { files: vec![lib.clone()], ..Default::default() };
    let launch = Launch { paused: true, anims: Some(set.clone()), ..Launch::default() };
    let watch = Watch::start(&file, &launch, || {}).expect("watch starts");

    // The library re-exported with Mixamo names: nothing binds by three.js's rule any more.
    save(&lib, &clips("mixamo.glb"));
    let fresh = match next(&watch) {
        Reload::Loaded(fresh) => fresh,
        Reload::Failed(why) => panic!("the library failed: {why}"),
    };
    let attached = &fresh.rig.attached;
    assert_eq!(attached.len(), 2, "walk and idle of lib.glb");
    assert_eq!(fresh.rig.clips[attached[0].clip].name.as_deref(), Some("walk (lib.glb)"));
    assert!(attached[0].unbound.iter().any(|t| t == "mixamorighips.quaternion"), "{:?}", attached[0].unbound);
    assert!(fresh.rig.clips[attached[0].clip].channels.is_empty());

    // A broken library is a failed reload naming it.
    std::fs::write(&lib, b"{\"asset\":").unwrap();
    match next(&watch) {
        Reload::Failed(why) => assert!(why.contains("lib.glb"), "{why}"),
        Reload::Loaded(_) => panic!("a broken library loaded"),
    }
}
