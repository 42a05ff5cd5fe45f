//! Each weight rule in plain words: a short label for a problem row ("joint listed twice")
//! and one sentence of what the rule's breach does to the vertex, for a technical artist
//! rather than for the validator's reader. Pure: findings and a few facts in, text out.
//!
//! The sentences describe stored-weights skinning (`p' = sum w_i J_i p`, see
//! docs/skinning.md): weights summing to `s` put the vertex at `s` times where weights
//! scaled to 1 would, so `1 - s` of the way to the scene's origin.

use crate::diagnose::Finding;

/// What a sentence may need beyond the finding.
pub struct Facts<'a> {
    /// The skin's joint count (the validator's limit is one less).
    pub joints: usize,
    /// What stored-weights skinning blends: every finite weight on a joint the skin has.
    pub drawn_sum: f32,
    /// A joint index as the panel names it ("j3", "joint 7").
    pub name: &'a dyn Fn(u16) -> String,
    /// Some weight sits on a joint the skin lacks: engines that scale weights to 1 count
    /// it too, so scaling does not bring the vertex back onto its joints.
    pub missing_joint: bool,
}

/// The label of a problem row, at most 20 columns.
pub fn short_label(f: &Finding) -> String {
    let Some(v) = &f.vertex else { return f.code.to_string() };
    match f.code {
        "ACCESSOR_WEIGHTS_NON_NORMALIZED" if v.n == 0 => "all weights 0".into(),
        "ACCESSOR_WEIGHTS_NON_NORMALIZED" => format!("sums to {}", three(v.sum)),
        "ACCESSOR_WEIGHTS_NEGATIVE" => "negative weight".into(),
        "ACCESSOR_INVALID_FLOAT" => match slot(f).map(|(_, w)| w) {
            Some(w) if w.is_infinite() => "infinite weight".into(),
            _ => "NaN weight".into(),
        },
        "ACCESSOR_JOINTS_INDEX_OOB" => "no such joint".into(),
        "ACCESSOR_JOINTS_INDEX_DUPLICATE" => "joint listed twice".into(),
        "ACCESSOR_JOINTS_USED_ZERO_WEIGHT" => "joint with weight 0".into(),
        "RIG_MORE_THAN_4_INFLUENCES" => format!("{} joints (over 4)", v.n),
        code => code.to_string(),
    }
}

/// One sentence: what the rule found and what it does to the vertex.
pub fn sentence(f: &Finding, facts: &Facts) -> String {
    let Some(v) = &f.vertex else { return f.message.clone() };
    let slot = slot(f);
    let joint = |j: u16| (facts.name)(j);
    match (f.code, slot) {
        ("ACCESSOR_WEIGHTS_NON_NORMALIZED", _) => non_normalized(v.sum, v.n, facts),
        ("ACCESSOR_WEIGHTS_NEGATIVE", Some((j, w))) => format!(
            "{} has a negative weight, {}: when {} moves, it pushes this vertex the opposite way",
            joint(j),
            three(w),
            joint(j)
        ),
        ("ACCESSOR_INVALID_FLOAT", Some((j, w))) => format!(
            "the weight on {} is {}: skinned as stored, the vertex gets no position and its \
             triangles vanish; rigscope's drawing leaves that weight out",
            joint(j),
            if w.is_nan() { "NaN (not a number)".to_string() } else { format!("{w}") }
        ),
        ("ACCESSOR_JOINTS_INDEX_OOB", Some((j, w))) => format!(
            "joint {j} does not exist (the skin has {} joints): its weight {} follows no joint, \
             so where that part of the vertex goes depends on the engine",
            facts.joints,
            three(w)
        ),
        ("ACCESSOR_JOINTS_INDEX_DUPLICATE", Some((j, w))) => {
            let first = v.joints.iter().zip(&v.weights).find(|&(&k, _)| k == j).map_or(w, |(_, &x)| x);
            format!(
                "{} is listed twice ({} and {}): skinning adds both, the validator counts only the first",
                joint(j),
                three(first),
                three(w)
            )
        }
        ("ACCESSOR_JOINTS_USED_ZERO_WEIGHT", Some((j, _))) => format!(
            "{} is listed with weight 0: it does not move the vertex (nothing is drawn wrong), \
             but it takes an influence slot",
            joint(j)
        ),
        ("RIG_MORE_THAN_4_INFLUENCES", _) => format!(
            "{} joints weigh this vertex: engines that keep the 4 largest drop {} of its \
             weight and scale the rest up to 1",
            v.n,
            three(v.dropped_weight.unwrap_or(0.0))
        ),
        _ => f.message.clone(),
    }
}

/// The joint and weight of the slot a per-influence rule fired on.
fn slot(f: &Finding) -> Option<(u16, f32)> {
    let v = f.vertex.as_ref()?;
    let i = 4 * v.set? + v.component?;
    Some((*v.joints.get(i)?, *v.weights.get(i)?))
}

/// `ACCESSOR_WEIGHTS_NON_NORMALIZED`: the validator's sum, and where stored skinning puts
/// the vertex (by its own sum, which differs when negative, missing or repeated joints
/// are involved).
fn non_normalized(sum: f32, n: u32, facts: &Facts) -> String {
    let drawn = facts.drawn_sum;
    if n == 0 && drawn == 0.0 {
        return "all weights are 0: the vertex collapses to the scene's origin".into();
    }
    let effect = effect_of(drawn, facts.missing_joint);
    if (sum - drawn).abs() <= 1e-6 {
        return format!("the weights sum to {}: {effect}", three(sum));
    }
    format!(
        "the validator's sum is {} (it leaves out negative weights, missing joints and repeats); \
         as stored they add to {}: {effect}",
        three(sum),
        three(drawn)
    )
}

/// What a stored-weights sum does to the vertex.
fn effect_of(sum: f32, missing_joint: bool) -> String {
    let off = 1.0 - sum;
    if !sum.is_finite() {
        return "the vertex gets no position and its triangles vanish".into();
    }
    if sum == 0.0 {
        return "the vertex collapses to the scene's origin".into();
    }
    if off.abs() <= 1e-6 {
        return "the vertex lands where its joints put it".into();
    }
    let share = percent(off.abs());
    let keep = if off > 0.0 {
        format!("engines that keep them pull it {share} of the way to the scene's origin")
    } else {
        format!("engines that keep them push it {share} further from the scene's origin")
    };
    if missing_joint {
        // The missing joint's weight counts in their sum too: see the engines' lines.
        return format!("{keep}, and so do engines that scale weights to 1 (they count the missing joint)");
    }
    format!("{keep}; engines that scale weights to 1 leave it on its joints")
}

/// 0.7632 -> "76%", 0.001 -> "0.1%", 0.00002 -> "0.002%": enough digits to be non-zero.
pub fn percent(x: f32) -> String {
    let p = x * 100.0;
    if p >= 1.0 || p == 0.0 {
        format!("{p:.0}%")
    } else {
        let digits = (-p.log10()).ceil().max(1.0) as usize;
        format!("{p:.digits$}%")
    }
}

/// A weight with three decimals, or NaN / inf as such.
fn three(w: f32) -> String {
    format!("{w:.3}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnose::VertexFinding;
    use crate::rig::Severity;

    fn finding(code: &'static str, joints: &[u16], weights: &[f32], sum: f32, n: u32) -> Finding {
        Finding {
            code,
            severity: Severity::Error,
            pointer: String::new(),
            message: "validator text".into(),
            mesh: Some(0),
            primitive: Some(0),
            vertex: Some(VertexFinding {
                vertex: 0,
                set: Some(0),
                component: Some(1),
                joints: joints.to_vec(),
                joint_nodes: joints.iter().map(|&j| Some(usize::from(j))).collect(),
                weights: weights.to_vec(),
                sum,
                n,
                threshold: 2e-7 * f64::from(n),
                dropped_weight: None,
            }),
        }
    }

    fn says(f: &Finding, drawn: f32) -> String {
        let name = |j: u16| format!("j{j}");
        let missing_joint = f.vertex.as_ref().is_some_and(|v| v.joints.iter().any(|&j| j >= 6));
        sentence(f, &Facts { joints: 6, drawn_sum: drawn, name: &name, missing_joint })
    }

    #[test]
    fn a_short_sum_says_how_far_towards_the_origin() {
        // 1 - 0.237 = 0.763 of the way: 76%.
        let f = finding("ACCESSOR_WEIGHTS_NON_NORMALIZED", &[0, 1, 0, 0], &[0.2, 0.037, 0.0, 0.0], 0.237, 2);
        assert_eq!(
            says(&f, 0.237),
            "the weights sum to 0.237: engines that keep them pull it 76% of the way to the scene's \
             origin; engines that scale weights to 1 leave it on its joints"
        );
        assert_eq!(short_label(&f), "sums to 0.237");
        // 1.6: 60% further out.
        let f = finding("ACCESSOR_WEIGHTS_NON_NORMALIZED", &[1, 0, 0, 0], &[1.6, 0.0, 0.0, 0.0], 1.6, 1);
        assert!(says(&f, 1.6).contains("push it 60% further from the scene's origin"));
        // 0.999: 0.1%.
        assert_eq!(percent(0.001), "0.1%");
        assert_eq!(percent(0.00002), "0.002%");
    }

    #[test]
    fn all_zero_weights_collapse_to_the_origin() {
        let f = finding("ACCESSOR_WEIGHTS_NON_NORMALIZED", &[0; 4], &[0.0; 4], 0.0, 0);
        assert_eq!(says(&f, 0.0), "all weights are 0: the vertex collapses to the scene's origin");
        assert_eq!(short_label(&f), "all weights 0");
    }

    #[test]
    fn when_the_validator_counts_differently_both_sums_are_said() {
        // bad-weights.glb's v15: joint 3 twice at 0.5; the validator counts 0.5, skinning 1.
        let f = finding("ACCESSOR_WEIGHTS_NON_NORMALIZED", &[3, 3, 0, 0], &[0.5, 0.5, 0.0, 0.0], 0.5, 1);
        let s = says(&f, 1.0);
        assert!(s.starts_with("the validator's sum is 0.500"), "{s}");
        assert!(s.ends_with("as stored they add to 1.000: the vertex lands where its joints put it"), "{s}");
        let f = finding("ACCESSOR_JOINTS_INDEX_DUPLICATE", &[3, 3, 0, 0], &[0.5, 0.5, 0.0, 0.0], 0.5, 1);
        assert_eq!(
            says(&f, 1.0),
            "j3 is listed twice (0.500 and 0.500): skinning adds both, the validator counts only the first"
        );
    }

    #[test]
    fn per_slot_rules_name_the_joint_and_weight() {
        let f = finding("ACCESSOR_WEIGHTS_NEGATIVE", &[2, 3, 0, 0], &[1.25, -0.25, 0.0, 0.0], 1.25, 1);
        assert!(says(&f, 1.0).starts_with("j3 has a negative weight, -0.250"));
        let f = finding("ACCESSOR_JOINTS_INDEX_OOB", &[3, 7, 0, 0], &[0.5, 0.5, 0.0, 0.0], 0.5, 1);
        assert!(
            says(&f, 0.5).starts_with("joint 7 does not exist (the skin has 6 joints): its weight 0.500")
        );
        // Its sum without joint 7 is 0.5; engines that scale by the sum count joint 7 too.
        let f = finding("ACCESSOR_WEIGHTS_NON_NORMALIZED", &[3, 7, 0, 0], &[0.5, 0.5, 0.0, 0.0], 0.5, 1);
        assert!(says(&f, 0.5).ends_with(
            "pull it 50% of the way to the scene's origin, and so do engines that scale weights to 1 \
             (they count the missing joint)"
        ));
        let mut f = finding("ACCESSOR_INVALID_FLOAT", &[2, 3, 0, 0], &[f32::NAN, 0.5, 0.0, 0.0], 0.5, 1);
        if let Some(v) = &mut f.vertex {
            v.component = Some(0);
        }
        assert!(says(&f, 0.5).starts_with("the weight on j2 is NaN (not a number)"));
        assert_eq!(short_label(&f), "NaN weight");
    }
}
