//! Which character node each node of a source file drives, and the source's clips rebuilt on
//! the character's node indices.
//!
//! The default is three.js's binding and nothing else (`names`): a track binds to the node
//! of the same sanitised, de-duplicated name, or to nothing. `--map` lines and, with
//! `--bind loose`, the `rules` ladder are tried only when the user asks for them; each bound
//! channel records which one bound it.

use std::collections::HashMap;

use super::names::{lookup, threejs_names};
use super::rules::{LOOSE_RULES, NameMap};
use crate::rig::{BindHow, Channel, Clip, Property, Rig};

/// How names are matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BindMode {
    /// three.js's binding: equal names after GLTFLoader's sanitising and de-duplication.
    #[default]
    Exact,
    /// Exact first, then the loose rules (namespace prefixes, case, separators).
    Loose,
}

/// Everything that decides how a source file's clips land on the character.
#[derive(Debug, Clone, Default)]
pub struct BindOptions {
    pub mode: BindMode,
    /// `--map FILE`, tried before every other rule.
    pub map: Option<NameMap>,
    /// `--retarget` (`bind`) or `--retarget=rest`: keep the source's motion measured from that
    /// reference pose (skinning.md) instead of playing raw values.
    pub retarget: Option<super::body::ReferencePose>,
}

/// Per source node: the character node it drives and how it was found.
pub type NodeBinding = Vec<Option<(usize, BindHow)>>;

/// Binds every node of `source` to a node of `character`'s shown scene.
pub fn bind_nodes(character: &Rig, source: &Rig, options: &BindOptions) -> NodeBinding {
    let target_names = threejs_names(character);
    let by_name = lookup(character, &target_names);
    let source_names = threejs_names(source);
    let in_scene = character.scene_nodes();
    let loose_keys: Vec<HashMap<String, Vec<usize>>> = if options.mode == BindMode::Loose {
        LOOSE_RULES
            .iter()
            .map(|(_, key)| {
                let mut keys: HashMap<String, Vec<usize>> = HashMap::new();
                for &n in &in_scene {
                    if let Some(name) = character.nodes[n].name.as_deref().filter(|s| !s.is_empty()) {
                        keys.entry(key(name)).or_default().push(n);
                    }
                }
                keys
            })
            .collect()
    } else {
        Vec::new()
    };
    // The first node of the scene with each name as stored, for map targets three.js renamed.
    let mut stored_names: HashMap<&str, usize> = HashMap::new();
    for &n in &in_scene {
        if let Some(name) = character.nodes[n].name.as_deref() {
            stored_names.entry(name).or_insert(n);
        }
    }
    let by_original =
        |name: &str| -> Option<usize> { by_name.get(name).or_else(|| stored_names.get(name)).copied() };

    (0..source.nodes.len())
        .map(|n| {
            let original = source.nodes[n].name.as_deref().filter(|s| !s.is_empty())?;
            let threejs = source_names[n].as_deref();
            if let Some(map) = &options.map {
                let target = map.pairs.get(original).or_else(|| threejs.and_then(|t| map.pairs.get(t)));
                if let Some(found) = target.and_then(|t| by_original(t)) {
                    return Some((found, BindHow::Map));
                }
            }
            if let Some(&found) = threejs.and_then(|t| by_name.get(t)) {
                return Some((found, BindHow::Exact));
            }
            for ((rule, key), keys) in LOOSE_RULES.iter().zip(&loose_keys) {
                match keys.get(&key(original)).map(Vec::as_slice) {
                    Some([one]) => return Some((*one, BindHow::Rule(rule))),
                    Some([_, _, ..]) => return None,
                    _ => {}
                }
            }
            None
        })
        .collect()
}

/// The clips of `source` as three.js r187's GLTFLoader reads them: core channels only
/// (`KHR_animation_pointer` needs a plugin there; `loadAnimation` skips channels without
/// `target.node`).
pub fn threejs_clips(source: &Rig) -> Vec<Clip> {
    source
        .clips
        .iter()
        .enumerate()
        .map(|(i, clip)| {
            let core = source.core_channels.get(i).copied().unwrap_or(clip.channels.len());
            Clip { channels: clip.channels.iter().take(core).cloned().collect(), ..clip.clone() }
        })
        .collect()
}

/// The name of a track in three.js: `node.property`, with the node's three.js name (or, for
/// a node without one, `#index`: three.js uses a random id there, which binds to nothing).
pub fn track_name(names: &[Option<String>], node: usize, property: Property) -> String {
    let node = names.get(node).and_then(|n| n.clone()).unwrap_or_else(|| format!("#{node}"));
    let property = match property {
        Property::Translation => "position",
        Property::Rotation => "quaternion",
        Property::Scale => "scale",
        Property::Weights => "morphTargetInfluences",
    };
    format!("{node}.{property}")
}

/// Source clip `clip` with every bound channel moved onto its character node, values as
/// stored; unbound channels are left out. Also returns each kept channel's source node.
pub fn rebind_clip(clip: &Clip, binding: &NodeBinding) -> (Vec<Channel>, Vec<usize>) {
    let mut channels = Vec::new();
    let mut sources = Vec::new();
    for channel in &clip.channels {
        if let Some(Some((target, _))) = binding.get(channel.node) {
            channels.push(Channel { node: *target, ..channel.clone() });
            sources.push(channel.node);
        }
    }
    (channels, sources)
}

/// The tracks of `clip` that bind, with their character node and how: the one count of bound
/// tracks that `fit`, the viewer and `pose` give, whatever the channels played are.
pub fn bound_tracks<'a>(
    clip: &'a Clip,
    binding: &'a NodeBinding,
) -> impl Iterator<Item = (&'a Channel, usize, &'a BindHow)> + 'a {
    clip.channels.iter().filter_map(|ch| binding.get(ch.node)?.as_ref().map(|(j, how)| (ch, *j, how)))
}

/// The tracks of `clip` that bind to nothing, as three.js warns about them: once per track
/// name, in the clip's order. `names` is `threejs_names` of the clip's file.
pub fn unbound_tracks(names: &[Option<String>], clip: &Clip, binding: &NodeBinding) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<String> = Vec::new();
    for channel in &clip.channels {
        if binding.get(channel.node).is_some_and(Option::is_none) {
            let name = track_name(names, channel.node, channel.property);
            if seen.insert(name.clone()) {
                out.push(name);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Node, Scene};

    fn rig(names: &[&str]) -> Rig {
        Rig {
            nodes: names.iter().map(|n| Node { name: Some(n.to_string()), ..Node::default() }).collect(),
            scenes: vec![Scene { name: None, roots: (0..names.len()).collect() }],
            default_scene: Some(0),
            ..Rig::default()
        }
    }

    fn targets(b: &NodeBinding) -> Vec<Option<(usize, &str)>> {
        b.iter().map(|x| x.as_ref().map(|(n, how)| (*n, how.label()))).collect()
    }

    #[test]
    fn exact_binding_compares_three_js_names_only() {
        let character = rig(&["mixamorig1:Hips", "upper_arm.L", "Spine"]);
        let source = rig(&["mixamorig1Hips", "upper_armL", "mixamorig:Spine", "spine"]);
        let b = bind_nodes(&character, &source, &BindOptions::default());
        assert_eq!(targets(&b), [Some((0, "exact")), Some((1, "exact")), None, None]);
    }

    #[test]
    fn loose_rules_and_the_map_say_how_they_bound() {
        let character = rig(&["mixamorig1:Hips", "Left_Arm", "spine", "Spine"]);
        let source = rig(&["mixamorig:Hips", "mixamorig:left arm", "mixamorig:SPINE", "Tail", "Head"]);
        let options = BindOptions {
            mode: BindMode::Loose,
            map: Some(NameMap::parse("Tail spine\nHead Nose").unwrap()),
            retarget: None,
        };
        let b = bind_nodes(&character, &source, &options);
        // SPINE: "spine" and "Spine" both match with case folded, so it is left unbound.
        assert_eq!(
            targets(&b),
            [Some((0, "prefix")), Some((1, "prefix+case+separators")), None, Some((2, "map")), None]
        );
    }
}
