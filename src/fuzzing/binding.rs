//! The `anim_bind` and `map` targets: a fuzzed library bound onto the walker as `--anim`
//! binds it, in every bind mode and through a map; and a fuzzed map file parsed and used.
//! `play_bound` and `fit_in_words` are shared with the `retarget` and `vrm` targets.

use super::samples;
use super::tame::tame;
use crate::anim::{Workspace, crosscheck};
use crate::attach::bind::{bind_nodes, threejs_clips};
use crate::attach::fit::fit;
use crate::attach::fit_text::{TextOptions, write_text};
use crate::attach::map_use::MapUse;
use crate::attach::names::threejs_names;
use crate::attach::{BindMode, BindOptions, NameMap, attach};
use crate::rig::{BindHow, Rig};
use crate::{import, vrm};

/// The label every fuzzed file is bound under.
const LABEL: &str = "fuzz-input";

/// Binds the fuzzed library onto the walker exactly, loosely, and through a map that sends
/// each of its nodes to some walker node, each with the fit report `fit` would print.
pub fn anim_bind(data: &[u8]) {
    let Ok(lib) = import::load_bytes(data, LABEL, None) else { return };
    let character = samples::walker();
    let map = scrambled_map(&lib, character);
    for mode in [BindMode::Exact, BindMode::Loose] {
        for map in [None, Some(map.clone())] {
            // `fit` is the slow part: its report is read once per mode, the loose one through the map.
            let report = (mode == BindMode::Exact) == map.is_none();
            let options = BindOptions { mode, map, retarget: None };
            let mut bound = character.clone();
            if let Err(e) = attach(&mut bound, &lib, LABEL, &options) {
                panic!("binding without retargeting was refused: {e}");
            }
            assert_eq!(
                bound.clips.len() - character.clips.len(),
                threejs_clips(&lib).len(),
                "not every clip of the library was appended"
            );
            play_bound(&bound, character.clips.len(), tame(&lib));
            if report {
                fit_in_words(character, &lib, &options);
            }
        }
    }
}

/// A map from every named node of `lib` to a node of `character`, in turn, quoted.
fn scrambled_map(lib: &Rig, character: &Rig) -> NameMap {
    let targets: Vec<&str> = character.nodes.iter().filter_map(|n| n.name.as_deref()).collect();
    let text: String = (lib.nodes.iter().filter_map(|n| n.name.as_deref()))
        .zip(targets.iter().cycle())
        .map(|(from, to)| format!("{} {}\n", quoted(from), quoted(to)))
        .collect();
    match NameMap::parse(&text) {
        Ok(map) => map,
        Err(e) => panic!("a map of quoted names does not parse: {e}"),
    }
}

/// A name as a map file quotes it: in double quotes, `"` and `\` escaped.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Plays every clip of `rig` from index `from` on: the fast and the general paths agree at
/// odd times; with `--springs`' stepping no panic; and, when `ordinary` (the bound input's
/// numbers are), every world matrix and skinned position is finite.
pub(super) fn play_bound(rig: &Rig, from: usize, ordinary: bool) {
    for clip in rig.clips.get(from..).unwrap_or_default() {
        for ch in &clip.channels {
            assert!(
                ch.node < rig.nodes.len(),
                "a bound channel drives node {} of {}",
                ch.node,
                rig.nodes.len()
            );
        }
        let d = clip.duration;
        for t in [f32::NAN, 0.0, d / 2.0, 1e30] {
            if let Err(e) = crosscheck(rig, Some(clip), t) {
                panic!("fast and general paths differ on a bound clip: {e}");
            }
        }
        let mut ws = Workspace::new(rig);
        for t in [0.0, d.min(1.0) / 2.0] {
            vrm::evaluate(rig, Some(clip), f64::from(t), vrm::DEFAULT_DT, &mut ws);
            if !ordinary {
                continue;
            }
            for (n, m) in ws.globals.iter().enumerate() {
                assert!(m.is_finite(), "t={t}: node {n}'s world matrix is not finite: {m}");
            }
            for p in &ws.primitives {
                assert!(
                    p.positions.iter().all(|v| v.is_finite()),
                    "t={t}: mesh {} is skinned to non-finite",
                    p.mesh
                );
            }
        }
    }
}

/// `fit`'s report of `lib` on `character`, in text and JSON: neither panics, and the text
/// names no number it could not compute when no name holds such a word.
pub(super) fn fit_in_words(
    character: &Rig,
    lib: &Rig,
    options: &BindOptions,
) -> crate::attach::fit::FitReport {
    let report = fit(character, &[(LABEL.to_string(), lib.clone())], options);
    let mut text = Vec::new();
    if let Err(e) = write_text(&report, TextOptions { tracks: true }, &mut text) {
        panic!("fit's text cannot be written: {e}");
    }
    if let Err(e) = serde_json::to_vec(&report) {
        panic!("fit's report cannot be written as JSON: {e}");
    }
    let text = String::from_utf8_lossy(&text);
    let named = |rig: &Rig| {
        let names = (rig.nodes.iter().filter_map(|n| n.name.as_deref()))
            .chain(rig.clips.iter().filter_map(|c| c.name.as_deref()));
        names.map(str::to_ascii_lowercase).any(|n| n.contains("nan") || n.contains("inf"))
    };
    if !named(character) && !named(lib) {
        let mut words = text.split(|c: char| !c.is_ascii_alphanumeric()).map(str::to_ascii_lowercase);
        let shown = words.find(|w| matches!(w.as_str(), "nan" | "inf" | "infinity"));
        assert!(shown.is_none(), "fit's text shows a number it could not compute ({shown:?}):\n{text}");
    }
    report
}

/// Parses the fuzzed text as a `--map` file; when it parses, its own accounting holds, its
/// lines written quoted parse back to the same names, and binding the walker's clips onto
/// the walker through it binds by the map only where the map says so.
pub fn map(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(map) = NameMap::parse(&text) else { return };
    for line in &map.lines {
        let first = map.lines.iter().find(|l| l.from == line.from).map(|l| &l.to);
        assert_eq!(map.pairs.get(&line.from), first, "line {}: the map keeps another target", line.line);
    }
    let conflicts = (map.lines.iter().enumerate())
        .filter(|(i, l)| map.lines[..*i].iter().find(|e| e.from == l.from).is_some_and(|e| e.to != l.to))
        .count();
    assert_eq!(map.conflicts.len(), conflicts, "conflicting lines miscounted");

    let written: String =
        map.lines.iter().map(|l| format!("{} {}\n", quoted(&l.from), quoted(&l.to))).collect();
    let again = match NameMap::parse(&written) {
        Ok(again) => again,
        Err(e) => panic!("the map written quoted does not parse: {e}\n{written}"),
    };
    let names = |m: &NameMap| m.lines.iter().map(|l| (l.from.clone(), l.to.clone())).collect::<Vec<_>>();
    assert_eq!(names(&again), names(&map), "the map written quoted reads differently");

    let walker = samples::walker();
    let options = BindOptions { map: Some(map.clone()), ..BindOptions::default() };
    let binding = bind_nodes(walker, walker, &options);
    let stored = |n: usize| walker.nodes[n].name.clone();
    let threejs = threejs_names(walker);
    for (source, bound) in binding.iter().enumerate() {
        let Some((target, BindHow::Map)) = bound else { continue };
        let wanted = [stored(source), threejs[source].clone()]
            .into_iter()
            .flatten()
            .find_map(|name| map.pairs.get(&name).cloned());
        let Some(wanted) = wanted else {
            panic!("node {source} is bound by the map, which does not name it");
        };
        let names = [stored(*target), threejs[*target].clone()];
        assert!(
            names.iter().flatten().any(|n| *n == wanted),
            "node {source} is bound to {names:?}, the map says {wanted}"
        );
    }
    let mut used = MapUse::new(&map);
    used.see(&map, walker);
    let warnings = used.warnings(&map, walker);
    assert!(warnings.len() >= map.conflicts.len(), "a conflicting line goes unsaid");
    let walker_names: Vec<&str> = (walker.nodes.iter().filter_map(|n| n.name.as_deref()))
        .chain(threejs.iter().flatten().map(String::as_str))
        .collect();
    for line in map.lines.iter().filter(|l| !walker_names.contains(&l.from.as_str())) {
        let said = format!("line {}: no node of the --anim files is named", line.line);
        assert!(
            warnings.iter().any(|w| w.contains(&said)),
            "line {} binds nothing and goes unsaid",
            line.line
        );
    }
    let mut bound = walker.clone();
    if let Err(e) = attach(&mut bound, walker, LABEL, &options) {
        panic!("binding through a map was refused: {e}");
    }
    play_bound(&bound, walker.clips.len(), true);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_names_read_back_whatever_they_hold() {
        let names = ["Left Arm #2", "a\"b", "back\\slash", "", "tab\there", " edge "];
        let text: String = names.iter().map(|n| format!("{} {}\n", quoted(n), quoted("x"))).collect();
        let map = NameMap::parse(&text).unwrap();
        let from: Vec<&str> = map.lines.iter().map(|l| l.from.as_str()).collect();
        assert_eq!(from, names);
    }
}
