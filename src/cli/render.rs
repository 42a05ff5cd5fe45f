//! `rigscope render FILE ...`: one viewport frame as text, deterministic for scripts and
//! golden tests.

use std::io::IsTerminal;

use super::args::{ColorArg, RenderArgs};
use super::output::{self, Failure};
use crate::anim::Workspace;
use crate::render::{
    ColorDepth, Grid, Raster, SceneOptions, SceneScratch, draw_scene, framed_camera, glyphs_for, pack,
    strip_color, write_ansi,
};

pub fn run(args: &RenderArgs) -> Result<u8, Failure> {
    let mut rig = super::load_rig_with(&args.file, &args.anim)?;
    let clip = if args.rest { None } else { super::pick_clip_or_all(&mut rig, args.clip.as_deref())? };
    if !args.time.is_finite() {
        return Err(Failure::input(format!("{}: --time must be a finite number of seconds", rig.source)));
    }
    if !(args.zoom.is_finite() && args.zoom > 0.0) {
        return Err(Failure::input(format!(
            "{}: --zoom must be a positive number, not {}",
            rig.source, args.zoom
        )));
    }
    if !(args.yaw.is_finite() && args.pitch.is_finite()) {
        return Err(Failure::input(format!("{}: --yaw and --pitch must be finite degrees", rig.source)));
    }
    // Past straight down (or up) the view would turn upside down.
    if args.pitch.abs() > 90.0 {
        return Err(Failure::input(format!(
            "{}: --pitch must be within -90..90 degrees, not {}",
            rig.source, args.pitch
        )));
    }
    super::clamp::warn_times(&rig, clip, &[args.time]);
    super::engine_loads(&rig, args.engine)?;
    let clip_data = clip.and_then(|c| rig.clips.get(c));
    let mut ws = Workspace::at(&rig, clip_data, args.time);
    ws.set_engine(&rig, args.engine);
    let spring_dt = super::spring_step(&rig, &args.springs, &[f64::from(args.time)])?;
    if let Some(dt) = spring_dt {
        crate::vrm::evaluate(&rig, clip_data, f64::from(args.time), dt, &mut ws);
    }
    let camera = framed_camera(&ws, args.yaw.to_radians(), args.pitch.to_radians(), args.zoom);
    // The camera is framed before the gaze moves, so that `camera` names an eye the gaze
    // does not itself shift.
    if let Some(aim) = super::look_at_aim(&rig, &args.look_at)
        && let Ok(target) = crate::vrm::LookAtTarget::new(&rig, aim.point(camera.eye()))
    {
        crate::vrm::sample_aimed(&rig, clip_data, f64::from(args.time), spring_dt, &target, &mut ws);
        ws.update_matrices(&rig);
        ws.skin(&rig);
    }
    let mode = super::glyph_mode(args.mode);
    let (cols, rows) = (args.size.0 as usize, args.size.1 as usize);
    let mut raster = Raster::for_grid(cols, rows, mode);
    let skin = if rig.skins.is_empty() { None } else { Some(0) };
    // With nothing to draw but nodes (a .vrma, a clip library) the skeleton is the picture,
    // as in the viewer; over a mesh it stays opt-in.
    let bones = args.bones || ws.primitives.is_empty();
    let opts = SceneOptions { bones, skin, ..SceneOptions::default() };
    draw_scene(&mut raster, &camera, &rig, &ws, None, &opts, &mut SceneScratch::default());
    let depth = match args.color {
        ColorArg::Never => ColorDepth::None,
        ColorArg::Always => ColorDepth::TrueColor,
        ColorArg::Auto => {
            if std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) {
                super::terminal_color_depth()
            } else {
                ColorDepth::None
            }
        }
    };
    let mut grid = Grid::new(cols, rows);
    pack(&raster, glyphs_for(mode, depth), &mut grid);
    if depth == ColorDepth::None {
        strip_color(&mut grid);
    }
    let mut text = String::new();
    write_ansi(&grid, depth, &mut text);
    output::with_stdout(|out| out.write_all(text.as_bytes()))?;
    Ok(0)
}
