//! `fit` and `--anim` as a library of several files meets them: a report that says once what
//! repeats across clips, the exit code that follows from what is left undriven, warnings for
//! files without clips, clip names past exporter prefixes, and labels for files that share a
//! name. Every library is the walker sample with its JSON edited inside the test.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::cli::{rigscope, sample};
use super::glb_edit::with_json;

fn walker_json() -> Value {
    let glb = std::fs::read(sample("walker.glb")).expect("walker.glb");
    serde_json::from_str(&super::glb_edit::json_text(&glb)).expect("json")
}

/// Writes walker.glb with its JSON changed by `edit` to `path`.
fn write_variant(path: &Path, edit: impl FnOnce(&mut Value)) {
    let glb = std::fs::read(sample("walker.glb")).expect("walker.glb");
    let out = with_json(&glb, |text| {
        let mut doc: Value = serde_json::from_str(text).expect("json");
        edit(&mut doc);
        doc.to_string()
    });
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("folder");
    }
    std::fs::write(path, out).expect("write");
}

fn node_index(doc: &Value, name: &str) -> usize {
    doc["nodes"].as_array().expect("nodes").iter().position(|n| n["name"] == name).expect(name)
}

/// Two weapon-slot nodes the walker lacks, under its hands, each rotated by every clip (with
/// the hips' rotation keys): two tracks per clip that bind to nothing and drive no vertex.
fn add_hand_slots(doc: &mut Value) {
    for (slot, hand) in [("handslot.l", "hand.L"), ("handslot.r", "hand.R")] {
        let parent = node_index(doc, hand);
        let nodes = doc["nodes"].as_array_mut().expect("nodes");
        nodes.push(json!({ "name": slot }));
        let at = nodes.len() - 1;
        let children = nodes[parent].as_object_mut().expect("node").entry("children").or_insert(json!([]));
        children.as_array_mut().expect("children").push(json!(at));
        for anim in doc["animations"].as_array_mut().expect("animations") {
            let sampler = anim["channels"]
                .as_array()
                .expect("channels")
                .iter()
                .find(|c| c["target"]["path"] == "rotation")
                .expect("a rotation")["sampler"]
                .clone();
            anim["channels"]
                .as_array_mut()
                .expect("channels")
                .push(json!({ "sampler": sampler, "target": { "node": at, "path": "rotation" } }));
        }
    }
}

fn path_str(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn a_three_file_library_with_weapon_slots_fits_in_a_few_lines_as_a_note() {
    let (_guard, dir) = super::temp::folder("fit-slots");
    let clips = walker_json()["animations"].as_array().expect("animations").len();
    let libs: Vec<PathBuf> =
        ["general.glb", "movement.glb", "combat.glb"].iter().map(|n| dir.join(n)).collect();
    for lib in &libs {
        write_variant(lib, add_hand_slots);
    }
    let walker = sample("walker.glb");
    let mut args = vec!["fit", walker.as_str()];
    args.extend(libs.iter().map(|p| path_str(p)));
    let run = rigscope(&args);
    // The slots move no vertex of the walker: every skinned joint is still driven.
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let lines = run.stdout.lines().count();
    assert!(lines <= 40, "{lines} lines:\n{}", run.stdout);
    let grouped = format!(
        "all {clips} clips: handslot.l, handslot.r (2 tracks) have no node in the character; every skinned joint of the character is still driven"
    );
    assert_eq!(run.stdout.matches(&grouped).count(), 3, "{}", run.stdout);
    assert!(run.stdout.trim_end().ends_with("fits: no problems (3 notes)"), "{}", run.stdout);
    // Each track is still listed behind --tracks: two per clip per file.
    args.push("--tracks");
    let run = rigscope(&args);
    assert_eq!(run.code, 0);
    for track in ["handslotl.quaternion: no target node", "handslotr.quaternion: no target node"] {
        assert_eq!(run.stdout.matches(track).count(), 3 * clips, "{}", run.stdout);
    }
}

#[test]
fn unbound_tracks_that_leave_a_skinned_joint_undriven_or_bind_nothing_exit_1() {
    let (_guard, dir) = super::temp::folder("fit-undriven");
    let walker = sample("walker.glb");
    // Blender's armature prefix on the spine: three.js binds it to nothing, and the walker's
    // spine (weighted by its mesh) is then moved by no clip.
    let prefixed = dir.join("prefixed.glb");
    write_variant(&prefixed, |doc| {
        let spine = node_index(doc, "spine");
        doc["nodes"][spine]["name"] = json!("Armature|spine");
    });
    let run = rigscope(&["fit", &walker, path_str(&prefixed)]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(
        run.stdout.contains("Armature|spine (1 track) has no node in the character; 1 skinned joint of the character is left undriven: spine"),
        "{}",
        run.stdout
    );
    // Nothing binds at all.
    let foreign = dir.join("foreign.glb");
    write_variant(&foreign, |doc| {
        for node in doc["nodes"].as_array_mut().expect("nodes") {
            if let Some(name) = node["name"].as_str() {
                node["name"] = json!(format!("other_{name}"));
            }
        }
    });
    let run = rigscope(&["fit", &walker, path_str(&foreign), "--json"]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    let problems = doc["libraries"][0]["problems"].as_array().expect("problems");
    assert!(
        problems.iter().any(|p| p.as_str().is_some_and(|p| p.ends_with("nothing binds, so nothing plays"))),
        "{problems:?}"
    );
}

/// The walker with its clips removed: a LIB that adds nothing.
fn without_clips(doc: &mut Value) {
    let object = doc.as_object_mut().expect("object");
    object.remove("animations");
}

#[test]
fn an_anim_file_without_clips_is_named_everywhere_and_merge_exits_2() {
    let (_guard, dir) = super::temp::folder("fit-noclips");
    let empty = dir.join("empty.glb");
    write_variant(&empty, without_clips);
    let walker = sample("walker.glb");
    let warning = "rigscope: warning: empty.glb has no clips: it adds nothing to play";
    let cast = dir.join("out.cast");
    for args in [
        vec!["pose", &walker, "--anim", path_str(&empty), "--time", "0"],
        vec!["render", &walker, "--anim", path_str(&empty)],
        vec!["record", &walker, "--anim", path_str(&empty), "-o", path_str(&cast), "--to", "0.1"],
        vec!["fit", &walker, path_str(&empty)],
        // diff binds the LIB to both sides, and says so once.
        vec!["diff", &walker, &walker, "--anim", path_str(&empty)],
    ] {
        let run = rigscope(&args);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.matches(warning).count(), 1, "{args:?}: {}", run.stderr);
    }
    // fit also says it in its report.
    let run = rigscope(&["fit", &walker, path_str(&empty)]);
    assert!(run.stdout.contains("warning: empty.glb has no clips"), "{}", run.stdout);
    // The viewer's status bar says it on opening.
    let mut rig = rigscope::import::load(Path::new(&walker)).expect("walker");
    let set = rigscope::attach::AnimSet { files: vec![empty.clone()], options: Default::default() };
    rigscope::attach::load_with_anims(&mut rig, &set).expect("binds");
    let app = rigscope::tui::app::App::new(rig, &rigscope::tui::app::Launch::default());
    assert_eq!(app.status.message.as_deref(), Some("empty.glb has no clips: it adds nothing to play"));
    // merge with nothing left to write: exit 2, naming the file, nothing written.
    let out = dir.join("merged.glb");
    let run = rigscope(&["merge", &walker, path_str(&empty), "-o", path_str(&out)]);
    assert_eq!(run.code, 2, "{}{}", run.stdout, run.stderr);
    assert!(run.stderr.contains("empty.glb has no clips: it adds nothing to play"), "{}", run.stderr);
    assert!(!out.exists());
}

/// The walker's clips named as Blender's exporter names actions: `OBJECT|action`.
fn blender_names(object: &'static str) -> impl FnOnce(&mut Value) {
    move |doc: &mut Value| {
        for anim in doc["animations"].as_array_mut().expect("animations") {
            let name = anim["name"].as_str().expect("named").to_string();
            anim["name"] = json!(format!("{object}|{name}"));
        }
    }
}

#[test]
fn a_clip_name_matches_past_blenders_prefix_when_unique_and_an_unknown_one_gets_a_suggestion() {
    let (_guard, dir) = super::temp::folder("fit-prefix");
    let lib = dir.join("lib.glb");
    write_variant(&lib, blender_names("Armature"));
    let walker = sample("walker.glb");
    let chosen = |clip: &str| {
        let run = rigscope(&[
            "pose",
            &walker,
            "--anim",
            path_str(&lib),
            "--clip",
            clip,
            "--json",
            "--no-positions",
        ]);
        assert_eq!(run.code, 0, "{clip}: {}", run.stderr);
        let doc: Value = serde_json::from_str(&run.stdout).expect("json");
        doc["clip"]["name"].as_str().expect("clip name").to_string()
    };
    // `idle`, `Rig_Medium|idle` and the full name are the library's clip (LIB clips first,
    // as for exact names), not the walker's own `idle`.
    for key in ["Armature|idle", "idle", "Rig_Medium|idle"] {
        assert_eq!(chosen(key), "Armature|idle (lib.glb)", "{key}");
    }
    assert_eq!(chosen("#1"), "idle");
    // A near miss: the nearest name, and the clips one a line.
    let run = rigscope(&["pose", &walker, "--anim", path_str(&lib), "--clip", "idel"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("no clip named or numbered 'idel' (did you mean 'idle'?); the clips are:\n"),
        "{}",
        run.stderr
    );
    for line in [
        "\n  0: walk\n",
        "\n  1: idle\n",
        "\n  2: Armature|walk (lib.glb)\n",
        "\n  3: Armature|idle (lib.glb)\n",
    ] {
        assert!(run.stderr.contains(line), "{line:?} in {}", run.stderr);
    }
    // Two files with the same action past different prefixes: not unique, said so.
    let other = dir.join("other.glb");
    write_variant(&other, blender_names("Rig_Medium"));
    let run =
        rigscope(&["pose", &walker, "--anim", path_str(&lib), "--anim", path_str(&other), "--clip", "idle"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("'idle' names 2 clips past their prefix"), "{}", run.stderr);
}

#[test]
fn two_libs_of_one_file_name_get_labels_that_tell_them_apart() {
    let (_guard, dir) = super::temp::folder("fit-labels");
    let (walk, run) = (dir.join("walk").join("lib.glb"), dir.join("run").join("lib.glb"));
    write_variant(&walk, |_| {});
    write_variant(&run, |_| {});
    let walker = sample("walker.glb");
    let pose = |clip: &str| {
        let out = rigscope(&[
            "pose",
            &walker,
            "--anim",
            path_str(&walk),
            "--anim",
            path_str(&run),
            "--clip",
            clip,
            "--json",
            "--no-positions",
        ]);
        assert_eq!(out.code, 0, "{clip}: {}", out.stderr);
        let doc: Value = serde_json::from_str(&out.stdout).expect("json");
        (
            doc["clip"]["index"].as_u64().expect("index"),
            doc["clip"]["name"].as_str().expect("name").to_string(),
        )
    };
    // The walker's own two clips come first, then each LIB's two, in the order given.
    assert_eq!(pose("walk (walk/lib.glb)"), (2, "walk (walk/lib.glb)".to_string()));
    assert_eq!(pose("walk (run/lib.glb)"), (4, "walk (run/lib.glb)".to_string()));
    let fit = rigscope(&["fit", &walker, path_str(&walk), path_str(&run)]);
    assert!(
        fit.stdout.contains("\nwith walk/lib.glb: ") && fit.stdout.contains("\nwith run/lib.glb: "),
        "{}",
        fit.stdout
    );
}

fn vrm_fixture(name: &str) -> String {
    format!("{}/tests/fixtures/vrm/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The VRM 1.0 walker whose `happy` binds no morph target: the walk's happy track binds to
/// it, and moves nothing.
#[test]
fn an_expression_track_on_an_expression_that_drives_nothing_is_said_so() {
    let (_guard, dir) = super::temp::folder("fit-inert");
    let avatar = dir.join("avatar.vrm");
    let glb = std::fs::read(vrm_fixture("walker-vrm1.vrm")).expect("fixture");
    let edited = with_json(&glb, |text| {
        let mut doc: Value = serde_json::from_str(text).expect("json");
        doc["extensions"]["VRMC_vrm"]["expressions"]["preset"]["happy"]["morphTargetBinds"] = json!([]);
        doc.to_string()
    });
    std::fs::write(&avatar, edited).expect("write");
    let run = rigscope(&["fit", path_str(&avatar), &vrm_fixture("walker-walk.vrma")]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("1 of 2 expression tracks (1 more bound to an expression that drives nothing)"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("expression happy: its track binds, but the avatar's happy drives nothing"),
        "{}",
        run.stdout
    );
}

/// A copy of VRM fixture `name` in `dir` with its JSON changed by `edit`.
fn vrm_variant(dir: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let glb = std::fs::read(vrm_fixture(name)).expect("fixture");
    let edited = with_json(&glb, |text| {
        let mut doc: Value = serde_json::from_str(text).expect("json");
        edit(&mut doc);
        doc.to_string()
    });
    let path = dir.join(format!("edited-{name}"));
    std::fs::write(&path, edited).expect("write");
    path
}

#[test]
fn fit_fails_on_an_avatar_whose_humanoid_mapping_fails_check() {
    let (_guard, dir) = super::temp::folder("fit-humanoid");
    // Every humanoid bone on node 0.
    let avatar = vrm_variant(&dir, "walker-vrm1.vrm", |doc| {
        let bones = doc["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"].as_object_mut().expect("bones");
        for entry in bones.values_mut() {
            entry["node"] = json!(0);
        }
    });
    let check = rigscope(&["check", path_str(&avatar)]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    let run = rigscope(&["fit", path_str(&avatar), &vrm_fixture("walker-walk.vrma")]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("the character's VRM humanoid mapping fails check with "), "{}", run.stdout);
    assert!(run.stdout.contains("RIG_VRM_NODE_MAPPED_TWICE"), "{}", run.stdout);
}

#[test]
fn a_vrma_whose_extension_is_not_an_object_or_names_a_missing_node_is_named_by_fit_and_pose() {
    let (_guard, dir) = super::temp::folder("fit-vrma");
    let avatar = vrm_fixture("walker-vrm1.vrm");
    let not_object =
        vrm_variant(&dir, "walker-walk.vrma", |doc| doc["extensions"]["VRMC_vrm_animation"] = json!(5));
    let expected = "edited-walker-walk.vrma: /extensions/VRMC_vrm_animation: is not an object; the animation's humanoid, expressions and lookAt are ignored (RIG_VRM_INVALID)";
    for args in [
        vec!["fit", &avatar, path_str(&not_object)],
        vec!["pose", &avatar, "--anim", path_str(&not_object), "--time", "0"],
    ] {
        let run = rigscope(&args);
        assert!(run.stderr.contains(&format!("rigscope: warning: {expected}")), "{args:?}: {}", run.stderr);
    }
    let bones_not_object = vrm_variant(&dir, "walker-walk.vrma", |doc| {
        doc["extensions"]["VRMC_vrm_animation"]["humanoid"]["humanBones"] = json!([1, 2]);
    });
    let run = rigscope(&["fit", &avatar, path_str(&bones_not_object)]);
    assert!(
        run.stderr
            .contains("/extensions/VRMC_vrm_animation/humanoid/humanBones: humanBones is not an object"),
        "{}",
        run.stderr
    );
    // hips on a node the file lacks: the hips tracks drop, and fit and pose say why.
    let missing = vrm_variant(&dir, "walker-walk.vrma", |doc| {
        doc["extensions"]["VRMC_vrm_animation"]["humanoid"]["humanBones"]["hips"]["node"] = json!(999);
    });
    let words = "edited-walker-walk.vrma: /extensions/VRMC_vrm_animation/humanoid/humanBones/hips/node: not a node of the file; entry ignored (RIG_VRM_INVALID)";
    for args in [
        vec!["fit", &avatar, path_str(&missing)],
        vec!["pose", &avatar, "--anim", path_str(&missing), "--time", "0"],
    ] {
        let run = rigscope(&args);
        assert!(run.stderr.contains(words), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn a_map_reports_every_unused_and_conflicting_line_and_quotes_a_name_with_a_hash() {
    let (_guard, dir) = super::temp::folder("fit-map");
    let lib = dir.join("lib.glb");
    write_variant(&lib, |doc| {
        let spine = node_index(doc, "spine");
        doc["nodes"][spine]["name"] = json!("spine #2");
    });
    let map = dir.join("names.txt");
    let text = "\u{feff}\"spine #2\" spine\nhipz hips # a typo\n\"spine #2\" chest\n\nhips nosuch\n";
    std::fs::write(&map, text).expect("map");
    let walker = sample("walker.glb");
    let run = rigscope(&["fit", &walker, path_str(&lib), "--map", path_str(&map), "--json"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    let bound = doc["libraries"][0]["clips"][0]["bound"].as_array().expect("bound");
    assert!(bound.iter().any(|b| b["node"] == "spine" && b["how"] == "map"), "{bound:?}");
    let shown = path_str(&map);
    let expected = [
        format!(
            "{shown}: line 3 maps 'spine #2' to 'chest', but line 1 already maps it to 'spine'; line 1 is kept"
        ),
        format!("{shown} line 2: no node of the --anim files is named 'hipz'; the line binds nothing"),
        format!("{shown} line 5: the character has no node named 'nosuch'; the line binds nothing"),
    ];
    assert_eq!(doc["map_lines"], json!(expected));
    // pose says the same on stderr, once each.
    let pose = rigscope(&["pose", &walker, "--anim", path_str(&lib), "--map", path_str(&map), "--time", "0"]);
    assert_eq!(pose.code, 0, "{}", pose.stderr);
    for line in &expected {
        assert_eq!(
            pose.stderr.matches(&format!("rigscope: warning: {line}\n")).count(),
            1,
            "{}",
            pose.stderr
        );
    }
    // An unclosed quote is an error naming the file and the line.
    std::fs::write(&map, "hips hips\n\"spine #2 spine\n").expect("map");
    let run = rigscope(&["fit", &walker, path_str(&lib), "--map", path_str(&map)]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains(&format!("{shown}: line 2: a quoted name is not closed")), "{}", run.stderr);
}
