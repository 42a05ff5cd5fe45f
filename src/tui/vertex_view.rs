//! What the viewer says about the selected vertex, as data: where it is, which rules it
//! breaks and what each does to it (in words, `rules`), its joints and weights, the sum
//! skinning blends and the validator's. The weights panel draws it and `y` copies it, so
//! the clipboard holds what the panel shows.

use crate::anim::{Engine, drawn_point, drawn_vertex, skin_point, skinned_input};
use crate::diagnose::Finding;
use crate::diagnose::consequence::MOVE_FRACTION;
use crate::rig::Severity;

use super::app::App;
use super::rules::{self, Facts};

/// How a line reads: the panel maps these to colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    Dim,
    Ok,
    Error,
    Warning,
}

impl Tone {
    pub fn of(s: Severity) -> Tone {
        match s {
            Severity::Error => Tone::Error,
            Severity::Warning => Tone::Warning,
            Severity::Info => Tone::Dim,
        }
    }
}

/// One rule the vertex breaks, with what it does there.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleText {
    pub code: &'static str,
    pub severity: Severity,
    pub sentences: Vec<String>,
}

/// One influence slot as listed (padding slots, joint 0 with weight 0, are left out).
#[derive(Debug, Clone, PartialEq)]
pub struct Influence {
    pub name: String,
    pub weight: String,
    /// Skinning leaves it out (a joint the skin lacks, or a weight that is not a number).
    pub skipped: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct VertexView {
    /// "mesh 0 "strips", primitive 0, vertex 11".
    pub heading: String,
    pub verdict: (String, Tone),
    pub rules: Vec<RuleText>,
    /// Whose weights `influences` lists: "weights as stored:" or a preview's.
    pub weights_title: String,
    pub influences: Vec<Influence>,
    pub drawn_sum: (String, Tone),
    /// The validator's sum (what `rigscope check` prints), for a vertex with findings.
    pub validator_sum: Option<String>,
    /// Per engine profile (profiles with the same result share a line), how far it draws
    /// the vertex from where the stored weights put it: now, and at worst over every clip.
    pub engines: Vec<String>,
}

/// Within this of 1 per summed weight a sum counts as 1 (the validator's 2e-7 per weight).
const ULP_PER_WEIGHT: f32 = 2e-7;

impl VertexView {
    /// The selected vertex as the panel shows it; `full`: every digit of each weight.
    pub fn of_selected(app: &App, full: bool) -> Option<VertexView> {
        let v = app.selection.vertex?;
        let dp = app.session.ws.primitives.get(v.prim)?;
        let mesh = app.session.rig.meshes.get(dp.mesh)?;
        let stored = mesh.primitives.get(dp.primitive)?;
        let skin = dp.skin.and_then(|s| app.session.rig.skins.get(s));
        let joint_count = skin.map_or(0, |s| s.joints.len());
        let name = |j: u16| match skin.and_then(|s| s.joints.get(usize::from(j))) {
            Some(&node) => app.session.rig.node_label(node),
            None => format!("joint {j}"),
        };
        let heading = match &mesh.name {
            Some(n) => format!("mesh {} \"{n}\", primitive {}, vertex {}", dp.mesh, dp.primitive, v.vertex),
            None => format!("mesh {}, primitive {}, vertex {}", dp.mesh, dp.primitive, v.vertex),
        };
        let findings: Vec<&Finding> = app
            .session
            .diag
            .findings
            .iter()
            .filter(|f| f.mesh == Some(dp.mesh) && f.primitive == Some(dp.primitive))
            .filter(|f| f.vertex.as_ref().is_some_and(|x| x.vertex == v.vertex))
            .collect();
        // The weights listed are those drawn: the stored ones, or the engine profile's.
        let engine = app.view.engine;
        let mut slots = Vec::new();
        drawn_vertex(engine, &stored.influences, v.vertex, joint_count, &mut slots);
        let mut influences = Vec::new();
        let (mut sum, mut n) = (0.0f32, 0usize);
        for &(j, w) in &slots {
            if w == 0.0 && j == 0 {
                continue;
            }
            let skinned = usize::from(j) < joint_count && w.is_finite();
            if skinned && w != 0.0 {
                sum += w;
                n += 1;
            }
            let weight = if full { format!("{w:?}") } else { format!("{w:.7}") };
            let name =
                if usize::from(j) < joint_count { name(j) } else { format!("joint {j} (not in skin)") };
            influences.push(Influence { name, weight, skipped: !skinned });
        }
        let drawn = engine != Engine::Stored;
        let weights_title = if drawn {
            format!("weights as {} draws them ({}):", engine.label(), engine.summary())
        } else {
            "weights as stored:".to_string()
        };
        let weights_title = if influences.is_empty() {
            format!("{weights_title} none (every slot is joint 0 at weight 0)")
        } else {
            weights_title
        };
        // The stored weights' sum as skinning blends them, for the sentences.
        let stored_sum: f32 = stored
            .influences_of(v.vertex)
            .filter(|&(j, w)| usize::from(j) < joint_count && w.is_finite())
            .map(|(_, w)| w)
            .sum();
        let missing_joint =
            stored.influences_of(v.vertex).any(|(j, w)| w != 0.0 && usize::from(j) >= joint_count);
        let facts = Facts { joints: joint_count, drawn_sum: stored_sum, name: &name, missing_joint };
        let rules = rule_texts(&findings, &facts);
        let errors = findings.iter().filter(|f| f.severity == Severity::Error).count();
        let warnings = findings.iter().filter(|f| f.severity == Severity::Warning).count();
        let whose = if drawn { " in the stored weights" } else { "" };
        let verdict = match (errors, warnings) {
            (0, 0) if findings.is_empty() => ("passes the validator's rules".to_string(), Tone::Ok),
            (0, 0) => (format!("{} (infos only){whose}", Severity::Info.count(findings.len())), Tone::Dim),
            (0, w) => {
                (format!("{}, no errors{whose}", super::ui::count(w, "warning", "warnings")), Tone::Warning)
            }
            (e, 0) => (format!("{}{whose}", super::ui::count(e, "error", "errors")), Tone::Error),
            (e, w) => (
                format!(
                    "{}, {}{whose}",
                    super::ui::count(e, "error", "errors"),
                    super::ui::count(w, "warning", "warnings")
                ),
                Tone::Error,
            ),
        };
        let drawn_sum = sum_line(sum, n, errors > 0 && !drawn, full);
        let validator_sum = findings.first().and_then(|f| f.vertex.as_ref()).map(|x| {
            let s = if full { format!("{:?}", x.sum) } else { format!("{:.8}", x.sum) };
            format!("the validator's sum: {s} over {}", super::ui::count(x.n as usize, "weight", "weights"))
        });
        Some(VertexView {
            heading,
            verdict,
            rules,
            weights_title,
            influences,
            drawn_sum,
            validator_sum,
            engines: engine_lines(app, v.prim, v.vertex),
        })
    }

    /// The whole view as plain text, one item a line, nothing cut: what `y` copies.
    pub fn plain_text(&self) -> String {
        let mut out = vec![self.heading.clone(), self.verdict.0.clone()];
        for r in &self.rules {
            out.push(format!("{}: {}", r.severity.name(), r.code));
            out.extend(r.sentences.iter().map(|s| format!("  {s}")));
        }
        out.extend(self.engines.iter().cloned());
        out.push(self.weights_title.clone());
        for i in &self.influences {
            let note = if i.skipped { " left out" } else { "" };
            out.push(format!("  {} {}{note}", i.name, i.weight));
        }
        out.push(self.drawn_sum.0.clone());
        out.extend(self.validator_sum.iter().cloned());
        out.join("\n") + "\n"
    }
}

/// Where each engine profile draws the vertex, against the stored weights: now (the
/// current pose) and the worst over the rest pose and every clip (`Report::consequences`,
/// measured by `check`). Profiles with the same figures share a line. "Now" skins the
/// unmorphed position both ways, so an active morph target's offset is left out of it.
fn engine_lines(app: &App, prim: usize, vertex: usize) -> Vec<String> {
    let Some(dp) = app.session.ws.primitives.get(prim) else { return Vec::new() };
    let Some(stored) = app.session.rig.meshes.get(dp.mesh).and_then(|m| m.primitives.get(dp.primitive))
    else {
        return Vec::new();
    };
    let Some(matrices) = dp.skin.and_then(|s| app.session.ws.joint_matrices.get(s)) else {
        return Vec::new();
    };
    let Some(&rest) = stored.positions.get(vertex) else { return Vec::new() };
    let joints = dp.skin.and_then(|s| app.session.rig.skins.get(s)).map_or(0, |s| s.joints.len());
    let placement = dp.skin.map_or(glam::Mat4::IDENTITY, |s| app.session.ws.placement(s));
    let mut slots = Vec::new();
    let mut skinned = |engine: Engine| {
        let fate = drawn_vertex(engine, &stored.influences, vertex, joints, &mut slots);
        drawn_point(fate, skin_point(&slots, matrices, skinned_input(fate, rest)), rest, &placement)
    };
    let here = skinned(Engine::Stored);
    let diagonal = app.session.diag.consequences.diagonal;
    let mut groups: Vec<(String, Vec<&'static str>)> = Vec::new();
    for &engine in Engine::ALL.iter().filter(|&&e| e != Engine::Stored) {
        let now = skinned(engine).distance(here);
        let worst = app.session.diag.consequences.of(dp.mesh, dp.primitive, vertex, engine);
        // A NaN distance (the vertex vanishes) is not "still".
        let still = |d: f32| d <= MOVE_FRACTION * diagonal;
        let refuses =
            app.session.diag.consequences.engines.iter().any(|s| s.engine == engine && s.refuses.is_some());
        let text = match worst {
            _ if refuses => "would not import this file".to_string(),
            Some(w) if w.vanishes => "no position: its triangles vanish".to_string(),
            Some(w) if still(now) && still(w.distance) => "same as stored (0 off)".to_string(),
            Some(w) => {
                let at = match w.clip {
                    Some(c) => format!("clip {} at {:.2} s", app.session.rig.clip_label(c), w.time),
                    None => "at rest".to_string(),
                };
                format!(
                    "{} off now, at worst {} ({} of the model, {at})",
                    distance(now),
                    distance(w.distance),
                    super::rules::percent(w.fraction)
                )
            }
            None if still(now) => "same as stored now".to_string(),
            None => format!("{} off now", distance(now)),
        };
        match groups.iter_mut().find(|g| g.0 == text) {
            Some(g) => g.1.push(engine.name()),
            None => groups.push((text, vec![engine.name()])),
        }
    }
    let mut out = vec!["distance from stored, per engine (p: see):".to_string()];
    out.extend(groups.into_iter().map(|(text, names)| format!("{}: {text}", names.join(", "))));
    out
}

/// A distance in scene units: three decimals, or two significant digits when smaller.
fn distance(d: f32) -> String {
    if d == 0.0 || d >= 0.0005 { format!("{d:.3}") } else { format!("{d:.1e}") }
}

/// The findings grouped by code in the report's order, each code's sentences once.
fn rule_texts(findings: &[&Finding], facts: &Facts) -> Vec<RuleText> {
    let mut out: Vec<RuleText> = Vec::new();
    for f in findings {
        let sentence = rules::sentence(f, facts);
        match out.iter_mut().find(|r| r.code == f.code) {
            Some(r) if r.sentences.contains(&sentence) => {}
            Some(r) => r.sentences.push(sentence),
            None => out.push(RuleText { code: f.code, severity: f.severity, sentences: vec![sentence] }),
        }
    }
    out
}

/// "the weights sum to 0.50000000 as drawn (1 weight): 0.5 short of 1".
fn sum_line(sum: f32, n: usize, has_errors: bool, full: bool) -> (String, Tone) {
    let s = if full { format!("{sum:?}") } else { format!("{sum:.8}") };
    let head = format!("sum as drawn: {s} over {}", super::ui::count(n, "weight", "weights"));
    let off = sum - 1.0;
    if n > 0 && off.abs() <= ULP_PER_WEIGHT * n as f32 {
        let tone = if has_errors { Tone::Plain } else { Tone::Ok };
        return (format!("{head}, which is 1"), tone);
    }
    let by = amount(off.abs());
    let tail = if n == 0 {
        "no joint moves it".to_string()
    } else if off < 0.0 {
        format!("{by} short of 1")
    } else {
        format!("{by} over 1")
    };
    (format!("{head}: {tail}"), Tone::Error)
}

/// A difference with enough decimals to be non-zero: 0.5, 0.001, 0.00012.
fn amount(x: f32) -> String {
    if !x.is_finite() || x == 0.0 {
        return format!("{x}");
    }
    let digits = ((-x.log10()).ceil().max(0.0) as usize + 1).clamp(1, 9);
    let s = format!("{x:.digits$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::{Tone, amount, sum_line};

    #[test]
    fn sums_say_how_far_from_1_in_plain_numbers() {
        assert_eq!(
            sum_line(0.5, 1, true, false),
            ("sum as drawn: 0.50000000 over 1 weight: 0.5 short of 1".into(), Tone::Error)
        );
        assert_eq!(sum_line(1.6, 1, false, false).0, "sum as drawn: 1.60000002 over 1 weight: 0.6 over 1");
        assert_eq!(
            sum_line(1.0, 2, true, false),
            ("sum as drawn: 1.00000000 over 2 weights, which is 1".into(), Tone::Plain)
        );
        assert_eq!(sum_line(1.0, 1, false, false).1, Tone::Ok);
        assert_eq!(
            sum_line(0.0, 0, true, false).0,
            "sum as drawn: 0.00000000 over 0 weights: no joint moves it"
        );
        assert_eq!(
            (amount(0.001), amount(0.00012), amount(0.25)),
            ("0.001".into(), "0.00012".into(), "0.25".into())
        );
    }
}
