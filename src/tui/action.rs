//! Everything a user can ask the viewer to do, and what the event loop reports back (time
//! passed, what a frame measured). Keys and mouse events become `Action`s (see `keymap`), and
//! `App::update` hands each one to the part of the app that owns it (`Action::part`).

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
    /// A frame is out: what its drawing measured (scroll limits, the viewport's size).
    Measured(Measured),
    /// A frame is out: what its stages took, for the status bar.
    Timed(crate::tui::app::Timings),
    Quit,
    /// Ctrl-C: in raw mode a key, not SIGINT; the viewer ends as the signal would have ended
    /// it, so that the shell sees 130.
    Interrupt,
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

/// What a drawn frame measured that the next keys depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Measured {
    /// The largest useful scroll of the details panel (None: the panel was not drawn).
    pub details_max: Option<u16>,
    /// The same for the focused weights panel's part below its problem list.
    pub weights_max: Option<u16>,
    /// The viewport's inside in cells (for the `rigscope render` command line).
    pub viewport_cells: (u16, u16),
}

/// The part of the app's state that acts on an action (see `App::update`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// What is played: clip, time, speed, loop mode, a held expression.
    Player,
    /// What is pointed at: skin, bone, vertex, problem.
    Selection,
    /// How the viewport draws: camera, glyphs, overlays, colours.
    View,
    /// Which panel has focus and how the panels read.
    Panels,
    /// The help overlay, a prompt being typed, the clip picker.
    Overlays,
    /// Actions that join several parts, and what the loop reports (the app's router does them).
    App,
}

impl Action {
    pub fn part(self) -> Part {
        use Action::*;
        match self {
            Tick(_) | TogglePlay | StepFrames(_) | PrevKey | NextKey | JumpStart | JumpEnd | SpeedDown
            | SpeedUp | CycleLoop | NextClip | PrevClip | Seek(_) | ResetSpeed | CycleExpression
            | ExpressionWeight(_) => Part::Player,
            NextSkin | PrevSkin | SelectUp | SelectDown | SelectPageUp | SelectPageDown | Collapse
            | Expand | ToggleCollapse | StartFilter | FilterChar(_) | FilterBackspace | FilterAccept
            | FilterCancel | SelectRow(_) | SelectNode(_) | NextVertex | PrevVertex | NearestVertex
            | ProblemUp | ProblemDown | JumpToProblem | NextProblem | PrevProblem | ToggleNodes => {
                Part::Selection
            }
            Orbit { .. }
            | Zoom(_)
            | Pan { .. }
            | Reframe
            | RenderBraille
            | RenderHalfBlock
            | RenderAscii
            | CycleDrawMode
            | ToggleBones
            | ToggleGhost
            | ToggleSourceGhost
            | ToggleHeatmap
            | ToggleNames
            | ToggleMarks
            | CycleColor => Part::View,
            FocusNext | Focus(_) | ToggleStats | ScrollDetails(_) | TogglePrecision | ToggleCurves
            | ToggleEuler => Part::Panels,
            ToggleHelp | HelpScroll(_) | PromptChar(_) | PromptBackspace | PromptCancel
            | ToggleClipPicker | PickerChar(_) | PickerBackspace | PickerMove(_) => Part::Overlays,
            Redraw | Measured(_) | Timed(_) | Quit | Interrupt | Escape | CycleEngine(_) | Copy
            | RenderCommand | StartPrompt(_) | PromptAccept | PickerAccept => Part::App,
        }
    }

    /// The panel an action brings forward before it acts: the bone filter types into the
    /// tree, a click on the dope sheet reads keys, walking problems reads the weights panel.
    pub fn focuses(self) -> Option<Focus> {
        match self {
            Action::StartFilter => Some(Focus::Bones),
            Action::SelectNode(_) => Some(Focus::Keys),
            Action::NextProblem | Action::PrevProblem => Some(Focus::Weights),
            _ => None,
        }
    }

    /// The action a typed character means for a binding that takes text (`Key::Text`).
    pub fn typed(self, c: char) -> Action {
        match self {
            Action::FilterChar(_) => Action::FilterChar(c),
            Action::PromptChar(_) => Action::PromptChar(c),
            Action::PickerChar(_) => Action::PickerChar(c),
            other => other,
        }
    }
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
