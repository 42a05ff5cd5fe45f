//! The clip list's `all` entry: every clip of the file at once, after the file's own clips.

use super::App;
use crate::rig::{ALL_CLIPS, Rig};
use crate::tui::Launch;
use crate::tui::action::Action;

fn walker() -> Rig {
    crate::import::load_bytes(crate::cli::BUNDLED_SAMPLE, "walker.glb", None).unwrap()
}

#[test]
fn the_clip_list_ends_with_all_and_the_checks_see_only_the_files_clips() {
    let file = walker();
    let own = file.clips.len();
    assert!(own >= 2, "the walker has a walk and an idle");
    let alone = crate::diagnose::check(&file, &crate::diagnose::Options::default());
    let mut app = App::new(file, &Launch { paused: true, ..Launch::default() });
    assert_eq!(app.session.rig.clips.len(), own + 1);
    assert_eq!(app.session.rig.clip_label(own), ALL_CLIPS);
    assert_eq!(app.session.diag, alone);
    for _ in 0..own {
        app.update(Action::NextClip);
    }
    assert_eq!(app.player.clip, Some(own));
    let longest = app.session.rig.clips[..own].iter().map(|c| c.duration).fold(0.0, f32::max);
    assert_eq!(app.player.playback.duration, longest);
}

#[test]
fn launching_on_all_plays_the_entry_and_a_single_clip_offers_none() {
    let file = walker();
    let own = file.clips.len();
    let app = App::new(file, &Launch { clip: Some(own), paused: true, ..Launch::default() });
    assert_eq!(app.player.clip, Some(own));
    assert_eq!(app.session.rig.clip_label(own), ALL_CLIPS);

    let mut one = walker();
    one.clips.truncate(1);
    let app = App::new(one, &Launch { paused: true, ..Launch::default() });
    assert_eq!(app.session.rig.clips.len(), 1, "one clip: `all` would be the same clip");
}
