//! Writes every generated sample into the crate's `samples/` folder, and the VRM avatars
//! made from the walker into `tests/fixtures/vrm/`, and the engine fixtures into
//! `tests/fixtures/engines/`.
//!
//! Run `cargo run --example gen-samples` after changing `src/samplegen`; the `samples` test
//! fails until the committed files match the generator again.

use std::path::Path;

fn main() -> std::io::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    std::fs::create_dir_all(&dir)?;
    for (name, bytes) in rigscope::samplegen::all() {
        let path = dir.join(name);
        std::fs::write(&path, &bytes)?;
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/vrm");
    std::fs::create_dir_all(&fixtures)?;
    for (name, bytes) in rigscope::samplegen::vrm_fixtures() {
        let path = fixtures.join(name);
        std::fs::write(&path, &bytes)?;
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
    let engines = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/engines");
    for (name, bytes) in rigscope::samplegen::engine_fixtures() {
        let path = engines.join(name);
        std::fs::write(&path, &bytes)?;
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
    Ok(())
}
