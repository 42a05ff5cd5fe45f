//! `rigscope fit CHARACTER LIB... [--json | --tracks]`: exit 0 fits (notes allowed), 1 problems,
//! 2 bad input.

use super::args::{AnimArgs, FitArgs};
use super::output::{self, Failure};
use crate::attach::fit::fit;
use crate::attach::fit_text::{TextOptions, write_text};

pub fn run(args: &FitArgs) -> Result<u8, Failure> {
    let character = super::load_rig(&args.character)?;
    let anim = AnimArgs { anims: args.libs.clone(), binding: args.binding.clone() };
    let set = super::anim_set(&anim)?;
    let mut libs = Vec::new();
    for (path, label) in set.files.iter().zip(crate::attach::file_labels(&set.files)) {
        libs.push((label, super::load_rig(path)?));
    }
    let mut report = fit(&character, &libs, &set.options);
    if let Some(map) = &set.options.map {
        let mut used = crate::attach::map_use::MapUse::new(map);
        for (_, lib) in &libs {
            used.see(map, lib);
        }
        report.map_lines = used.warnings(map, &character);
    }
    super::warn_anims(&report.map_lines);
    super::warn_anims(&report.libraries.iter().flat_map(|l| l.warnings.iter().cloned()).collect::<Vec<_>>());
    if args.json {
        output::with_stdout(|out| output::write_json(&report, out))?;
    } else {
        output::with_text_stdout(|out| write_text(&report, TextOptions { tracks: args.tracks }, out))?;
    }
    Ok(if report.problems > 0 { 1 } else { 0 })
}
