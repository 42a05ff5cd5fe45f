//! Writes issue 54's hostile shapes (`samplegen::stress`) at size N into DIR, for timing
//! by hand: `cargo run --example gen-stress -- DIR N [SHAPE...]`, SHAPE one of unbound, wide,
//! clips, roots, chain (N nodes in all: sqrt(N) nodes of sqrt(N) keys) and map (default: all).

use rigscope::samplegen::stress;

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = std::path::PathBuf::from(args.next().unwrap_or_else(|| "stress".into()));
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let mut shapes: Vec<String> = args.collect();
    if shapes.is_empty() {
        shapes = ["unbound", "wide", "clips", "roots", "chain", "map"].map(String::from).to_vec();
    }
    std::fs::create_dir_all(&dir)?;
    let side = (n as f64).sqrt() as usize;
    for shape in &shapes {
        match shape.as_str() {
            "unbound" => std::fs::write(dir.join("unbound-lib.glb"), stress::unbound_library(n))?,
            "wide" => std::fs::write(dir.join("wide.glb"), stress::wide_rig(n))?,
            "clips" => std::fs::write(dir.join("clips.glb"), stress::many_clips(n))?,
            "roots" => std::fs::write(dir.join("roots.glb"), stress::many_roots(n))?,
            "chain" => std::fs::write(dir.join("chain.glb"), stress::long_chain(side, side))?,
            "map" => std::fs::write(dir.join("map.txt"), stress::unmatched_map(n))?,
            other => eprintln!("gen-stress: no shape named {other}"),
        }
    }
    Ok(())
}
