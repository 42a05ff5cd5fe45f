//! `check FILE|DIR...`: a folder with good, bad and corrupt files, in every format. Expected
//! counts come from single-file `check --json` runs on the same files (the one-file path,
//! unchanged by the batch code), so each format is tested against a second source.

use serde_json::Value;

use super::cli::{rigscope, sample};

/// A folder: two clean samples, bad-weights (errors and warnings) in a subfolder, a corrupt
/// .glb, and a file with another extension that must be left alone.
fn folder(tag: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let (guard, dir) = super::temp::folder(&format!("check-many-{tag}"));
    std::fs::create_dir_all(dir.join("sub")).expect("temp dir");
    for name in ["walker.glb", "seed-arm.gltf"] {
        std::fs::copy(sample(name), dir.join(name)).expect("copy");
    }
    std::fs::copy(sample("bad-weights.glb"), dir.join("sub/bad-weights.glb")).expect("copy");
    std::fs::write(dir.join("sub/corrupt.glb"), b"glTF\x02\x00\x00\x00garbage").expect("write");
    std::fs::write(dir.join("notes.txt"), b"not a rig").expect("write");
    (guard, dir)
}

/// (errors, warnings, infos) of one file from the single-file JSON document.
fn single(path: &str) -> (u64, u64, u64) {
    let run = rigscope(&["check", path, "--json"]);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    let n = |k: &str| doc[k].as_u64().expect(k);
    (n("errors"), n("warnings"), n("infos"))
}

#[test]
fn a_folder_is_searched_and_summed_with_the_corrupt_file_as_one_error() {
    let (_guard, dir) = folder("json");
    let shown = dir.display().to_string();
    let run = rigscope(&["check", &shown, "--format", "json"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(doc["format_version"], 3);
    assert_eq!(doc["files"], 4, "notes.txt is not checked");
    assert_eq!(doc["failed_files"], 2);
    assert_eq!(doc["unreadable_files"], 1);
    let bad = single(&sample("bad-weights.glb"));
    let walker = single(&sample("walker.glb"));
    let arm = single(&sample("seed-arm.gltf"));
    assert_eq!(doc["errors"].as_u64(), Some(bad.0 + walker.0 + arm.0 + 1));
    assert_eq!(doc["warnings"].as_u64(), Some(bad.1 + walker.1 + arm.1));
    assert_eq!(doc["counts"]["RIG_LOAD_FAILED"], 1);
    // Name order, subfolders in place.
    let files: Vec<&str> = doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["file"].as_str().expect("file"))
        .collect();
    let expect: Vec<String> = ["seed-arm.gltf", "sub/bad-weights.glb", "sub/corrupt.glb", "walker.glb"]
        .iter()
        .map(|n| dir.join(n).display().to_string())
        .collect();
    assert_eq!(files, expect);
    let corrupt = &doc["results"][2];
    assert_eq!(corrupt["failed"], true);
    assert_eq!(corrupt["findings"][0]["code"], "RIG_LOAD_FAILED");
    assert!(corrupt["load_error"].as_str().expect("load_error").contains("glb"), "{corrupt}");
}

#[test]
fn exit_codes_follow_errors_and_deny_warnings() {
    let (_guard, dir) = folder("exit");
    let good =
        [dir.join("walker.glb").display().to_string(), dir.join("seed-arm.gltf").display().to_string()];
    let run = rigscope(&["check", &good[0], &good[1]]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("2 files checked, 0 failed"), "{}", run.stdout);
    // bad-weights has errors; ignoring every error code leaves its warnings.
    let bad = dir.join("sub/bad-weights.glb").display().to_string();
    let errors = "ACCESSOR_INVALID_FLOAT,ACCESSOR_JOINTS_INDEX_DUPLICATE,ACCESSOR_JOINTS_INDEX_OOB,\
                  ACCESSOR_WEIGHTS_NEGATIVE,ACCESSOR_WEIGHTS_NON_NORMALIZED";
    assert_eq!(rigscope(&["check", &bad, &good[0], "--ignore", errors]).code, 0);
    assert_eq!(rigscope(&["check", &bad, &good[0], "--ignore", errors, "--deny-warnings"]).code, 1);
    // A path that does not exist is a usage error; nothing is checked.
    let run = rigscope(&["check", &good[0], "no/such/dir"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no/such/dir: no such file or folder"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    let run = rigscope(&["check", &good[0], "--json", "--format", "sarif"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    // A folder with no rig in it (a mistyped path in a CI job) checks nothing: not a pass.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("empty folder");
    let run = rigscope(&["check", &empty.display().to_string()]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no .gltf, .glb, .vrm or .vrma files to check"), "{}", run.stderr);
}

#[test]
fn sarif_has_one_result_per_finding_with_rules_and_levels() {
    let (_guard, dir) = folder("sarif");
    let run = rigscope(&["check", &dir.display().to_string(), "--format", "sarif"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let log: Value = serde_json::from_str(&run.stdout).expect("sarif json");
    assert_eq!(log["version"], "2.1.0");
    let run0 = &log["runs"][0];
    assert_eq!(run0["tool"]["driver"]["name"], "rigscope");
    let results = run0["results"].as_array().expect("results");
    let bad = single(&sample("bad-weights.glb"));
    assert_eq!(results.len() as u64, bad.0 + bad.1 + bad.2 + 1);
    let rules = run0["tool"]["driver"]["rules"].as_array().expect("rules");
    for r in results {
        let index = r["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], r["ruleId"]);
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].as_str().expect("uri");
        assert!(uri.ends_with("bad-weights.glb") || uri.ends_with("corrupt.glb"), "{uri}");
    }
    let load = results.iter().find(|r| r["ruleId"] == "RIG_LOAD_FAILED").expect("load failure result");
    assert_eq!(load["level"], "error");
    let warnings = results.iter().filter(|r| r["level"] == "warning").count() as u64;
    assert_eq!(warnings, bad.1);
}

#[test]
fn junit_has_a_case_per_file_and_github_a_command_per_finding() {
    let (_guard, dir) = folder("junit");
    let shown = dir.display().to_string();
    let run = rigscope(&["check", &shown, "--format", "junit"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stdout.contains(r#"<testsuites name="rigscope" tests="4" failures="2" errors="0">"#),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout.matches("<testcase ").count(), 4);
    assert_eq!(run.stdout.matches("<failure ").count(), 2);
    assert!(run.stdout.contains(r#"<failure type="RIG_LOAD_FAILED""#), "{}", run.stdout);

    let run = rigscope(&["check", &shown, "--format", "github"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let bad = single(&sample("bad-weights.glb"));
    let errors = run.stdout.lines().filter(|l| l.starts_with("::error file=")).count() as u64;
    let warnings = run.stdout.lines().filter(|l| l.starts_with("::warning file=")).count() as u64;
    assert_eq!((errors, warnings), (bad.0 + 1, bad.1));
    assert!(run.stdout.contains(",title=RIG_LOAD_FAILED::"), "{}", run.stdout);
}

#[test]
fn vrm_and_vrma_files_in_a_folder_are_checked() {
    let (_guard, dir) = super::temp::folder("check-many-vrm");
    // VRM avatars and VRM animations are .glb files under other names.
    std::fs::copy(sample("bad-weights.glb"), dir.join("avatar.VRM")).expect("copy");
    std::fs::copy(sample("walker.glb"), dir.join("walk.vrma")).expect("copy");
    let run = rigscope(&["check", &dir.display().to_string(), "--format", "json"]);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    let files: Vec<&str> = doc["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["file"].as_str().expect("file"))
        .collect();
    let expect = [dir.join("avatar.VRM").display().to_string(), dir.join("walk.vrma").display().to_string()];
    assert_eq!(files, expect);
    let bad = single(&sample("bad-weights.glb"));
    assert_eq!(doc["results"][0]["errors"].as_u64(), Some(bad.0));
    assert_eq!(run.code, 1, "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The closing summary names every failing file with its error count, each count the one
/// the file's own `check` gives, and only files whose own `check` exits 1.
#[test]
fn the_summary_names_every_failing_file_with_its_errors() {
    let (_guard, dir) = folder("failing");
    let run = rigscope(&["check", &dir.display().to_string()]);
    assert_eq!(run.code, 1);
    let listed: Vec<&str> = run.stdout.split("\nfailed:\n").nth(1).expect("a failed list").lines().collect();
    let mut expected = Vec::new();
    for name in ["seed-arm.gltf", "sub/bad-weights.glb", "sub/corrupt.glb", "walker.glb"] {
        let path = dir.join(name).display().to_string();
        let own = rigscope(&["check", &path]);
        if own.code == 0 {
            assert!(!listed.iter().any(|l| l.contains(&path)), "{path} passes alone: {listed:?}");
            continue;
        }
        let errors = if own.code == 2 { 1 } else { single(&path).0 };
        let noun = if errors == 1 { "error" } else { "errors" };
        expected.push(format!("  {path}: {errors} {noun}"));
    }
    assert_eq!(listed.len(), expected.len(), "{listed:?}");
    for (line, want) in listed.iter().zip(&expected) {
        assert!(line.starts_with(want.as_str()), "{line} vs {want}");
    }
}

/// Folder entries with a rig's name that are no file to read are reported, each with why.
#[cfg(unix)]
#[test]
fn dangling_links_loops_and_fifos_are_reported_as_not_checked() {
    let (_guard, dir) = super::temp::folder("check-many-links");
    std::fs::copy(sample("walker.glb"), dir.join("ok.glb")).expect("copy");
    std::os::unix::fs::symlink("nowhere.glb", dir.join("dangling.glb")).expect("link");
    std::os::unix::fs::symlink("loop.glb", dir.join("loop.glb")).expect("link");
    let fifo = std::process::Command::new("mkfifo").arg(dir.join("pipe.glb")).status();
    let run = rigscope(&["check", &dir.display().to_string(), "--format", "json"]);
    assert_eq!(run.code, 1);
    let doc: Value = serde_json::from_str(&run.stdout).expect("json");
    let why = |name: &str| {
        let results = doc["results"].as_array().expect("results");
        let entry = results.iter().find(|r| r["file"].as_str().is_some_and(|f| f.ends_with(name)));
        entry.and_then(|r| r["load_error"].as_str()).unwrap_or("").to_string()
    };
    assert!(why("dangling.glb").contains("not checked: a symbolic link whose target does not exist"));
    assert!(why("loop.glb").contains("not checked: a symbolic link that leads back to itself"));
    if fifo.is_ok_and(|s| s.success()) {
        assert!(why("pipe.glb").contains("not checked: not a regular file"), "{}", why("pipe.glb"));
    }
    assert_eq!(why("ok.glb"), "");
}

/// `--max N` caps every format's listing per code and says how many were left out.
#[test]
fn every_format_lists_at_most_max_per_code_and_counts_the_rest() {
    let file = sample("bad-weights.glb");
    // 8 ACCESSOR_WEIGHTS_NON_NORMALIZED findings in the sample (BAD_WEIGHTS_FAULTS): 2 listed, 6 not.
    let sarif = rigscope(&["check", &file, "--format", "sarif", "--max", "2"]);
    let doc: Value = serde_json::from_str(&sarif.stdout).expect("sarif");
    let results = doc["runs"][0]["results"].as_array().expect("results");
    let code = "ACCESSOR_WEIGHTS_NON_NORMALIZED";
    assert_eq!(results.iter().filter(|r| r["ruleId"] == code).count(), 2);
    let notes = doc["runs"][0]["invocations"][0]["toolExecutionNotifications"].as_array().expect("notes");
    assert!(
        notes
            .iter()
            .any(|n| n["message"]["text"].as_str().is_some_and(|t| t.contains(&format!("6 more {code}"))))
    );
    let github = rigscope(&["check", &file, "--format", "github", "--max", "2"]).stdout;
    assert_eq!(github.lines().filter(|l| l.contains(&format!("title={code}"))).count(), 2);
    assert!(github.contains(&format!("6 more {code} findings not listed")), "{github}");
    let junit = rigscope(&["check", &file, "--format", "junit", "--max", "2"]).stdout;
    assert!(junit.contains(&format!("... and 6 more {code}")), "{junit}");
    let text = rigscope(&["check", &file, "--max", "2"]).stdout;
    assert!(text.contains("  ... and 6 more"), "{text}");
    // The vertex rows name each joint by its skin index and node: node n is joint n here.
    assert!(text.contains("2=#2 3=#3"), "{text}");
}
