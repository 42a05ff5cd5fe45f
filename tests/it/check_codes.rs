//! `check` as a user reaches it: `--explain` alone lists the codes, `--explain` and
//! `--ignore` suggest the nearest code to a misspelt one, `RIG_LOAD_FAILED`, which only a
//! run over several files emits, is explained and ignored like any other, and every format
//! ends quietly when the reader goes away (`| head`).

use super::cli::{rigscope, sample};

#[test]
fn explain_alone_lists_every_code_and_each_listed_code_is_explained() {
    let run = rigscope(&["check", "--explain"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let listed: Vec<&str> = run
        .stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.contains('_'))
        .collect();
    let known = rigscope::diagnose::codes::ALL.len() + rigscope::diagnose::codes::LOAD_CODES.len();
    assert_eq!(listed.len(), known, "{}", run.stdout);
    assert!(run.stdout.starts_with(&format!("{known} codes")), "{}", run.stdout);
    for code in ["RIG_LOAD_FAILED", "ACCESSOR_WEIGHTS_NON_NORMALIZED", "ROTATION_NON_UNIT"] {
        assert!(listed.contains(&code), "{code} is not listed");
    }
    for code in listed {
        let run = rigscope(&["check", "--explain", code]);
        assert_eq!(run.code, 0, "{code}: {}", run.stderr);
        assert!(run.stdout.starts_with(code), "{code}: {}", run.stdout);
    }
}

#[test]
fn a_misspelt_code_gets_the_nearest_one_from_explain_and_ignore() {
    let run = rigscope(&["check", "--explain", "RIG_JOINT_UNUSSED"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("did you mean RIG_JOINT_UNUSED?"), "{}", run.stderr);
    let run = rigscope(&["check", &sample("walker.glb"), "--ignore", "RIG_JOINT_UNUSSED"]);
    assert!(
        run.stderr.contains(
            "--ignore RIG_JOINT_UNUSSED: rigscope reports no such code; did you mean RIG_JOINT_UNUSED?"
        ),
        "{}",
        run.stderr
    );
    // Nothing near: no guess.
    let run = rigscope(&["check", &sample("walker.glb"), "--ignore", "WHATEVER"]);
    assert!(run.stderr.contains("no such code"), "{}", run.stderr);
    assert!(!run.stderr.contains("did you mean"), "{}", run.stderr);
}

#[test]
fn a_file_that_does_not_load_can_be_ignored_in_a_run_over_a_folder() {
    let (_guard, dir) = super::temp::folder("check-codes-load");
    std::fs::copy(sample("walker.glb"), dir.join("walker.glb")).expect("walker");
    std::fs::write(dir.join("corrupt.glb"), b"glTF not really").expect("corrupt");
    let folder = dir.to_str().expect("UTF-8 path");
    let run = rigscope(&["check", folder]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("error RIG_LOAD_FAILED"), "{}", run.stdout);

    let run = rigscope(&["check", folder, "--ignore", "rig_load_failed"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(!run.stderr.contains("no such code"), "{}", run.stderr);
    assert!(run.stdout.contains("not loaded (RIG_LOAD_FAILED is ignored)"), "{}", run.stdout);
    assert!(run.stdout.contains("2 files checked, 0 failed (1 could not be loaded)"), "{}", run.stdout);
    let run = rigscope(&["check", folder, "--ignore", "RIG_LOAD_FAILED", "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
    assert_eq!(doc["unreadable_files"], 1);
    assert!(doc["counts"].get("RIG_LOAD_FAILED").is_none(), "{doc}");
}

#[test]
fn every_format_ends_quietly_on_a_closed_pipe() {
    let root = env!("CARGO_MANIFEST_DIR");
    let (samples, fixtures) = (format!("{root}/samples"), format!("{root}/tests/fixtures"));
    for format in ["text", "json", "sarif", "junit", "github"] {
        // Hundreds of kilobytes in every format: far more than a pipe holds.
        let args = ["check", &samples, &fixtures, "--max", "all", "--format", format].map(String::from);
        let (status, err) = super::cli::close_after_first_bytes(&args);
        assert!(matches!(status.code(), Some(0 | 1)), "{format}: {status:?} {err}");
        assert!(!err.contains("Broken pipe") && !err.contains("error"), "{format}: {err}");
    }
}
