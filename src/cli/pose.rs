//! `rigscope pose FILE [--clip C | --rest] [--time T]... [--node NAME|N]... [--local]
//! [--no-positions] [--json]`.

use super::args::PoseArgs;
use super::output::{self, Failure};
use crate::report::pose::{PoseOptions, evaluate, write_text};
use crate::rig::Rig;

/// Default sampling: this many evenly spaced times from 0 to the duration, inclusive.
const DEFAULT_TIMES: usize = 11;

pub fn run(args: &PoseArgs) -> Result<u8, Failure> {
    let mut rig = super::load_rig_with(&args.file, &args.anim)?;
    let clip = if args.rest { None } else { super::pick_clip_or_all(&mut rig, args.clip.as_deref())? };
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
        default_times(duration).into_iter().map(as_written).collect()
    } else {
        args.times.clone()
    };
    let sampled: Vec<f32> = times.iter().map(|&t| t as f32).collect();
    super::clamp::warn_times(&rig, clip, &sampled);
    super::engine_loads(&rig, args.engine)?;
    let spring_dt = super::spring_step(&rig, &args.springs, &times)?;
    let options = PoseOptions {
        nodes,
        local: args.local,
        no_positions: args.no_positions,
        engine: args.engine,
        spring_dt,
        look_at: super::look_at_aim(&rig, &args.look_at),
    };
    let doc = evaluate(&rig, clip, &times, &options);
    if args.json {
        output::with_stdout(|out| output::write_json_compact(&doc, out))?;
    } else {
        output::with_text_stdout(|out| write_text(&rig, &doc, out))?;
    }
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

/// A time rigscope chose in f32, as the f64 of the decimal it prints as (`0.1`, not
/// `0.10000000149011612`): the number a user reads in the output and can ask for again.
fn as_written(t: f32) -> f64 {
    t.to_string().parse().unwrap_or(f64::from(t))
}

/// `DEFAULT_TIMES` evenly spaced times from 0 to `duration`, the last exactly `duration`.
/// In f64: `duration * 10 / 10` in f32 can land a rounding step past the end.
fn default_times(duration: f32) -> Vec<f32> {
    let step = |i: usize| (f64::from(duration) * i as f64 / (DEFAULT_TIMES - 1) as f64) as f32;
    (0..DEFAULT_TIMES).map(|i| step(i).min(duration)).collect()
}

#[cfg(test)]
mod tests {
    use super::{as_written, default_times};

    #[test]
    fn default_times_end_on_the_duration_and_never_pass_it() {
        // Fox's Survey after gltfpack: 3.4333334 * 10 / 10 is 3.4333336 in f32.
        for d in [3.4333334f32, 1.0, 0.0, 2.0833333, 1.7083334, 5.5] {
            let times = default_times(d);
            assert_eq!(times.len(), 11);
            assert_eq!(times[10], d);
            assert!(times.iter().all(|&t| t <= d) && times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
        }
    }

    #[test]
    fn chosen_times_are_written_as_their_f32_decimal() {
        assert_eq!(as_written(0.1), 0.1);
        assert_eq!(as_written(23.986_668), 23.986668);
        assert_eq!(as_written(1.0), 1.0);
    }
}
