//! VRM 0.x (`extensions.VRM`) and VRM 1.0 (`extensions.VRMC_vrm`): the humanoid mapping and
//! the expressions, read from the document's own extensions (see `parse::Beside`).
//!
//! A broken VRM extension never refuses the file: the glTF underneath is still shown, and
//! what cannot be used (an entry naming a node or mesh that does not exist, a bind to a
//! morph target the mesh lacks) becomes a `RIG_VRM_INVALID` finding and is left out.
//! Whether the mapping meets VRM's humanoid rules is `diagnose`'s job, not this one's.

use super::findings::Findings;
use super::parse::Beside;
use crate::rig::{
    Expression, HumanBone, LookAt, LookAtKind, Mesh, MorphBind, Node, Override, Overrides, RangeMap,
    Severity, Vrm, VrmAnimationMap, VrmVersion,
};
use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::Value;
use std::fmt;

pub(crate) const INVALID: &str = "RIG_VRM_INVALID";

/// The VRM data of a document, when it has a VRM extension (1.0 first, as three-vrm reads it).
pub(crate) fn read(
    beside: &Beside,
    root: &gltf::json::Root,
    nodes: &[Node],
    meshes: &[Mesh],
    findings: &mut Findings,
) -> Option<Vrm> {
    let own = &beside.extensions;
    let (v1_text, v0_text) = (own.get("VRMC_vrm"), own.get("VRM"));
    if v1_text.is_none() && v0_text.is_none() {
        return None;
    }
    // Readers of the whole object (springs, lookAt checks) see it as one value; one that a
    // value cannot hold (a number past f64) leaves the file without VRM data.
    let raw = own.to_value()?;
    let (ext_v1, ext_v0) = (raw.get("VRMC_vrm"), raw.get("VRM"));
    let mut reader = Reader { nodes, meshes, findings };
    let mut vrm = match (ext_v1.zip(v1_text), ext_v0) {
        (Some((v1, v1_text)), _) => reader.v1(v1, v1_text),
        (None, Some(v0)) => reader.v0(v0),
        (None, None) => return None,
    };
    let used = beside.extensions_used_listed.then_some(root.extensions_used.as_slice());
    let children: Vec<Vec<usize>> = nodes.iter().map(|n| n.children.clone()).collect();
    let (springs, problems) = crate::vrm::read_springs(&raw, used, &crate::vrm::Tree { children: &children });
    for problem in problems {
        let severity = if problem.code == INVALID { Severity::Warning } else { Severity::Error };
        findings.push(problem.code, severity, problem.pointer, problem.message);
    }
    vrm.springs = springs;
    vrm.constraints = constraints(&root.nodes, used, nodes, findings);
    look_at_findings(&raw, findings);
    vrm.meta = match (ext_v1, ext_v0) {
        (Some(v1), _) => crate::vrm::read_meta(v1, true),
        (None, Some(v0)) => crate::vrm::read_meta(v0, false),
        (None, None) => Default::default(),
    };
    Some(vrm)
}

/// The node constraints, their problems recorded as findings (errors where three-vrm cannot
/// load the file, warnings otherwise).
fn constraints(
    file_nodes: &[gltf::json::Node],
    used: Option<&[String]>,
    nodes: &[Node],
    findings: &mut Findings,
) -> crate::vrm::NodeConstraints {
    let mut extensions: Vec<Option<Value>> =
        file_nodes.iter().map(|n| n.extensions.as_ref().map(|e| Value::Object(e.others.clone()))).collect();
    extensions.resize(nodes.len(), None);
    let parents: Vec<Option<usize>> = nodes.iter().map(|n| n.parent).collect();
    let rest: Vec<glam::DQuat> = nodes.iter().map(|n| n.rest.rotation.as_dquat()).collect();
    let tree = crate::vrm::Nodes { extensions: &extensions, parents: &parents, rest: &rest };
    let (constraints, problems) = crate::vrm::read_constraints(&tree, used);
    for problem in problems {
        let severity = match problem.code {
            "RIG_VRM_CONSTRAINT_SOURCE" | "RIG_VRM_CONSTRAINT_CYCLE" => Severity::Error,
            _ => Severity::Warning,
        };
        findings.push(problem.code, severity, problem.pointer, problem.message);
    }
    constraints
}

/// The `VRMC_vrm_animation` map of a `.vrma`, when the document has one. Entries naming a
/// node the file lacks are left out with a `RIG_VRM_INVALID` finding.
pub(crate) fn read_animation(
    beside: &Beside,
    node_count: usize,
    findings: &mut Findings,
) -> Option<VrmAnimationMap> {
    let ext = beside.extensions.value("VRMC_vrm_animation")?;
    let mut map = VrmAnimationMap::default();
    // Still a .vrma, with nothing mapped: nothing of it plays, and the finding says why.
    let not_an_object = "is not an object; the animation's humanoid, expressions and lookAt are ignored";
    if !ext.is_object() {
        findings.push(INVALID, Severity::Warning, "/extensions/VRMC_vrm_animation", not_an_object);
        return Some(map);
    }
    for (at, what) in [("/humanoid", "humanoid"), ("/humanoid/humanBones", "humanBones")] {
        if ext.pointer(at).is_some_and(|v| !v.is_object()) {
            let message = format!("{what} is not an object; no humanoid bone of the animation plays");
            findings.push(INVALID, Severity::Warning, format!("/extensions/VRMC_vrm_animation{at}"), message);
        }
    }
    let mut node = |value: Option<&Value>, pointer: String| match index(value) {
        Some(n) if n < node_count => Some(n),
        _ => {
            findings.push(INVALID, Severity::Warning, pointer, "not a node of the file; entry ignored");
            None
        }
    };
    let bones = ext.pointer("/humanoid/humanBones").and_then(Value::as_object);
    for (name, entry) in bones.into_iter().flatten() {
        let pointer = format!("/extensions/VRMC_vrm_animation/humanoid/humanBones/{name}/node");
        if let Some(n) = node(entry.get("node"), pointer) {
            map.bones.push((name.clone(), n));
        }
    }
    for group in ["preset", "custom"] {
        let list = ext.pointer(&format!("/expressions/{group}")).and_then(Value::as_object);
        for (name, entry) in list.into_iter().flatten() {
            let pointer = format!("/extensions/VRMC_vrm_animation/expressions/{group}/{name}/node");
            if let Some(n) = node(entry.get("node"), pointer) {
                map.expressions.push((name.clone(), group == "preset", n));
            }
        }
    }
    if let Some(value) = ext.pointer("/lookAt/node") {
        map.look_at = node(Some(value), "/extensions/VRMC_vrm_animation/lookAt/node".to_string());
    }
    Some(map)
}

struct Reader<'a> {
    nodes: &'a [Node],
    meshes: &'a [Mesh],
    findings: &'a mut Findings,
}

impl Reader<'_> {
    fn invalid(&mut self, pointer: String, message: String) {
        self.findings.push(INVALID, Severity::Warning, pointer, message);
    }

    /// A node index at `pointer`, when it is one of the file's nodes.
    fn node(&mut self, value: Option<&Value>, pointer: String) -> Option<usize> {
        match value.and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok()) {
            Some(n) if n < self.nodes.len() => Some(n),
            _ => {
                let what = value.map_or("missing".to_string(), Value::to_string);
                self.invalid(pointer, format!("node {what} is not a node of the file; entry ignored"));
                None
            }
        }
    }

    fn v0(&mut self, ext: &Value) -> Vrm {
        let mut bones = Vec::new();
        let entries = ext.pointer("/humanoid/humanBones").and_then(Value::as_array);
        for (i, entry) in entries.into_iter().flatten().enumerate() {
            let pointer = format!("/extensions/VRM/humanoid/humanBones/{i}");
            let Some(name) = entry.get("bone").and_then(Value::as_str) else {
                self.invalid(pointer, "entry without a bone name; ignored".to_string());
                continue;
            };
            if let Some(node) = self.node(entry.get("node"), format!("{pointer}/node")) {
                bones.push(HumanBone { name: name.to_string(), node, pointer });
            }
        }
        let mut expressions = Vec::new();
        let groups = ext.pointer("/blendShapeMaster/blendShapeGroups").and_then(Value::as_array);
        for (g, group) in groups.into_iter().flatten().enumerate() {
            let pointer = format!("/extensions/VRM/blendShapeMaster/blendShapeGroups/{g}");
            let preset = group.get("presetName").and_then(Value::as_str).filter(|p| *p != "unknown");
            let name = group.get("name").and_then(Value::as_str).or(preset).unwrap_or_default();
            let mut binds = Vec::new();
            for (b, bind) in group.get("binds").and_then(Value::as_array).into_iter().flatten().enumerate() {
                if let Some(bind) = self.v0_bind(bind, format!("{pointer}/binds/{b}")) {
                    binds.push(bind);
                }
            }
            expressions.push(Expression {
                name: name.to_string(),
                preset: preset.map(str::to_string),
                is_binary: group.get("isBinary").and_then(Value::as_bool).unwrap_or(false),
                binds,
                overrides: Overrides::default(),
            });
        }
        Vrm {
            version: VrmVersion::V0,
            bones,
            expressions,
            look_at: v0_look_at(ext),
            springs: Default::default(),
            constraints: Default::default(),
            meta: Default::default(),
        }
    }

    fn v0_bind(&mut self, bind: &Value, pointer: String) -> Option<MorphBind> {
        let mesh = index(bind.get("mesh")).filter(|&m| m < self.meshes.len());
        let Some(mesh) = mesh else {
            self.invalid(format!("{pointer}/mesh"), "not a mesh of the file; bind ignored".to_string());
            return None;
        };
        let index = self.morph_index(bind.get("index"), &self.meshes[mesh], pointer.clone())?;
        // VRM 0.x weights run 0..100 (three-vrm multiplies them by 0.01).
        let raw = bind.get("weight").and_then(Value::as_f64).unwrap_or(100.0);
        let weight = (weight_finding(raw, 100.0, format!("{pointer}/weight"), self.findings) * 0.01) as f32;
        Some(MorphBind { node: None, mesh: Some(mesh), index, weight })
    }

    /// `ext` is the extension as a value, `own` its JSON text.
    fn v1(&mut self, ext: &Value, own: &serde_json::value::RawValue) -> Vrm {
        let mut bones = Vec::new();
        // Read again as a key list: a map would keep only the last of a bone mapped twice.
        let entries = serde_json::from_str::<V1Vrm>(own.get()).map(|v| v.humanoid.human_bones.0);
        match entries {
            Ok(entries) => {
                for (name, entry) in entries {
                    let pointer = format!("/extensions/VRMC_vrm/humanoid/humanBones/{name}");
                    if let Some(node) = self.node(entry.get("node"), format!("{pointer}/node")) {
                        bones.push(HumanBone { name, node, pointer });
                    }
                }
            }
            Err(e) => self.invalid(
                "/extensions/VRMC_vrm/humanoid".to_string(),
                format!("no humanBones object could be read: {}", without_position(&e)),
            ),
        }
        let mut expressions = Vec::new();
        for group in ["preset", "custom"] {
            let Some(list) = ext.pointer(&format!("/expressions/{group}")).and_then(Value::as_object) else {
                continue;
            };
            for (name, expression) in list {
                let pointer = format!("/extensions/VRMC_vrm/expressions/{group}/{name}");
                let mut binds = Vec::new();
                let list = expression.get("morphTargetBinds").and_then(Value::as_array);
                for (b, bind) in list.into_iter().flatten().enumerate() {
                    if let Some(bind) = self.v1_bind(bind, format!("{pointer}/morphTargetBinds/{b}")) {
                        binds.push(bind);
                    }
                }
                expressions.push(Expression {
                    name: name.clone(),
                    preset: (group == "preset").then(|| name.clone()),
                    is_binary: expression.get("isBinary").and_then(Value::as_bool).unwrap_or(false),
                    binds,
                    overrides: Overrides {
                        blink: Override::parse(expression.get("overrideBlink").and_then(Value::as_str)),
                        look_at: Override::parse(expression.get("overrideLookAt").and_then(Value::as_str)),
                        mouth: Override::parse(expression.get("overrideMouth").and_then(Value::as_str)),
                    },
                });
            }
        }
        Vrm {
            version: VrmVersion::V1,
            bones,
            expressions,
            look_at: v1_look_at(ext),
            springs: Default::default(),
            constraints: Default::default(),
            meta: Default::default(),
        }
    }

    fn v1_bind(&mut self, bind: &Value, pointer: String) -> Option<MorphBind> {
        let node = self.node(bind.get("node"), format!("{pointer}/node"))?;
        let Some(mesh) = self.nodes[node].mesh.and_then(|m| self.meshes.get(m)) else {
            self.invalid(format!("{pointer}/node"), format!("node {node} has no mesh; bind ignored"));
            return None;
        };
        let index = self.morph_index(bind.get("index"), mesh, pointer.clone())?;
        let raw = bind.get("weight").and_then(Value::as_f64).unwrap_or(1.0);
        let weight = weight_finding(raw, 1.0, format!("{pointer}/weight"), self.findings) as f32;
        Some(MorphBind { node: Some(node), mesh: None, index, weight })
    }

    fn morph_index(&mut self, value: Option<&Value>, mesh: &Mesh, pointer: String) -> Option<usize> {
        let targets = mesh.default_weights.len();
        match index(value) {
            Some(i) if i < targets => Some(i),
            _ => {
                let what = value.map_or("missing".to_string(), Value::to_string);
                let message =
                    format!("morph target {what} does not exist (the mesh has {targets}); bind ignored");
                self.invalid(format!("{pointer}/index"), message);
                None
            }
        }
    }
}

/// VRM 1.0 `lookAt` as three-vrm's `VRMLookAtLoaderPlugin._v1Import` reads it: type
/// `expression` or else `bone`; a missing range map field is 90 degrees in, and 10 degrees
/// (bone) or 1 (expression) out.
fn v1_look_at(ext: &Value) -> Option<LookAt> {
    let look_at = ext.get("lookAt")?;
    let kind = match look_at.get("type").and_then(Value::as_str) {
        Some("expression") => LookAtKind::Expression,
        _ => LookAtKind::Bone,
    };
    let map = |key: &str| range_map(look_at.get(key), "inputMaxValue", "outputScale", kind);
    Some(LookAt {
        kind,
        horizontal_inner: map("rangeMapHorizontalInner"),
        horizontal_outer: map("rangeMapHorizontalOuter"),
        vertical_down: map("rangeMapVerticalDown"),
        vertical_up: map("rangeMapVerticalUp"),
        face_back: false,
        offset: look_at
            .get("offsetFromHeadBone")
            .and_then(Value::as_array)
            .and_then(|a| {
                <[f32; 3]>::try_from(a.iter().map(|x| x.as_f64().unwrap_or(0.0) as f32).collect::<Vec<_>>())
                    .ok()
            })
            .unwrap_or([0.0, 0.06, 0.0]),
    })
}

/// VRM 0.x `firstPerson` as `_v0Import` reads it: `lookAtTypeName` `BlendShape` or else bone;
/// each degree map's `xRange` and `yRange` (its `curve` is ignored, as three-vrm ignores it).
fn v0_look_at(ext: &Value) -> Option<LookAt> {
    let first_person = ext.get("firstPerson")?;
    let kind = match first_person.get("lookAtTypeName").and_then(Value::as_str) {
        Some("BlendShape") => LookAtKind::Expression,
        _ => LookAtKind::Bone,
    };
    let map = |key: &str| range_map(first_person.get(key), "xRange", "yRange", kind);
    Some(LookAt {
        kind,
        horizontal_inner: map("lookAtHorizontalInner"),
        horizontal_outer: map("lookAtHorizontalOuter"),
        vertical_down: map("lookAtVerticalDown"),
        vertical_up: map("lookAtVerticalUp"),
        face_back: true,
        offset: match first_person.get("firstPersonBoneOffset") {
            Some(o) => {
                let at = |k: &str, d: f64| o.get(k).and_then(Value::as_f64).unwrap_or(d) as f32;
                [at("x", 0.0), at("y", 0.06), 0.0 - at("z", 0.0)]
            }
            None => [0.0, 0.06, 0.0],
        },
    })
}

fn range_map(value: Option<&Value>, input: &str, output: &str, kind: LookAtKind) -> RangeMap {
    // A number past f32's range is read as the default (`look_at_findings` reports it).
    let number = |key: &str| {
        value.and_then(|v| v.get(key)).and_then(Value::as_f64).map(|x| x as f32).filter(|x| x.is_finite())
    };
    let default_output = if kind == LookAtKind::Expression { 1.0 } else { 10.0 };
    RangeMap {
        input_max: number(input).unwrap_or(90.0).max(0.01),
        output_scale: number(output).unwrap_or(default_output),
    }
}

/// Wrongly typed or out-of-range range map values: a number that is negative,
/// or that f32 cannot hold (read as the default), or a value that is not a number.
fn look_at_findings(extensions: &Value, findings: &mut Findings) {
    let maps = ["HorizontalInner", "HorizontalOuter", "VerticalDown", "VerticalUp"];
    let sets = [
        ("/VRMC_vrm/lookAt", "rangeMap", ["inputMaxValue", "outputScale"]),
        ("/VRM/firstPerson", "lookAt", ["xRange", "yRange"]),
    ];
    for (base, prefix, fields) in sets {
        for map in maps {
            for field in fields {
                let at = format!("{base}/{prefix}{map}/{field}");
                let Some(value) = extensions.pointer(&at) else { continue };
                let problem = match value.as_f64() {
                    None => Some(format!("{value} is not a number; read as the default")),
                    Some(x) if !(x as f32).is_finite() => {
                        Some(format!("{x} is too large to compute with; read as the default"))
                    }
                    Some(x) if x < 0.0 => Some(format!("{x} is negative: the gaze turns the other way")),
                    Some(_) => None,
                };
                if let Some(message) = problem {
                    findings.push(INVALID, Severity::Warning, format!("/extensions{at}"), message);
                }
            }
        }
    }
}

/// A bind weight outside `0..=max` (1 in VRM 1.0, 100 in 0.x): kept, as three-vrm keeps it,
/// with a finding (a weight of 1e38 throws the vertices far away).
fn weight_finding(weight: f64, max: f64, pointer: String, findings: &mut Findings) -> f64 {
    if !(0.0..=max).contains(&weight) {
        let message = format!("weight {weight} is outside 0 to {max}; kept, as three-vrm keeps it");
        findings.push(INVALID, Severity::Warning, pointer, message);
    }
    weight
}

/// A serde_json error without its line and column, which count in the extension's own
/// text rather than the file's.
fn without_position(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    message.strip_suffix(&position).unwrap_or(&message).to_string()
}

fn index(value: Option<&Value>) -> Option<usize> {
    value.and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok())
}

#[derive(Deserialize)]
struct V1Vrm {
    humanoid: V1Humanoid,
}

#[derive(Deserialize)]
struct V1Humanoid {
    #[serde(rename = "humanBones")]
    human_bones: KeyList,
}

/// A JSON object's entries in file order, a key that appears twice kept twice.
struct KeyList(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for KeyList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = KeyList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object of humanoid bones")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<KeyList, A::Error> {
                let mut list = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    list.push(entry);
                }
                Ok(KeyList(list))
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rig_parts() -> (Vec<Node>, Vec<Mesh>) {
        let mut nodes: Vec<Node> = (0..4).map(|_| Node::default()).collect();
        nodes[3].mesh = Some(0);
        let meshes = vec![Mesh { default_weights: vec![0.0; 2], ..Default::default() }];
        (nodes, meshes)
    }

    fn read_str(text: &str) -> (Option<Vrm>, Vec<crate::rig::Finding>) {
        let (nodes, meshes) = rig_parts();
        let mut findings = Findings::default();
        // A document needs an asset; the texts that leave it out hold no key twice.
        let text = match text.contains("\"asset\"") {
            true => text.to_string(),
            false => {
                let mut doc: Value = serde_json::from_str(text).expect("JSON");
                doc["asset"] = serde_json::json!({"version": "2.0"});
                doc.to_string()
            }
        };
        let document = super::super::parse::read(text.as_bytes()).expect("parses");
        let vrm = read(&document.beside, &document.root, &nodes, &meshes, &mut findings);
        (vrm, findings.into_vec())
    }

    #[test]
    fn vrm1_keeps_a_bone_mapped_twice_and_drops_a_missing_node() {
        let (vrm, findings) = read_str(
            r#"{"asset":{"version":"2.0"},"extensions":{"VRMC_vrm":{"humanoid":{"humanBones":{
                "hips":{"node":0},"spine":{"node":1},"hips":{"node":2},"head":{"node":9}}},
                "expressions":{"preset":{"happy":{"morphTargetBinds":[{"node":3,"index":1,"weight":0.5}]}},
                "custom":{"wink":{"isBinary":true,"morphTargetBinds":[{"node":3,"index":2,"weight":1}]}}}}}}"#,
        );
        let vrm = vrm.unwrap();
        assert_eq!(vrm.version, VrmVersion::V1);
        let bones: Vec<(&str, usize)> = vrm.bones.iter().map(|b| (b.name.as_str(), b.node)).collect();
        assert_eq!(bones, [("hips", 0), ("spine", 1), ("hips", 2)]);
        assert_eq!(vrm.bone_of(1), Some("spine"));
        assert_eq!(vrm.expressions.len(), 2);
        assert_eq!(vrm.expressions[0].preset.as_deref(), Some("happy"));
        assert_eq!(
            vrm.expressions[0].binds,
            [MorphBind { node: Some(3), mesh: None, index: 1, weight: 0.5 }]
        );
        // The custom one binds morph target 2 of a mesh with two: dropped, with a finding.
        assert!(vrm.expressions[1].binds.is_empty() && vrm.expressions[1].is_binary);
        let pointers: Vec<&str> = findings.iter().map(|f| f.pointer.as_str()).collect();
        assert_eq!(
            pointers,
            [
                "/extensions/VRMC_vrm/humanoid/humanBones/head/node",
                "/extensions/VRMC_vrm/expressions/custom/wink/morphTargetBinds/0/index"
            ]
        );
    }

    #[test]
    fn vrm0_reads_the_bone_array_and_scales_bind_weights_to_one() {
        let (vrm, findings) = read_str(
            r#"{"extensions":{"VRM":{"humanoid":{"humanBones":[{"bone":"hips","node":0},
                {"bone":"leftThumbProximal","node":2},{"node":1}]},
                "blendShapeMaster":{"blendShapeGroups":[{"name":"Joy","presetName":"joy",
                "binds":[{"mesh":0,"index":1,"weight":80}]},{"name":"Extra","presetName":"unknown","binds":[]}]}}}}"#,
        );
        let vrm = vrm.unwrap();
        assert_eq!(vrm.version, VrmVersion::V0);
        assert_eq!(vrm.bone_of(2), Some("leftThumbProximal"));
        assert_eq!(vrm.node_of("leftThumbMetacarpal"), Some(2));
        assert_eq!(vrm.bones[1].pointer, "/extensions/VRM/humanoid/humanBones/1");
        assert_eq!(vrm.expressions[0].preset.as_deref(), Some("joy"));
        assert!((vrm.expressions[0].binds[0].weight - 0.8).abs() < 1e-6);
        assert_eq!(vrm.expressions[1].preset, None);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].pointer, "/extensions/VRM/humanoid/humanBones/2");
    }

    #[test]
    fn plain_gltf_and_broken_extensions_give_no_vrm_or_an_empty_one() {
        assert_eq!(read_str(r#"{"asset":{"version":"2.0"}}"#).0, None);
        let (vrm, findings) = read_str(r#"{"extensions":{"VRMC_vrm":{"humanoid":"no"}}}"#);
        assert_eq!(vrm.map(|v| v.bones.len()), Some(0));
        assert_eq!(findings.len(), 1);
    }

    /// The lookAt set-up and spring bones as three-vrm's loaders read them: defaults (90 in;
    /// 10 out for bone, 1 for expression), inputs raised to 0.01, `BlendShape` / `expression`
    /// or else bone, VRM 0.x facing -Z.
    #[test]
    fn look_at_overrides_and_spring_bones_are_read_with_three_vrms_defaults() {
        let (vrm, _) = read_str(
            r#"{"asset":{"version":"2.0"},"extensions":{"VRMC_springBone":{"springs":[{"joints":[]}]},
                "VRMC_vrm":{"humanoid":{"humanBones":{}},
                "lookAt":{"type":"expression","rangeMapHorizontalOuter":{"inputMaxValue":0.001,"outputScale":0.5}},
                "expressions":{"preset":{"happy":{"overrideBlink":"block","overrideLookAt":"blend"}}}}}}"#,
        );
        let vrm = vrm.unwrap();
        let look_at = vrm.look_at.expect("lookAt");
        assert_eq!(look_at.kind, LookAtKind::Expression);
        assert_eq!(look_at.horizontal_outer, RangeMap { input_max: 0.01, output_scale: 0.5 });
        assert_eq!(look_at.vertical_up, RangeMap { input_max: 90.0, output_scale: 1.0 });
        // A springBone extension without a known specVersion: three-vrm loads no springs.
        assert!(!look_at.face_back && vrm.springs.is_empty());
        let overrides = vrm.expressions[0].overrides;
        assert_eq!(
            (overrides.blink, overrides.look_at, overrides.mouth),
            (Override::Block, Override::Blend, Override::None)
        );

        let (vrm, _) = read_str(
            r#"{"asset":{"version":"2.0"},"extensions":{"VRM":{"humanoid":{"humanBones":[]},
                "firstPerson":{"lookAtTypeName":"Bone","lookAtVerticalDown":{"xRange":20,"yRange":7}},
                "secondaryAnimation":{"boneGroups":[]}}}}"#,
        );
        let vrm = vrm.unwrap();
        let look_at = vrm.look_at.expect("lookAt");
        assert_eq!(look_at.kind, LookAtKind::Bone);
        assert_eq!(look_at.vertical_down, RangeMap { input_max: 20.0, output_scale: 7.0 });
        assert_eq!(look_at.horizontal_inner, RangeMap { input_max: 90.0, output_scale: 10.0 });
        assert!(look_at.face_back && vrm.springs.is_empty());
        // No lookAt / firstPerson: no gaze.
        let (vrm, _) = read_str(
            r#"{"asset":{"version":"2.0"},"extensions":{"VRMC_vrm":{"humanoid":{"humanBones":{}}}}}"#,
        );
        assert!(vrm.unwrap().look_at.is_none());
    }

    /// Range maps past f32 (1e300) are read as the default with a finding
    /// instead of turning the eyes NaN; a bind weight of 3.4e38 is reported.
    #[test]
    fn out_of_range_look_at_maps_and_bind_weights_are_findings() {
        let (vrm, findings) = read_str(
            r#"{"asset":{"version":"2.0"},"extensions":{"VRMC_vrm":{"humanoid":{"humanBones":{}},
                "lookAt":{"rangeMapHorizontalOuter":{"inputMaxValue":1e300,"outputScale":"far"}},
                "expressions":{"preset":{"happy":{"morphTargetBinds":[{"node":3,"index":1,"weight":3.4e38}]}}}}}}"#,
        );
        let look_at = vrm.expect("vrm").look_at.expect("lookAt");
        assert_eq!(look_at.horizontal_outer, RangeMap { input_max: 90.0, output_scale: 10.0 });
        let mut pointers: Vec<&str> = findings.iter().map(|f| f.pointer.as_str()).collect();
        pointers.sort_unstable();
        assert_eq!(
            pointers,
            [
                "/extensions/VRMC_vrm/expressions/preset/happy/morphTargetBinds/0/weight",
                "/extensions/VRMC_vrm/lookAt/rangeMapHorizontalOuter/inputMaxValue",
                "/extensions/VRMC_vrm/lookAt/rangeMapHorizontalOuter/outputScale",
            ]
        );
    }
}
