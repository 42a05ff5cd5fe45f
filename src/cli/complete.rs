//! Completions that ask the binary: `COMPLETE=bash rigscope` (or `rigscope completions bash
//! --dynamic`) registers a shell function that runs rigscope for each completion, so values
//! only the program knows are offered: check codes for `--ignore`, the clip names of the
//! file already on the command line for `--clip`. Built on clap_complete's `CompleteEnv`
//! (feature `unstable-dynamic`).

use std::ffi::OsStr;
use std::path::Path;

use clap_complete::engine::CompletionCandidate;

/// Every code `check` can report, with its severity as the help text.
pub fn check_codes() -> Vec<CompletionCandidate> {
    crate::diagnose::codes::ALL
        .iter()
        .map(|c| CompletionCandidate::new(c.id).help(Some(format!("{:?}", c.severity).to_lowercase().into())))
        .collect()
}

/// The clips of the first .gltf/.glb file on the command line being completed, those whose
/// name starts with what is typed. The engine hands a completer only the value being typed,
/// so the file is found in the words the shell passed after `--`. A file that does not load
/// offers nothing (a completion must never print an error into the user's command line).
pub fn clip_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let words: Vec<std::ffi::OsString> = std::env::args_os().skip_while(|a| a != "--").collect();
    let Some(file) = words.iter().map(Path::new).find(|p| is_rig(p) && p.is_file()) else {
        return Vec::new();
    };
    let Ok(rig) = crate::import::load(file) else { return Vec::new() };
    let typed = current.to_string_lossy();
    (0..rig.clips.len())
        .filter_map(|i| {
            let c = &rig.clips[i];
            // An unnamed clip is completed by its index, as `--clip #N` takes it.
            let value = c.name.clone().filter(|n| !n.is_empty()).unwrap_or_else(|| format!("#{i}"));
            let help = format!("{:.3} s, {} channels", c.duration, c.channels.len());
            value.starts_with(typed.as_ref()).then(|| CompletionCandidate::new(value).help(Some(help.into())))
        })
        .collect()
}

fn is_rig(p: &Path) -> bool {
    p.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("glb") || e.eq_ignore_ascii_case("gltf"))
}

/// The shell code that registers the asking completion for `shell`.
pub fn registration(shell: clap_complete::Shell, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    use clap_complete::env::{Bash, Elvish, EnvCompleter, Fish, Powershell, Zsh};
    let completer: &dyn EnvCompleter = match shell {
        clap_complete::Shell::Bash => &Bash,
        clap_complete::Shell::Zsh => &Zsh,
        clap_complete::Shell::Fish => &Fish,
        clap_complete::Shell::PowerShell => &Powershell,
        clap_complete::Shell::Elvish => &Elvish,
        _ => return Err(std::io::Error::other(format!("no asking completion for {shell}"))),
    };
    completer.write_registration("COMPLETE", "rigscope", "rigscope", "rigscope", out)
}
