//! The viewer's problem vertices: every vertex a weight rule flags, once, with its findings,
//! its worst severity and the measure that orders the walk (worst first). The weights
//! panel lists them, the viewport marks them, and `e` / `E` walk them. Pure data.

use std::collections::{BTreeMap, HashMap};

use crate::anim::Workspace;
use crate::diagnose::{Finding, Report};
use crate::rig::Severity;

/// One flagged vertex.
#[derive(Debug, Clone, PartialEq)]
pub struct ProblemVertex {
    pub mesh: usize,
    pub primitive: usize,
    pub vertex: usize,
    /// Index into `Workspace::primitives`: None when no node draws the primitive.
    pub prim: Option<usize>,
    /// Indices into the report's findings, in the report's order (errors first).
    pub findings: Vec<usize>,
    pub severity: Severity,
    /// The farthest any engine profile draws the vertex from its stored-weights position,
    /// as a fraction of the model's size (`diagnose::consequence`; 0 where not measured,
    /// infinite where an engine draws it at NaN).
    pub consequence: f32,
    /// What the file alone says (see `stored_measure`): orders vertices no engine moves.
    pub measure: f32,
}

/// Every flagged vertex, worst first: by how far engines draw it from the stored result,
/// then by what the file says (`stored_measure`), then errors before warnings, then by mesh,
/// primitive and vertex.
pub fn problem_vertices(diag: &Report, ws: &Workspace) -> Vec<ProblemVertex> {
    let mut by_vertex: BTreeMap<(usize, usize, usize), Vec<usize>> = BTreeMap::new();
    for (i, f) in diag.findings.iter().enumerate() {
        if let (Some(m), Some(p), Some(v)) = (f.mesh, f.primitive, f.vertex.as_ref()) {
            by_vertex.entry((m, p, v.vertex)).or_default().push(i);
        }
    }
    let moved: HashMap<(usize, usize, usize), f32> = diag
        .consequences
        .vertices
        .iter()
        .map(|c| {
            // A vertex an engine cannot place at all (NaN) is the worst there is.
            let worst = c
                .engines
                .iter()
                .map(|(_, d)| if d.vanishes { f32::INFINITY } else { d.fraction })
                .filter(|f| !f.is_nan())
                .fold(0.0, f32::max);
            ((c.mesh, c.primitive, c.vertex), worst)
        })
        .collect();
    let mut out: Vec<ProblemVertex> = by_vertex
        .into_iter()
        .map(|((mesh, primitive, vertex), findings)| {
            let of = || findings.iter().map(|&i| &diag.findings[i]);
            let severity = of().map(|f| f.severity).min_by_key(|s| rank(*s)).unwrap_or(Severity::Info);
            let measure = of().map(stored_measure).fold(0.0, f32::max);
            let consequence = moved.get(&(mesh, primitive, vertex)).copied().unwrap_or(0.0);
            let prim = ws.primitives.iter().position(|d| d.mesh == mesh && d.primitive == primitive);
            ProblemVertex { mesh, primitive, vertex, prim, findings, severity, consequence, measure }
        })
        .collect();
    sort_worst_first(&mut out);
    out
}

/// Orders by `consequence`, then `measure` (worst first), then severity, then place.
pub fn sort_worst_first(list: &mut [ProblemVertex]) {
    list.sort_by(|a, b| {
        b.consequence
            .total_cmp(&a.consequence)
            .then(b.measure.total_cmp(&a.measure))
            .then(rank(a.severity).cmp(&rank(b.severity)))
            .then((a.mesh, a.primitive, a.vertex).cmp(&(b.mesh, b.primitive, b.vertex)))
    });
}

/// What the file alone says about how bad a finding is: how much of the vertex's weight
/// is wrong. `|1 - sum|` by the validator's sum (a NaN sum: infinite, the vertex vanishes),
/// or for more than 4 influences the weight a 4-influence engine drops.
pub fn stored_measure(f: &Finding) -> f32 {
    let Some(v) = &f.vertex else { return 0.0 };
    if f.code == "RIG_MORE_THAN_4_INFLUENCES" {
        return v.dropped_weight.unwrap_or(0.0);
    }
    let off = (1.0 - v.sum).abs();
    if off.is_nan() { f32::INFINITY } else { off }
}

fn rank(s: Severity) -> u8 {
    match s {
        Severity::Error => 0,
        Severity::Warning => 1,
        Severity::Info => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::VertexFinding;

    fn finding(
        code: &'static str,
        severity: Severity,
        (m, p, v): (usize, usize, usize),
        sum: f32,
    ) -> Finding {
        Finding {
            code,
            severity,
            pointer: String::new(),
            message: String::new(),
            mesh: Some(m),
            primitive: Some(p),
            vertex: Some(VertexFinding {
                vertex: v,
                set: None,
                component: None,
                joints: vec![0; 4],
                joint_nodes: vec![Some(0); 4],
                weights: vec![sum, 0.0, 0.0, 0.0],
                sum,
                n: 1,
                threshold: 2e-7,
                dropped_weight: (code == "RIG_MORE_THAN_4_INFLUENCES").then_some(0.125),
            }),
        }
    }

    #[test]
    fn one_row_per_vertex_worst_first() {
        use Severity::{Error, Warning};
        let findings = vec![
            finding("ACCESSOR_WEIGHTS_NEGATIVE", Error, (0, 0, 9), 1.25),
            finding("ACCESSOR_WEIGHTS_NON_NORMALIZED", Error, (0, 0, 9), 1.25),
            finding("ACCESSOR_WEIGHTS_NON_NORMALIZED", Error, (0, 1, 5), 1.0039),
            finding("ACCESSOR_WEIGHTS_NON_NORMALIZED", Error, (0, 0, 5), 1.6),
            finding("ACCESSOR_INVALID_FLOAT", Error, (0, 0, 11), f32::NAN),
            finding("RIG_MORE_THAN_4_INFLUENCES", Warning, (0, 0, 19), 1.0),
            finding("ACCESSOR_JOINTS_USED_ZERO_WEIGHT", Warning, (0, 0, 17), 1.0),
        ];
        let diag = Report::new(findings, Vec::new());
        let list = problem_vertices(&diag, &Workspace::new(&crate::rig::Rig::default()));
        let order: Vec<(usize, usize, f32)> =
            list.iter().map(|p| (p.primitive, p.vertex, p.measure)).collect();
        // NaN sum first (infinite), then |1 - 1.6|, |1 - 1.25|, the dropped 0.125, 0.0039, 0.
        assert_eq!(
            order.iter().map(|o| (o.0, o.1)).collect::<Vec<_>>(),
            [(0, 11), (0, 5), (0, 9), (0, 19), (1, 5), (0, 17)]
        );
        assert!((order[1].2 - 0.6).abs() < 1e-6 && order[0].2.is_infinite());
        assert_eq!(list[2].findings.len(), 2);
        assert_eq!((list[3].severity, list[5].severity), (Warning, Warning));

        // Once measured, how far an engine draws a vertex comes first: v17 moving 1% of the
        // model outranks every vertex no engine moves.
        let mut diag = diag;
        diag.consequences.vertices.push(crate::diagnose::VertexConsequence {
            mesh: 0,
            primitive: 0,
            vertex: 17,
            engines: vec![(
                crate::anim::Engine::Three,
                crate::diagnose::Displacement {
                    distance: 0.02,
                    fraction: 0.01,
                    clip: None,
                    time: 0.0,
                    vanishes: false,
                    stored_vanishes: false,
                },
            )],
        });
        let list = problem_vertices(&diag, &Workspace::new(&crate::rig::Rig::default()));
        assert_eq!((list[0].vertex, list[0].consequence, list[1].vertex), (17, 0.01, 11));
    }
}
