//! `M`: the character and its `--anim` clips written to a new file beside the character, as
//! `rigscope merge CHARACTER LIB... -o NAME` writes it. The prompt offers a name no file has;
//! a name that exists is refused (the viewer never replaces a file).

use std::path::{Path, PathBuf};

use super::App;
use super::action::PromptKind;
use super::app::FileNote;
use super::prompt::Prompt;
use crate::merge::{Options, Request};
use crate::report::inspect::plural_n;

impl App {
    /// Opens the name prompt, filled with a free name, or says why there is nothing to write.
    pub(super) fn start_merge_prompt(&mut self) {
        let (Some(file), Some(anims)) = (&self.session.file, &self.session.anims) else {
            self.status.message = Some(if self.session.file.is_none() {
                "M writes beside the character's file: open a file (the bundled sample has none)".into()
            } else {
                "M writes the clips of --anim files: open the character with --anim LIB".into()
            });
            return;
        };
        if anims.files.is_empty() {
            self.status.message = Some("M writes the clips of --anim files: none given".into());
            return;
        }
        let mut prompt = Prompt::new(PromptKind::Merge);
        prompt.text = free_name(file);
        self.overlays.prompt = Some(prompt);
    }

    /// Writes the merged file named `text` beside the character.
    pub(super) fn merge_into(&mut self, text: &str) {
        let (Some(file), Some(anims)) = (self.session.file.clone(), self.session.anims.clone()) else {
            return;
        };
        let name = text.trim();
        let output = match target(&file, name) {
            Ok(path) => path,
            Err(why) => {
                self.merge_note(why);
                return;
            }
        };
        if output.exists() {
            self.merge_note(format!(
                "{name} exists: the viewer never replaces a file; pick another name (M)"
            ));
            return;
        }
        let request = Request {
            character: file,
            libraries: anims.files,
            output: output.clone(),
            force: false,
            options: Options { binding: anims.options, clips: Vec::new(), in_place: false },
            other_inputs: Vec::new(),
        };
        let text = match crate::merge::run(&request) {
            Ok(report) => {
                let dropped = match report.tracks_dropped {
                    0 => String::new(),
                    n => format!(
                        ", {} bound to nothing and {} left out (rigscope merge lists them)",
                        plural_n(n, "track"),
                        if n == 1 { "was" } else { "were" }
                    ),
                };
                format!(
                    "wrote {}: the character and {}{dropped}",
                    output.display(),
                    plural_n(report.clips_written, "clip")
                )
            }
            Err(why) => format!("not written: {why}"),
        };
        self.merge_note(text);
    }
}

impl App {
    /// The outcome is news the user waits for: it stays on the status bar's second line until
    /// the next key, as a reload's summary does, even while a clip plays.
    fn merge_note(&mut self, text: String) {
        self.status.file_note = Some(FileNote { text, error: false });
    }
}

/// `NAME` in the character's folder; `.glb` is added to a name without an extension.
fn target(character: &Path, name: &str) -> Result<PathBuf, String> {
    if name.is_empty() {
        return Err("no name given: nothing written".into());
    }
    if name.contains(['/', '\\']) || name == "." || name == ".." {
        return Err(format!("'{name}': a file name, please (it is written beside the character)"));
    }
    let mut path = crate::output_file::parent_folder(character).join(name);
    match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("glb" | "gltf") => {}
        None => {
            path.set_extension("glb");
        }
        Some(other) => return Err(format!("'{name}': .{other} is no glTF file; end it in .glb or .gltf")),
    }
    Ok(path)
}

/// `STEM-clips.glb`, or `STEM-clips-2.glb`, ... : the first name no file in the character's
/// folder has.
fn free_name(character: &Path) -> String {
    let stem = character.file_stem().map_or_else(|| "merged".into(), |s| s.to_string_lossy().into_owned());
    let folder = crate::output_file::parent_folder(character);
    let mut name = format!("{stem}-clips.glb");
    let mut n = 2;
    while folder.join(&name).exists() {
        name = format!("{stem}-clips-{n}.glb");
        n += 1;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attach::AnimSet;
    use crate::tui::action::Action;
    use crate::tui::{App, Launch};

    fn type_text(app: &mut App, text: &str) {
        for _ in 0..app.overlays.prompt.as_ref().map_or(0, |p| p.text.len()) {
            app.update(Action::PromptBackspace);
        }
        for c in text.chars() {
            app.update(Action::PromptChar(c));
        }
    }

    #[test]
    fn m_writes_the_anim_clips_beside_the_character_and_never_over_a_file() {
        let dir = tempfile::tempdir().expect("temp");
        let character = dir.path().join("walker.glb");
        std::fs::write(&character, crate::samplegen::walker()).expect("character");
        let lib = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/clips/anims.glb"));
        let anims = AnimSet { files: vec![lib], ..AnimSet::default() };
        let mut rig = crate::import::load(&character).expect("loads");
        crate::attach::load_with_anims(&mut rig, &anims).expect("binds");
        let launch =
            Launch { paused: true, file: Some(character.clone()), anims: Some(anims), ..Launch::default() };
        let mut app = App::new(rig, &launch);

        app.update(Action::StartPrompt(PromptKind::Merge));
        assert_eq!(app.overlays.prompt.as_ref().map(|p| p.text.as_str()), Some("walker-clips.glb"));
        app.update(Action::PromptAccept);
        let written = dir.path().join("walker-clips.glb");
        let note = app.status.file_note.clone().expect("a note");
        assert!(note.text.starts_with("wrote ") && note.text.contains("2 clips") && !note.error, "{note:?}");
        // A tick (playback) keeps it; the next key clears it.
        app.update(Action::Tick(0.1));
        assert!(app.status.file_note.is_some());
        let merged = crate::import::load(&written).expect("the merged file loads");
        assert_eq!(merged.clip_label(2), "walk (anims)");

        // The next offer is a free name; a taken one is refused and nothing changes.
        app.update(Action::StartPrompt(PromptKind::Merge));
        assert_eq!(app.overlays.prompt.as_ref().map(|p| p.text.as_str()), Some("walker-clips-2.glb"));
        type_text(&mut app, "walker-clips");
        let before = std::fs::read(&written).expect("written");
        app.update(Action::PromptAccept);
        assert!(
            app.status.file_note.as_ref().is_some_and(|n| n.text.contains("exists")),
            "{:?}",
            app.status.file_note
        );
        assert_eq!(std::fs::read(&written).expect("written"), before);

        // Without --anim there is nothing to write.
        let mut plain = App::new(
            crate::import::load(&character).expect("loads"),
            &Launch { file: Some(character), ..Launch::default() },
        );
        plain.update(Action::StartPrompt(PromptKind::Merge));
        assert!(plain.overlays.prompt.is_none());
        assert!(
            plain.status.message.as_deref().unwrap_or_default().contains("--anim"),
            "{:?}",
            plain.status.message
        );
    }

    #[test]
    fn names_stay_beside_the_character_and_get_an_extension() {
        let character = Path::new("rigs/hero.glb");
        assert_eq!(target(character, "hero-dance"), Ok(PathBuf::from("rigs/hero-dance.glb")));
        assert_eq!(target(character, "out.GLTF"), Ok(PathBuf::from("rigs/out.GLTF")));
        assert!(target(character, "../out.glb").is_err());
        assert!(target(character, "a/b.glb").is_err());
        assert!(target(character, "notes.txt").unwrap_err().contains(".txt is no glTF file"));
        assert!(target(character, "").is_err());
    }
}
