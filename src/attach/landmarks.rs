//! Which node of a rig is which humanoid landmark (hips, head, upper arms...): the one table
//! of humanoid aliases, shared by retargeting's body frame, `fit`'s measurements and
//! `merge --in-place`'s hips. The VRM humanoid mapping comes first where the file has one;
//! else names, compared without namespace prefixes (`mixamorig7:`, `Armature|`), case and
//! separators, as `--bind loose` compares them. `docs/clips.md` lists the same table.

use super::rules::LOOSE_RULES;
use crate::rig::Rig;

/// A humanoid landmark, named as VRM 1.0 names the bone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Landmark {
    Hips,
    Spine,
    Chest,
    Neck,
    Head,
    LeftUpperArm,
    LeftLowerArm,
    LeftHand,
    RightUpperArm,
    RightLowerArm,
    RightHand,
    LeftUpperLeg,
    LeftLowerLeg,
    LeftFoot,
    RightUpperLeg,
    RightLowerLeg,
    RightFoot,
}

/// Which side a limb alias is spelt for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    Middle,
    Left,
    Right,
}

/// (landmark, VRM 1.0 bone, side, name stems). A stem is the name with prefixes, case and
/// separators gone; a sided stem matches `left<stem>` (Mixamo, Ready Player Me: `LeftArm`),
/// `<stem>l` (Rigify `upper_arm.L`, KayKit `upperarm.l`, Unreal `upperarm_l`), `<stem>left`
/// and `l<stem>`. Earlier stems win over later ones.
const TABLE: &[(Landmark, &str, Side, &[&str])] = &[
    (Landmark::Hips, "hips", Side::Middle, &["hips", "hip", "pelvis"]),
    (Landmark::Spine, "spine", Side::Middle, &["spine", "spine01", "spine001", "torso"]),
    (Landmark::Chest, "chest", Side::Middle, &["chest", "spine1", "spine02", "spine002"]),
    (Landmark::Neck, "neck", Side::Middle, &["neck", "neck01"]),
    (Landmark::Head, "head", Side::Middle, &["head"]),
    (Landmark::LeftUpperArm, "leftUpperArm", Side::Left, &["upperarm", "arm"]),
    (Landmark::LeftLowerArm, "leftLowerArm", Side::Left, &["forearm", "lowerarm"]),
    (Landmark::LeftHand, "leftHand", Side::Left, &["hand", "wrist"]),
    (Landmark::RightUpperArm, "rightUpperArm", Side::Right, &["upperarm", "arm"]),
    (Landmark::RightLowerArm, "rightLowerArm", Side::Right, &["forearm", "lowerarm"]),
    (Landmark::RightHand, "rightHand", Side::Right, &["hand", "wrist"]),
    (Landmark::LeftUpperLeg, "leftUpperLeg", Side::Left, &["upleg", "upperleg", "thigh"]),
    (Landmark::LeftLowerLeg, "leftLowerLeg", Side::Left, &["leg", "lowerleg", "shin", "calf"]),
    (Landmark::LeftFoot, "leftFoot", Side::Left, &["foot", "ankle"]),
    (Landmark::RightUpperLeg, "rightUpperLeg", Side::Right, &["upleg", "upperleg", "thigh"]),
    (Landmark::RightLowerLeg, "rightLowerLeg", Side::Right, &["leg", "lowerleg", "shin", "calf"]),
    (Landmark::RightFoot, "rightFoot", Side::Right, &["foot", "ankle"]),
];

/// Every landmark, in the table's order.
pub const ALL: [Landmark; 17] = [
    Landmark::Hips,
    Landmark::Spine,
    Landmark::Chest,
    Landmark::Neck,
    Landmark::Head,
    Landmark::LeftUpperArm,
    Landmark::LeftLowerArm,
    Landmark::LeftHand,
    Landmark::RightUpperArm,
    Landmark::RightLowerArm,
    Landmark::RightHand,
    Landmark::LeftUpperLeg,
    Landmark::LeftLowerLeg,
    Landmark::LeftFoot,
    Landmark::RightUpperLeg,
    Landmark::RightLowerLeg,
    Landmark::RightFoot,
];

impl Landmark {
    fn row(self) -> &'static (Landmark, &'static str, Side, &'static [&'static str]) {
        TABLE.iter().find(|r| r.0 == self).unwrap_or(&TABLE[0])
    }

    /// The VRM 1.0 bone name (`leftUpperArm`).
    pub fn bone(self) -> &'static str {
        self.row().1
    }

    /// Whether `key` (a name with prefixes, case and separators gone) names this landmark.
    fn matches(self, key: &str) -> Option<usize> {
        let (_, _, side, stems) = self.row();
        // Rigify's deform bones: `DEF-upper_arm.L`.
        let key = key.strip_prefix("def-").unwrap_or(key);
        stems.iter().position(|stem| match side {
            Side::Middle => key == *stem,
            Side::Left => sided(key, stem, "left", "l"),
            Side::Right => sided(key, stem, "right", "r"),
        })
    }
}

/// Each node's number of ancestors, from the parents-first order (a node the order leaves out
/// counts its ancestors one by one), so that many same-named nodes down a long chain cost one
/// walk, not one each.
fn depths_of(rig: &Rig) -> Vec<usize> {
    let mut depth = vec![usize::MAX; rig.nodes.len()];
    for &n in &rig.order {
        let Some(node) = rig.nodes.get(n) else { continue };
        depth[n] = match node.parent {
            None => 0,
            Some(p) => {
                depth.get(p).filter(|&&d| d != usize::MAX).map_or_else(|| rig.ancestors(n).count(), |d| d + 1)
            }
        };
    }
    for (n, d) in depth.iter_mut().enumerate() {
        if *d == usize::MAX {
            *d = rig.ancestors(n).count();
        }
    }
    depth
}

fn sided(key: &str, stem: &str, word: &str, letter: &str) -> bool {
    [(word, ""), ("", letter), ("", word), (letter, "")].iter().any(|(before, after)| {
        key.len() == before.len() + stem.len() + after.len()
            && key.starts_with(before)
            && key.ends_with(after)
            && &key[before.len()..key.len() - after.len()] == stem
    })
}

/// The landmarks a rig has: node per landmark, `None` where it has none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Landmarks {
    nodes: [Option<usize>; ALL.len()],
}

impl Landmarks {
    /// Finds every landmark of `rig`: the VRM mapping's node where it maps the bone, else the
    /// node nearest the root whose name matches the earliest alias (the lowest index on a tie).
    /// One pass over the nodes tries each name against every landmark while it is at hand.
    pub fn find(rig: &Rig) -> Landmarks {
        let key = LOOSE_RULES[LOOSE_RULES.len() - 1].1;
        let vrm = ALL.map(|l| rig.vrm.as_ref().and_then(|v| v.node_of(l.bone())));
        let mut best: [Option<(usize, usize, usize)>; ALL.len()] = [None; ALL.len()];
        let mut depths: Option<Vec<usize>> = None;
        for n in rig.scene_nodes() {
            let Some(name) = rig.nodes[n].name.as_deref() else { continue };
            let k = key(name);
            for (i, landmark) in ALL.iter().enumerate() {
                if vrm[i].is_some() {
                    continue;
                }
                let Some(rank) = landmark.matches(&k) else { continue };
                let depth = depths.get_or_insert_with(|| depths_of(rig))[n];
                let candidate = (rank, depth, n);
                if best[i].is_none_or(|b| candidate < b) {
                    best[i] = Some(candidate);
                }
            }
        }
        let nodes = std::array::from_fn(|i| vrm[i].or(best[i].map(|(_, _, n)| n)));
        Landmarks { nodes }
    }

    pub fn get(&self, landmark: Landmark) -> Option<usize> {
        ALL.iter().position(|l| *l == landmark).and_then(|i| self.nodes[i])
    }

    /// The joint the body's up points to from the hips: the head, else the neck, else the
    /// topmost spine joint.
    pub fn top(&self) -> Option<usize> {
        self.get(Landmark::Head).or(self.get(Landmark::Neck)).or(self.get(Landmark::Spine))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rig::{Node, Scene};

    fn rig(names: &[&str]) -> Rig {
        // A chain, so that earlier names are nearer the root.
        let nodes = names
            .iter()
            .enumerate()
            .map(|(i, n)| Node {
                name: Some(n.to_string()),
                parent: i.checked_sub(1),
                children: if i + 1 < names.len() { vec![i + 1] } else { Vec::new() },
                ..Node::default()
            })
            .collect();
        Rig {
            nodes,
            scenes: vec![Scene { name: None, roots: vec![0] }],
            default_scene: Some(0),
            order: (0..names.len()).collect(),
            ..Rig::default()
        }
    }

    #[test]
    fn every_naming_scheme_finds_its_upper_arms_and_legs() {
        let schemes: [[&str; 5]; 7] = [
            [
                "mixamorig:Hips",
                "mixamorig:LeftArm",
                "mixamorig:RightArm",
                "mixamorig:LeftUpLeg",
                "mixamorig:LeftLeg",
            ],
            [
                "mixamorig7:Hips",
                "mixamorig7:LeftArm",
                "mixamorig7:RightArm",
                "mixamorig7:LeftUpLeg",
                "mixamorig7:LeftLeg",
            ],
            ["Hips", "LeftArm", "RightArm", "LeftUpLeg", "LeftLeg"],
            ["hips", "upper_arm.L", "upper_arm.R", "thigh.L", "shin.L"],
            ["hips", "upperarm.l", "upperarm.r", "upperleg.l", "lowerleg.l"],
            ["pelvis", "upperarm_l", "upperarm_r", "thigh_l", "calf_l"],
            ["Armature|hips", "DEF-upper_arm.L", "DEF-upper_arm.R", "DEF-thigh.L", "DEF-shin.L"],
        ];
        for names in schemes {
            let found = Landmarks::find(&rig(&names));
            let at = [
                Landmark::Hips,
                Landmark::LeftUpperArm,
                Landmark::RightUpperArm,
                Landmark::LeftUpperLeg,
                Landmark::LeftLowerLeg,
            ]
            .map(|l| found.get(l));
            assert_eq!(at, [Some(0), Some(1), Some(2), Some(3), Some(4)], "{names:?}");
        }
    }

    #[test]
    fn a_forearm_is_no_upper_arm_and_fingers_are_no_hand() {
        let found = Landmarks::find(&rig(&["LeftForeArm", "LeftHandIndex1", "LeftHand", "RightShoulder"]));
        assert_eq!(found.get(Landmark::LeftUpperArm), None);
        assert_eq!(found.get(Landmark::LeftLowerArm), Some(0));
        assert_eq!(found.get(Landmark::LeftHand), Some(2));
        assert_eq!(found.get(Landmark::RightUpperArm), None);
    }

    /// By hand: in the chain `Hips, Hips, Hips` every node matches at rank 0, so the one
    /// nearest the root (depth 0) wins; with the order left out, depths are counted alike.
    #[test]
    fn among_equal_names_the_node_nearest_the_root_wins() {
        let mut chain = rig(&["spine", "Hips", "Hips", "Hips"]);
        assert_eq!(depths_of(&chain), [0, 1, 2, 3]);
        assert_eq!(Landmarks::find(&chain).get(Landmark::Hips), Some(1));
        chain.order.clear();
        assert_eq!(depths_of(&chain), [0, 1, 2, 3]);
        assert_eq!(Landmarks::find(&chain).get(Landmark::Hips), Some(1));
    }

    #[test]
    fn the_top_is_the_head_then_the_neck_then_the_spine() {
        assert_eq!(Landmarks::find(&rig(&["Hips", "Spine", "Neck", "Head"])).top(), Some(3));
        assert_eq!(Landmarks::find(&rig(&["Hips", "Spine", "Neck"])).top(), Some(2));
        assert_eq!(Landmarks::find(&rig(&["Hips", "Spine"])).top(), Some(1));
    }
}
