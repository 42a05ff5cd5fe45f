//! `normalize`'s closing lines: what is still wrong in OUT and why normalize leaves it, checked
//! against `check` run on OUT (a second run, on the written file).

use serde_json::Value;

use super::cli::{rigscope, sample};

/// Errors and warnings by code in `check FILE --json`.
fn serious_codes(file: &str) -> Vec<(String, u64)> {
    let run = rigscope(&["check", file, "--json"]);
    let doc: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout));
    let mut out: Vec<(String, u64)> = doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| matches!(f["severity"].as_str(), Some("error" | "warning")))
        .map(|f| f["code"].as_str().unwrap().to_string())
        .fold(Vec::new(), |mut acc, code| {
            match acc.iter_mut().find(|(c, _)| *c == code) {
                Some((_, n)) => *n += 1,
                None => acc.push((code, 1)),
            }
            acc
        });
    out.sort();
    out
}

fn failing_lines(stdout: &str) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("still failing: "))
        .map(|rest| {
            let (code, rest) = rest.split_once(" (").expect("code (n)");
            (code.to_string(), rest.split_once(')').unwrap().0.parse().unwrap())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn more_than_four_influences_left_name_the_option_and_it_clears_them() {
    let (_guard, dir) = super::temp::folder("normalize-left");
    let out = dir.join("fixed.glb");
    let out = out.to_str().unwrap();
    let run = rigscope(&["normalize", &sample("bad-weights.glb"), "-o", out]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(failing_lines(&run.stdout), serious_codes(out), "{}", run.stdout);
    assert!(run.stdout.contains("still failing: RIG_MORE_THAN_4_INFLUENCES (1): "), "{}", run.stdout);
    let last = run.stdout.lines().last().unwrap_or_default();
    assert!(last.trim_start().starts_with("try: --max-influences 4: three.js r187 and "), "{last}");

    let run =
        rigscope(&["normalize", &sample("bad-weights.glb"), "-o", out, "--force", "--max-influences", "4"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(serious_codes(out).is_empty());
    assert_eq!(run.stdout.lines().last().map(str::trim), Some("passes: no error or warning is left"));
}

#[test]
fn a_layout_normalize_does_not_rewrite_says_re_export() {
    let (_guard, dir) = super::temp::folder("normalize-stride");
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(sample("seed-arm.gltf")).unwrap()).expect("json");
    // The inverse bind matrices' view gets a byteStride (64: still tightly packed).
    let view =
        doc["accessors"][doc["skins"][0]["inverseBindMatrices"].as_u64().unwrap() as usize]["bufferView"]
            .as_u64()
            .unwrap() as usize;
    doc["bufferViews"][view]["byteStride"] = 64.into();
    let file = dir.join("strided.gltf");
    std::fs::write(&file, doc.to_string()).unwrap();
    let out = dir.join("fixed.gltf");
    let out = out.to_str().unwrap();
    let run = rigscope(&["normalize", file.to_str().unwrap(), "-o", out]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains(
            "still failing: SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE (1): the inverse bind matrices' layout, which normalize does not change; re-export"
        ),
        "{}",
        run.stdout
    );
    assert_eq!(failing_lines(&run.stdout), serious_codes(out), "{}", run.stdout);
}
