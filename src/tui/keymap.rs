//! The one key table, for every mode (the panels, the help overlay, the bone filter, a prompt,
//! the clip picker). It drives dispatch, the help overlay and the status-bar hints, so a
//! binding cannot exist without being documented.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::{Action, Focus, PromptKind};

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Everywhere (unless a focused panel binds the same key).
    Global,
    /// Only while this panel has focus.
    In(Focus),
    /// While the help overlay is open: it takes every key.
    Help,
    /// While a bone filter is typed (`/`).
    Filter,
    /// While a prompt is typed (`:`, `#`, `M`).
    Prompt,
    /// While the clip picker is open (`K`).
    Picker,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    Char(char),
    Ctrl(char),
    Code(KeyCode),
    Shift(KeyCode),
    /// This key whatever the modifiers (the modes that take typing).
    Any(KeyCode),
    /// Any character typed: the binding's action takes it (`Action::typed`).
    Text,
}

pub struct Binding {
    pub keys: &'static [Key],
    /// How the help overlay writes the keys.
    pub label: &'static str,
    pub action: Action,
    pub context: Context,
    pub help: &'static str,
    /// Shown in the status bar's hint line with this short text (global hints always,
    /// a panel's hints while it has focus).
    pub hint: Option<&'static str>,
    /// Has its own row in the help overlay; a pair of keys that go opposite ways (`p`/`P`)
    /// shares the first one's row, which names both.
    pub listed: bool,
}

impl Binding {
    const fn hinted(self, short: &'static str) -> Binding {
        Binding { hint: Some(short), ..self }
    }

    /// Has no row of its own: another row's label and text cover it (the previous binding's,
    /// `q Ctrl-C` for Ctrl-C in every mode, the bone filter's for a prompt and the picker).
    const fn paired(self) -> Binding {
        Binding { listed: false, ..self }
    }
}

const fn b(
    keys: &'static [Key],
    label: &'static str,
    action: Action,
    context: Context,
    help: &'static str,
) -> Binding {
    Binding { keys, label, action, context, help, hint: None, listed: true }
}

use Context::{Filter, Global, Help, In, Picker, Prompt};
use Key::{Any, Char, Code, Ctrl, Shift, Text};

/// `p` and `P`'s one row in the help overlay.
const ENGINE_HELP: &str = "weights as an engine draws them (next / previous profile)";

/// `)` and `(`'s one row in the help overlay.
const EXPRESSION_HELP: &str = "raise / lower the held VRM expression's weight by 0.1";

/// The rows shared by the modes that take typing.
const TYPED_HELP: &str = "goes into the filter, the prompt or the picker's filter";
const ACCEPT_HELP: &str = "filter keep / clear, prompt go / cancel, picker play / close";
const DELETE_HELP: &str = "deletes the last character typed";
const MOVE_HELP: &str = "filter: bone above / below; picker: cursor (and PgUp PgDn)";
const HELP_SCROLL: &str = "scroll a line (PgUp PgDn Space: a page)";

const ORBIT: f32 = 10.0;
const PAN: f32 = 0.05;

/// Every binding, in the order the help overlay lists them.
pub static BINDINGS: &[Binding] = &[
    b(&[Char('q')], "q Ctrl-C", Action::Quit, Global, "quit").hinted("quit"),
    b(&[Ctrl('c')], "Ctrl-C", Action::Interrupt, Global, "quit").paired(),
    b(&[Char('?')], "?", Action::ToggleHelp, Global, "help: every binding").hinted("help"),
    b(&[Code(KeyCode::Esc)], "Esc", Action::Escape, Global, "close help / clear the bone filter"),
    b(
        &[Code(KeyCode::BackTab)],
        "Shift-Tab",
        Action::FocusNext,
        Global,
        "next panel (bones, viewport, keyframes, weights)",
    )
    .hinted("panel"),
    b(&[Char(' ')], "Space", Action::TogglePlay, Global, "play / pause").hinted("play"),
    b(
        &[Char('.')],
        ".",
        Action::StepFrames(1),
        Global,
        "step one frame forward (the clip's frame rate, or --step)",
    ),
    b(&[Char(',')], ",", Action::StepFrames(-1), Global, "step one frame back"),
    b(&[Char(']')], "]", Action::NextKey, Global, "next key of the selected bone (or of any channel)"),
    b(&[Char('[')], "[", Action::PrevKey, Global, "previous key of the selected bone (or of any channel)"),
    b(&[Code(KeyCode::Home)], "Home", Action::JumpStart, Global, "go to the start of the clip"),
    b(&[Code(KeyCode::End)], "End", Action::JumpEnd, Global, "go to the end of the clip"),
    b(&[Char('>')], ">", Action::SpeedUp, Global, "faster (up to 4x)"),
    b(&[Char('<')], "<", Action::SpeedDown, Global, "slower, then reverse (down to -4x)"),
    // `l` also moves in the viewport and the dope sheet (hjkl), which take it first there:
    // `o` works everywhere.
    b(
        &[Char('o'), Char('l')],
        "o l",
        Action::CycleLoop,
        Global,
        "loop mode: loop / once / ping-pong (l: not where hjkl move)",
    ),
    b(&[Char('c')], "c", Action::NextClip, Global, "next clip").hinted("clip"),
    b(&[Char('C')], "C", Action::PrevClip, Global, "previous clip"),
    b(
        &[Char('K')],
        "K",
        Action::ToggleClipPicker,
        Global,
        "clip picker: every clip; type to filter, Enter plays",
    ),
    b(&[Code(KeyCode::Tab)], "Tab", Action::NextSkin, Global, "next skin"),
    // Bone tree.
    b(&[Code(KeyCode::Up), Char('k')], "Up k", Action::SelectUp, In(Focus::Bones), "select the bone above"),
    b(
        &[Code(KeyCode::Down), Char('j')],
        "Down j",
        Action::SelectDown,
        In(Focus::Bones),
        "select the bone below",
    )
    .hinted("select"),
    b(&[Code(KeyCode::PageUp)], "PgUp", Action::SelectPageUp, In(Focus::Bones), "select one page up"),
    b(&[Code(KeyCode::PageDown)], "PgDn", Action::SelectPageDown, In(Focus::Bones), "select one page down"),
    b(
        &[Code(KeyCode::Left), Char('h')],
        "Left h",
        Action::Collapse,
        In(Focus::Bones),
        "collapse (or go to parent)",
    ),
    b(&[Code(KeyCode::Right)], "Right", Action::Expand, In(Focus::Bones), "expand"),
    b(&[Code(KeyCode::Enter)], "Enter", Action::ToggleCollapse, In(Focus::Bones), "collapse / expand")
        .hinted("fold"),
    b(&[Char('/')], "/", Action::StartFilter, Global, "filter bones by name").hinted("filter"),
    // Viewport camera.
    b(
        &[Code(KeyCode::Left), Char('h')],
        "Left h",
        Action::Orbit { yaw: -ORBIT, pitch: 0.0 },
        In(Focus::Viewport),
        "orbit left",
    ),
    b(
        &[Code(KeyCode::Right), Char('l')],
        "Right l",
        Action::Orbit { yaw: ORBIT, pitch: 0.0 },
        In(Focus::Viewport),
        "orbit right",
    ),
    b(
        &[Code(KeyCode::Up), Char('k')],
        "Up k",
        Action::Orbit { yaw: 0.0, pitch: ORBIT },
        In(Focus::Viewport),
        "orbit up",
    ),
    b(
        &[Code(KeyCode::Down), Char('j')],
        "Down j",
        Action::Orbit { yaw: 0.0, pitch: -ORBIT },
        In(Focus::Viewport),
        "orbit down",
    )
    .hinted("orbit"),
    b(&[Shift(KeyCode::Left)], "Shift-Left", Action::Pan { x: -PAN, y: 0.0 }, Global, "pan left"),
    b(&[Shift(KeyCode::Right)], "Shift-Right", Action::Pan { x: PAN, y: 0.0 }, Global, "pan right"),
    b(&[Shift(KeyCode::Up)], "Shift-Up", Action::Pan { x: 0.0, y: PAN }, Global, "pan up"),
    b(&[Shift(KeyCode::Down)], "Shift-Down", Action::Pan { x: 0.0, y: -PAN }, Global, "pan down"),
    b(&[Char('+'), Char('=')], "+", Action::Zoom(1.0 / 1.15), Global, "zoom in").hinted("zoom"),
    b(&[Char('-')], "-", Action::Zoom(1.15), Global, "zoom out"),
    b(&[Char('f')], "f", Action::Reframe, Global, "frame the rig"),
    b(&[Char('1')], "1", Action::RenderBraille, Global, "braille dots (2x4 per cell)"),
    b(&[Char('2')], "2", Action::RenderHalfBlock, Global, "half blocks (colour shading)"),
    b(&[Char('3')], "3", Action::RenderAscii, Global, "ASCII luminance ramp"),
    b(&[Char('w')], "w", Action::CycleDrawMode, Global, "draw mode: shaded / wireframe / points")
        .hinted("draw"),
    b(&[Char('b')], "b", Action::ToggleBones, Global, "skeleton overlay"),
    b(&[Char('n')], "n", Action::ToggleNames, Global, "bone names in the viewport (shows the skeleton too)"),
    b(&[Char('g')], "g", Action::ToggleGhost, Global, "bind-pose ghost"),
    b(
        &[Char('L')],
        "L",
        Action::ToggleSourceGhost,
        Global,
        "a library clip's own skeleton beside the character",
    ),
    b(&[Char('H')], "H", Action::ToggleHeatmap, Global, "heatmap of the selected bone's weights"),
    // Weights.
    b(&[Char('v')], "v", Action::NextVertex, Global, "next vertex influenced by the selected bone"),
    b(&[Char('V')], "V", Action::PrevVertex, Global, "previous vertex influenced by the selected bone"),
    b(&[Char('x')], "x", Action::NearestVertex, Global, "pick the vertex nearest to the selected bone"),
    b(
        &[Code(KeyCode::Up), Char('k')],
        "Up k",
        Action::ProblemUp,
        In(Focus::Weights),
        "previous problem vertex (selects it)",
    ),
    b(
        &[Code(KeyCode::Down), Char('j')],
        "Down j",
        Action::ProblemDown,
        In(Focus::Weights),
        "next problem vertex (selects it)",
    )
    .hinted("problem"),
    b(
        &[Code(KeyCode::Enter)],
        "Enter",
        Action::JumpToProblem,
        In(Focus::Weights),
        "select that problem's vertex and its heaviest joint",
    ),
    b(&[Char('e')], "e", Action::NextProblem, Global, "next problem vertex, worst first (selects it)")
        .hinted("next problem"),
    b(&[Char('E')], "E", Action::PrevProblem, Global, "previous problem vertex"),
    b(&[Char('m')], "m", Action::ToggleMarks, Global, "marks on every problem vertex (● error, ▲ warning)"),
    b(&[Char('p')], "p P", Action::CycleEngine(1), Global, ENGINE_HELP).hinted("engine"),
    b(&[Char('P')], "P", Action::CycleEngine(-1), Global, ENGINE_HELP).paired(),
    // Keyframes panel: the arrows scrub.
    b(&[Code(KeyCode::Left), Char('h')], "Left h", Action::StepFrames(-1), In(Focus::Keys), "step back"),
    b(&[Code(KeyCode::Right), Char('l')], "Right l", Action::StepFrames(1), In(Focus::Keys), "step forward")
        .hinted("step"),
    b(&[Code(KeyCode::Up), Char('k')], "Up k", Action::SelectUp, In(Focus::Keys), "select the bone above"),
    b(
        &[Code(KeyCode::Down), Char('j')],
        "Down j",
        Action::SelectDown,
        In(Focus::Keys),
        "select the bone below",
    ),
    b(&[Char('t')], "t", Action::ToggleStats, Global, "per-stage timings in the status bar"),
    // Reading values, time and big rigs.
    b(
        &[Char('}')],
        "}",
        Action::ScrollDetails(3),
        Global,
        "scroll the details panel (or the focused weights panel) down",
    ),
    b(
        &[Char('{')],
        "{",
        Action::ScrollDetails(-3),
        Global,
        "scroll the details panel (or the focused weights panel) up",
    ),
    b(&[Char('F')], "F", Action::TogglePrecision, Global, "full precision (every digit) / short values"),
    b(&[Char('y')], "y", Action::Copy, Global, "copy the bone's (weights panel: vertex's) values (OSC 52)")
        .hinted("copy"),
    b(
        &[Char('R')],
        "R",
        Action::RenderCommand,
        Global,
        "the `rigscope render` command line for this view (copied)",
    ),
    b(
        &[Char(':')],
        ":",
        Action::StartPrompt(PromptKind::Time),
        Global,
        "go to a time (0.5) or a frame (12f)",
    )
    .hinted("go to"),
    b(&[Code(KeyCode::Backspace)], "Backspace", Action::ResetSpeed, Global, "speed back to 1x"),
    b(&[Char('S')], "S", Action::PrevSkin, Global, "previous skin"),
    b(&[Char('#')], "#", Action::StartPrompt(PromptKind::Skin), Global, "go to skin number N"),
    b(&[Char('N')], "N", Action::ToggleNodes, Global, "node browser: every node with its mesh and skin"),
    b(
        &[Char('G')],
        "G",
        Action::ToggleCurves,
        Global,
        "curves of the bone's channels (again: next channel, then off)",
    ),
    b(
        &[Char('A')],
        "A",
        Action::ToggleEuler,
        Global,
        "rotation curves: Euler angles (XYZ intrinsic) / quaternion",
    ),
    b(&[Char('D')], "D", Action::CycleColor, Global, "colour depth: 24-bit / 256 / 16 / none (slow links)"),
    b(
        &[Char('M')],
        "M",
        Action::StartPrompt(PromptKind::Merge),
        Global,
        "save with the --anim clips as a new file (asks the name)",
    ),
    // A VRM avatar's expressions, held by hand.
    b(
        &[Char('X')],
        "X",
        Action::CycleExpression,
        Global,
        "hold a VRM expression by hand (none, then each by name)",
    ),
    b(&[Char(')')], ") (", Action::ExpressionWeight(1), Global, EXPRESSION_HELP),
    b(&[Char('(')], "(", Action::ExpressionWeight(-1), Global, EXPRESSION_HELP).paired(),
    // The help overlay is modal: it scrolls, closes, or lets the user quit.
    b(&[Any(KeyCode::Char('q'))], "q Ctrl-C", Action::Quit, Help, "quit"),
    b(&[Ctrl('c')], "Ctrl-C", Action::Interrupt, Help, "quit").paired(),
    b(&[Any(KeyCode::Esc), Any(KeyCode::Char('?'))], "Esc ?", Action::ToggleHelp, Help, "close the help"),
    b(&[Any(KeyCode::Up), Any(KeyCode::Char('k'))], "Up k Down j", Action::HelpScroll(-1), Help, HELP_SCROLL),
    b(&[Any(KeyCode::Down), Any(KeyCode::Char('j'))], "Down j", Action::HelpScroll(1), Help, HELP_SCROLL)
        .paired(),
    b(&[Any(KeyCode::PageUp)], "PgUp", Action::HelpScroll(-10), Help, HELP_SCROLL).paired(),
    b(
        &[Any(KeyCode::PageDown), Any(KeyCode::Char(' '))],
        "PgDn Space",
        Action::HelpScroll(10),
        Help,
        HELP_SCROLL,
    )
    .paired(),
    // Typing: the bone filter, a prompt and the clip picker take every character; their
    // rows are the filter's, which name all three. Ctrl-C comes before the catch-all `Text`.
    b(&[Ctrl('c')], "Ctrl-C", Action::Interrupt, Filter, "quit").paired(),
    b(&[Any(KeyCode::Enter)], "Enter Esc", Action::FilterAccept, Filter, ACCEPT_HELP),
    b(&[Any(KeyCode::Esc)], "Esc", Action::FilterCancel, Filter, ACCEPT_HELP).paired(),
    b(&[Any(KeyCode::Backspace)], "Backspace", Action::FilterBackspace, Filter, DELETE_HELP),
    b(&[Any(KeyCode::Up)], "Up Down", Action::SelectUp, Filter, MOVE_HELP),
    b(&[Any(KeyCode::Down)], "Down", Action::SelectDown, Filter, MOVE_HELP).paired(),
    b(&[Text], "a character", Action::FilterChar(' '), Filter, TYPED_HELP),
    b(&[Ctrl('c')], "Ctrl-C", Action::Interrupt, Prompt, "quit").paired(),
    b(&[Any(KeyCode::Enter)], "Enter", Action::PromptAccept, Prompt, ACCEPT_HELP).paired(),
    b(&[Any(KeyCode::Esc)], "Esc", Action::PromptCancel, Prompt, ACCEPT_HELP).paired(),
    b(&[Any(KeyCode::Backspace)], "Backspace", Action::PromptBackspace, Prompt, DELETE_HELP).paired(),
    b(&[Text], "a character", Action::PromptChar(' '), Prompt, TYPED_HELP).paired(),
    b(&[Ctrl('c')], "Ctrl-C", Action::Interrupt, Picker, "quit").paired(),
    b(&[Any(KeyCode::Enter)], "Enter", Action::PickerAccept, Picker, ACCEPT_HELP).paired(),
    b(&[Any(KeyCode::Esc)], "Esc", Action::ToggleClipPicker, Picker, ACCEPT_HELP).paired(),
    b(&[Any(KeyCode::Backspace)], "Backspace", Action::PickerBackspace, Picker, DELETE_HELP).paired(),
    b(&[Any(KeyCode::Up)], "Up", Action::PickerMove(-1), Picker, MOVE_HELP).paired(),
    b(&[Any(KeyCode::Down)], "Down", Action::PickerMove(1), Picker, MOVE_HELP).paired(),
    b(&[Any(KeyCode::PageUp)], "PgUp", Action::PickerMove(-10), Picker, MOVE_HELP).paired(),
    b(&[Any(KeyCode::PageDown)], "PgDn", Action::PickerMove(10), Picker, MOVE_HELP).paired(),
    b(&[Text], "a character", Action::PickerChar(' '), Picker, TYPED_HELP).paired(),
];

impl Key {
    fn matches(self, ev: &KeyEvent) -> bool {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        let shift = ev.modifiers.contains(KeyModifiers::SHIFT);
        match self {
            // Terminals disagree on whether a typed capital carries SHIFT; the char decides.
            Key::Char(c) => !ctrl && ev.code == KeyCode::Char(c),
            Key::Ctrl(c) => ctrl && ev.code == KeyCode::Char(c),
            Key::Code(code) => {
                !shift && !ctrl && ev.code == code || (code == KeyCode::BackTab && ev.code == code)
            }
            Key::Shift(code) => shift && ev.code == code,
            Key::Any(code) => ev.code == code,
            Key::Text => matches!(ev.code, KeyCode::Char(_)),
        }
    }
}

/// The first binding of `context` that `ev` matches, as an action (a typed character in it).
fn lookup(ev: &KeyEvent, context: Context) -> Option<Action> {
    let binding = bindings_in(context).find(|b| b.keys.iter().any(|k| k.matches(ev)))?;
    Some(match ev.code {
        KeyCode::Char(c) => binding.action.typed(c),
        _ => binding.action,
    })
}

/// What a key means in the current focus. A focused panel's binding wins over a global one;
/// the help overlay and the bone filter take every key while they are open.
pub fn action_for(ev: &KeyEvent, focus: Focus, filtering: bool, help: bool) -> Option<Action> {
    match (help, filtering) {
        (true, _) => lookup(ev, Context::Help),
        (false, true) => lookup(ev, Context::Filter),
        (false, false) => lookup(ev, Context::In(focus)).or_else(|| lookup(ev, Context::Global)),
    }
}

/// What a key means for `app`: a prompt being typed, or the clip picker, takes every key,
/// else `action_for`.
pub fn action_for_app(ev: &KeyEvent, app: &super::App) -> Option<Action> {
    let overlays = &app.overlays;
    if overlays.prompt.is_some() {
        return lookup(ev, Context::Prompt);
    }
    if overlays.picker.is_some() {
        return lookup(ev, Context::Picker);
    }
    action_for(ev, app.panels.focus, app.selection.tree.filtering, overlays.help)
}

/// Bindings that apply in a focus, for the help overlay's sections.
pub fn bindings_in(context: Context) -> impl Iterator<Item = &'static Binding> {
    BINDINGS.iter().filter(move |b| b.context == context)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn focus_decides_what_arrows_do() {
        assert_eq!(action_for(&key(KeyCode::Down), Focus::Bones, false, false), Some(Action::SelectDown));
        assert_eq!(
            action_for(&key(KeyCode::Down), Focus::Viewport, false, false),
            Some(Action::Orbit { yaw: 0.0, pitch: -ORBIT })
        );
        assert_eq!(action_for(&key(KeyCode::Right), Focus::Keys, false, false), Some(Action::StepFrames(1)));
    }

    #[test]
    fn global_keys_work_in_every_focus() {
        for focus in Focus::ALL {
            assert_eq!(action_for(&key(KeyCode::Char(' ')), focus, false, false), Some(Action::TogglePlay));
            assert_eq!(action_for(&key(KeyCode::Char('q')), focus, false, false), Some(Action::Quit));
        }
        let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(action_for(&ctrl_c, Focus::Bones, false, false), Some(Action::Interrupt));
        // In every mode: the help, the filter, a prompt, the picker.
        for context in [Context::Help, Context::Filter, Context::Prompt, Context::Picker] {
            assert_eq!(lookup(&ctrl_c, context), Some(Action::Interrupt), "{context:?}");
        }
        // Plain `c` is "next clip", not quit.
        assert_eq!(action_for(&key(KeyCode::Char('c')), Focus::Bones, false, false), Some(Action::NextClip));
    }

    #[test]
    fn p_and_shift_p_cycle_the_engines_both_ways_on_one_help_row() {
        let p = action_for(&key(KeyCode::Char('p')), Focus::Bones, false, false);
        let shift_p = KeyEvent::new(KeyCode::Char('P'), KeyModifiers::SHIFT);
        assert_eq!(p, Some(Action::CycleEngine(1)));
        assert_eq!(action_for(&shift_p, Focus::Viewport, false, false), Some(Action::CycleEngine(-1)));
        assert_eq!(
            action_for(&key(KeyCode::Char('F')), Focus::Keys, false, false),
            Some(Action::TogglePrecision)
        );
        let rows: Vec<&Binding> =
            BINDINGS.iter().filter(|b| matches!(b.action, Action::CycleEngine(_)) && b.listed).collect();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].label, "p P");
    }

    #[test]
    fn capitals_match_with_or_without_shift_flag() {
        let with_shift = KeyEvent::new(KeyCode::Char('H'), KeyModifiers::SHIFT);
        assert_eq!(action_for(&with_shift, Focus::Bones, false, false), Some(Action::ToggleHeatmap));
        assert_eq!(
            action_for(&key(KeyCode::Char('H')), Focus::Bones, false, false),
            Some(Action::ToggleHeatmap)
        );
    }

    #[test]
    fn help_is_modal() {
        assert_eq!(
            action_for(&key(KeyCode::Down), Focus::Viewport, false, true),
            Some(Action::HelpScroll(1))
        );
        assert_eq!(action_for(&key(KeyCode::Char('w')), Focus::Viewport, false, true), None);
        assert_eq!(action_for(&key(KeyCode::Esc), Focus::Viewport, false, true), Some(Action::ToggleHelp));
    }

    #[test]
    fn typing_a_filter_captures_letters() {
        assert_eq!(
            action_for(&key(KeyCode::Char('q')), Focus::Bones, true, false),
            Some(Action::FilterChar('q'))
        );
        assert_eq!(action_for(&key(KeyCode::Esc), Focus::Bones, true, false), Some(Action::FilterCancel));
    }

    #[test]
    fn a_prompt_and_the_picker_take_every_character() {
        let q = key(KeyCode::Char('q'));
        assert_eq!(lookup(&q, Context::Prompt), Some(Action::PromptChar('q')));
        assert_eq!(lookup(&q, Context::Picker), Some(Action::PickerChar('q')));
        assert_eq!(lookup(&key(KeyCode::Enter), Context::Prompt), Some(Action::PromptAccept));
        assert_eq!(lookup(&key(KeyCode::PageDown), Context::Picker), Some(Action::PickerMove(10)));
        assert_eq!(lookup(&key(KeyCode::Esc), Context::Picker), Some(Action::ToggleClipPicker));
        // Whatever the modifiers, as a typed capital may or may not carry SHIFT.
        let shifted = KeyEvent::new(KeyCode::Char('Q'), KeyModifiers::SHIFT);
        assert_eq!(lookup(&shifted, Context::Filter), Some(Action::FilterChar('Q')));
    }

    #[test]
    fn no_key_is_bound_twice_in_one_context() {
        for (i, a) in BINDINGS.iter().enumerate() {
            for b in &BINDINGS[i + 1..] {
                if a.context == b.context {
                    for k in a.keys {
                        assert!(!b.keys.contains(k), "{:?} bound twice in {:?}", k, a.context);
                    }
                }
            }
        }
    }
}
