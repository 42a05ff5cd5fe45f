//! clap derive definitions: the whole command line in one place.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use clap_complete::engine::{ArgValueCandidates, ArgValueCompleter};

use crate::anim::Engine;

/// See what a glTF 2.0 rig's skeleton, skin and animations do, in any terminal.
///
/// With no subcommand, opens FILE (or the bundled walker sample) in the viewer.
#[derive(Debug, Parser)]
#[command(name = "rigscope", version, args_conflicts_with_subcommands = true, after_help = engines_help())]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub open: OpenArgs,
}

/// What bare `rigscope [FILE]` takes: the viewer's start-up state.
#[derive(Debug, Args)]
pub struct OpenArgs {
    /// A .gltf, .glb or .vrm file (default: the bundled walker sample).
    pub file: Option<PathBuf>,
    /// Clip to start on, by name or index (`#N`: always index N); `all` plays every clip of
    /// FILE together (the clip list's last entry when FILE has several).
    #[arg(long, allow_negative_numbers = true, add = ArgValueCompleter::new(super::complete::clip_names))]
    pub clip: Option<String>,
    /// Start at this time (seconds).
    #[arg(long, value_name = "T", default_value_t = 0.0, allow_negative_numbers = true)]
    pub time: f32,
    /// Start paused.
    #[arg(long)]
    pub paused: bool,
    /// Seconds per frame for `,` `.` and timeline clicks, as a fraction or a decimal
    /// (`1/30`, `0.04`); by default each clip's own, from its keys.
    #[arg(long, value_name = "SECONDS", value_parser = parse_step)]
    pub step: Option<f64>,
    /// How the viewport draws (default: braille; ascii on the Linux console, TERM=linux,
    /// whose font has no braille).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Frames per second while playing (1 to 120).
    #[arg(long, default_value_t = 30, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=120))]
    pub fps: u32,
    /// Leave the mouse to the terminal, so that text can be selected and copied as usual
    /// (no clicking, scrubbing or orbiting with the mouse).
    #[arg(long)]
    pub no_mouse: bool,
    /// Colours: fewer send fewer bytes on a slow link (`D` cycles them in the viewer).
    #[arg(long, value_enum, default_value_t = ViewerColorArg::Auto)]
    pub color: ViewerColorArg,
    /// Draw another version of the rig as a ghost over FILE (joints and clips matched by
    /// name, as `rigscope diff` matches them).
    #[arg(long, value_name = "B")]
    pub compare: Option<PathBuf>,
    /// Do not watch FILE (and its buffers) for changes; by default the viewer reloads it
    /// when it is saved, keeping the clip, time, camera and selection.
    #[arg(long)]
    pub no_watch: bool,
    /// Draw with the weights this engine draws instead of the stored ones (profiles listed
    /// by `rigscope help`; `p`/`P` cycle them in the viewer).
    #[arg(long, value_name = "NAME", default_value = "stored", value_parser = parse_engine)]
    pub engine: Engine,
    #[command(flatten)]
    pub springs: SpringArgs,
    #[command(flatten)]
    pub anim: AnimArgs,
}

/// `--anim LIB` and how its clips bind: shared by every command that plays clips.
#[derive(Debug, Clone, Default, Args)]
pub struct AnimArgs {
    /// Add every clip of LIB (a .gltf, .glb or .vrma: a Mixamo export, an animation library)
    /// to the clip list as `NAME (LIB)`, bound to FILE's nodes by name exactly as three.js's
    /// AnimationMixer binds them (a .vrma on a .vrm avatar: through its humanoid bones, as
    /// three-vrm plays it); repeat for several. Without --clip, the first LIB clip
    /// plays; `--clip NAME` finds LIB's clips first.
    #[arg(long = "anim", value_name = "LIB")]
    pub anims: Vec<PathBuf>,
    #[command(flatten)]
    pub binding: BindArgs,
}

/// `--springs` and `--dt`: VRM spring bones stepped from the clip's start, shared by every
/// command that poses at a time.
#[derive(Debug, Clone, Copy, Args)]
pub struct SpringArgs {
    /// Simulate the VRM avatar's spring bones as three-vrm 3.5.5 steps them, from the start of
    /// the clip to the asked time in steps of --dt (the time reached is the nearest whole
    /// number of steps).
    #[arg(long)]
    pub springs: bool,
    /// The spring step in seconds, a number or a fraction (`1/60`, the default).
    #[arg(long, value_name = "SECONDS", default_value = "1/60", value_parser = parse_dt, requires = "springs")]
    pub dt: f64,
}

impl Default for SpringArgs {
    fn default() -> Self {
        Self { springs: false, dt: crate::vrm::DEFAULT_DT }
    }
}

/// `--look-at`: where a VRM avatar's eyes look, shared by every command that poses at a time.
#[derive(Debug, Clone, Copy, Default, Args)]
pub struct LookAtArgs {
    /// Aim a VRM avatar's gaze (its lookAt: eye bones or look expressions) at a point X,Y,Z
    /// in world space, or at `camera` (the render camera's eye), as three-vrm 3.5.5's
    /// VRMLookAt aims at a target; it replaces a .vrma's lookAt track.
    #[arg(long = "look-at", value_name = "X,Y,Z|camera", value_parser = parse_look_at, allow_negative_numbers = true)]
    pub look_at: Option<crate::vrm::Aim>,
}

/// `camera`, or three finite numbers separated by commas.
fn parse_look_at(text: &str) -> Result<crate::vrm::Aim, String> {
    if text.trim().eq_ignore_ascii_case("camera") {
        return Ok(crate::vrm::Aim::Camera);
    }
    let numbers: Vec<f64> = text.split(',').filter_map(|x| x.trim().parse::<f64>().ok()).collect();
    match numbers[..] {
        [x, y, z] if text.split(',').count() == 3 && numbers.iter().all(|v| v.is_finite()) => {
            Ok(crate::vrm::Aim::Point([x, y, z]))
        }
        _ => Err(format!(
            "'{text}' is neither `camera` nor a point X,Y,Z of three finite numbers (e.g. 0,1.6,2)"
        )),
    }
}

/// A positive, finite step in seconds: `0.0167` or `1/60`.
fn parse_dt(text: &str) -> Result<f64, String> {
    let value = match text.split_once('/') {
        Some((a, b)) => {
            let (a, b) = (a.trim().parse::<f64>(), b.trim().parse::<f64>());
            match (a, b) {
                (Ok(a), Ok(b)) => a / b,
                _ => f64::NAN,
            }
        }
        None => text.trim().parse::<f64>().unwrap_or(f64::NAN),
    };
    if value.is_finite() && value > 0.0 && value <= 1.0 {
        Ok(value)
    } else {
        Err(format!("'{text}' is not a step between 0 and 1 second (e.g. 1/60 or 0.02)"))
    }
}

/// How another file's clips bind to the character: shared by `--anim` and `fit`.
#[derive(Debug, Clone, Default, Args)]
pub struct BindArgs {
    /// How clips from another file find their nodes: `exact` is three.js's rule (equal names
    /// after GLTFLoader's sanitising); `loose` also binds names that differ by a namespace
    /// prefix (mixamorig:, mixamorig1:, Armature|), by case, or by `_ . :` and space separators.
    #[arg(long = "bind", value_enum, default_value_t = BindArg::Exact, value_name = "RULES")]
    pub bind: BindArg,
    /// A name map: `SOURCE TARGET` a line (tab-separated when names hold spaces), `#` starts
    /// a comment; tried before every other rule.
    #[arg(long, value_name = "FILE")]
    pub map: Option<PathBuf>,
    /// Keep the clip's motion instead of its raw values: each bone's change from a reference
    /// pose, seen from the body (so rigs facing other ways agree), and the hips' travel scaled
    /// by the hips heights. `--retarget` alone measures from the bind pose (the inverse bind
    /// matrices); `--retarget=rest` from the nodes' rest.
    #[arg(long, value_enum, value_name = "POSE", num_args = 0..=1, require_equals = true, default_missing_value = "bind")]
    pub retarget: Option<RetargetArg>,
}

/// `--bind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum BindArg {
    /// three.js's binding: equal names after GLTFLoader's sanitising and de-duplication.
    #[default]
    Exact,
    /// Exact first, then without namespace prefixes, case, and separators.
    Loose,
}

/// `--retarget`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RetargetArg {
    /// From the pose the mesh was bound in (the inverse bind matrices).
    Bind,
    /// From the nodes' own rest transforms.
    Rest,
}

/// The viewer's colour depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ViewerColorArg {
    /// 24-bit when COLORTERM says the terminal has it, else 256; 16 on the Linux console
    /// (TERM=linux); none when NO_COLOR is set.
    Auto,
    /// 24-bit colour.
    Truecolor,
    /// The xterm 256-colour palette.
    #[value(name = "256")]
    Ansi256,
    /// The 16 system colours.
    #[value(name = "16")]
    Ansi16,
    /// No colour.
    None,
}

/// Character-cell render modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    /// 2x4 braille dots per cell.
    Braille,
    /// Two colour pixels per cell (upper and lower half blocks).
    Halfblock,
    /// A luminance ramp of ASCII characters.
    Ascii,
}

/// When to colour output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorArg {
    /// Colour when stdout is a terminal and NO_COLOR is not set.
    Auto,
    /// Never colour.
    Never,
    /// Always colour (24-bit).
    Always,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Summarise an asset: scenes, nodes, skins, mesh primitives, clips and joint trees.
    Inspect(InspectArgs),
    /// Evaluate a clip at chosen times: every node's world matrix and every primitive's
    /// deformed world-space positions.
    Pose(PoseArgs),
    /// Print one viewport frame as text (deterministic: same arguments, same bytes).
    Render(RenderArgs),
    /// Check skin weights and skins with the Khronos validator's rules and rigscope's own;
    /// exit 1 when there are errors (or, with --deny-warnings, warnings).
    Check(CheckArgs),
    /// Write a copy whose skin weights pass the Khronos validator's rules (.glb or .gltf by
    /// OUT's extension); everything else in the file keeps its meaning.
    Normalize(NormalizeArgs),
    /// Time the viewer's per-frame pipeline headless over N frames of the first clip:
    /// per-stage median and p99, vertices/s, frames/s and bytes sent per frame.
    Bench(BenchArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell or elvish).
    ///
    /// Made from these very definitions, so it always matches the binary; for example
    /// `rigscope completions bash > ~/.local/share/bash-completion/completions/rigscope`.
    /// With --dynamic, the script asks rigscope itself at each completion, which also offers
    /// check codes for --ignore and the file's clip names for --clip; it is what
    /// `COMPLETE=bash rigscope` prints, best sourced anew by the shell's startup file
    /// (`source <(COMPLETE=bash rigscope)`) so that it always matches the binary.
    Completions(CompletionsArgs),
    /// Print the manual page as roff; with COMMAND, that command's page.
    ///
    /// For example `rigscope man | man -l -`, or `rigscope man pose | man -l -`.
    Man(ManArgs),
    /// Compare two versions of a rig: joints, skins, rest pose, clips (sampled) and weights;
    /// exit 0 when equal within --tol, 1 when different, 2 on bad input.
    Diff(DiffArgs),
    /// Record a clip as the viewer draws it: an asciicast v2 file (.cast, for asciinema and
    /// its web player) or an animated GIF (.gif), by OUT's extension. Deterministic: the
    /// same arguments write the same bytes.
    Record(RecordArgs),
    /// Explain how clips from other files fit a character: which tracks bind and how, which
    /// bind to nothing (as three.js warns), joints no clip moves, rest pose and scale
    /// differences, root motion; exit 0 fits, 1 problems, 2 bad input.
    Fit(FitArgs),
    /// Write one file with the character and clips of other files on its nodes, bound as
    /// `--anim` binds them (so it plays in an engine as it plays here); exit 0 written, 1
    /// written with tracks dropped, 2 nothing written.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The character (.gltf, .glb or .vrm), written unchanged with the clips added.
    pub character: PathBuf,
    /// Files whose clips to add (.gltf, .glb or .vrma: a Mixamo export, an animation library).
    #[arg(required = true, value_name = "LIB")]
    pub libs: Vec<PathBuf>,
    /// Where to write: a .glb (one self-contained file), or a .gltf (with one .bin beside it).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Only the library clips of this name; repeat for several (default: every clip of every
    /// LIB).
    #[arg(long = "clip", value_name = "NAME")]
    pub clips: Vec<String>,
    /// Take the hips' travel across the ground out of every clip, keeping their height and
    /// every rotation (the report gives the travel, for root-motion playback).
    #[arg(long)]
    pub in_place: bool,
    /// Replace OUT if it exists (never an input, or a file an input reads).
    #[arg(long)]
    pub force: bool,
    /// Print the versioned JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub binding: BindArgs,
}

#[derive(Debug, Args)]
pub struct FitArgs {
    /// The character (.gltf, .glb or .vrm).
    pub character: PathBuf,
    /// Files whose clips are to play on it (.gltf, .glb or .vrma).
    #[arg(required = true, value_name = "LIB")]
    pub libs: Vec<PathBuf>,
    /// Print the versioned JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also list every clip's tracks (bound by a rule or the map, bound to nothing), the
    /// rest-pose table and every unanimated joint; by default what repeats across clips is
    /// said once.
    #[arg(long, conflicts_with = "json")]
    pub tracks: bool,
    #[command(flatten)]
    pub binding: BindArgs,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
    /// Print the script that asks rigscope at each completion (check codes, clip names).
    #[arg(long)]
    pub dynamic: bool,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// A command whose own page to print (default: the page of rigscope itself).
    pub command: Option<String>,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old version (.gltf, .glb or .vrm).
    pub a: PathBuf,
    /// The new version (.gltf, .glb or .vrm).
    pub b: PathBuf,
    /// Differences at or below this are no change (file units, radians, seconds, weights).
    #[arg(long, value_name = "TOL", default_value_t = crate::diff::DEFAULT_TOLERANCE, allow_negative_numbers = true)]
    pub tol: f32,
    /// Print the versioned JSON document instead of text (schema in docs/commands.md).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub anim: AnimArgs,
}

#[derive(Debug, Args)]
pub struct RecordArgs {
    /// A .gltf, .glb or .vrm file.
    pub file: PathBuf,
    /// Where to write the recording: a .cast or .gif path.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Clip name or index, `#N` always an index (default: the first clip; with no clips,
    /// one frame of the rest pose). `all`: every clip of FILE together, each
    /// channel from its own clip (a target in several takes the later clip's).
    #[arg(long, allow_negative_numbers = true, add = ArgValueCompleter::new(super::complete::clip_names))]
    pub clip: Option<String>,
    /// Start at this clip time (seconds).
    #[arg(long, value_name = "T", default_value_t = 0.0, allow_negative_numbers = true)]
    pub from: f32,
    /// End at this clip time, not included (default: the clip's end).
    #[arg(long, value_name = "T", allow_negative_numbers = true)]
    pub to: Option<f32>,
    /// Frames per second (1 to 60).
    #[arg(long, default_value_t = 15, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=60))]
    pub fps: u32,
    /// Viewport size in character cells, COLSxROWS (a GIF has 2x4 pixels per cell in
    /// braille, 1x2 in halfblock, 1x2 in ascii, times --scale).
    #[arg(long, default_value = "80x24", value_parser = parse_size)]
    pub size: (u16, u16),
    #[arg(long, value_enum, default_value_t = ModeArg::Braille)]
    pub mode: ModeArg,
    /// Camera yaw in degrees around the up axis (0 looks down -Z from the front).
    #[arg(long, default_value_t = 25.0, allow_negative_numbers = true)]
    pub yaw: f32,
    /// Camera pitch in degrees, -90..90 (positive looks down from above).
    #[arg(long, default_value_t = 10.0, allow_negative_numbers = true)]
    pub pitch: f32,
    /// Zoom factor (2 = twice as close as the framing distance).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub zoom: f32,
    /// Leave the skeleton out (the viewer draws it over the mesh by default).
    #[arg(long)]
    pub no_bones: bool,
    /// .cast only: colours from the 256-colour palette instead of 24-bit.
    #[arg(long, conflicts_with = "no_color")]
    pub ansi256: bool,
    /// .cast only: no colour at all.
    #[arg(long)]
    pub no_color: bool,
    /// .gif only: pixels per dot, 1 to 8.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(1..=8))]
    pub scale: u8,
    /// Replace OUT if it exists.
    #[arg(long)]
    pub force: bool,
    /// Skin with the weights this engine draws instead of the stored ones (profiles listed
    /// by `rigscope help`).
    #[arg(long, value_name = "NAME", default_value = "stored", value_parser = parse_engine)]
    pub engine: Engine,
    #[command(flatten)]
    pub springs: SpringArgs,
    #[command(flatten)]
    pub look_at: LookAtArgs,
    #[command(flatten)]
    pub anim: AnimArgs,
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// A .gltf, .glb or .vrm file.
    pub file: PathBuf,
    /// Frames to time (after one warm-up frame).
    #[arg(long, default_value_t = 300, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub frames: u32,
    /// Screen size in character cells, COLSxROWS.
    #[arg(long, default_value = "200x60", value_parser = parse_size)]
    pub size: (u16, u16),
    /// Print the versioned JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// Measure with the 256-colour palette instead of 24-bit colour.
    #[arg(long)]
    pub ansi256: bool,
    #[command(flatten)]
    pub anim: AnimArgs,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// .gltf, .glb, .vrm or .vrma files, or folders searched recursively for them.
    #[arg(required_unless_present = "explain", value_name = "FILE|DIR")]
    pub files: Vec<PathBuf>,
    /// Explain a finding code instead of checking: what it means, why it matters, what each
    /// engine does with it and what `normalize` changes. Without CODE, list the codes.
    #[arg(long, value_name = "CODE", num_args = 0..=1, default_missing_value = "", conflicts_with_all = ["files", "json", "format"])]
    pub explain: Option<String>,
    /// Print every finding as versioned JSON (schema in docs/commands.md).
    #[arg(long)]
    pub json: bool,
    /// Findings listed per code and file, vertices and joints alike, the worst first; the
    /// rest are counted ("... and 12 more"). `all` lists every one. Default: 10 in text, 1000
    /// in the other formats.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_max)]
    pub max: Option<Listed>,
    /// Codes to leave out, comma-separated (for example RIG_JOINT_UNUSED,RIG_JOINT_FEW_VERTICES).
    #[arg(long, value_delimiter = ',', value_name = "CODE,...", add = ArgValueCandidates::new(super::complete::check_codes))]
    pub ignore: Vec<String>,
    /// Exit 1 on warnings too.
    #[arg(long)]
    pub deny_warnings: bool,
    /// Output format (default text; --json is --format json).
    #[arg(long, value_enum)]
    pub format: Option<CheckFormat>,
}

/// `check --max`: how many findings of each code to list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    All,
    AtMost(usize),
}

impl Listed {
    /// The cap `Report::listed` takes.
    pub fn cap(self) -> Option<usize> {
        match self {
            Listed::All => None,
            Listed::AtMost(n) => Some(n),
        }
    }
}

fn parse_max(s: &str) -> Result<Listed, String> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Ok(Listed::All);
    }
    s.trim().parse::<usize>().map(Listed::AtMost).map_err(|_| format!("'{s}' is not a count or `all`"))
}

/// `check --format`: for people, scripts, code scanning, CI test reports or GitHub annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// Findings per file, then a summary.
    Text,
    /// The versioned JSON document (schema in docs/commands.md).
    Json,
    /// SARIF 2.1.0, for code scanning.
    Sarif,
    /// JUnit XML, one test case per file.
    Junit,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

#[derive(Debug, Args)]
pub struct InspectArgs {
    /// A .gltf, .glb or .vrm file.
    pub file: PathBuf,
    /// Every buffer, accessor, mesh, animation and texture with its size (by default: the
    /// total of each kind and its largest items). The JSON always has every one.
    #[arg(long)]
    pub sizes: bool,
    /// Print the versioned JSON document instead of text (schema in docs/commands.md).
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct PoseArgs {
    /// A .gltf, .glb or .vrm file.
    pub file: PathBuf,
    /// Clip name or index, `#N` always an index (default: the first clip; with no clips,
    /// the rest pose). `all`: every clip of FILE together, each
    /// channel from its own clip (a target in several takes the later clip's).
    #[arg(long, allow_negative_numbers = true, add = ArgValueCompleter::new(super::complete::clip_names))]
    pub clip: Option<String>,
    /// Time in seconds; repeat for several (default: 11 evenly spaced times over the clip).
    /// A time outside the clip shows its nearer end, with a note on stderr.
    /// Read as f64 so the JSON echoes each time exactly as asked; sampled in f32.
    #[arg(long = "time", value_name = "T", allow_negative_numbers = true)]
    pub times: Vec<f64>,
    /// Print the versioned JSON document instead of text (schema in docs/commands.md).
    #[arg(long)]
    pub json: bool,
    /// Only this node (and its mesh), by name or index (`#N`: always index N); repeat for
    /// several. A name selects every node so named.
    #[arg(long = "node", value_name = "NAME|N", allow_negative_numbers = true)]
    pub nodes: Vec<String>,
    /// Add each node's local translation, rotation and scale.
    #[arg(long)]
    pub local: bool,
    /// Leave out the deformed positions (matrices only).
    #[arg(long)]
    pub no_positions: bool,
    /// The rest pose (every node as the file gives it), once, instead of a clip.
    #[arg(long, conflicts_with_all = ["clip", "times"])]
    pub rest: bool,
    /// Skin with the weights this engine draws instead of the stored ones (profiles listed
    /// by `rigscope help`).
    #[arg(long, value_name = "NAME", default_value = "stored", value_parser = parse_engine)]
    pub engine: Engine,
    #[command(flatten)]
    pub springs: SpringArgs,
    #[command(flatten)]
    pub look_at: LookAtArgs,
    #[command(flatten)]
    pub anim: AnimArgs,
}

#[derive(Debug, Args)]
pub struct RenderArgs {
    /// A .gltf, .glb or .vrm file.
    pub file: PathBuf,
    /// Clip name or index, `#N` always an index (default: the first clip; with no clips,
    /// the rest pose). `all`: every clip of FILE together, each
    /// channel from its own clip (a target in several takes the later clip's).
    #[arg(long, allow_negative_numbers = true, add = ArgValueCompleter::new(super::complete::clip_names))]
    pub clip: Option<String>,
    /// Time in seconds.
    #[arg(long, value_name = "T", default_value_t = 0.0, allow_negative_numbers = true)]
    pub time: f32,
    /// Frame size in character cells, COLSxROWS.
    #[arg(long, default_value = "120x40", value_parser = parse_size)]
    pub size: (u16, u16),
    #[arg(long, value_enum, default_value_t = ModeArg::Braille)]
    pub mode: ModeArg,
    /// Camera yaw in degrees around the up axis (0 looks down -Z from the front; the
    /// default is the viewer's opening view).
    #[arg(long, default_value_t = crate::render::OPENING_YAW_DEGREES, allow_negative_numbers = true)]
    pub yaw: f32,
    /// Camera pitch in degrees, -90..90 (positive looks down from above; the default is the
    /// viewer's opening view).
    #[arg(long, default_value_t = crate::render::OPENING_PITCH_DEGREES, allow_negative_numbers = true)]
    pub pitch: f32,
    /// Zoom factor (2 = twice as close as the framing distance).
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub zoom: f32,
    /// Draw the skeleton over the mesh (a file with no mesh to draw shows its skeleton
    /// without it).
    #[arg(long)]
    pub bones: bool,
    #[arg(long, value_enum, default_value_t = ColorArg::Auto)]
    pub color: ColorArg,
    /// The rest pose (every node as the file gives it) instead of a clip.
    #[arg(long, conflicts_with_all = ["clip", "time"])]
    pub rest: bool,
    /// Skin with the weights this engine draws instead of the stored ones (profiles listed
    /// by `rigscope help`).
    #[arg(long, value_name = "NAME", default_value = "stored", value_parser = parse_engine)]
    pub engine: Engine,
    #[command(flatten)]
    pub springs: SpringArgs,
    #[command(flatten)]
    pub look_at: LookAtArgs,
    #[command(flatten)]
    pub anim: AnimArgs,
}

#[derive(Debug, Args)]
pub struct NormalizeArgs {
    /// A .gltf, .glb or .vrm file (never written to).
    pub file: PathBuf,
    /// Where to write the repaired copy: a .glb or .gltf path.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Keep at most N influences per vertex (the smallest go, the rest renormalise).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(u16).range(1..))]
    pub max_influences: Option<u16>,
    /// Drop weights below BELOW (0 to 1; never a vertex's largest), then renormalise.
    #[arg(long, value_name = "BELOW", allow_negative_numbers = true)]
    pub prune: Option<f32>,
    /// Replace OUT if it exists.
    #[arg(long)]
    pub force: bool,
}

/// `--engine NAME`: a profile's name (or alias), else the list of names.
fn parse_engine(s: &str) -> Result<Engine, String> {
    Engine::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Engine::ALL.iter().map(|e| e.name()).collect();
        format!("no engine profile named '{s}'; the profiles are {}", names.join(", "))
    })
}

/// The after-help of `rigscope help`: every engine profile `--engine` takes.
fn engines_help() -> String {
    let mut text =
        String::from("Engine profiles (pose, render and record --engine NAME; check measures every one):\n");
    let width = Engine::ALL.iter().map(|e| e.name().len()).max().unwrap_or(0);
    for e in Engine::ALL {
        text.push_str(&format!("  {:<width$}  {}: {}\n", e.name(), e.label(), e.summary()));
    }
    text.push_str(
        "What a finding code means and what each engine does with it: rigscope check --explain CODE",
    );
    text
}

/// `1/30` or `0.0333` -> seconds per frame, above 0 and at most 10 s.
fn parse_step(s: &str) -> Result<f64, String> {
    let value = match s.split_once('/') {
        Some((n, d)) => match (n.trim().parse::<f64>(), d.trim().parse::<f64>()) {
            (Ok(n), Ok(d)) if d != 0.0 => n / d,
            _ => return Err(format!("'{s}' is not a fraction of seconds (for example 1/30)")),
        },
        None => {
            s.trim().parse::<f64>().map_err(|_| format!("'{s}' is not seconds (for example 1/30 or 0.04)"))?
        }
    };
    if value.is_finite() && value > 0.0 && value <= 10.0 {
        Ok(value)
    } else {
        Err(format!("'{s}': a frame must be longer than 0 s and at most 10 s"))
    }
}

/// `120x40` -> (120, 40), each between 8 and 1000.
fn parse_size(s: &str) -> Result<(u16, u16), String> {
    let (w, h) =
        s.split_once(['x', 'X']).ok_or_else(|| format!("'{s}' is not COLSxROWS (for example 120x40)"))?;
    let parse = |v: &str| v.trim().parse::<u16>().ok().filter(|n| (8..=1000).contains(n));
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok((w, h)),
        _ => Err(format!("'{s}': columns and rows must be whole numbers from 8 to 1000")),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn steps_read_as_fractions_or_decimals() {
        assert_eq!(super::parse_step("1/30"), Ok(1.0 / 30.0));
        assert_eq!(super::parse_step(" 1 / 24 "), Ok(1.0 / 24.0));
        assert_eq!(super::parse_step("0.04"), Ok(0.04));
        for bad in ["1/0", "0", "-1/30", "x", "30/1", "nan"] {
            assert!(super::parse_step(bad).is_err(), "{bad}");
        }
    }
}
