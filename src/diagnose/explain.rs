//! `check --explain CODE`: for every code rigscope can report (the rules' and `check`'s own
//! `codes::ALL`, and the loader's `codes::LOAD_CODES`), what it means, why it matters, what each engine does with
//! it (the profiles of `anim::Engine`, docs/engines.md) and what `normalize` changes.
//! Plain text only; the CLI prints it.

use super::codes;

/// The four parts of an explanation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Explanation {
    pub code: &'static str,
    pub means: &'static str,
    pub matters: &'static str,
    pub engines: &'static str,
    pub normalize: &'static str,
}

/// What engines do with findings that are not about weights: the profiles change only
/// weights, so every `--engine` draws these alike.
const SAME_EVERYWHERE: &str =
    "Engine profiles only change skin weights, so every --engine draws this the same way.";

/// `normalize` rewrites only JOINTS_n/WEIGHTS_n.
const NOT_WEIGHTS: &str = "Nothing: normalize rewrites only JOINTS_n/WEIGHTS_n, so this finding stays.";

/// Every explanation, one per code.
const ALL: &[Explanation] = &[
    Explanation {
        code: "ACCESSOR_JOINTS_INDEX_OOB",
        means: "A JOINTS_n value is not a joint of the skin: it is at least the number of joints of the smallest skin the mesh is drawn with.",
        matters: "That influence points at nothing. Its weight is lost (the vertex is pulled towards the scene's origin by it) or, in tools that trust the index, the import fails.",
        engines: "rigscope and three.js skip the influence (three's bone texture is zero past the last bone; its CPU SkinnedMesh.applyBoneTransform throws instead), and three.js still counts the weight when it divides by the sum. Blender's importer indexes its vertex-group list with it and stops with an error (blender/imp/mesh.py). What Unity, Unreal and Godot draw for it is not documented: do not rely on it.",
        normalize: "Drops the influence, then divides the remaining weights by their sum; a vertex left with no weight goes wholly to the skin's root joint.",
    },
    Explanation {
        code: "ACCESSOR_JOINTS_INDEX_DUPLICATE",
        means: "The same joint appears twice among a vertex's influences, both times with a non-zero weight.",
        matters: "Most engines add both weights, but tools that store one weight per joint keep only one of them, so the vertex lands elsewhere there.",
        engines: "stored, three.js, Babylon.js, Unity and Godot add both (the skinning sum does). Blender's importer puts each weight into the joint's vertex group with 'REPLACE', so the last one wins, then divides by the total. Unreal merges influences per bone at import (its code is not public).",
        normalize: "Adds the repeated joint's weights into one influence, then divides by the sum.",
    },
    Explanation {
        code: "ACCESSOR_WEIGHTS_NEGATIVE",
        means: "A weight is below zero.",
        matters: "A negative weight pushes the vertex away from that joint; engines disagree on whether they keep it, so the mesh differs between them.",
        engines: "stored, Babylon.js and Unity glTFast (4 bones) keep it. three.js divides by the sum of absolute values and keeps the sign, so the weights then sum to less than 1. Godot divides by the signed sum, then clamps to 0 when it stores 16-bit weights. Blender's vertex groups hold 0..1, Unreal keeps only positive weights.",
        normalize: "Drops it, then divides the remaining weights by their sum.",
    },
    Explanation {
        code: "ACCESSOR_WEIGHTS_NON_NORMALIZED",
        means: "A vertex's weights do not add up to 1 (within the Khronos validator's tolerance of 2e-7 per weight).",
        matters: "Skinning blends joint matrices with the weights as given, so a sum below 1 pulls the vertex towards the scene's origin (all zero: onto it) and a sum above 1 pushes it away. Engines that rescale hide it, the others show it: the model looks fine in one and broken in another.",
        engines: "Kept as stored (the vertex moves): stored, Babylon.js, Unity glTFast at 4 bones or unlimited. Divided by the sum (the vertex follows its joints): three.js (GLTFLoader, float and integer weights alike; all zero becomes weight 1 on the first slot), UnityGLTF, Godot, Blender (all zero: 1 on the first slot), Unreal (all zero: the root joint). Unity glTFast at 1 or 2 bones rescales the weights it keeps. check measures how far each engine moves every such vertex.",
        normalize: "Divides the weights by their sum (in the accessor's own component type, integer codes summing exactly to 255 or 65535); an all-zero vertex goes wholly to the skin's root joint.",
    },
    Explanation {
        code: "ACCESSOR_JOINTS_USED_ZERO_WEIGHT",
        means: "A joint index other than 0 sits in a slot whose weight is 0.",
        matters: "It draws the same everywhere (a zero weight adds nothing), but tools that count influences by their joints, or that sort and trim them, see an influence that is not there. A warning, not an error.",
        engines: "No engine moves the vertex for this: every profile gives the slot no weight.",
        normalize: "Sets the joint of every zero-weight slot to 0.",
    },
    Explanation {
        code: "ACCESSOR_INVALID_FLOAT",
        means: "A float in the accessor is NaN or infinite (for weights: per vertex, with the vertex's influences).",
        matters: "Arithmetic with it gives NaN: a vertex whose weight is NaN is drawn nowhere and its triangles disappear.",
        engines: "rigscope skips the weight. three.js divides by a NaN sum (every weight becomes NaN); Babylon.js, Unity and Godot keep it: all draw the vertex at NaN, which check reports as 'vanishes'. Unreal keeps only finite positive weights.",
        normalize: "Drops the weight, then divides the remaining ones by their sum.",
    },
    Explanation {
        code: "ACCESSOR_INVALID_IBM",
        means: "An inverse bind matrix is not affine (its last row is not 0 0 0 1).",
        matters: "Skinning with it projects the vertices: the skin is distorted in every pose.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "INVALID_IBM_ACCESSOR_COUNT",
        means: "The skin's inverseBindMatrices accessor has a different count than the skin has joints.",
        matters: "Some joints have no bind matrix; loaders refuse the skin or read what is there, so the bind pose is not what the author made.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "SKIN_NO_COMMON_ROOT",
        means: "The skin's joints do not share one root node.",
        matters: "Engines that build a skeleton from one root (Unity's UnityGLTF throws, others pick one) lose the joints outside it.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "SKIN_SKELETON_INVALID",
        means: "The skin's skeleton node is not an ancestor of (or one of) its joints.",
        matters: "Engines that use skin.skeleton as the skeleton's root place the skeleton wrongly or ignore it.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "NODE_SKINNED_MESH_LOCAL_TRANSFORMS",
        means: "A node with a skinned mesh has its own translation, rotation or scale.",
        matters: "The spec says a skinned mesh's node transform is ignored, so the transform does nothing; tools that apply it anyway draw the mesh moved.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "NODE_SKINNED_MESH_NON_ROOT",
        means: "A node with a skinned mesh is not a root of the scene.",
        matters: "Its parents' transforms do not affect a skinned mesh (the joints place it); tools that apply them draw it moved, typically turned by a Z-up to Y-up node.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "NODE_SKIN_WITH_NON_SKINNED_MESH",
        means: "A node has a skin but its mesh has no JOINTS_0/WEIGHTS_0.",
        matters: "The skin cannot apply: the mesh is drawn rigidly, not following the joints.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "NODE_SKINNED_MESH_WITHOUT_SKIN",
        means: "A mesh with JOINTS/WEIGHTS is drawn by a node that has no skin.",
        matters: "The weights do nothing there: the mesh is drawn rigidly, and its weights are not checked.",
        engines: SAME_EVERYWHERE,
        normalize: "Nothing: normalize repairs the weights of meshes that some node draws with a skin.",
    },
    Explanation {
        code: "ANIMATION_CHANNEL_TARGET_NODE_SKIN",
        means: "An animation channel moves a node that has a skinned mesh.",
        matters: "A skinned mesh's node transform is ignored, so the channel has no visible effect.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "ACCESSOR_ANIMATION_INPUT_NEGATIVE",
        means: "An animation sampler has a key time below 0.",
        matters: "Players start clips at 0, so that key is never reached as authored; tools disagree on what they show before it.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "ACCESSOR_ANIMATION_INPUT_NON_INCREASING",
        means: "An animation sampler's key times are not strictly increasing.",
        matters: "Key search assumes order: players jump, skip keys or divide by zero between equal times.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "ACCESSOR_ANIMATION_SAMPLER_OUTPUT_NON_NORMALIZED_QUATERNION",
        means: "A rotation key is not a unit quaternion.",
        matters: "A non-unit quaternion scales as well as rotates unless the player normalises it; players differ.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_JOINT_UNUSED",
        means: "A skin joint no vertex weights (rigscope's own, info).",
        matters: "Often a helper or end bone, which is fine; a deforming bone nothing follows is a missed weight paint.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_JOINT_FEW_VERTICES",
        means: "A skin joint weights only a few vertices (rigscope's own, info).",
        matters: "Stray weights: a few vertices follow a joint their neighbours do not, and spike when it moves.",
        engines: SAME_EVERYWHERE,
        normalize: "Only with --prune BELOW: weights under BELOW are dropped (never a vertex's largest), which often removes such strays.",
    },
    Explanation {
        code: "RIG_MORE_THAN_4_INFLUENCES",
        means: "A vertex has more than 4 non-zero influences (a JOINTS_1/WEIGHTS_1 set is in use; rigscope's own, a warning).",
        matters: "Engines that read only the first set drop the rest of the weight, so the vertex moves there.",
        engines: "Only JOINTS_0/WEIGHTS_0: three.js (then divides those 4 by their sum), Unity glTFast and UnityGLTF. Up to 8: Babylon.js and Godot. Up to 12, the largest: Unreal. Every one: stored and Blender. check measures what each does.",
        normalize: "Keeps every influence unless --max-influences N is given: then the smallest go and the rest are divided by their sum.",
    },
    Explanation {
        code: "RIG_IBM_BIND_MISMATCH",
        means: "The rest pose (the nodes' own transforms) is not the bind pose the inverse bind matrices record (rigscope's own, info).",
        matters: "Usual and harmless when an animation always plays; with none, engines draw the rest pose, which then deforms the mesh.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_ROTATION_HEMISPHERE_FLIP",
        means: "Consecutive rotation keys are in opposite hemispheres (their dot product is negative; rigscope's own, info).",
        matters: "Spec-following players take the short way; a player that does not flip the sign spins the joint almost a full turn.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_ROTATION_NEAR_OPPOSITE",
        means: "Consecutive rotation keys are nearly 180 degrees apart (rigscope's own, a warning).",
        matters: "Which way the joint turns between them is decided by rounding: players can disagree.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "ACCESSOR_NORMALIZED_INVALID",
        means: "An accessor's normalized flag does not fit its use (for example integer weights not marked normalized).",
        matters: "Loaders that follow the flag read 255 where 1.0 was meant: the attribute is wrong by that factor. rigscope decodes it as the spec requires anyway.",
        engines: SAME_EVERYWHERE,
        normalize: "Integer weights are written back normalized, in the same component type.",
    },
    Explanation {
        code: "MESH_PRIMITIVE_POSITION_ACCESSOR_WITHOUT_BOUNDS",
        means: "A POSITION accessor lacks its required min/max.",
        matters: "Engines use the bounds for culling and framing: the mesh can be culled while visible, or the camera framed wrongly.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "NODE_MATRIX_NON_TRS",
        means: "A node's matrix is not translation * rotation * scale (shear, projection or zero scale).",
        matters: "Engines that decompose matrices into TRS (most do) draw it differently; animating that node replaces the whole matrix.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "NODE_MATRIX_TRS",
        means: "A node has both a matrix and translation/rotation/scale.",
        matters: "The spec forbids it; loaders pick one or the other, so the node sits differently in different tools.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_ATTRIBUTE_IGNORED",
        means: "A primitive has an attribute with a custom or unknown name; rigscope ignores it (info).",
        matters: "Usually application data (_BATCHID and the like); nothing rigscope shows depends on it.",
        engines: SAME_EVERYWHERE,
        normalize: "Nothing: the attribute is copied as it is.",
    },
    Explanation {
        code: "RIG_NODE_TRANSFORM_NOT_FINITE",
        means: "A node's translation, rotation, scale or matrix holds a value that is not a finite number.",
        matters: "Every pose below that node is meaningless: its meshes vanish or fill the screen.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_PRIMITIVE_WITHOUT_POSITION",
        means: "A mesh primitive has no POSITION attribute (info).",
        matters: "It draws nothing; rigscope loads it with 0 vertices.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "ROTATION_NON_UNIT",
        means: "A node's rotation quaternion does not have length 1.",
        matters: "Engines that do not normalise it scale the node as well as turn it.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "SCENE_NON_ROOT_NODE",
        means: "A scene lists as a root a node that has a parent.",
        matters: "That node is reached twice: engines draw it twice, or once in the wrong place.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "SKIN_JOINT_DUPLICATE",
        means: "A skin lists the same node twice as a joint.",
        matters: "Two joint indices share a node; engines that build bone maps by node keep only one of them.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_INSTANCING_IGNORED",
        means: "An EXT_mesh_gpu_instancing extension that cannot apply (no mesh, or no instance attributes) is ignored (a warning).",
        matters: "The mesh is drawn once, which may not be what the exporter meant.",
        engines: SAME_EVERYWHERE,
        normalize: "Nothing: the extension is copied as it is.",
    },
    Explanation {
        code: "RIG_ANIMATION_POINTER_INVALID",
        means: "A KHR_animation_pointer channel's pointer does not name something animatable (a warning).",
        matters: "The channel plays nothing, in rigscope and in engines that validate pointers.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_REQUIRED_BONE_MISSING",
        means: "A humanoid bone the VRM specification requires (15 in VRM 1.0; 17 in 0.x, which also requires chest and neck) has no node in the avatar's humanoid mapping.",
        matters: "VRM runtimes refuse or half-load an avatar without its required bones, and humanoid animations (.vrma, Mixamo through VRM tooling) have nothing to drive for that bone.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) read the humanoid mapping when they load the avatar, and a VRM animation (.vrma) moves the avatar through it.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_BONE_MAPPED_TWICE",
        means: "One humanoid bone has two entries in the mapping (a repeated key in VRM 1.0, a repeated bone in 0.x).",
        matters: "Which node the bone means depends on the reader: one runtime takes the first entry, another the last, so animations move different nodes in different tools.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) read the humanoid mapping when they load the avatar, and a VRM animation (.vrma) moves the avatar through it.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_NODE_MAPPED_TWICE",
        means: "One node is mapped to two different humanoid bones.",
        matters: "Two bones' rotations then land on the same node, so an animation's two tracks fight over it and the limb twists.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) read the humanoid mapping when they load the avatar, and a VRM animation (.vrma) moves the avatar through it.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_BONE_PARENT",
        means: "A mapped bone's nearest mapped ancestor node is not the node of the bone the specification nests it under (for example a hand whose mapped ancestor is the chest, not the lower arm).",
        matters: "Humanoid animation is applied bone by bone down the specification's hierarchy; a bone hung elsewhere in the node tree moves with the wrong parent, so the limb ends up in the wrong place.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) read the humanoid mapping when they load the avatar, and a VRM animation (.vrma) moves the avatar through it.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_BONE_NEEDS_PARENT",
        means: "A bone the specification marks \"Needs Parent Bone\" (upperChest, the finger bones past the first) is mapped while that parent bone is not.",
        matters: "The specification forbids it, and runtimes that fill in the humanoid by the table misplace or drop the bone.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) read the humanoid mapping when they load the avatar, and a VRM animation (.vrma) moves the avatar through it.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_UNKNOWN_BONE",
        means: "An entry of the humanoid mapping names no humanoid bone of its VRM version (a warning); rigscope leaves it out of the other checks.",
        matters: "Runtimes ignore it, so whatever node it meant is not driven by humanoid animation.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) read the humanoid mapping when they load the avatar, and a VRM animation (.vrma) moves the avatar through it.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_INVALID",
        means: "Part of the VRM extension cannot be used as written (a warning; the glTF underneath is shown as usual). An entry naming a node, mesh or morph target that does not exist, or of the wrong shape, is dropped at load. A field of the wrong JSON type (isBinary that is not true or false, a weight or range map value that is not a number) is read as its default. A number outside the range rigscope computes with is clamped into it: bind weights to the schema's 0..1 (0..100 in VRM 0.x), lookAt range map inputs to 0.01..180 degrees and outputs to -360..360. The message names the field and what was read.",
        matters: "Runtimes either refuse the avatar, drop the same entry or compute with the value as written, so the humanoid mapping or an expression is missing there, or (for a weight of 3.4e38 or a range map of 1e300) the face is thrown far away or the eyes turn NaN.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) read the humanoid mapping when they load the avatar, and a VRM animation (.vrma) moves the avatar through it.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_LOAD_FAILED",
        means: "check over several files or a folder could not load this one: it is not glTF, is truncated or malformed (the message names the JSON location), refers to a buffer it cannot read, or is not a regular file (a FIFO, a link to nothing). The run goes on with the other files.",
        matters: "No rule could look at the file, so nothing about its rig is known; an engine's importer refuses it or reads something else.",
        engines: "Engine profiles only change skin weights of a file that loads; the importers of three.js, Babylon.js and Blender stop with an error on the same malformed files.",
        normalize: "Nothing: normalize refuses a file it cannot load, naming what is wrong (exit 2), and writes nothing.",
    },
    Explanation {
        code: "RIG_VRM_SPRING_COLLIDER_NODE",
        means: "A spring bone collider (VRM 1.0 colliders, VRM 0.x colliderGroups) is on a node the file does not have; three-vrm skips it when it loads the avatar, and so does rigscope.",
        matters: "The hair, skirt or tail it was meant to keep out of the body passes through it in every runtime.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) simulate spring bones when the avatar plays, and rigscope does so as three-vrm 3.5.5 does with --springs.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_CONSTRAINT_SOURCE",
        means: "A VRMC_node_constraint (roll, aim or rotation) names a source that is not a node of the file, or none at all. three-vrm reads the source while it loads the avatar and fails, so the whole file does not load there; rigscope leaves that constraint out and applies the others.",
        matters: "The twist or aim bone it drives stays at its rest rotation in rigscope and the avatar does not load at all in three-vrm-based apps; other runtimes may skip it or refuse the file too.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) apply node constraints every frame, and rigscope applies them as three-vrm 3.5.5 does in every pose, render, recording and the viewer.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_CONSTRAINT_CYCLE",
        means: "Node constraints depend on each other in a circle: a constraint waits for the constraints on its source and every ancestor of the source (for aim, also of its destination's parent), so a source on or below its own destination, or two constraints following each other, close a circle. three-vrm throws \"Circular dependency detected\" while it loads the avatar; rigscope leaves the constraints on the circle out.",
        matters: "The file does not load in three-vrm-based apps; where a runtime does load it, the result depends on which constraint it happens to run first.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) apply node constraints every frame, and rigscope applies them as three-vrm 3.5.5 does in every pose, render, recording and the viewer.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_CONSTRAINT_WEIGHT",
        means: "A node constraint's weight is outside 0..1, which the specification allows (a warning). three-vrm keeps it and rigscope does too: the rotation is slerped past the target (above 1) or away from it (below 0).",
        matters: "The twist bone overshoots or turns against its source, which reads as a candy-wrapper twist or a bent wrist when the source turns.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) apply node constraints every frame, and rigscope applies them as three-vrm 3.5.5 does in every pose, render, recording and the viewer.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_CONSTRAINT_AXIS",
        means: "A roll constraint's rollAxis is not X, Y or Z, or an aim constraint's aimAxis is not PositiveX..NegativeZ, or the axis is missing (the specification requires it; three-vrm then uses X or PositiveX), a warning. three-vrm turns an unknown name into a zero axis: the roll constraint then follows the source's whole rotation, and the aim constraint holds the rest rotation. rigscope computes the same.",
        matters: "The bone does not twist about the axis the author meant: a forearm twist follows the wrist's bend as well, or an aim bone never turns.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) apply node constraints every frame, and rigscope applies them as three-vrm 3.5.5 does in every pose, render, recording and the viewer.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_SPRING_NOT_A_CHAIN",
        means: "In a VRM 1.0 spring, a joint's node is not a child of the joint before it: the VRMC_springBone specification lists a spring's joints along one chain of the hierarchy, root to tip.",
        matters: "three-vrm pairs each joint with the next one as its tail anyway, so the bone swings toward a node that is not on its chain, and the length it keeps is the distance between two unrelated nodes; other runtimes refuse or re-chain the spring, so it moves differently there.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) simulate spring bones when the avatar plays, and rigscope does so as three-vrm 3.5.5 does with --springs.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_SPRING_JOINT_SHARED",
        means: "One node is a joint of two springs (VRM 1.0) or of two bone groups (VRM 0.x, where each root's whole subtree joins the group).",
        matters: "three-vrm steps both joints every frame: the node is swung twice, the later spring's settings win, and both springs' tails are simulated against each other's rotation, so the chain jitters or stiffens.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) simulate spring bones when the avatar plays, and rigscope does so as three-vrm 3.5.5 does with --springs.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_SPRING_ZERO_LENGTH",
        means: "A spring joint's tail sits on the joint itself (its child has no offset; or, without a child, the joint has no offset from its parent for three-vrm's 7 cm tail to follow): the segment has no length (a warning).",
        matters: "three-vrm normalises a zero vector to zero, so the bone's axis and length are zero and the joint never swings, however the avatar moves; a chain that should hang there stands still.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) simulate spring bones when the avatar plays, and rigscope does so as three-vrm 3.5.5 does with --springs.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "RIG_VRM_SPRING_NEGATIVE_RADIUS",
        means: "A spring joint's hitRadius, or a collider's radius, is negative; the specification allows 0 or more.",
        matters: "three-vrm computes with it as it is: a negative hit radius lets the tail sink into colliders by that much, a negative collider radius pulls tails toward its centre instead of pushing them out.",
        engines: "Engine profiles only change skin weights; VRM runtimes (three-vrm, UniVRM) simulate spring bones when the avatar plays, and rigscope does so as three-vrm 3.5.5 does with --springs.",
        normalize: NOT_WEIGHTS,
    },
    Explanation {
        code: "SKIN_IBM_ACCESSOR_WITH_BYTESTRIDE",
        means: "The buffer view holding a skin's inverse bind matrices has a byteStride, which glTF forbids for them (an error in the Khronos validator).",
        matters: "Loaders that read the matrices tightly packed, as the specification lets them, read the wrong numbers past the first matrix, and the mesh is bound to the wrong places; loaders that honour the stride read it right. rigscope reads it with the stride and says so.",
        engines: SAME_EVERYWHERE,
        normalize: "Nothing: normalize rewrites only JOINTS_n/WEIGHTS_n; re-export the file (or rewrite the buffer view without byteStride) to fix it.",
    },
    Explanation {
        code: "UNDECLARED_EXTENSION",
        means: "An object carries an extension that the file's extensionsUsed does not list (an error in the Khronos validator).",
        matters: "A loader may ignore an undeclared extension, so data stored through it (Draco or meshopt geometry, an animation pointer) is read as if it were not there: rigscope and every command, normalize included, ignore it the same way.",
        engines: SAME_EVERYWHERE,
        normalize: "Refuses a file whose mesh primitive carries an undeclared extension (writing it would repair weights it could not read); declare the extension in extensionsUsed.",
    },
    Explanation {
        code: "RIG_IBM_EXTRA_MATRICES",
        means: "The inverse bind matrix accessor holds more matrices than the skin has joints (a note: the validator checks only that there are at least as many).",
        matters: "The extra matrices are never used; it usually means the skin's joint list was trimmed after export, so check that the remaining joints are the ones meant.",
        engines: SAME_EVERYWHERE,
        normalize: NOT_WEIGHTS,
    },
];

/// The explanation of `code` (upper-case id), if rigscope can report it.
pub fn explain(code: &str) -> Option<&'static Explanation> {
    ALL.iter().find(|e| e.code == code)
}

/// The explanation as text, with the code's severity when it has a fixed one.
pub fn render(e: &Explanation) -> String {
    let severity = codes::ALL.iter().find(|c| c.id == e.code).map(|c| format!(" ({})", c.severity.name()));
    let mut out = format!("{}{}\n", e.code, severity.unwrap_or_default());
    for (title, text) in [
        ("What it means", e.means),
        ("Why it matters", e.matters),
        ("What each engine does with it", e.engines),
        ("What `rigscope normalize` changes", e.normalize),
    ] {
        out.push_str(&format!("\n{title}:\n"));
        wrap(text, WIDTH, &mut out);
    }
    out
}

/// Columns the text is wrapped to (readable in an 80-column terminal).
const WIDTH: usize = 78;

/// `text` in lines of at most `width` columns (a longer word gets a line of its own), each
/// indented by two spaces.
fn wrap(text: &str, width: usize, out: &mut String) {
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width - 2 {
            out.push_str(&format!("  {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("  {line}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_rigscope_can_report_has_an_explanation() {
        let reported = codes::ALL.iter().map(|c| c.id).chain(codes::LOAD_CODES.iter().copied());
        for code in reported {
            let e = explain(code).unwrap_or_else(|| panic!("{code} has no explanation"));
            for part in [e.means, e.matters, e.engines, e.normalize] {
                assert!(part.len() > 20, "{code}: '{part}'");
            }
            let text = render(e);
            assert!(text.starts_with(code));
            // Wrapping keeps every word, and the lines fit (the code itself is the title).
            let words = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
            let parts = [e.means, e.matters, e.engines, e.normalize].map(words).concat();
            let shown: Vec<String> = text.lines().filter(|l| l.starts_with("  ")).flat_map(words).collect();
            assert_eq!(shown, parts, "{code}");
            assert!(text.lines().skip(1).all(|l| l.chars().count() <= WIDTH), "{code}");
        }
        // And nothing explained that rigscope cannot report.
        for e in ALL {
            assert!(codes::is_known(e.code), "{} is explained but never reported", e.code);
        }
        assert!(explain("ACCESSOR_WEIGHTS_NON_NORMALISED").is_none());
    }

    /// Every code-shaped string literal in the sources (a quote, a code's prefix, upper-case
    /// letters, digits and underscores, a quote), leaving out prefixes other codes start with
    /// and tests (which name misspelt codes on purpose).
    fn codes_in_sources() -> std::collections::BTreeSet<String> {
        const PREFIXES: &[&str] = &[
            "RIG_",
            "ACCESSOR_",
            "NODE_",
            "SKIN_",
            "MESH_",
            "SCENE_",
            "ANIMATION_",
            "ROTATION_",
            "UNDECLARED_",
            "INVALID_",
        ];
        let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let mut found = std::collections::BTreeSet::new();
        for entry in walkdir::WalkDir::new(src).into_iter().map(|e| e.expect("src entry")) {
            let name = entry.file_name().to_string_lossy();
            if !name.ends_with(".rs") || name.contains("tests") {
                continue;
            }
            let whole = std::fs::read_to_string(entry.path()).expect("source");
            let text = whole.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
            for (i, _) in text.match_indices('"') {
                let rest = &text[i + 1..];
                let len = rest.find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'));
                let Some(len) = len.filter(|&n| rest[n..].starts_with('"')) else { continue };
                let word = &rest[..len];
                if PREFIXES.iter().any(|p| word.starts_with(p)) && !word.ends_with('_') {
                    found.insert(word.to_string());
                }
            }
        }
        let all: Vec<&str> =
            codes::ALL.iter().map(|c| c.id).chain(codes::LOAD_CODES.iter().copied()).collect();
        found.retain(|w| all.contains(&w.as_str()) || !all.iter().any(|c| c.starts_with(w.as_str())));
        found
    }

    #[test]
    fn every_code_in_the_sources_is_known_explained_and_ignorable() {
        let found = codes_in_sources();
        // The scan sees the codes of every kind: a rule's, the loader's, and check's own.
        for code in
            ["ACCESSOR_WEIGHTS_NON_NORMALIZED", "ROTATION_NON_UNIT", "RIG_LOAD_FAILED", "RIG_VRM_INVALID"]
        {
            assert!(found.contains(code), "the scan missed {code}");
        }
        for code in &found {
            assert!(codes::is_known(code), "{code} is in the sources but not in codes.rs");
            assert!(explain(code).is_some(), "{code} has no explanation");
        }
    }
}
