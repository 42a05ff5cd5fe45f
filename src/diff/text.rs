//! `diff` as text: one line per change, grouped by joints, skins, clips and meshes.

use std::fmt::Write;

use super::RigDiff;

pub fn render_text(d: &RigDiff) -> String {
    let mut s = String::new();
    let _ = write_all(d, &mut s);
    s
}

fn write_all(d: &RigDiff, s: &mut String) -> std::fmt::Result {
    writeln!(s, "a: {}", d.a)?;
    writeln!(s, "b: {}", d.b)?;
    writeln!(s, "tolerance {}", d.tolerance)?;
    if d.equal {
        return writeln!(s, "equal: no change above the tolerance");
    }
    let j = &d.joints;
    if !j.is_empty() {
        writeln!(s, "\njoints")?;
        for n in &j.added {
            writeln!(s, "  added       {n}")?;
        }
        for n in &j.removed {
            writeln!(s, "  removed     {n}")?;
        }
        for r in &j.renamed {
            writeln!(s, "  renamed     {} -> {}", r.from, r.to)?;
        }
        for r in &j.reparented {
            let name = |p: &Option<String>| p.clone().unwrap_or_else(|| "(root)".into());
            writeln!(s, "  reparented  {}: parent {} -> {}", r.joint, name(&r.from), name(&r.to))?;
        }
        for r in &j.rest {
            writeln!(
                s,
                "  rest pose   {}: translation moved {}, rotation {} deg, scale {}  ({} -> {})",
                r.joint,
                n(r.translation),
                n(r.rotation_deg),
                n(r.scale),
                v3(r.translation_a),
                v3(r.translation_b)
            )?;
        }
    }
    if !d.skins.is_empty() {
        writeln!(s, "\nskins")?;
        for n in &d.skins.added {
            writeln!(s, "  added       {n}")?;
        }
        for n in &d.skins.removed {
            writeln!(s, "  removed     {n}")?;
        }
        for c in &d.skins.changed {
            writeln!(s, "  {}", c.skin)?;
            if !c.joints_added.is_empty() {
                writeln!(s, "    joints added:   {}", c.joints_added.join(", "))?;
            }
            if !c.joints_removed.is_empty() {
                writeln!(s, "    joints removed: {}", c.joints_removed.join(", "))?;
            }
            if c.order_changed {
                writeln!(s, "    joint order changed")?;
            }
            if let Some(first) = c.inverse_bind.first() {
                writeln!(
                    s,
                    "    inverse bind matrices of {} joint(s) changed, largest element difference {} ({})",
                    c.inverse_bind.len(),
                    n(first.max_element),
                    first.joint
                )?;
                for ibm in c.inverse_bind.iter().skip(1) {
                    writeln!(s, "      {}: {}", ibm.joint, n(ibm.max_element))?;
                }
            }
        }
    }
    if !d.clips.is_empty() {
        writeln!(s, "\nclips")?;
        for n in &d.clips.added {
            writeln!(s, "  added       {n}")?;
        }
        for n in &d.clips.removed {
            writeln!(s, "  removed     {n}")?;
        }
        for r in &d.clips.renamed {
            writeln!(s, "  renamed     {} -> {}", r.from, r.to)?;
        }
        for c in &d.clips.changed {
            writeln!(s, "  {}", c.clip)?;
            if let Some([x, y]) = c.duration {
                writeln!(s, "    duration {} s -> {} s", n(x), n(y))?;
            }
            if let Some([x, y]) = c.channel_count {
                writeln!(s, "    channels {x} -> {y}")?;
            }
            for ch in &c.channels_added {
                writeln!(s, "    channel added    {ch}")?;
            }
            for ch in &c.channels_removed {
                writeln!(s, "    channel removed  {ch}")?;
            }
            for i in &c.interpolation {
                writeln!(s, "    interpolation    {}: {} -> {}", i.channel, i.a, i.b)?;
            }
            if let Some(p) = &c.position {
                writeln!(
                    s,
                    "    largest joint position difference {} at {}, t = {} s",
                    n(p.distance),
                    p.joint,
                    n(p.time)
                )?;
            }
            if let Some(r) = &c.rotation {
                writeln!(
                    s,
                    "    largest joint rotation difference {} deg at {}, t = {} s",
                    n(r.degrees),
                    r.joint,
                    n(r.time)
                )?;
            }
        }
    }
    if !d.meshes.is_empty() {
        writeln!(s, "\nmeshes (node/primitive)")?;
        for n in &d.meshes.added {
            writeln!(s, "  added       {n}")?;
        }
        for n in &d.meshes.removed {
            writeln!(s, "  removed     {n}")?;
        }
        for c in &d.meshes.changed {
            writeln!(s, "  {}", c.primitive)?;
            if let Some([x, y]) = c.topology_differs {
                writeln!(s, "    topology differs: {x} -> {y} vertices (not compared per vertex)")?;
            }
            if let Some(w) = &c.weights {
                let l = &w.largest;
                writeln!(
                    s,
                    "    weights of {} vertices changed, largest on vertex {} joint {}: {} -> {}",
                    w.vertices,
                    l.vertex,
                    l.joint,
                    n(l.a),
                    n(l.b)
                )?;
                for c in w.changes.iter().skip(1).take(9) {
                    writeln!(s, "      vertex {} joint {}: {} -> {}", c.vertex, c.joint, n(c.a), n(c.b))?;
                }
                if w.vertices > 10 {
                    writeln!(s, "      ... and {} more (all in --json, up to 1000)", w.vertices - 10)?;
                }
            }
            if let Some(p) = &c.deformed {
                let when = match (&p.clip, p.time) {
                    (Some(clip), Some(t)) => format!("{clip}, t = {} s", n(t)),
                    _ => "rest pose".to_string(),
                };
                writeln!(
                    s,
                    "    largest deformed vertex distance {} (vertex {}, {when})",
                    n(p.distance),
                    p.vertex
                )?;
            }
        }
    }
    Ok(())
}

/// A number with at most 6 decimals and no trailing zeros (`0.05`, not `0.050000004`): the
/// text is for reading; `--json` keeps every digit.
fn n(x: f32) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".to_string() } else { s.to_string() }
}

fn v3(v: [f32; 3]) -> String {
    format!("({}, {}, {})", n(v[0]), n(v[1]), n(v[2]))
}

#[cfg(test)]
mod tests {
    #[test]
    fn numbers_read_short() {
        assert_eq!(super::n(0.050000004), "0.05");
        assert_eq!(super::n(4.0), "4");
        assert_eq!(super::n(-0.0000001), "0");
        assert_eq!(super::n(0.49803922), "0.498039");
    }
}
