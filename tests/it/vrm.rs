//! VRM avatars (issue 40): the humanoid mapping in `inspect` and `pose`, VRM's humanoid rules
//! in `check` (on hand-broken copies made here), and the expressions with their binds. The
//! fixtures are the walker dressed as VRM 1.0 and 0.x (tests/fixtures/vrm/README.md).

use serde_json::Value;

use crate::cli::rigscope;

pub fn fixture(name: &str) -> String {
    format!("{}/tests/fixtures/vrm/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn json_of(args: &[&str]) -> Value {
    let run = rigscope(args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// The walker's node names (samplegen/walker.rs, its table) and the VRM bone each is, as the
/// VRM 1.0 humanoid table names them; VRM 0.x uses the same names for these bones.
const EXPECTED: [(&str, &str); 17] = [
    ("hips", "hips"),
    ("spine", "spine"),
    ("chest", "chest"),
    ("neck", "neck"),
    ("head", "head"),
    ("upper_arm.L", "leftUpperArm"),
    ("forearm.L", "leftLowerArm"),
    ("hand.L", "leftHand"),
    ("upper_arm.R", "rightUpperArm"),
    ("forearm.R", "rightLowerArm"),
    ("hand.R", "rightHand"),
    ("thigh.L", "leftUpperLeg"),
    ("shin.L", "leftLowerLeg"),
    ("foot.L", "leftFoot"),
    ("thigh.R", "rightUpperLeg"),
    ("shin.R", "rightLowerLeg"),
    ("foot.R", "rightFoot"),
];

fn bone_by_name(nodes: &Value) -> Vec<(String, Option<String>)> {
    let mut list: Vec<(String, Option<String>)> = nodes
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| {
            (n["name"].as_str().unwrap_or("").to_string(), n["humanoid_bone"].as_str().map(str::to_string))
        })
        .collect();
    list.sort();
    list
}

fn expected_bones() -> Vec<(String, Option<String>)> {
    let mut list: Vec<(String, Option<String>)> =
        EXPECTED.iter().map(|(n, b)| (n.to_string(), Some(b.to_string()))).collect();
    list.push(("walker".to_string(), None));
    list.sort();
    list
}

#[test]
fn inspect_and_pose_name_the_humanoid_bone_of_every_node() {
    for file in ["walker-vrm1.vrm", "walker-vrm0.vrm"] {
        let doc = json_of(&["inspect", &fixture(file), "--json"]);
        assert_eq!(bone_by_name(&doc["nodes"]), expected_bones(), "{file}");
        let version = if file.contains("vrm1") { "1.0" } else { "0.x" };
        assert_eq!(doc["vrm"]["version"], version);
        assert_eq!(doc["vrm"]["humanoid"].as_array().map(Vec::len), Some(17));

        let pose = json_of(&["pose", &fixture(file), "--json", "--no-positions", "--time", "0"]);
        assert_eq!(bone_by_name(&pose["frames"][0]["nodes"]), expected_bones(), "{file}");

        let text = rigscope(&["inspect", &fixture(file)]).stdout;
        assert!(text.contains(&format!("VRM {version} humanoid (17 bones)")), "{text}");
        assert!(text.contains("upper_arm.L (node 5, joint 5) [leftUpperArm]"), "{text}");
    }
    // A plain glTF has no VRM section and no humanoid_bone fields.
    let doc = json_of(&["inspect", &crate::cli::sample("walker.glb"), "--json"]);
    assert!(doc.get("vrm").is_none());
    assert!(doc["nodes"].as_array().expect("nodes").iter().all(|n| n.get("humanoid_bone").is_none()));
}
