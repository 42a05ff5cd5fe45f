//! `rigscope merge CHARACTER LIB... -o OUT`: exit 0 written, 1 written with tracks dropped
//! (or a library without clips), 2 nothing written.

use super::args::{AnimArgs, MergeArgs};
use super::output::{self, Failure};
use crate::merge::{Options, Request, run as merge, write_text};

pub fn run(args: &MergeArgs) -> Result<u8, Failure> {
    let anim = AnimArgs { anims: args.libs.clone(), binding: args.binding.clone() };
    let set = super::anim_set(&anim)?;
    let request = Request {
        character: args.character.clone(),
        libraries: set.files,
        output: args.output.clone(),
        force: args.force,
        options: Options { binding: set.options, clips: args.clips.clone(), in_place: args.in_place },
        other_inputs: args.binding.map.iter().cloned().collect(),
    };
    let report = merge(&request).map_err(Failure::input)?;
    output::with_stdout(
        |out| if args.json { output::write_json(&report, out) } else { write_text(&report, out) },
    )?;
    Ok(if report.has_problems() { 1 } else { 0 })
}
