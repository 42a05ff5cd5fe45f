//! Reads spring bones from a document's JSON as three-vrm 3.5.5's `VRMSpringBoneLoaderPlugin`
//! builds them (`@pixiv/three-vrm-springbone`, `src/VRMSpringBoneLoaderPlugin.ts`): `_v1Import`
//! for `VRMC_springBone` (with `VRMC_springBone_extended_collider`), else `_v0Import` for
//! VRM 0.x `secondaryAnimation`.
//!
//! What three-vrm skips with a console warning (a node, collider or group that does not
//! exist) is skipped here with a problem saying so. A value of the wrong JSON type, which
//! three-vrm would compute with as it is (NaN everywhere), is replaced by three-vrm's default
//! with a problem; a value outside the range the specification allows is kept, as three-vrm
//! keeps it, with a problem.

use super::springs::{Chain, Collider, ColliderGroup, JointSettings, Shape, SpringBones, SpringJoint};
use glam::DVec3;
use serde_json::Value;

/// A problem with the spring data: where (a JSON pointer) and what.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// `RIG_VRM_INVALID`, or `RIG_VRM_SPRING_COLLIDER_NODE` for a collider on a node the file
    /// lacks.
    pub code: &'static str,
    pub pointer: String,
    pub message: String,
}

const INVALID: &str = "RIG_VRM_INVALID";
const COLLIDER_NODE: &str = "RIG_VRM_SPRING_COLLIDER_NODE";

/// The tree the joints hang in: each node's children in file order (VRM 0.x walks it).
pub struct Tree<'a> {
    pub children: &'a [Vec<usize>],
}

/// The spring bones of a document: `extensions` is the document's `extensions` object,
/// `used` its `extensionsUsed` (none when the document has no such array).
pub fn read(extensions: &Value, used: Option<&[String]>, tree: &Tree) -> (SpringBones, Vec<Problem>) {
    let mut reader = Reader { tree, problems: Vec::new(), springs: SpringBones::default() };
    // `json.extensionsUsed?.indexOf(name) !== -1`: a document without the array counts as
    // using every extension.
    let declared = |name: &str| used.is_none_or(|list| list.iter().any(|e| e == name));
    let v1 = extensions.get("VRMC_springBone").filter(|_| declared("VRMC_springBone"));
    if let Some(v1) = v1
        && reader.v1(v1)
    {
        return (reader.springs, reader.problems);
    }
    if declared("VRM")
        && let Some(secondary) = extensions.pointer("/VRM/secondaryAnimation")
    {
        reader.v0(secondary);
    }
    (reader.springs, reader.problems)
}

const V1: &str = "/extensions/VRMC_springBone";
const V0: &str = "/extensions/VRM/secondaryAnimation";
const EXTENDED: &str = "VRMC_springBone_extended_collider";
/// Radii are range-checked by `check`'s spring rules (`RIG_VRM_SPRING_NEGATIVE_RADIUS`).
const ANY: (f64, f64) = (f64::NEG_INFINITY, f64::INFINITY);

struct Reader<'a> {
    tree: &'a Tree<'a>,
    problems: Vec<Problem>,
    springs: SpringBones,
}

impl Reader<'_> {
    fn problem(&mut self, pointer: String, message: impl Into<String>) {
        self.problems.push(Problem { code: INVALID, pointer, message: message.into() });
    }

    /// A collider (VRM 1.0) or collider group (0.x) node: the file's node, or a
    /// `RIG_VRM_SPRING_COLLIDER_NODE` problem.
    fn collider_node(&mut self, value: Option<&Value>, pointer: String, what: &str) -> Option<usize> {
        let found = value
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n < self.node_count());
        if found.is_none() {
            let shown = value.map_or("missing".to_string(), Value::to_string);
            let message =
                format!("the {what} is on node {shown}, which is not a node of the file; three-vrm skips it");
            self.problems.push(Problem { code: COLLIDER_NODE, pointer, message });
        }
        found
    }

    fn node_count(&self) -> usize {
        self.tree.children.len()
    }

    /// A node index, or a problem saying what three-vrm does without it (`then`).
    fn node(&mut self, value: Option<&Value>, pointer: String, then: &str) -> Option<usize> {
        let value = value?;
        match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
            Some(n) if n < self.node_count() => Some(n),
            _ => {
                self.problem(pointer, format!("node {value} is not a node of the file; {then}"));
                None
            }
        }
    }

    /// A number at `key` of `object`: `default` when absent; `default` with a problem when
    /// not a number; kept with a problem when outside `[min, max]`.
    fn number(&mut self, object: &Value, key: &str, pointer: &str, default: f64, range: (f64, f64)) -> f64 {
        let Some(value) = object.get(key).filter(|v| !v.is_null()) else {
            return default;
        };
        let pointer = format!("{pointer}/{key}");
        let Some(x) = value.as_f64() else {
            self.problem(pointer, format!("{value} is not a number; read as {default}, three-vrm's default"));
            return default;
        };
        let (min, max) = range;
        if x < min || x > max {
            let bounds = if max.is_finite() { format!("{min} to {max}") } else { format!("at least {min}") };
            self.problem(
                pointer,
                format!("{x} is outside the allowed {bounds}; kept, as three-vrm keeps it"),
            );
        }
        x
    }

    fn boolean(&mut self, object: &Value, key: &str, pointer: &str) -> bool {
        match object.get(key) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                self.problem(
                    format!("{pointer}/{key}"),
                    format!("{other} is not true or false; read as false"),
                );
                false
            }
        }
    }

    /// A 3-number array (`Vector3.fromArray`), `default` when absent or malformed.
    fn vec3(&mut self, object: &Value, key: &str, pointer: &str, default: DVec3) -> DVec3 {
        let Some(value) = object.get(key).filter(|v| !v.is_null()) else {
            return default;
        };
        match value.as_array().map(|a| a.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>()) {
            Some(Some(v)) if v.len() == 3 => DVec3::new(v[0], v[1], v[2]),
            _ => {
                self.problem(
                    format!("{pointer}/{key}"),
                    format!("{value} is not 3 numbers; read as {default}"),
                );
                default
            }
        }
    }

    /// An array of indices at `key`, each checked against `count` (`what` names them).
    fn indices(&mut self, object: &Value, key: &str, pointer: &str, count: usize, what: &str) -> Vec<usize> {
        let Some(value) = object.get(key).filter(|v| !v.is_null()) else {
            return Vec::new();
        };
        let Some(list) = value.as_array() else {
            self.problem(format!("{pointer}/{key}"), format!("{value} is not an array; ignored"));
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, entry) in list.iter().enumerate() {
            match entry.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(n) if n < count => out.push(n),
                _ => self.problem(
                    format!("{pointer}/{key}/{i}"),
                    format!("{what} {entry} does not exist; skipped"),
                ),
            }
        }
        out
    }

    /// `_v1Import`; false when three-vrm returns no manager (then VRM 0.x is tried).
    fn v1(&mut self, ext: &Value) -> bool {
        let version = ext.get("specVersion").and_then(Value::as_str);
        if !matches!(version, Some("1.0" | "1.0-beta")) {
            let shown = ext.get("specVersion").map_or("missing".to_string(), Value::to_string);
            self.problem(
                format!("{V1}/specVersion"),
                format!("specVersion {shown} is not 1.0 or 1.0-beta: three-vrm loads no spring bones"),
            );
            return false;
        }
        // Indices of colliders three-vrm keeps (a collider it skips is `null` in its list).
        let mut collider_at = Vec::new();
        for (i, collider) in array(ext, "colliders").iter().enumerate() {
            let collider = self.v1_collider(collider, &format!("{V1}/colliders/{i}"));
            collider_at.push(collider.map(|c| {
                self.springs.colliders.push(c);
                self.springs.colliders.len() - 1
            }));
        }
        for (g, group) in array(ext, "colliderGroups").iter().enumerate() {
            let pointer = format!("{V1}/colliderGroups/{g}");
            let listed = self.indices(group, "colliders", &pointer, usize::MAX, "collider");
            let mut colliders = Vec::new();
            for (k, c) in listed.into_iter().enumerate() {
                match collider_at.get(c) {
                    Some(Some(kept)) => colliders.push(*kept),
                    // Skipped, and reported, where the collider is.
                    Some(None) => {}
                    None => self.problem(
                        format!("{pointer}/colliders/{k}"),
                        format!("collider {c} does not exist; three-vrm skips it"),
                    ),
                }
            }
            self.springs.groups.push(ColliderGroup { name: name(group), colliders });
        }
        let group_count = self.springs.groups.len();
        for (s, spring) in array(ext, "springs").iter().enumerate() {
            let pointer = format!("{V1}/springs/{s}");
            let groups = self.indices(spring, "colliderGroups", &pointer, group_count, "collider group");
            let center =
                self.node(spring.get("center"), format!("{pointer}/center"), "simulated in world space");
            let chain = self.springs.chains.len();
            let joints = array(spring, "joints");
            if joints.is_empty() {
                self.problem(format!("{pointer}/joints"), "the spring has no joints");
            }
            let mut nodes = Vec::new();
            let mut previous: Option<(Option<usize>, JointSettings)> = None;
            for (j, joint) in joints.iter().enumerate() {
                let at = format!("{pointer}/joints/{j}");
                let node = self.node(joint.get("node"), format!("{at}/node"), "the joint is skipped");
                if joint.get("node").is_none() {
                    self.problem(format!("{at}/node"), "the joint names no node; skipped");
                }
                nodes.extend(node);
                let settings = self.settings_v1(joint, &at);
                if let Some((Some(bone), settings)) = previous {
                    self.springs.joints.push(SpringJoint {
                        node: bone,
                        tail: node,
                        settings,
                        groups: groups.clone(),
                        center,
                        chain,
                    });
                }
                previous = Some((node, settings));
            }
            self.springs.chains.push(Chain { name: name(spring), nodes, center, groups, pointer });
        }
        true
    }

    fn settings_v1(&mut self, joint: &Value, at: &str) -> JointSettings {
        let d = JointSettings::default();
        let positive = (0.0, f64::INFINITY);
        JointSettings {
            hit_radius: self.number(joint, "hitRadius", at, d.hit_radius, ANY),
            stiffness: self.number(joint, "stiffness", at, d.stiffness, positive),
            gravity_power: self.number(joint, "gravityPower", at, d.gravity_power, positive),
            gravity_dir: self.vec3(joint, "gravityDir", at, d.gravity_dir),
            drag_force: self.number(joint, "dragForce", at, d.drag_force, (0.0, 1.0)),
        }
    }

    /// One `colliders` entry: the extended collider when its specVersion is 1.0 and it has a
    /// shape, else the base shape.
    fn v1_collider(&mut self, collider: &Value, pointer: &str) -> Option<Collider> {
        let node = self.collider_node(collider.get("node"), format!("{pointer}/node"), "collider")?;
        if let Some(ex) = collider.pointer(&format!("/extensions/{EXTENDED}")) {
            let at = format!("{pointer}/extensions/{EXTENDED}");
            if ex.get("specVersion").and_then(Value::as_str) == Some("1.0") {
                if let Some(shape) = ex.get("shape").and_then(|s| self.shape(s, &format!("{at}/shape"), true))
                {
                    return Some(Collider { node, shape, pointer: pointer.to_string() });
                }
            } else {
                self.problem(format!("{at}/specVersion"), "not 1.0: three-vrm uses the base shape instead");
            }
        }
        let Some(shape) =
            collider.get("shape").and_then(|s| self.shape(s, &format!("{pointer}/shape"), false))
        else {
            self.problem(format!("{pointer}/shape"), "no sphere or capsule: three-vrm skips the collider");
            return None;
        };
        Some(Collider { node, shape, pointer: pointer.to_string() })
    }

    /// A `shape` object; `extended`: the extension's, with `inside` and planes.
    fn shape(&mut self, shape: &Value, pointer: &str, extended: bool) -> Option<Shape> {
        if let Some(s) = shape.get("sphere").filter(|v| truthy(v)) {
            let at = format!("{pointer}/sphere");
            return Some(Shape::Sphere {
                offset: self.vec3(s, "offset", &at, DVec3::ZERO),
                radius: self.number(s, "radius", &at, 0.0, ANY),
                inside: extended && self.boolean(s, "inside", &at),
            });
        }
        if let Some(c) = shape.get("capsule").filter(|v| truthy(v)) {
            let at = format!("{pointer}/capsule");
            return Some(Shape::Capsule {
                offset: self.vec3(c, "offset", &at, DVec3::ZERO),
                radius: self.number(c, "radius", &at, 0.0, ANY),
                tail: self.vec3(c, "tail", &at, DVec3::ZERO),
                inside: extended && self.boolean(c, "inside", &at),
            });
        }
        if extended && let Some(p) = shape.get("plane").filter(|v| truthy(v)) {
            let at = format!("{pointer}/plane");
            return Some(Shape::Plane {
                offset: self.vec3(p, "offset", &at, DVec3::ZERO),
                normal: self.vec3(p, "normal", &at, DVec3::Z),
            });
        }
        None
    }

    /// `_v0Import`: collider groups (spheres, z negated), then every bone group's roots, each
    /// walked depth first with its first child as the tail.
    fn v0(&mut self, secondary: &Value) {
        let Some(bone_groups) = secondary.get("boneGroups").filter(|v| !v.is_null()) else {
            return;
        };
        let mut group_at = Vec::new();
        for (g, group) in array(secondary, "colliderGroups").iter().enumerate() {
            let pointer = format!("{V0}/colliderGroups/{g}");
            let node = match group.get("node") {
                None => {
                    self.problem(
                        format!("{pointer}/node"),
                        "the collider group names no node; three-vrm skips it",
                    );
                    None
                }
                value => self.node(value, format!("{pointer}/node"), "three-vrm skips the collider group"),
            };
            let Some(node) = node else {
                group_at.push(None);
                continue;
            };
            let mut colliders = Vec::new();
            for (c, collider) in array(group, "colliders").iter().enumerate() {
                let at = format!("{pointer}/colliders/{c}");
                let offset = self.v0_vec(collider, "offset", &at).unwrap_or(DVec3::ZERO);
                let radius = self.number(collider, "radius", &at, 0.0, ANY);
                // VRM 0.x's z is the other way round (`z ? -z : 0`: a zero stays +0).
                let z = if offset.z == 0.0 { 0.0 } else { -offset.z };
                let offset = DVec3::new(offset.x, offset.y, z);
                let shape = Shape::Sphere { offset, radius, inside: false };
                self.springs.colliders.push(Collider { node, shape, pointer: at });
                colliders.push(self.springs.colliders.len() - 1);
            }
            self.springs.groups.push(ColliderGroup { name: None, colliders });
            group_at.push(Some(self.springs.groups.len() - 1));
        }
        let Some(bone_groups) = bone_groups.as_array() else {
            self.problem(format!("{V0}/boneGroups"), "not an array; no spring bones are read");
            return;
        };
        for (b, group) in bone_groups.iter().enumerate() {
            let pointer = format!("{V0}/boneGroups/{b}");
            let d = JointSettings::default();
            let positive = (0.0, f64::INFINITY);
            let settings = JointSettings {
                hit_radius: self.number(group, "hitRadius", &pointer, d.hit_radius, ANY),
                // The VRM 0.x schema spells it so.
                stiffness: self.number(group, "stiffiness", &pointer, d.stiffness, positive),
                gravity_power: self.number(group, "gravityPower", &pointer, d.gravity_power, positive),
                gravity_dir: self.v0_vec(group, "gravityDir", &pointer).unwrap_or(DVec3::NEG_Y),
                drag_force: self.number(group, "dragForce", &pointer, d.drag_force, (0.0, 1.0)),
            };
            // VRM 0.x exporters write -1 for no center: three-vrm finds no such node.
            let center = match group.get("center").and_then(Value::as_i64) {
                Some(-1) => None,
                _ => self.node(group.get("center"), format!("{pointer}/center"), "simulated in world space"),
            };
            let listed = self.indices(group, "colliderGroups", &pointer, group_at.len(), "collider group");
            let mut groups = Vec::new();
            for g in listed {
                // A group skipped was reported where it is.
                if let Some(kept) = group_at[g] {
                    groups.push(kept);
                }
            }
            let roots = self.indices(group, "bones", &pointer, self.node_count(), "node");
            let chain = self.springs.chains.len();
            for &root in &roots {
                self.walk(root, &mut |node, tail| SpringJoint {
                    node,
                    tail,
                    settings,
                    groups: groups.clone(),
                    center,
                    chain,
                });
            }
            let name = group.get("comment").and_then(Value::as_str).map(str::to_string);
            self.springs.chains.push(Chain { name, nodes: roots, center, groups, pointer });
        }
    }

    /// `Object3D.traverse` from `root`: the node, then each child's subtree in order.
    fn walk(&mut self, root: usize, joint: &mut dyn FnMut(usize, Option<usize>) -> SpringJoint) {
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            let children = &self.tree.children[node];
            self.springs.joints.push(joint(node, children.first().copied()));
            stack.extend(children.iter().rev());
        }
    }

    /// A VRM 0.x `{x, y, z}` vector (a missing component is 0), none when absent.
    fn v0_vec(&mut self, object: &Value, key: &str, pointer: &str) -> Option<DVec3> {
        let value = object.get(key).filter(|v| truthy(v))?;
        let Some(map) = value.as_object() else {
            self.problem(
                format!("{pointer}/{key}"),
                format!("{value} is not an {{x, y, z}} object; ignored"),
            );
            return None;
        };
        let mut component = |c: &str| match map.get(c) {
            None | Some(Value::Null) => 0.0,
            Some(v) => v.as_f64().unwrap_or_else(|| {
                self.problems.push(Problem {
                    code: INVALID,
                    pointer: format!("{pointer}/{key}/{c}"),
                    message: format!("{v} is not a number; read as 0"),
                });
                0.0
            }),
        };
        Some(DVec3::new(component("x"), component("y"), component("z")))
    }
}

fn array<'v>(object: &'v Value, key: &str) -> &'v [Value] {
    object.get(key).and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn name(object: &Value) -> Option<String> {
    object.get("name").and_then(Value::as_str).map(str::to_string)
}

/// JavaScript truthiness of a JSON value, for three-vrm's `if (shape.sphere)`.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Nodes 0 -> 1 -> 2 -> 3 in a chain, 4 a root of its own.
    fn tree() -> Vec<Vec<usize>> {
        vec![vec![1], vec![2], vec![3], vec![], vec![]]
    }

    fn read_json(extensions: Value, used: Option<&[&str]>) -> (SpringBones, Vec<Problem>) {
        let children = tree();
        let used: Option<Vec<String>> = used.map(|u| u.iter().map(|s| s.to_string()).collect());
        read(&extensions, used.as_deref(), &Tree { children: &children })
    }

    fn pointers(problems: &[Problem]) -> Vec<&str> {
        problems.iter().map(|p| p.pointer.as_str()).collect()
    }

    /// Joint i's settings drive the segment from joint i to joint i + 1; the last joint is only
    /// a tail; missing settings take `VRMSpringBoneJoint`'s defaults (stiffness 1, drag 0.4,
    /// gravity 0 along -Y, radius 0).
    #[test]
    fn v1_joints_pair_each_node_with_the_next_and_take_three_vrms_defaults() {
        let (springs, problems) = read_json(
            json!({"VRMC_springBone": {"specVersion": "1.0",
                "colliders": [{"node": 0, "shape": {"capsule": {"radius": 0.1, "tail": [0, 1, 0]}}},
                              {"node": 9, "shape": {"sphere": {"radius": 0.1}}}],
                "colliderGroups": [{"name": "g", "colliders": [0, 1]}],
                "springs": [{"joints": [{"node": 1, "stiffness": 0.5, "gravityDir": [1, 0, 0]}, {"node": 2}, {"node": 3}],
                             "colliderGroups": [0], "center": 0}]}}),
            None,
        );
        assert_eq!(springs.joints.len(), 2);
        let (a, b) = (&springs.joints[0], &springs.joints[1]);
        assert_eq!((a.node, a.tail, b.node, b.tail), (1, Some(2), 2, Some(3)));
        assert_eq!(a.settings.stiffness, 0.5);
        assert_eq!(a.settings.gravity_dir, DVec3::X);
        assert_eq!(b.settings, JointSettings::default());
        assert_eq!((a.center, a.groups.clone()), (Some(0), vec![0]));
        // The collider on node 9 is skipped, and so is its place in the group.
        assert_eq!(springs.colliders.len(), 1);
        assert_eq!(springs.groups[0].colliders, vec![0]);
        // Reported once, where the collider is, with its own code.
        assert_eq!(pointers(&problems), ["/extensions/VRMC_springBone/colliders/1/node"]);
        assert_eq!(problems[0].code, "RIG_VRM_SPRING_COLLIDER_NODE");
    }

    /// A wrongly typed value is reported and read as three-vrm's default; an
    /// out-of-range one is reported and kept; an unknown specVersion loads nothing.
    #[test]
    fn wrong_types_and_out_of_range_values_are_findings() {
        let (springs, problems) = read_json(
            json!({"VRMC_springBone": {"specVersion": "1.0",
                "colliders": [{"node": 0, "shape": {"sphere": {"radius": -0.5, "offset": "here"}}}],
                "springs": [{"joints": [{"node": 1, "stiffness": "stiff", "dragForce": 3.0, "hitRadius": -1}, {"node": 2}]}]}}),
            None,
        );
        let s = springs.joints[0].settings;
        assert_eq!((s.stiffness, s.drag_force, s.hit_radius), (1.0, 3.0, -1.0));
        assert_eq!(
            springs.colliders[0].shape,
            Shape::Sphere { offset: DVec3::ZERO, radius: -0.5, inside: false }
        );
        let mut found = pointers(&problems);
        found.sort_unstable();
        let joint = "/extensions/VRMC_springBone/springs/0/joints/0";
        let sphere = "/extensions/VRMC_springBone/colliders/0/shape/sphere";
        // Negative radii are `check`'s (RIG_VRM_SPRING_NEGATIVE_RADIUS), not the reader's.
        let mut expected =
            vec![format!("{joint}/stiffness"), format!("{joint}/dragForce"), format!("{sphere}/offset")];
        expected.sort_unstable();
        assert_eq!(found, expected);

        let (springs, problems) =
            read_json(json!({"VRMC_springBone": {"specVersion": "2.0", "springs": []}}), None);
        assert!(springs.is_empty());
        assert_eq!(pointers(&problems), ["/extensions/VRMC_springBone/specVersion"]);
    }

    /// The extended collider wins when its specVersion is 1.0 (planes and `inside` only exist
    /// there); otherwise the base shape is used.
    #[test]
    fn the_extended_collider_replaces_the_base_shape_only_at_version_1_0() {
        let extended = |version: &str| {
            json!({"node": 0, "shape": {"sphere": {"radius": 0.2}},
                   "extensions": {"VRMC_springBone_extended_collider": {"specVersion": version,
                       "shape": {"plane": {"offset": [0, 1, 0], "normal": [0, 0, 1]}}}}})
        };
        let (springs, _) = read_json(
            json!({"VRMC_springBone": {"specVersion": "1.0", "colliders": [extended("1.0"), extended("0.9")]}}),
            None,
        );
        assert_eq!(springs.colliders[0].shape, Shape::Plane { offset: DVec3::Y, normal: DVec3::Z });
        assert_eq!(
            springs.colliders[1].shape,
            Shape::Sphere { offset: DVec3::ZERO, radius: 0.2, inside: false }
        );
    }

    /// VRM 0.x: each root is walked depth first with its first child as the tail (the chain's
    /// end has none), collider z is negated, `center: -1` is no center, and `stiffiness` is
    /// the schema's spelling. Only when `extensionsUsed` lists `VRM` (or is absent).
    #[test]
    fn v0_walks_each_root_and_negates_collider_z() {
        let ext = json!({"VRM": {"secondaryAnimation": {
            "boneGroups": [{"bones": [1], "stiffiness": 2.0, "center": -1, "colliderGroups": [0]}],
            "colliderGroups": [{"node": 4, "colliders": [{"offset": {"x": 1, "y": 2, "z": 3}, "radius": 0.5}]}]}}});
        let (springs, problems) = read_json(ext.clone(), Some(&["VRM"]));
        assert!(problems.is_empty(), "{problems:?}");
        let tails: Vec<(usize, Option<usize>)> = springs.joints.iter().map(|j| (j.node, j.tail)).collect();
        assert_eq!(tails, [(1, Some(2)), (2, Some(3)), (3, None)]);
        assert!(springs.joints.iter().all(|j| j.settings.stiffness == 2.0 && j.center.is_none()));
        assert_eq!(
            springs.colliders[0].shape,
            Shape::Sphere { offset: DVec3::new(1.0, 2.0, -3.0), radius: 0.5, inside: false }
        );
        let (springs, _) = read_json(ext, Some(&["KHR_materials_unlit"]));
        assert!(springs.is_empty());
    }
}
