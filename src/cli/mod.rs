//! Command line: clap definitions, one small handler per subcommand, and exit-code policy.
//!
//! Exit codes: 0 success; 1 the command ran but found problems (`check`); 2 bad input or
//! usage, with `rigscope: error: FILE: what is wrong` on stderr. A closed pipe exits 0 quietly.

mod args;
mod bench;
mod check;
mod clamp;
mod complete;
mod diff;
mod fit;
mod generate;
mod histogram;
mod inspect;
mod merge;
mod normalize;
mod normalize_left;
mod output;
mod pose;
mod record;
mod render;
mod term;

use std::path::Path;
use std::process::ExitCode;

use clap::Parser;

pub use args::{Cli, Command};
pub use output::Failure;

use crate::rig::Rig;

/// The bundled sample, embedded so that bare `rigscope` works from any directory.
pub const BUNDLED_SAMPLE: &[u8] = include_bytes!("../../samples/walker.glb");
pub const BUNDLED_SAMPLE_NAME: &str = "walker.glb (bundled sample)";

/// Parses arguments, runs, and maps the outcome to an exit code.
pub fn main() -> ExitCode {
    {
        use clap::CommandFactory;
        // `COMPLETE=bash rigscope -- rigscope ...`: answer the shell and exit; otherwise a no-op.
        clap_complete::CompleteEnv::with_factory(Cli::command).complete();
    }
    if let Some(failure) = mistyped_command(std::env::args_os().nth(1)) {
        eprintln!("rigscope: error: {}", failure.message);
        return ExitCode::from(failure.code);
    }
    if let Some(note) = crate::simd_env_note() {
        eprintln!("rigscope: note: {note}");
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout with exit 0 and usage errors with exit 2;
            // the latter get the prefix every other rigscope error has, for scripts.
            if e.use_stderr() {
                eprint!("rigscope: ");
            }
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    match on_pool(move || run(cli)) {
        Ok(code) => ExitCode::from(code),
        Err(failure) => {
            // The message may quote the file's own names.
            eprintln!("rigscope: error: {}", crate::report::printable(&failure.message));
            ExitCode::from(failure.code)
        }
    }
}

/// Run `f` on a worker of rayon's pool rather than beside it. A parallel stage started from
/// outside the pool hands its work over and sleeps until a worker wakes it; started from a
/// worker, that worker does its share and only the other one has to wake. On a small VM
/// each wake-up takes tens of microseconds, paid by every parallel stage of every frame.
/// The worker gets the main thread's usual 8 MiB stack. Should the pool not start, `f`
/// runs here.
pub fn on_pool<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new().stack_size(8 << 20).build() {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// Runs one parsed command line; returns the exit code for a run that completed.
pub fn run(cli: Cli) -> Result<u8, Failure> {
    match cli.command {
        Some(Command::Inspect(a)) => inspect::run(&a),
        Some(Command::Pose(a)) => pose::run(&a),
        Some(Command::Render(a)) => render::run(&a),
        Some(Command::Check(a)) => check::run(&a),
        Some(Command::Normalize(a)) => normalize::run(&a),
        Some(Command::Bench(a)) => bench::run(&a),
        Some(Command::Completions(a)) => generate::completions(&a),
        Some(Command::Man(a)) => generate::man(&a),
        Some(Command::Diff(a)) => diff::run(&a),
        Some(Command::Record(a)) => record::run(&a),
        Some(Command::Fit(a)) => fit::run(&a),
        Some(Command::Merge(a)) => merge::run(&a),
        None => open_viewer(&cli.open),
    }
}

/// `rigscope inpsect x.glb` would otherwise try to open a file named `inpsect`: a first word
/// that is not a command, not a file and looks like neither gets a "did you mean".
fn mistyped_command(first: Option<std::ffi::OsString>) -> Option<Failure> {
    use clap::CommandFactory;
    let word = first?.into_string().ok()?;
    let looks_like_path = word.starts_with('-') || word.contains(['.', '/', '\\']);
    if looks_like_path || Path::new(&word).exists() {
        return None;
    }
    let mut commands: Vec<String> =
        Cli::command().get_subcommands().map(|c| c.get_name().to_string()).collect();
    // clap adds `help` only when it builds the parser, so the list above lacks it.
    commands.push("help".to_string());
    if commands.contains(&word) {
        return None;
    }
    let nearest = commands.iter().min_by_key(|c| edit_distance(c, &word))?;
    let hint = if edit_distance(nearest, &word) <= 2 {
        format!(" (did you mean '{nearest}'?)")
    } else {
        String::new()
    };
    Some(Failure::input(format!(
        "'{word}' is neither a command nor a file{hint}; commands: {}",
        commands.join(", ")
    )))
}

/// Levenshtein distance, for command suggestions.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// Bare `rigscope [FILE]`: the full-screen viewer.
fn open_viewer(args: &args::OpenArgs) -> Result<u8, Failure> {
    // The file and the options are checked first, so that what is wrong with them is
    // reported whatever stdout is; `tui::run` then refuses a stdout that is not a terminal.
    let mut rig = load_or_bundled(args.file.as_deref())?;
    add_anims(&mut rig, &args.anim)?;
    let clip = match args.clip.as_deref() {
        // The viewer's own `all` entry, which it adds after its checks (`tui::App::new`).
        Some(k) if rig.plays_all(k) => Some(rig.clips.len()),
        k => pick_clip(&rig, k)?,
    };
    if !args.time.is_finite() {
        return Err(Failure::input(format!("{}: --time must be a finite number of seconds", rig.source)));
    }
    let term = std::env::var("TERM").ok();
    if let Some(why) = term::refusal(term.as_deref()) {
        return Err(Failure::input(why));
    }
    let defaults = term::defaults(term.as_deref(), std::env::var("COLORTERM").ok().as_deref());
    // Printed before the alternate screen opens, so it is on the terminal after quitting.
    clamp::warn_times(&rig, clip, &[args.time]);
    let launch = crate::tui::Launch {
        clip,
        time: args.time,
        paused: args.paused,
        // What the user asks for wins over what TERM suggests.
        mode: args.mode.map_or(defaults.mode, glyph_mode),
        fps: args.fps,
        // The ghost gets the --anim clips too, so a library clip plays on both (as `diff`).
        compare: args.compare.as_deref().map(|b| load_rig_with(b, &args.anim)).transpose()?,
        color: match args.color {
            args::ViewerColorArg::Auto if std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) => {
                defaults.color
            }
            args::ViewerColorArg::Auto | args::ViewerColorArg::None => crate::render::ColorDepth::None,
            args::ViewerColorArg::Truecolor => crate::render::ColorDepth::TrueColor,
            args::ViewerColorArg::Ansi256 => crate::render::ColorDepth::Ansi256,
            args::ViewerColorArg::Ansi16 => crate::render::ColorDepth::Ansi16,
        },
        mouse: !args.no_mouse,
        watch: if args.no_watch { None } else { args.file.clone() },
        step: args.step,
        anims: if args.anim.anims.is_empty() { None } else { Some(anim_set(&args.anim)?) },
        file: args.file.clone(),
        engine: args.engine,
        spring_dt: spring_step(&rig, &args.springs, &[])?,
    };
    let source = rig.source.clone();
    match crate::tui::run(rig, &launch).map_err(|e| Failure::input(format!("{source}: {e}")))? {
        // Ended by a signal: exit as shells report it (143 for SIGTERM, 129 for SIGHUP, 130 for
        // Ctrl-C).
        Some(sig) => Ok((128 + sig).clamp(0, 255) as u8),
        None => Ok(0),
    }
}

pub fn glyph_mode(m: args::ModeArg) -> crate::render::GlyphMode {
    match m {
        args::ModeArg::Braille => crate::render::GlyphMode::Braille,
        args::ModeArg::Halfblock => crate::render::GlyphMode::HalfBlock,
        args::ModeArg::Ascii => crate::render::GlyphMode::Ascii,
    }
}

/// The colour depth the terminal in the environment suggests (`TERM`, `COLORTERM`).
pub fn terminal_color_depth() -> crate::render::ColorDepth {
    let var = |k: &str| std::env::var(k).ok();
    term::defaults(var("TERM").as_deref(), var("COLORTERM").as_deref()).color
}

/// Loads a rig from a path, mapping the loader's error to an exit-2 failure.
pub fn load_rig(path: &Path) -> Result<Rig, Failure> {
    crate::import::load(path).map_err(|e| Failure::input(e.to_string()))
}

/// Refuses `--engine E` for a file that engine would not load at all (Blender on a joint index
/// out of range): drawing it "as E draws it" would show what no user of E ever sees.
pub fn engine_loads(rig: &Rig, engine: crate::anim::Engine) -> Result<(), Failure> {
    match engine.refusal(rig) {
        Some(why) => Err(Failure::input(format!(
            "{}: {} would not import this file: {why}",
            rig.source,
            engine.label()
        ))),
        None => Ok(()),
    }
}

/// The spring step `--springs` asks for (none without it), with a note on stderr when the
/// file has no spring bones or a time is not a whole number of steps; a time past
/// `MAX_SPRING_STEPS` steps is refused.
pub fn spring_step(rig: &Rig, args: &args::SpringArgs, times: &[f64]) -> Result<Option<f64>, Failure> {
    if !args.springs {
        return Ok(None);
    }
    let dt = args.dt;
    if rig.vrm.as_ref().is_none_or(|v| v.springs.is_empty()) {
        eprintln!(
            "rigscope: note: {}: no spring bones three-vrm would load; --springs changes nothing",
            rig.source
        );
        return Ok(None);
    }
    for &t in times {
        let steps = crate::vrm::step_count(t, dt);
        if steps > MAX_SPRING_STEPS {
            return Err(Failure::input(format!(
                "{}: --time {t} is {steps} spring steps of {dt:.6} s; at most {MAX_SPRING_STEPS} are simulated (use a larger --dt or an earlier time)",
                rig.source
            )));
        }
        let reached = steps as f64 * dt;
        if (reached - t).abs() > 1e-9 * t.abs().max(1.0) {
            eprintln!(
                "rigscope: note: --time {t}: {steps} steps of {dt:.6} s reach {reached:.6} s, which is shown"
            );
        }
    }
    Ok(Some(dt))
}

/// `--look-at`, kept only when the avatar can aim its gaze; otherwise a note says why and
/// the frames are posed as without it.
pub fn look_at_aim(rig: &Rig, args: &args::LookAtArgs) -> Option<crate::vrm::Aim> {
    let aim = args.look_at?;
    match crate::vrm::LookAtTarget::new(rig, glam::DVec3::ZERO) {
        Ok(target) => {
            if target.turns_nothing() {
                eprintln!(
                    "rigscope: note: {}: --look-at: the avatar's lookAt turns eye bones, but it maps none; the gaze moves nothing",
                    rig.source
                );
            }
            Some(aim)
        }
        Err(why) => {
            eprintln!("rigscope: note: {}: --look-at: {why}", rig.source);
            None
        }
    }
}

/// The most spring steps one time may take: an hour at 60 steps a second.
const MAX_SPRING_STEPS: usize = 216_000;

/// The `--anim` files and binding options, with the `--map` file read and parsed.
pub fn anim_set(args: &args::AnimArgs) -> Result<crate::attach::AnimSet, Failure> {
    let map = match &args.binding.map {
        None => None,
        Some(path) => {
            let shown = path.display();
            let bytes = crate::import::read_regular(path, u64::MAX)
                .map_err(|e| Failure::input(format!("{shown}: cannot read the name map: {e}")))?;
            let text = String::from_utf8(bytes)
                .map_err(|e| Failure::input(format!("{shown}: the name map is not UTF-8 text: {e}")))?;
            let mut map =
                crate::attach::NameMap::parse(&text).map_err(|e| Failure::input(format!("{shown}: {e}")))?;
            map.file = shown.to_string();
            Some(map)
        }
    };
    let options = crate::attach::BindOptions {
        mode: match args.binding.bind {
            args::BindArg::Exact => crate::attach::BindMode::Exact,
            args::BindArg::Loose => crate::attach::BindMode::Loose,
        },
        map,
        retarget: args.binding.retarget.map(|r| match r {
            args::RetargetArg::Bind => crate::attach::body::ReferencePose::Bind,
            args::RetargetArg::Rest => crate::attach::body::ReferencePose::Rest,
        }),
    };
    // `--retarget` takes its pose only after `=`, so that `--retarget LIB` reads LIB as a
    // file; a missing file named like a pose is that flag written with a space.
    if let Some(pose) = args.anims.iter().find(|p| !p.exists() && matches!(p.to_str(), Some("bind" | "rest")))
    {
        let pose = pose.display();
        return Err(Failure::input(format!(
            "{pose}: no such file; to retarget from the {pose} pose write --retarget={pose}"
        )));
    }
    Ok(crate::attach::AnimSet { files: args.anims.clone(), options })
}

/// Loads a rig and binds the `--anim` files' clips onto it.
pub fn load_rig_with(path: &Path, anim: &args::AnimArgs) -> Result<Rig, Failure> {
    let mut rig = load_rig(path)?;
    add_anims(&mut rig, anim)?;
    Ok(rig)
}

/// `load_rig_with` for each of `paths`, saying each distinct `--anim` warning once (the same
/// LIB bound to two rigs warns alike).
pub fn load_rigs_with(paths: &[&Path], anim: &args::AnimArgs) -> Result<Vec<Rig>, Failure> {
    let mut rigs = Vec::new();
    let mut said: Vec<String> = Vec::new();
    for path in paths {
        let mut rig = load_rig(path)?;
        bind_anims(&mut rig, anim)?;
        let new: Vec<String> = rig.anim_warnings.iter().filter(|w| !said.contains(w)).cloned().collect();
        warn_anims(&new);
        said.extend(new);
        rigs.push(rig);
    }
    Ok(rigs)
}

/// Binds the `--anim` files' clips onto `rig`.
pub fn add_anims(rig: &mut Rig, anim: &args::AnimArgs) -> Result<(), Failure> {
    bind_anims(rig, anim)?;
    warn_anims(&rig.anim_warnings);
    Ok(())
}

/// `add_anims` without saying its warnings (they stay in `rig.anim_warnings`).
fn bind_anims(rig: &mut Rig, anim: &args::AnimArgs) -> Result<(), Failure> {
    if anim.anims.is_empty() && anim.binding.map.is_none() && anim.binding.retarget.is_none() {
        return Ok(());
    }
    if anim.anims.is_empty() {
        return Err(Failure::input(format!(
            "{}: --map and --retarget apply to --anim files; none given",
            rig.source
        )));
    }
    crate::attach::load_with_anims(rig, &anim_set(anim)?).map_err(|e| Failure::input(e.to_string()))
}

/// Every `--anim` warning on stderr, one a line, before any output (the viewer's go to its
/// status bar as well, and stay on the terminal after it closes).
pub fn warn_anims(warnings: &[String]) {
    for w in warnings {
        eprintln!("rigscope: warning: {w}");
    }
}

/// Loads `path`, or the embedded sample when no path is given.
pub fn load_or_bundled(path: Option<&Path>) -> Result<Rig, Failure> {
    match path {
        Some(p) => load_rig(p),
        None => crate::import::load_bytes(BUNDLED_SAMPLE, BUNDLED_SAMPLE_NAME, None)
            .map_err(|e| Failure::input(e.to_string())),
    }
}

/// Resolves `--clip` as `pick_clip` does, and `--clip all` (every clip of the file at once,
/// `Rig::all_clips`) by adding the combined clip to `rig`.
pub fn pick_clip_or_all(rig: &mut Rig, key: Option<&str>) -> Result<Option<usize>, Failure> {
    match key.and_then(|k| rig.add_all_clips(k)) {
        Some(all) => Ok(Some(all)),
        None => pick_clip(rig, key),
    }
}

/// Resolves `--clip NAME|INDEX` (default: the first clip of the first `--anim` file, which
/// is what the user came to see, else the first clip, or none when there is none).
pub fn pick_clip(rig: &Rig, key: Option<&str>) -> Result<Option<usize>, Failure> {
    match key {
        None => {
            Ok(rig.attached.first().map(|a| a.clip).or(if rig.clips.is_empty() { None } else { Some(0) }))
        }
        Some(k) => rig.find_clip(k).map(Some).ok_or_else(|| Failure::input(unknown_clip(rig, k))),
    }
}

/// At most this many clips are listed after an unknown `--clip`.
const CLIPS_LISTED: usize = 60;

/// Why `--clip KEY` finds nothing: several clips match past their prefix, or none does, then
/// with the nearest name ("did you mean") and the clips one a line.
fn unknown_clip(rig: &Rig, key: &str) -> String {
    let label = |i: usize| format!("{i}: {}", rig.clip_label(i));
    let several = rig.clips_past_prefix(key);
    if several.len() > 1 {
        let lines: Vec<String> = several.iter().map(|&i| format!("  {}", label(i))).collect();
        return format!(
            "{}: '{key}' names {} clips past their prefix; give one by its full name or #N:\n{}",
            rig.source,
            several.len(),
            lines.join("\n")
        );
    }
    if rig.clips.is_empty() {
        return format!("{}: no clip named or numbered '{key}' (the file has no clips)", rig.source);
    }
    let wanted = crate::rig::unprefixed_clip_name(key).to_lowercase();
    // A clip from another file is suggested by its bare name, as `--clip` takes it.
    let mut bare_names: Vec<String> = (0..rig.clips.len()).map(|i| rig.clip_label(i)).collect();
    for a in &rig.attached {
        if let Some(name) = bare_names.get_mut(a.clip) {
            name.clone_from(&a.name);
        }
    }
    let nearest = bare_names
        .into_iter()
        .map(|bare| (edit_distance(&crate::rig::unprefixed_clip_name(&bare).to_lowercase(), &wanted), bare))
        .min_by_key(|(d, _)| *d)
        .filter(|(d, bare)| *d <= (wanted.chars().count() / 3).max(2) && !bare.is_empty());
    let hint = nearest.map_or(String::new(), |(_, bare)| format!(" (did you mean '{bare}'?)"));
    let mut lines: Vec<String> =
        (0..rig.clips.len().min(CLIPS_LISTED)).map(|i| format!("  {}", label(i))).collect();
    if rig.clips.len() > CLIPS_LISTED {
        lines
            .push(format!("  and {} more (rigscope inspect lists them all)", rig.clips.len() - CLIPS_LISTED));
    }
    format!("{}: no clip named or numbered '{key}'{hint}; the clips are:\n{}", rig.source, lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("inspect", "inspect"), 0);
        assert_eq!(edit_distance("inspect", "inpsect"), 2);
        assert_eq!(edit_distance("pose", "poses"), 1);
        assert_eq!(edit_distance("check", "chk"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn a_mistyped_command_is_named_with_a_suggestion() {
        let f = mistyped_command(Some("inpsect".into())).expect("refused");
        assert_eq!(f.code, 2);
        assert!(f.message.contains("did you mean 'inspect'"), "{}", f.message);
        assert!(mistyped_command(Some("inspect".into())).is_none());
        // clap's own `help` command is a command too.
        assert!(mistyped_command(Some("help".into())).is_none());
        assert!(mistyped_command(Some("walker.glb".into())).is_none());
        assert!(mistyped_command(Some("--help".into())).is_none());
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
