//! `rigscope fit CHARACTER LIB... [--json]`: exit 0 fits, 1 problems, 2 bad input.

use super::args::{AnimArgs, FitArgs};
use super::output::{self, Failure};
use crate::attach::fit::{fit, write_text};

pub fn run(args: &FitArgs) -> Result<u8, Failure> {
    let character = super::load_rig(&args.character)?;
    let anim = AnimArgs { anims: args.libs.clone(), binding: args.binding.clone() };
    let set = super::anim_set(&anim)?;
    let mut libs = Vec::new();
    for path in &set.files {
        libs.push((crate::attach::file_label(path), super::load_rig(path)?));
    }
    let report = fit(&character, &libs, &set.options);
    if args.json {
        output::with_stdout(|out| output::write_json(&report, out))?;
    } else {
        output::with_text_stdout(|out| write_text(&report, out))?;
    }
    Ok(if report.problems > 0 { 1 } else { 0 })
}
