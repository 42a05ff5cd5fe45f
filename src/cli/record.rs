//! `rigscope record FILE -o OUT`: checks the options, renders the frames through
//! `record`, and writes OUT the way `normalize` does (never over FILE, over an existing OUT
//! only with `--force`, through a temporary file renamed into place).

use super::args::RecordArgs;
use super::normalize::{check_output, write_atomically};
use super::output::Failure;
use crate::render::{ColorDepth, SceneOptions};

pub fn run(args: &RecordArgs) -> Result<u8, Failure> {
    let out = args.output.display();
    let ext = args.output.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    let gif = match ext.as_deref() {
        Some("gif") => true,
        Some("cast") => false,
        _ => return Err(Failure::input(format!("{out}: OUT must end in .cast (asciicast) or .gif"))),
    };
    check_output(&args.file, &[], &args.output, args.force)?;
    let mut rig = super::load_rig_with(&args.file, &args.anim)?;
    let clip_index = super::pick_clip_or_all(&mut rig, args.clip.as_deref())?;
    let clip = clip_index.and_then(|c| rig.clips.get(c));
    let src = &rig.source;
    let finite = [args.from, args.to.unwrap_or(0.0), args.yaw, args.pitch, args.zoom];
    if finite.iter().any(|v| !v.is_finite()) {
        return Err(Failure::input(format!("{src}: --from, --to, --yaw, --pitch and --zoom must be finite")));
    }
    if args.zoom <= 0.0 || args.pitch.abs() > 90.0 {
        return Err(Failure::input(format!(
            "{src}: --zoom must be positive and --pitch within -90..90 (got {} and {})",
            args.zoom, args.pitch
        )));
    }
    let end = args.to.unwrap_or(clip.map_or(0.0, |c| c.duration));
    if end < args.from {
        return Err(Failure::input(format!("{src}: --to {end} is before --from {}", args.from)));
    }
    // Past the clip the pose holds still (glTF holds the end keys): record only the clip.
    let duration = clip.map_or(0.0, |c| c.duration);
    for (flag, t) in [("--from", args.from), ("--to", end)] {
        if let Some(note) = super::clamp::flag_note(&rig, clip_index, flag, t) {
            eprintln!("rigscope: note: {}", crate::report::printable(&note));
        }
    }
    let (from, end) = if clip.is_some() {
        (args.from.clamp(0.0, duration), end.clamp(0.0, duration))
    } else {
        (args.from, end)
    };
    super::engine_loads(&rig, args.engine)?;
    // A GIF's frame is `--scale` squared times larger than its cells.
    let scale = if gif { usize::from(args.scale).pow(2) } else { 1 };
    let cells = usize::from(args.size.0) * usize::from(args.size.1) * scale;
    let spring_dt = super::spring_step(&rig, &args.springs, &[])?;
    let look_at = super::look_at_aim(&rig, &args.look_at);
    let take = crate::record::Take {
        rig: &rig,
        clip,
        cols: usize::from(args.size.0),
        rows: usize::from(args.size.1),
        mode: super::glyph_mode(args.mode),
        scene: SceneOptions {
            bones: !args.no_bones,
            skin: if rig.skins.is_empty() { None } else { Some(0) },
            ..SceneOptions::default()
        },
        yaw: args.yaw.to_radians(),
        pitch: args.pitch.to_radians(),
        zoom: args.zoom,
        times: crate::record::frame_times(from, end, args.fps, cells).map_err(|e| {
            let what = match clip_index {
                Some(c) => format!("clip '{}' ({} s long)", rig.clip_label(c), duration),
                None => "the rest pose".to_string(),
            };
            Failure::input(format!(
                "{src}: {what} from {from} s to {end} s at {} fps: {e}; record a part of it with \
                 --from and --to, or lower --fps, --size or --scale",
                args.fps
            ))
        })?,
        fps: args.fps,
        engine: args.engine,
        spring_dt,
        look_at,
    };
    let bytes = if gif {
        crate::record::gif(&take, usize::from(args.scale))
            .map_err(|e| Failure::input(format!("{out}: {e}")))?
    } else {
        let depth = if args.no_color {
            ColorDepth::None
        } else if args.ansi256 {
            ColorDepth::Ansi256
        } else {
            ColorDepth::TrueColor
        };
        let name = args.file.file_name().map_or_else(|| src.clone(), |n| n.to_string_lossy().into_owned());
        let title = match clip_index {
            Some(c) => format!("{name}: {}", rig.clip_label(c)),
            None => name,
        };
        crate::record::cast(&take, &title, depth)
    };
    write_atomically(&args.output, &bytes)?;
    // On stderr, so that nothing is mixed into a pipe; said whatever stderr is, since a
    // silent success over SSH reads like nothing happened.
    eprintln!(
        "rigscope: wrote {out}: {} frames at {} fps, {} bytes",
        take.times.len(),
        args.fps,
        bytes.len()
    );
    Ok(0)
}
