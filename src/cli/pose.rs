//! `rigscope pose FILE [--clip C] [--time T]... [--json]`.

use super::args::PoseArgs;
use super::output::{self, Failure};
use crate::report::pose::{evaluate, write_text};

/// Default sampling: this many evenly spaced times from 0 to the duration, inclusive.
const DEFAULT_TIMES: usize = 11;

pub fn run(args: &PoseArgs) -> Result<u8, Failure> {
    let rig = super::load_rig(&args.file)?;
    let clip = super::pick_clip(&rig, args.clip.as_deref())?;
    if let Some(bad) = args.times.iter().find(|t| !t.is_finite()) {
        return Err(Failure::input(format!(
            "{}: --time must be a finite number of seconds, not {bad}",
            rig.source
        )));
    }
    let times = if args.times.is_empty() {
        let duration = clip.and_then(|c| rig.clips.get(c)).map_or(0.0, |c| c.duration);
        (0..DEFAULT_TIMES).map(|i| duration * i as f32 / (DEFAULT_TIMES - 1) as f32).collect()
    } else {
        args.times.clone()
    };
    let doc = evaluate(&rig, clip, &times);
    output::with_stdout(|out| {
        if args.json { output::write_json_compact(&doc, out) } else { write_text(&rig, &doc, out) }
    })?;
    Ok(0)
}
