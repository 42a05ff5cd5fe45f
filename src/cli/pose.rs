//! `rigscope pose FILE [--clip C | --rest] [--time T]... [--node NAME|N]... [--local]
//! [--no-positions] [--json]`.

use super::args::PoseArgs;
use super::output::{self, Failure};
use crate::report::pose::{PoseOptions, evaluate, write_text};
use crate::rig::Rig;

/// Default sampling: this many evenly spaced times from 0 to the duration, inclusive.
const DEFAULT_TIMES: usize = 11;

pub fn run(args: &PoseArgs) -> Result<u8, Failure> {
    let rig = super::load_rig(&args.file)?;
    let clip = if args.rest { None } else { super::pick_clip(&rig, args.clip.as_deref())? };
    if let Some(bad) = args.times.iter().find(|t| !t.is_finite()) {
        return Err(Failure::input(format!(
            "{}: --time must be a finite number of seconds, not {bad}",
            rig.source
        )));
    }
    let nodes = if args.nodes.is_empty() {
        None
    } else {
        let mut picked = Vec::new();
        for key in &args.nodes {
            picked.extend(pick_nodes(&rig, key)?);
        }
        Some(picked)
    };
    let times = if args.rest {
        vec![0.0]
    } else if args.times.is_empty() {
        let duration = clip.and_then(|c| rig.clips.get(c)).map_or(0.0, |c| c.duration);
        (0..DEFAULT_TIMES).map(|i| duration * i as f32 / (DEFAULT_TIMES - 1) as f32).collect()
    } else {
        args.times.clone()
    };
    super::clamp::warn_times(&rig, clip, &times);
    let options = PoseOptions { nodes, local: args.local, no_positions: args.no_positions };
    let doc = evaluate(&rig, clip, &times, &options);
    output::with_stdout(|out| {
        if args.json { output::write_json_compact(&doc, out) } else { write_text(&rig, &doc, out) }
    })?;
    Ok(0)
}

/// `--node KEY`: every node named KEY, else node number KEY (`#N` is always a number, for
/// files whose node names are themselves numbers).
fn pick_nodes(rig: &Rig, key: &str) -> Result<Vec<usize>, Failure> {
    let named: Vec<usize> =
        (0..rig.nodes.len()).filter(|&n| rig.nodes[n].name.as_deref() == Some(key)).collect();
    if !named.is_empty() {
        return Ok(named);
    }
    let number = key.strip_prefix('#').unwrap_or(key);
    if let Some(n) = number.parse::<usize>().ok().filter(|&n| n < rig.nodes.len()) {
        return Ok(vec![n]);
    }
    let nearest = rig
        .nodes
        .iter()
        .filter_map(|n| n.name.as_deref())
        .map(|name| (super::edit_distance(&name.to_lowercase(), &key.to_lowercase()), name))
        .min();
    let hint = match nearest {
        Some((d, name)) if d <= 2 || name.eq_ignore_ascii_case(key) => format!("; did you mean '{name}'?"),
        _ => String::new(),
    };
    let range = match rig.nodes.len() {
        0 => "the file has no nodes".to_string(),
        n => format!("nodes are numbered 0 to {}; `rigscope inspect FILE --json` lists them", n - 1),
    };
    Err(Failure::input(format!("{}: no node named or numbered '{key}' ({range}){hint}", rig.source)))
}
