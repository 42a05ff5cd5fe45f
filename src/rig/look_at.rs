//! A VRM avatar's gaze set-up (VRM 1.0 `lookAt`, VRM 0.x `firstPerson.lookAt*`) and the
//! expression overrides, as three-vrm 3.5 reads them (`VRMLookAtLoaderPlugin`,
//! `VRMExpressionLoaderPlugin`). Data only: `anim::vrm_pose` plays them.

/// How the gaze moves the avatar: the eye bones, or the lookUp/Down/Left/Right expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookAtKind {
    Bone,
    Expression,
}

/// three-vrm's `VRMLookAtRangeMap`: `output_scale * clamp(angle / input_max, 0, 1)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RangeMap {
    /// Degrees; three-vrm raises anything below 0.01 to 0.01.
    pub input_max: f32,
    /// Degrees for the bone type, a weight for the expression type.
    pub output_scale: f32,
}

impl RangeMap {
    pub fn map(&self, angle: f32) -> f32 {
        self.output_scale * (angle / self.input_max).clamp(0.0, 1.0)
    }
}

/// The avatar's lookAt. VRM 0.x avatars face -Z, so three-vrm turns their gaze half a turn
/// about y (`faceFront (0, 0, -1)`); `face_back` says so.
#[derive(Debug, Clone, PartialEq)]
pub struct LookAt {
    pub kind: LookAtKind,
    pub horizontal_inner: RangeMap,
    pub horizontal_outer: RangeMap,
    pub vertical_down: RangeMap,
    pub vertical_up: RangeMap,
    pub face_back: bool,
    /// Where the eyes look from, in the head bone's space (`offsetFromHeadBone`; VRM 0.x
    /// `firstPersonBoneOffset` with z negated, as three-vrm reads it).
    pub offset: [f32; 3],
}

/// How much an active expression suppresses the blink, lookAt or mouth expressions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Override {
    #[default]
    None,
    /// Fully, whenever the expression's weight is above 0.
    Block,
    /// By the expression's weight.
    Blend,
}

impl Override {
    pub fn parse(text: Option<&str>) -> Override {
        match text {
            Some("block") => Override::Block,
            Some("blend") => Override::Blend,
            _ => Override::None,
        }
    }

    /// three-vrm's `override*Amount` for an expression whose output weight is `weight`.
    pub fn amount(self, weight: f32) -> f32 {
        match self {
            Override::None => 0.0,
            Override::Block => {
                if weight > 0.0 {
                    1.0
                } else {
                    0.0
                }
            }
            Override::Blend => weight,
        }
    }
}

/// An expression's three overrides: blink, lookAt, mouth.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Overrides {
    pub blink: Override,
    pub look_at: Override,
    pub mouth: Override,
}
