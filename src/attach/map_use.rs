//! Which `--map` lines do nothing: a source name no LIB node has, a target name no node of
//! the character's shown scene has (after the BOM and quotes are taken off, as `rules` parses
//! them), and lines that contradict an earlier one. Each is said with its line number, so a
//! typo is found where it is.

use super::names::{lookup, threejs_names};
use super::rules::NameMap;
use crate::rig::Rig;

/// Per map line, whether a LIB seen so far has a node of its source name.
#[derive(Debug, Clone)]
pub struct MapUse {
    found: Vec<bool>,
}

impl MapUse {
    pub fn new(map: &NameMap) -> MapUse {
        MapUse { found: vec![false; map.lines.len()] }
    }

    /// Marks the lines whose source `source` has, by stored name or three.js name (as
    /// `bind_nodes` looks them up).
    pub fn see(&mut self, map: &NameMap, source: &Rig) {
        let threejs = threejs_names(source);
        let names: std::collections::HashSet<&str> = (source.nodes.iter().filter_map(|n| n.name.as_deref()))
            .chain(threejs.iter().filter_map(|n| n.as_deref()))
            .collect();
        for (found, line) in self.found.iter_mut().zip(&map.lines) {
            *found |= names.contains(line.from.as_str());
        }
    }

    /// Every conflicting and unused line, in words naming the map file and the line.
    pub fn warnings(&self, map: &NameMap, character: &Rig) -> Vec<String> {
        let file = if map.file.is_empty() { "--map" } else { map.file.as_str() };
        let by_name = lookup(character, &threejs_names(character));
        let in_scene: std::collections::HashSet<&str> =
            character.scene_nodes().into_iter().filter_map(|n| character.nodes[n].name.as_deref()).collect();
        let mut out: Vec<String> = map.conflicts.iter().map(|c| format!("{file}: {c}")).collect();
        for (line, &found) in map.lines.iter().zip(&self.found) {
            if !found {
                out.push(format!(
                    "{file} line {}: no node of the --anim files is named '{}'; the line binds nothing",
                    line.line, line.from
                ));
            }
            if !by_name.contains_key(&line.to) && !in_scene.contains(line.to.as_str()) {
                out.push(format!(
                    "{file} line {}: the character has no node named '{}'; the line binds nothing",
                    line.line, line.to
                ));
            }
        }
        out
    }
}
