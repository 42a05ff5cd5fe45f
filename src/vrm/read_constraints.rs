//! Reads node constraints from a document's nodes as three-vrm 3.5.5's
//! `VRMNodeConstraintLoaderPlugin` builds them (`@pixiv/three-vrm-node-constraint`,
//! `src/VRMNodeConstraintLoaderPlugin.ts`, `_import`), and puts them in the order
//! `VRMNodeConstraintManager` (`src/VRMNodeConstraintManager.ts`, `_processConstraint`) runs
//! them.
//!
//! What makes three-vrm refuse the whole file (a source that is not a node, a constraint
//! object that is not an object, a circular dependency: its `setInitState` throws while the
//! file loads) is left out here with a problem saying so, and the other constraints still
//! apply. What three-vrm computes with as it is (a weight outside 0..1, an axis name it does
//! not know, which it turns into the zero vector) is kept, with a problem.

use super::constraints::{
    AIM_AXES, Axis, ConstraintKind, InitialState, NodeConstraint, NodeConstraints, ROLL_AXES,
};
use super::read_springs::Problem;
use glam::{DQuat, DVec3};
use serde_json::Value;

const EXTENSION: &str = "VRMC_node_constraint";
const INVALID: &str = "RIG_VRM_INVALID";
const SOURCE: &str = "RIG_VRM_CONSTRAINT_SOURCE";
const CYCLE: &str = "RIG_VRM_CONSTRAINT_CYCLE";
const WEIGHT: &str = "RIG_VRM_CONSTRAINT_WEIGHT";
const AXIS: &str = "RIG_VRM_CONSTRAINT_AXIS";

/// The nodes the constraints hang in.
pub struct Nodes<'a> {
    /// Per node: its `extensions` object, when it has one.
    pub extensions: &'a [Option<Value>],
    pub parents: &'a [Option<usize>],
    /// Per node: its rest local rotation (what `setInitState` reads).
    pub rest: &'a [DQuat],
}

/// The node constraints of a document; `used` is its `extensionsUsed` (none when the document
/// has no such array, which three-vrm reads as using every extension).
pub fn read(nodes: &Nodes, used: Option<&[String]>) -> (NodeConstraints, Vec<Problem>) {
    let mut problems = Vec::new();
    let carriers: Vec<usize> = (0..nodes.extensions.len())
        .filter(|&n| nodes.extensions[n].as_ref().is_some_and(|e| e.get(EXTENSION).is_some()))
        .collect();
    if carriers.is_empty() {
        return (NodeConstraints::default(), problems);
    }
    // `json.extensionsUsed?.indexOf(name) !== -1`.
    if used.is_some_and(|list| !list.iter().any(|e| e == EXTENSION)) {
        problems.push(Problem {
            code: INVALID,
            pointer: "/extensionsUsed".into(),
            message: format!(
                "{EXTENSION} is not listed, so three-vrm ignores the constraints on {} nodes, and so does rigscope",
                carriers.len()
            ),
        });
        return (NodeConstraints::default(), problems);
    }
    let mut reader = Reader { nodes, problems: &mut problems };
    let mut constraints: Vec<NodeConstraint> =
        carriers.iter().filter_map(|&n| reader.constraint(n)).collect();
    let order = sort(&mut constraints, nodes.parents, &mut problems);
    (NodeConstraints { constraints, order }, problems)
}

struct Reader<'a> {
    nodes: &'a Nodes<'a>,
    problems: &'a mut Vec<Problem>,
}

impl Reader<'_> {
    fn problem(&mut self, code: &'static str, pointer: String, message: String) {
        self.problems.push(Problem { code, pointer, message });
    }

    /// The constraint on `node`, or none (with a problem) when three-vrm adds none or cannot
    /// load the file with it.
    fn constraint(&mut self, node: usize) -> Option<NodeConstraint> {
        let pointer = format!("/nodes/{node}/extensions/{EXTENSION}");
        let extension = self.nodes.extensions[node].as_ref()?.get(EXTENSION)?;
        let spec = extension.get("specVersion");
        if !matches!(spec.and_then(Value::as_str), Some("1.0" | "1.0-beta")) {
            let shown = spec.map_or("missing".to_string(), Value::to_string);
            let message = format!(
                "specVersion {shown} is not 1.0: three-vrm skips this constraint, and so does rigscope"
            );
            self.problem(INVALID, format!("{pointer}/specVersion"), message);
            return None;
        }
        let pointer = format!("{pointer}/constraint");
        let Some(def) = extension.get("constraint").filter(|c| c.is_object()) else {
            let message =
                "missing or not an object: three-vrm cannot load the file with it; rigscope leaves it out";
            self.problem(INVALID, pointer, message.into());
            return None;
        };
        // `_import` looks for roll, then aim, then rotation.
        let present: Vec<&str> = ["roll", "aim", "rotation"]
            .into_iter()
            .filter(|k| def.get(*k).is_some_and(|v| !v.is_null()))
            .collect();
        let Some(&key) = present.first() else {
            let message = "names none of roll, aim and rotation: three-vrm adds no constraint here";
            self.problem(INVALID, pointer, message.into());
            return None;
        };
        if present.len() > 1 {
            let message = format!(
                "has {}: a node has one constraint; three-vrm uses {key} and ignores the rest",
                present.join(", ")
            );
            self.problem(INVALID, pointer.clone(), message);
        }
        let pointer = format!("{pointer}/{key}");
        let body = &def[key];
        if !body.is_object() {
            self.problem(
                INVALID,
                pointer,
                format!(
                    "{key} is not an object: three-vrm cannot load the file with it; rigscope leaves it out"
                ),
            );
            return None;
        }
        let source = self.source(body, node, &pointer)?;
        let kind = match key {
            "roll" => ConstraintKind::Roll { axis: self.axis(body, "rollAxis", &ROLL_AXES, &pointer) },
            "aim" => ConstraintKind::Aim { axis: self.axis(body, "aimAxis", &AIM_AXES, &pointer) },
            _ => ConstraintKind::Rotation,
        };
        let weight = self.weight(body, &pointer);
        let rest = InitialState { destination: self.nodes.rest[node], source: self.nodes.rest[source] };
        Some(NodeConstraint { destination: node, source, kind, weight, rest, pointer })
    }

    /// `nodes[source]`: three-vrm cannot load the file when it is not a node (its
    /// `setInitState` reads the source).
    fn source(&mut self, body: &Value, node: usize, pointer: &str) -> Option<usize> {
        let value = body.get("source");
        let found = value
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n < self.nodes.extensions.len());
        if found.is_none() {
            let shown = value.map_or("missing".to_string(), Value::to_string);
            let message = format!(
                "the constraint on node {node} has source {shown}, which is not a node of the file: three-vrm cannot load the file; rigscope leaves the constraint out"
            );
            self.problem(SOURCE, format!("{pointer}/source"), message);
        }
        found
    }

    /// `rollAxis` / `aimAxis`: absent is three-vrm's default (the first name); a name it does
    /// not know is the zero vector it computes with.
    fn axis(&mut self, body: &Value, key: &str, names: &[(&'static str, DVec3)], pointer: &str) -> Axis {
        let default = names[0].0;
        let Some(value) = body.get(key).filter(|v| !v.is_null()) else {
            let message = format!(
                "{key} is missing (the specification requires it); three-vrm uses {default}, and so does rigscope"
            );
            self.problem(AXIS, format!("{pointer}/{key}"), message);
            return Axis::named(default, names);
        };
        let axis = Axis::named(value.as_str().unwrap_or_default(), names);
        if axis.name.is_none() {
            let allowed: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
            let message = format!(
                "{value} is not one of {}: three-vrm turns it into a zero axis (the constraint then follows the source's whole rotation for roll, and holds the rest rotation for aim), and so does rigscope",
                allowed.join(", ")
            );
            self.problem(AXIS, format!("{pointer}/{key}"), message);
        }
        axis
    }

    /// `weight`: 1 when absent; kept outside 0..1 (three-vrm's slerp extrapolates).
    fn weight(&mut self, body: &Value, pointer: &str) -> f64 {
        let Some(value) = body.get("weight").filter(|v| !v.is_null()) else {
            return 1.0;
        };
        let pointer = format!("{pointer}/weight");
        let Some(w) = value.as_f64() else {
            let message = format!("{value} is not a number; read as 1, three-vrm's default");
            self.problem(INVALID, pointer, message);
            return 1.0;
        };
        if !(0.0..=1.0).contains(&w) {
            let message = format!(
                "{w} is outside 0 to 1; kept, as three-vrm keeps it (the rotation overshoots or turns back)"
            );
            self.problem(WEIGHT, pointer, message);
        }
        w
    }
}

/// `VRMNodeConstraint.dependencies`: the source, and for aim the destination's parent.
fn dependencies(c: &NodeConstraint, parents: &[Option<usize>]) -> Vec<usize> {
    let mut deps = vec![c.source];
    if let ConstraintKind::Aim { .. } = c.kind
        && let Some(parent) = parents[c.destination]
        && parent != c.source
    {
        deps.push(parent);
    }
    deps
}

/// Per constraint: the constraints `_processConstraint` runs first, in its order (for each
/// dependency, its ancestors from the root down to it, each one's constraints).
fn prerequisites(constraints: &[NodeConstraint], parents: &[Option<usize>]) -> Vec<Vec<usize>> {
    let mut on_node: Vec<Vec<usize>> = vec![Vec::new(); parents.len()];
    for (i, c) in constraints.iter().enumerate() {
        on_node[c.destination].push(i);
    }
    constraints
        .iter()
        .map(|c| {
            let mut list = Vec::new();
            for dep in dependencies(c, parents) {
                let mut chain = vec![dep];
                while let Some(parent) = chain.last().and_then(|&n| parents[n]) {
                    if chain.len() > parents.len() {
                        break;
                    }
                    chain.push(parent);
                }
                for &ancestor in chain.iter().rev() {
                    list.extend_from_slice(&on_node[ancestor]);
                }
            }
            list
        })
        .collect()
}

/// The update order, after leaving out (with a problem) every constraint on a circular
/// dependency: three-vrm throws there ("Circular dependency detected") and loads nothing.
fn sort(
    constraints: &mut Vec<NodeConstraint>,
    parents: &[Option<usize>],
    problems: &mut Vec<Problem>,
) -> Vec<usize> {
    loop {
        let prerequisites = prerequisites(constraints, parents);
        match topological(&prerequisites) {
            Ok(order) => return order,
            Err(cycle) => {
                let names: Vec<String> =
                    cycle.iter().map(|&i| format!("node {}", constraints[i].destination)).collect();
                let first = &constraints[cycle[0]];
                let message = format!(
                    "the constraints on {} depend on each other in a circle (each waits for the next one's destination or its ancestors): three-vrm cannot load the file; rigscope leaves them out",
                    names.join(" -> ")
                );
                problems.push(Problem { code: CYCLE, pointer: first.pointer.clone(), message });
                let mut i = 0;
                constraints.retain(|_| {
                    i += 1;
                    !cycle.contains(&(i - 1))
                });
            }
        }
    }
}

/// `_processConstraint` over every constraint in order, without recursion (a long chain of
/// constraints must not overflow the stack): the order, or the constraints on the first
/// circle found, from the one met again.
fn topological(prerequisites: &[Vec<usize>]) -> Result<Vec<usize>, Vec<usize>> {
    let n = prerequisites.len();
    let (mut tried, mut done) = (vec![false; n], vec![false; n]);
    let mut order = Vec::with_capacity(n);
    for start in 0..n {
        if done[start] {
            continue;
        }
        // (constraint, how many of its prerequisites have been visited)
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        tried[start] = true;
        while let Some(&mut (c, ref mut next)) = stack.last_mut() {
            let Some(&dep) = prerequisites[c].get(*next) else {
                stack.pop();
                done[c] = true;
                order.push(c);
                continue;
            };
            *next += 1;
            if done[dep] {
                continue;
            }
            if tried[dep] {
                let from = stack.iter().position(|&(s, _)| s == dep).unwrap_or(0);
                return Err(stack[from..].iter().map(|&(s, _)| s).collect());
            }
            tried[dep] = true;
            stack.push((dep, 0));
        }
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A chain 0 <- 1 <- 2 <- 3 (each the child of the one before), plus 4 under 0.
    const PARENTS: [Option<usize>; 5] = [None, Some(0), Some(1), Some(2), Some(0)];

    fn read_with(ext: &[(usize, Value)]) -> (NodeConstraints, Vec<Problem>) {
        let mut extensions = vec![None; PARENTS.len()];
        for (n, e) in ext {
            extensions[*n] = Some(json!({ EXTENSION: { "specVersion": "1.0", "constraint": e } }));
        }
        let rest = vec![DQuat::IDENTITY; PARENTS.len()];
        read(&Nodes { extensions: &extensions, parents: &PARENTS, rest: &rest }, None)
    }

    fn codes(problems: &[Problem]) -> Vec<&str> {
        problems.iter().map(|p| p.code).collect()
    }

    fn destinations(c: &NodeConstraints) -> Vec<usize> {
        c.order.iter().map(|&i| c.constraints[i].destination).collect()
    }

    #[test]
    fn a_constraint_runs_after_those_on_its_source_and_the_sources_ancestors() {
        // File order 2, 3, 4. 2 follows 4 (constrained); 3 aims at 4 and hangs under 2, so it
        // waits for both; 4 follows the root, which has no constraint.
        let (c, problems) = read_with(&[
            (2, json!({ "rotation": { "source": 4, "weight": 0.5 } })),
            (3, json!({ "aim": { "source": 4, "aimAxis": "NegativeZ" } })),
            (4, json!({ "roll": { "source": 0, "rollAxis": "Y" } })),
        ]);
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(destinations(&c), [4, 2, 3]);
        assert_eq!(c.constraints[0].weight, 0.5);
        assert_eq!(
            c.constraints[1].kind,
            ConstraintKind::Aim { axis: Axis { name: Some("NegativeZ"), vector: DVec3::NEG_Z } }
        );
        assert_eq!(
            c.constraints[2].kind,
            ConstraintKind::Roll { axis: Axis { name: Some("Y"), vector: DVec3::Y } }
        );
    }

    #[test]
    fn a_source_below_its_destination_or_on_it_is_a_circle_and_left_out() {
        // 1's source 3 hangs under 1: 1 waits for the constraints on 3's ancestors, itself
        // among them (three-vrm throws); 4 follows itself. 2 is fine.
        let (c, problems) = read_with(&[
            (1, json!({ "rotation": { "source": 3 } })),
            (2, json!({ "rotation": { "source": 0 } })),
            (4, json!({ "roll": { "source": 4, "rollAxis": "X" } })),
        ]);
        assert_eq!(codes(&problems), [CYCLE, CYCLE]);
        assert!(problems[0].pointer.starts_with("/nodes/1/"), "{problems:?}");
        assert!(problems[1].message.contains("node 4"), "{problems:?}");
        assert_eq!(destinations(&c), [2]);
    }

    #[test]
    fn a_longer_circle_leaves_out_each_constraint_on_it() {
        // 2 follows 4, 4 follows 3 (under 2): 2 -> 4 -> 2.
        let (c, problems) = read_with(&[
            (2, json!({ "rotation": { "source": 4 } })),
            (4, json!({ "rotation": { "source": 3 } })),
            (1, json!({ "rotation": { "source": 0 } })),
        ]);
        assert_eq!(codes(&problems), [CYCLE]);
        assert!(problems[0].message.contains("node 2 -> node 4"), "{problems:?}");
        assert_eq!(destinations(&c), [1]);
    }

    #[test]
    fn bad_values_are_reported_and_read_as_three_vrm_reads_them() {
        let (c, problems) = read_with(&[
            (1, json!({ "roll": { "source": 9, "rollAxis": "X" } })),
            (2, json!({ "roll": { "source": 0, "rollAxis": "x", "weight": 1.5 } })),
            (3, json!({ "aim": { "source": 0 }, "rotation": { "source": 0 } })),
            (4, json!({ "rotation": { "source": 0, "weight": "half" } })),
        ]);
        assert_eq!(codes(&problems), [SOURCE, AXIS, WEIGHT, INVALID, AXIS, INVALID]);
        assert_eq!(problems[0].pointer, "/nodes/1/extensions/VRMC_node_constraint/constraint/roll/source");
        assert_eq!(destinations(&c), [2, 3, 4]);
        let [roll, aim, rotation] = &c.constraints[..] else { panic!("{c:?}") };
        assert_eq!(roll.kind, ConstraintKind::Roll { axis: Axis { name: None, vector: DVec3::ZERO } });
        assert_eq!(roll.weight, 1.5);
        // Two kinds: aim wins (roll, then aim, then rotation); its missing axis is PositiveX.
        assert_eq!(
            aim.kind,
            ConstraintKind::Aim { axis: Axis { name: Some("PositiveX"), vector: DVec3::X } }
        );
        assert_eq!(rotation.weight, 1.0);
    }

    #[test]
    fn an_unlisted_extension_or_unknown_spec_version_loads_no_constraint() {
        let extensions = vec![
            None,
            Some(
                json!({ EXTENSION: { "specVersion": "0.9", "constraint": { "rotation": { "source": 0 } } } }),
            ),
            None,
            None,
            None,
        ];
        let rest = vec![DQuat::IDENTITY; PARENTS.len()];
        let nodes = Nodes { extensions: &extensions, parents: &PARENTS, rest: &rest };
        let (c, problems) = read(&nodes, None);
        assert!(c.is_empty());
        assert_eq!(codes(&problems), [INVALID]);
        let (c, problems) = read(&nodes, Some(&["VRMC_vrm".to_string()]));
        assert!(c.is_empty());
        assert!(problems[0].message.contains("not listed"), "{problems:?}");
    }
}
