//! VRM 0.x (`extensions.VRM`) and VRM 1.0 (`extensions.VRMC_vrm`): the humanoid mapping and
//! the expressions, read from the document's own extensions (see `parse::Beside`).
//!
//! A broken VRM extension never refuses the file: the glTF underneath is still shown, and
//! what cannot be used (an entry naming a node or mesh that does not exist, a bind to a
//! morph target the mesh lacks) becomes a `RIG_VRM_INVALID` finding and is left out. A field
//! of the wrong JSON type is read as its default, and a number outside the range rigscope can
//! compute with (or the schema allows, for bind weights) is clamped into it, each with a
//! `RIG_VRM_INVALID` finding naming the field, so no value of the file turns a vertex or an
//! eye into NaN or throws it away. Whether the mapping meets VRM's humanoid rules is
//! `diagnose`'s job, not this one's.

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
        (Some((v1, v1_text)), _) => {
            let mut vrm = reader.v1(v1, v1_text);
            vrm.look_at = v1_look_at(v1, reader.findings);
            vrm
        }
        (None, Some(v0)) => {
            let mut vrm = reader.v0(v0);
            vrm.look_at = v0_look_at(v0, reader.findings);
            vrm
        }
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
    vrm.meta = match (ext_v1, ext_v0) {
        (Some(v1), _) => {
            meta_findings(v1, "/extensions/VRMC_vrm/meta", &["name", "version"], Some("authors"), findings);
            crate::vrm::read_meta(v1, true)
        }
        (None, Some(v0)) => {
            meta_findings(v0, "/extensions/VRM/meta", &["title", "version", "author"], None, findings);
            crate::vrm::read_meta(v0, false)
        }
        (None, None) => Default::default(),
    };
    Some(vrm)
}

/// The meta's text fields that are not text (and a VRM 1.0 `authors` that is not a list of
/// names), which `inspect` then shows as absent or leaves out.
fn meta_findings(extension: &Value, at: &str, texts: &[&str], list: Option<&str>, findings: &mut Findings) {
    let Some(meta) = extension.get("meta").filter(|m| !m.is_null()) else { return };
    if !meta.is_object() {
        let message = format!("{} is not an object; the meta is read as empty", kind_of(meta));
        findings.push(INVALID, Severity::Warning, at.to_string(), message);
        return;
    }
    for key in texts {
        if let Some(value) = meta.get(*key).filter(|v| !v.is_null() && !v.is_string()) {
            let message = format!("{} is not a string; read as absent", kind_of(value));
            findings.push(INVALID, Severity::Warning, format!("{at}/{key}"), message);
        }
    }
    let Some(key) = list else { return };
    match meta.get(key) {
        None | Some(Value::Null) => {}
        Some(Value::Array(names)) => {
            for (i, name) in names.iter().enumerate().filter(|(_, n)| !n.is_string()) {
                let message = format!("{} is not a string; left out", kind_of(name));
                findings.push(INVALID, Severity::Warning, format!("{at}/{key}/{i}"), message);
            }
        }
        Some(other) => {
            let message = format!("{} is not an array of names; read as none", kind_of(other));
            findings.push(INVALID, Severity::Warning, format!("{at}/{key}"), message);
        }
    }
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

    /// The entries of an array at `pointer`; none (with a finding) for another type.
    fn array<'v>(&mut self, value: Option<&'v Value>, pointer: &str) -> &'v [Value] {
        match value {
            None | Some(Value::Null) => &[],
            Some(Value::Array(list)) => list,
            Some(other) => {
                self.invalid(pointer.to_string(), format!("{} is not an array; ignored", kind_of(other)));
                &[]
            }
        }
    }

    /// `object[key]` as text; `None` (with a finding when present) for another type.
    fn text<'v>(&mut self, object: &'v Value, key: &str, pointer: &str) -> Option<&'v str> {
        match object.get(key)? {
            Value::String(text) => Some(text),
            Value::Null => None,
            other => {
                let message = format!("{} is not a string; read as absent", kind_of(other));
                self.invalid(format!("{pointer}/{key}"), message);
                None
            }
        }
    }

    /// `object[key]` as a boolean, absent being false; another type is read as false with a
    /// finding (three-vrm would test it as JavaScript does, where `"no"` and `1` are true).
    fn flag(&mut self, object: &Value, key: &str, pointer: &str) -> bool {
        match object.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                let message = format!("{} is not true or false; read as false", kind_of(other));
                self.invalid(format!("{pointer}/{key}"), message);
                false
            }
        }
    }

    /// `overrideBlink`, `overrideLookAt` or `overrideMouth`: `none`, `block` or `blend`;
    /// anything else is read as `none` with a finding.
    fn override_of(&mut self, expression: &Value, key: &str, pointer: &str) -> Override {
        let value = expression.get(key).filter(|v| !v.is_null());
        let parsed = Override::parse(value.and_then(Value::as_str));
        if let Some(value) = value
            && !matches!(value.as_str(), Some("none" | "block" | "blend"))
        {
            let message = format!("{value} is not \"none\", \"block\" or \"blend\"; read as \"none\"");
            self.invalid(format!("{pointer}/{key}"), message);
        }
        parsed
    }

    /// A bind's `weight`, 0 to `max` (1 in VRM 1.0, 100 in 0.x) by the schema; absent it is
    /// `max`. Another type is read as `max`, and a weight outside the range is clamped into it,
    /// each with a finding: three-vrm uses the number as written, and a weight of 3.4e38
    /// throws the bound vertices 1e37 away.
    fn bind_weight(&mut self, bind: &Value, pointer: &str, max: f64) -> f64 {
        let pointer = format!("{pointer}/weight");
        match bind.get("weight") {
            None | Some(Value::Null) => max,
            Some(Value::Number(n)) => {
                let weight = n.as_f64().unwrap_or(max);
                let clamped = weight.clamp(0.0, max);
                if clamped != weight {
                    let message = format!(
                        "weight {} is outside the schema's 0 to {max}; clamped to {clamped} (three-vrm would use it as written)",
                        shown(weight)
                    );
                    self.invalid(pointer, message);
                }
                clamped
            }
            Some(other) => {
                self.invalid(
                    pointer,
                    format!("{} is not a number; read as {max}, the default", kind_of(other)),
                );
                max
            }
        }
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
        let entries = self.array(ext.pointer("/humanoid/humanBones"), "/extensions/VRM/humanoid/humanBones");
        for (i, entry) in entries.iter().enumerate() {
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
        let groups_at = "/extensions/VRM/blendShapeMaster/blendShapeGroups";
        let groups = self.array(ext.pointer("/blendShapeMaster/blendShapeGroups"), groups_at);
        for (g, group) in groups.iter().enumerate() {
            let pointer = format!("{groups_at}/{g}");
            let preset = self.text(group, "presetName", &pointer).filter(|p| *p != "unknown");
            let name = self.text(group, "name", &pointer).or(preset).unwrap_or_default();
            let mut binds = Vec::new();
            for (b, bind) in self.array(group.get("binds"), &format!("{pointer}/binds")).iter().enumerate() {
                if let Some(bind) = self.v0_bind(bind, format!("{pointer}/binds/{b}")) {
                    binds.push(bind);
                }
            }
            expressions.push(Expression {
                name: name.to_string(),
                preset: preset.map(str::to_string),
                is_binary: self.flag(group, "isBinary", &pointer),
                binds,
                overrides: Overrides::default(),
            });
        }
        Vrm {
            version: VrmVersion::V0,
            bones,
            expressions,
            look_at: None,
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
        let weight = (self.bind_weight(bind, &pointer, 100.0) * 0.01) as f32;
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
            let at = format!("/extensions/VRMC_vrm/expressions/{group}");
            let Some(value) = ext.pointer(&format!("/expressions/{group}")).filter(|v| !v.is_null()) else {
                continue;
            };
            let Some(list) = value.as_object() else {
                self.invalid(at, format!("{} is not an object of expressions; ignored", kind_of(value)));
                continue;
            };
            for (name, expression) in list {
                let pointer = format!("{at}/{name}");
                if !expression.is_object() {
                    let message = format!("{} is not an expression object; ignored", kind_of(expression));
                    self.invalid(pointer, message);
                    continue;
                }
                let mut binds = Vec::new();
                let list =
                    self.array(expression.get("morphTargetBinds"), &format!("{pointer}/morphTargetBinds"));
                for (b, bind) in list.iter().enumerate() {
                    if let Some(bind) = self.v1_bind(bind, format!("{pointer}/morphTargetBinds/{b}")) {
                        binds.push(bind);
                    }
                }
                expressions.push(Expression {
                    name: name.clone(),
                    preset: (group == "preset").then(|| name.clone()),
                    is_binary: self.flag(expression, "isBinary", &pointer),
                    binds,
                    overrides: Overrides {
                        blink: self.override_of(expression, "overrideBlink", &pointer),
                        look_at: self.override_of(expression, "overrideLookAt", &pointer),
                        mouth: self.override_of(expression, "overrideMouth", &pointer),
                    },
                });
            }
        }
        Vrm {
            version: VrmVersion::V1,
            bones,
            expressions,
            look_at: None,
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
        let weight = self.bind_weight(bind, &pointer, 1.0) as f32;
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
fn v1_look_at(ext: &Value, findings: &mut Findings) -> Option<LookAt> {
    let look_at = ext.get("lookAt")?;
    let at = "/extensions/VRMC_vrm/lookAt";
    let kind = look_at_kind(look_at.get("type"), ("bone", "expression"), &format!("{at}/type"), findings);
    let mut map = |key: &str| {
        let fields = RangeFields { input: "inputMaxValue", output: "outputScale" };
        range_map(look_at.get(key), fields, kind, &format!("{at}/{key}"), findings)
    };
    let (horizontal_inner, horizontal_outer) =
        (map("rangeMapHorizontalInner"), map("rangeMapHorizontalOuter"));
    let (vertical_down, vertical_up) = (map("rangeMapVerticalDown"), map("rangeMapVerticalUp"));
    let default = [0.0, 0.06, 0.0];
    let offset = match look_at.get("offsetFromHeadBone").filter(|v| !v.is_null()) {
        None => default,
        Some(value) => {
            let numbers = value.as_array().map(|a| a.iter().map(finite_f32).collect::<Option<Vec<f32>>>());
            match numbers.flatten().and_then(|v| <[f32; 3]>::try_from(v).ok()) {
                Some(offset) => offset,
                None => {
                    let message = format!("{value} is not three numbers f32 can hold; read as [0, 0.06, 0]");
                    findings.push(INVALID, Severity::Warning, format!("{at}/offsetFromHeadBone"), message);
                    default
                }
            }
        }
    };
    let face_back = false;
    Some(LookAt { kind, horizontal_inner, horizontal_outer, vertical_down, vertical_up, face_back, offset })
}

/// VRM 0.x `firstPerson` as `_v0Import` reads it: `lookAtTypeName` `BlendShape` or else bone;
/// each degree map's `xRange` and `yRange` (its `curve` is ignored, as three-vrm ignores it).
fn v0_look_at(ext: &Value, findings: &mut Findings) -> Option<LookAt> {
    let first_person = ext.get("firstPerson")?;
    let at = "/extensions/VRM/firstPerson";
    let type_at = format!("{at}/lookAtTypeName");
    let kind = look_at_kind(first_person.get("lookAtTypeName"), ("Bone", "BlendShape"), &type_at, findings);
    let mut map = |key: &str| {
        let fields = RangeFields { input: "xRange", output: "yRange" };
        range_map(first_person.get(key), fields, kind, &format!("{at}/{key}"), findings)
    };
    let (horizontal_inner, horizontal_outer) = (map("lookAtHorizontalInner"), map("lookAtHorizontalOuter"));
    let (vertical_down, vertical_up) = (map("lookAtVerticalDown"), map("lookAtVerticalUp"));
    let offset = match first_person.get("firstPersonBoneOffset") {
        Some(o) => {
            let mut at_key = |k: &str, d: f64| {
                let value = o.get(k).filter(|v| !v.is_null());
                match value.map(finite_f32) {
                    None => d as f32,
                    Some(Some(x)) => x,
                    Some(None) => {
                        let what = value.map_or_else(String::new, Value::to_string);
                        let message = format!("{what} is not a number f32 can hold; read as {d}");
                        let pointer = format!("{at}/firstPersonBoneOffset/{k}");
                        findings.push(INVALID, Severity::Warning, pointer, message);
                        d as f32
                    }
                }
            };
            [at_key("x", 0.0), at_key("y", 0.06), 0.0 - at_key("z", 0.0)]
        }
        None => [0.0, 0.06, 0.0],
    };
    let face_back = true;
    Some(LookAt { kind, horizontal_inner, horizontal_outer, vertical_down, vertical_up, face_back, offset })
}

/// The lookAt type: `names.1` is the expression type, anything else the bone type, as
/// three-vrm reads it; a value that is neither name is said.
fn look_at_kind(
    value: Option<&Value>,
    names: (&str, &str),
    pointer: &str,
    findings: &mut Findings,
) -> LookAtKind {
    let value = value.filter(|v| !v.is_null());
    let kind = match value.and_then(Value::as_str) {
        Some(name) if name == names.1 => LookAtKind::Expression,
        _ => LookAtKind::Bone,
    };
    if let Some(value) = value
        && value.as_str().is_none_or(|name| name != names.0 && name != names.1)
    {
        let message = format!(
            "{value} is not \"{}\" or \"{}\"; read as \"{}\", as three-vrm reads it",
            names.0, names.1, names.0
        );
        findings.push(INVALID, Severity::Warning, pointer.to_string(), message);
    }
    kind
}

/// A number f32 holds as a finite value.
fn finite_f32(value: &Value) -> Option<f32> {
    value.as_f64().map(|x| x as f32).filter(|x| x.is_finite())
}

/// The two field names of a range map (VRM 1.0 `inputMaxValue`/`outputScale`, VRM 0.x
/// `xRange`/`yRange`).
struct RangeFields {
    input: &'static str,
    output: &'static str,
}

/// The largest input the schema allows: yaw and pitch never exceed half a turn.
const MAX_INPUT: f64 = 180.0;
/// three-vrm raises smaller inputs to this, as the map divides by it.
const MIN_INPUT: f64 = 0.01;
/// The largest output magnitude kept: a full turn of the eye (for the expression type a weight
/// 360 times full, which the expression manager clamps to 1 anyway). Past it nothing changes
/// but precision, and a number past f32 would turn the eyes NaN.
const MAX_OUTPUT: f64 = 360.0;

/// A range map read as three-vrm reads it, the input clamped to 0.01..180 and the output to
/// -360..360; a value of another type is read as the default. Each change has a finding.
fn range_map(
    value: Option<&Value>,
    fields: RangeFields,
    kind: LookAtKind,
    pointer: &str,
    findings: &mut Findings,
) -> RangeMap {
    let default_output: f64 = if kind == LookAtKind::Expression { 1.0 } else { 10.0 };
    let mut say = |key: &str, message: String| {
        findings.push(INVALID, Severity::Warning, format!("{pointer}/{key}"), message);
    };
    let Some(map) = value.filter(|v| !v.is_null()) else {
        return RangeMap { input_max: 90.0, output_scale: default_output as f32 };
    };
    if !map.is_object() {
        let message = format!("{} is not a range map object; read as the defaults", kind_of(map));
        findings.push(INVALID, Severity::Warning, pointer.to_string(), message);
        return RangeMap { input_max: 90.0, output_scale: default_output as f32 };
    }
    let mut number = |key: &str, default: f64| match map.get(key).filter(|v| !v.is_null()) {
        None => default,
        Some(v) => v.as_f64().unwrap_or_else(|| {
            say(key, format!("{} is not a number; read as {default}, the default", kind_of(v)));
            default
        }),
    };
    let input = number(fields.input, 90.0);
    let output = number(fields.output, default_output);
    let input_max = if input > MAX_INPUT {
        let message =
            format!("{} is above the schema's maximum of 180 degrees; clamped to 180", shown(input));
        say(fields.input, message);
        MAX_INPUT
    } else if input < 0.0 {
        let message =
            format!("{input} is below the schema's minimum of 0; raised to 0.01, as three-vrm raises it");
        say(fields.input, message);
        MIN_INPUT
    } else {
        input.max(MIN_INPUT)
    };
    let output_scale = if output.abs() > MAX_OUTPUT {
        let clamped = MAX_OUTPUT.copysign(output);
        say(
            fields.output,
            format!("{} is past {MAX_OUTPUT} either way; clamped to {clamped}", shown(output)),
        );
        clamped
    } else {
        if output < 0.0 {
            let effect = match kind {
                LookAtKind::Bone => "the eyes turn away from where they look",
                LookAtKind::Expression => "the look expressions stay at 0",
            };
            say(
                fields.output,
                format!("{} is negative; kept, as three-vrm keeps it: {effect}", shown(output)),
            );
        }
        output
    };
    RangeMap { input_max: input_max as f32, output_scale: output_scale as f32 }
}

/// A number as a message shows it: exponent notation past 1e15, so 3.4e38 is not 39 digits.
fn shown(x: f64) -> String {
    if x.abs() < 1e15 { format!("{x}") } else { format!("{x:e}") }
}

/// A JSON value as a finding names it: the value itself when short, else its type.
fn kind_of(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 40 {
        return text;
    }
    match value {
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::Object(o) => format!("an object of {} keys", o.len()),
        Value::String(_) => "a long string".to_string(),
        _ => text.chars().take(40).collect(),
    }
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

    /// The (pointer, message) of every finding, sorted by pointer.
    fn said(findings: &[crate::rig::Finding]) -> Vec<(&str, &str)> {
        let mut said: Vec<(&str, &str)> =
            findings.iter().map(|f| (f.pointer.as_str(), f.message.as_str())).collect();
        said.sort_unstable();
        said
    }

    /// Range maps past f32 (1e300) are clamped into the schema's input range and a full turn
    /// out instead of turning the eyes NaN; a bind weight of 3.4e38 is clamped to the schema's
    /// 1; values of the wrong type are read as their defaults. Each says where it is.
    #[test]
    fn out_of_range_and_wrongly_typed_vrm1_values_are_clamped_or_defaulted_with_findings() {
        let (vrm, findings) = read_str(
            r#"{"asset":{"version":"2.0"},"extensions":{"VRMC_vrm":{"humanoid":{"humanBones":{}},
                "lookAt":{"type":"eyes","offsetFromHeadBone":[0,"x",0],
                    "rangeMapHorizontalOuter":{"inputMaxValue":1e300,"outputScale":"far"},
                    "rangeMapVerticalUp":{"inputMaxValue":-5,"outputScale":-1e300},
                    "rangeMapVerticalDown":{"inputMaxValue":20,"outputScale":-4},
                    "rangeMapHorizontalInner":7},
                "expressions":{"preset":{"happy":{"isBinary":"yes","overrideBlink":"sometimes","overrideMouth":3,
                    "morphTargetBinds":[{"node":3,"index":1,"weight":3.4e38},{"node":3,"index":0,"weight":"half"},
                        {"node":3,"index":0,"weight":-0.5},{"node":3,"index":1,"weight":0.25}]}},
                    "custom":{"wink":[]}}}}}"#,
        );
        let vrm = vrm.expect("vrm");
        let look_at = vrm.look_at.expect("lookAt");
        assert_eq!(look_at.kind, LookAtKind::Bone);
        assert_eq!(look_at.offset, [0.0, 0.06, 0.0]);
        assert_eq!(look_at.horizontal_outer, RangeMap { input_max: 180.0, output_scale: 10.0 });
        assert_eq!(look_at.vertical_up, RangeMap { input_max: 0.01, output_scale: -360.0 });
        assert_eq!(look_at.vertical_down, RangeMap { input_max: 20.0, output_scale: -4.0 });
        assert_eq!(look_at.horizontal_inner, RangeMap { input_max: 90.0, output_scale: 10.0 });
        // By hand: 360 x clamp(90 / 180, 0, 1) = 180 degrees; the clamped input still maps.
        assert_eq!(RangeMap { input_max: 180.0, output_scale: 360.0 }.map(90.0), 180.0);
        assert_eq!(vrm.expressions.len(), 1, "wink is not an expression object");
        let happy = &vrm.expressions[0];
        assert!(!happy.is_binary);
        assert_eq!((happy.overrides.blink, happy.overrides.mouth), (Override::None, Override::None));
        let weights: Vec<f32> = happy.binds.iter().map(|b| b.weight).collect();
        assert_eq!(weights, [1.0, 1.0, 0.0, 0.25]);
        let e = "/extensions/VRMC_vrm/expressions";
        let l = "/extensions/VRMC_vrm/lookAt";
        let pointers: Vec<String> = said(&findings).iter().map(|(p, _)| p.to_string()).collect();
        let mut expected: Vec<String> = [
            format!("{e}/custom/wink"),
            format!("{e}/preset/happy/isBinary"),
            format!("{e}/preset/happy/morphTargetBinds/0/weight"),
            format!("{e}/preset/happy/morphTargetBinds/1/weight"),
            format!("{e}/preset/happy/morphTargetBinds/2/weight"),
            format!("{e}/preset/happy/overrideBlink"),
            format!("{e}/preset/happy/overrideMouth"),
            format!("{l}/offsetFromHeadBone"),
            format!("{l}/rangeMapHorizontalInner"),
            format!("{l}/rangeMapHorizontalOuter/inputMaxValue"),
            format!("{l}/rangeMapHorizontalOuter/outputScale"),
            format!("{l}/rangeMapVerticalDown/outputScale"),
            format!("{l}/rangeMapVerticalUp/inputMaxValue"),
            format!("{l}/rangeMapVerticalUp/outputScale"),
            format!("{l}/type"),
        ]
        .into();
        expected.sort_unstable();
        assert_eq!(pointers, expected);
        assert!(findings.iter().all(|f| f.code == INVALID && f.severity == Severity::Warning));
        let message =
            |at: &str| said(&findings).iter().find(|(p, _)| p.ends_with(at)).map(|(_, m)| m.to_string());
        assert_eq!(
            message("morphTargetBinds/0/weight").as_deref(),
            Some(
                "weight 3.4e38 is outside the schema's 0 to 1; clamped to 1 (three-vrm would use it as written)"
            )
        );
        assert_eq!(message("happy/isBinary").as_deref(), Some("\"yes\" is not true or false; read as false"));
        assert_eq!(
            message("rangeMapVerticalUp/outputScale").as_deref(),
            Some("-1e300 is past 360 either way; clamped to -360")
        );
    }

    /// Meta fields of the wrong type: `inspect` shows them as absent, and says why.
    #[test]
    fn meta_fields_of_the_wrong_type_are_findings() {
        let (vrm, findings) = read_str(
            r#"{"extensions":{"VRMC_vrm":{"humanoid":{"humanBones":{}},
                "meta":{"name":["Walker"],"version":"1","authors":["A. Author",3]}}}}"#,
        );
        let meta = vrm.expect("vrm").meta;
        assert_eq!(
            (meta.title, meta.version.as_deref(), meta.authors),
            (None, Some("1"), vec!["A. Author".to_string()])
        );
        let pointers: Vec<&str> = said(&findings).iter().map(|(p, _)| *p).collect();
        assert_eq!(pointers, ["/extensions/VRMC_vrm/meta/authors/1", "/extensions/VRMC_vrm/meta/name"]);
        let (_, findings) =
            read_str(r#"{"extensions":{"VRM":{"meta":{"title":"Walker","author":{"who":1}}}}}"#);
        let pointers: Vec<&str> = said(&findings).iter().map(|(p, _)| *p).collect();
        assert_eq!(pointers, ["/extensions/VRM/meta/author"]);
    }

    /// The same for VRM 0.x: 0..100 bind weights, `xRange`/`yRange`, `firstPersonBoneOffset`.
    #[test]
    fn out_of_range_and_wrongly_typed_vrm0_values_are_clamped_or_defaulted_with_findings() {
        let (vrm, findings) = read_str(
            r#"{"extensions":{"VRM":{"humanoid":{"humanBones":{"bone":"hips","node":0}},
                "blendShapeMaster":{"blendShapeGroups":[{"name":7,"presetName":"joy","isBinary":1,
                    "binds":[{"mesh":0,"index":1,"weight":250},{"mesh":0,"index":0,"weight":40}]}]},
                "firstPerson":{"lookAtTypeName":"Eyes","firstPersonBoneOffset":{"x":1e39,"y":"up","z":0.5},
                    "lookAtHorizontalInner":{"xRange":1e39,"yRange":"a lot"}}}}}"#,
        );
        let vrm = vrm.expect("vrm");
        assert!(vrm.bones.is_empty());
        let joy = &vrm.expressions[0];
        // Not a string: the name is read as absent, so the preset names it.
        assert_eq!((joy.name.as_str(), joy.preset.as_deref(), joy.is_binary), ("joy", Some("joy"), false));
        let weights: Vec<f32> = joy.binds.iter().map(|b| b.weight).collect();
        assert_eq!(weights, [1.0, 0.4]);
        let look_at = vrm.look_at.expect("lookAt");
        assert_eq!(look_at.kind, LookAtKind::Bone);
        assert_eq!(look_at.horizontal_inner, RangeMap { input_max: 180.0, output_scale: 10.0 });
        // z is negated as three-vrm reads it; x past f32 and y not a number take their defaults.
        assert_eq!(look_at.offset, [0.0, 0.06, -0.5]);
        let pointers: Vec<&str> = said(&findings).iter().map(|(p, _)| *p).collect();
        let v = "/extensions/VRM";
        assert_eq!(
            pointers,
            [
                format!("{v}/blendShapeMaster/blendShapeGroups/0/binds/0/weight"),
                format!("{v}/blendShapeMaster/blendShapeGroups/0/isBinary"),
                format!("{v}/blendShapeMaster/blendShapeGroups/0/name"),
                format!("{v}/firstPerson/firstPersonBoneOffset/x"),
                format!("{v}/firstPerson/firstPersonBoneOffset/y"),
                format!("{v}/firstPerson/lookAtHorizontalInner/xRange"),
                format!("{v}/firstPerson/lookAtHorizontalInner/yRange"),
                format!("{v}/firstPerson/lookAtTypeName"),
                format!("{v}/humanoid/humanBones"),
            ]
        );
    }
}
