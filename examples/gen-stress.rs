//! Writes issue 54's hostile shapes (`samplegen::stress`) at size N into DIR, for timing
//! by hand: `cargo run --example gen-stress -- DIR N`.

use rigscope::samplegen::stress;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| "stress".into()));
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("unbound-lib.glb"), stress::unbound_library(n))?;
    std::fs::write(dir.join("wide.glb"), stress::wide_rig(n))?;
    std::fs::write(dir.join("clips.glb"), stress::many_clips(n))?;
    std::fs::write(dir.join("roots.glb"), stress::many_roots(n))?;
    let side = (n as f64).sqrt() as usize;
    std::fs::write(dir.join("chain.glb"), stress::long_chain(side, side))?;
    std::fs::write(dir.join("map.txt"), stress::unmatched_map(n))?;
    Ok(())
}
