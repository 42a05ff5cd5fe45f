//! Everything a user can ask the viewer to do. Keys and mouse events become `Action`s
//! (see `keymap`), and `App::update` is the only place that acts on them.

/// Which panel receives the keys that depend on focus (arrows, hjkl, Enter).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Bones,
    Viewport,
    Keys,
    Weights,
}

impl Focus {
    pub const ALL: [Focus; 4] = [Focus::Bones, Focus::Viewport, Focus::Keys, Focus::Weights];

    pub fn title(self) -> &'static str {
        match self {
            Focus::Bones => "bones",
            Focus::Viewport => "viewport",
            Focus::Keys => "keyframes",
            Focus::Weights => "weights",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Time passed (seconds): the event loop's clock, the only way time reaches the app.
    Tick(f32),
    /// Nothing changed but the screen must be drawn again (a resize).
    Redraw,
    Quit,
    ToggleHelp,
    /// Close the help overlay, else clear the bone filter.
    Escape,
    /// Scroll the help overlay by this many lines.
    HelpScroll(i16),
    ToggleStats,
    /// Hold the next expression of a VRM avatar by hand (none, then each one, then none).
    CycleExpression,
    /// Move the held expression's weight by this many tenths.
    ExpressionWeight(i8),
    FocusNext,
    Focus(Focus),

    // Playback.
    TogglePlay,
    StepFrames(i32),
    PrevKey,
    NextKey,
    JumpStart,
    JumpEnd,
    SpeedDown,
    SpeedUp,
    CycleLoop,
    NextClip,
    PrevClip,
    /// Scrub to an absolute time (seconds), from the timeline under the mouse.
    Seek(f32),

    // Bone tree.
    NextSkin,
    SelectUp,
    SelectDown,
    SelectPageUp,
    SelectPageDown,
    Collapse,
    Expand,
    ToggleCollapse,
    StartFilter,
    FilterChar(char),
    FilterBackspace,
    FilterAccept,
    FilterCancel,
    /// Select the row at this index of the visible tree (mouse click).
    SelectRow(usize),
    /// Select this node (a click on its row in the dope sheet), unfolding the tree to it and
    /// focusing the keyframes panel.
    SelectNode(usize),

    // Camera.
    Orbit {
        yaw: f32,
        pitch: f32,
    },
    Zoom(f32),
    Pan {
        x: f32,
        y: f32,
    },
    Reframe,

    // View options.
    RenderBraille,
    RenderHalfBlock,
    RenderAscii,
    CycleDrawMode,
    ToggleBones,
    ToggleGhost,
    ToggleSourceGhost,
    ToggleHeatmap,
    ToggleNames,

    // Weights.
    NextVertex,
    PrevVertex,
    NearestVertex,
    ProblemUp,
    ProblemDown,
    JumpToProblem,
    /// The next (previous) problem vertex, worst first, from any panel.
    NextProblem,
    PrevProblem,
    /// Mark every problem vertex in the viewport.
    ToggleMarks,
    /// The next (1) or previous (-1) engine profile: the viewport draws its weights over the
    /// stored result.
    CycleEngine(isize),
    /// Colour depth: 24-bit / 256 / 16 / none (fewer bytes on a slow link).
    CycleColor,

    // Reading values.
    /// Scroll the details panel by this many lines.
    ScrollDetails(i16),
    /// Values with every digit an f32 has, or the short form.
    TogglePrecision,
    /// Put the selected bone's (or, from the weights panel, the vertex's) values on the
    /// terminal's clipboard (OSC 52).
    Copy,
    /// Say (and copy) the `rigscope render` command line that draws this view.
    RenderCommand,

    // Prompts: a line typed at the bottom of the screen.
    StartPrompt(PromptKind),
    PromptChar(char),
    PromptBackspace,
    PromptAccept,
    PromptCancel,

    // More playback and navigation.
    ResetSpeed,
    PrevSkin,
    /// The tree shows every node of the file (meshes and their skins) or the skin's bones.
    ToggleNodes,
    /// The keyframes panel plots the selected bone's curves instead of the dope sheet.
    ToggleCurves,
    /// Rotation curves as Euler angles (XYZ intrinsic) or as quaternion components.
    ToggleEuler,

    // The clip picker: an overlay listing every clip, narrowed by what is typed.
    ToggleClipPicker,
    PickerChar(char),
    PickerBackspace,
    PickerMove(isize),
    PickerAccept,
}

/// What a prompt asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// A time in seconds, or a frame number ("12f").
    Time,
    /// A skin number (1-based, as the tree's title counts them).
    Skin,
    /// The name of a new file beside the character for it and its `--anim` clips (`merge`).
    Merge,
}
