//! Issue 54's hostile shapes (F2) at the sizes the issue names, each a file of a few MB that
//! once took a minute or more: the work must stay linear (or n log n) in the input. Inputs
//! come from `samplegen::stress` and are written to a temporary folder before any timing.
//!
//! - `pose --anim` with a library of 100,000 animated nodes that bind to nothing;
//! - a file of 10,000 clips: `fit` of it as a library, `pose` (load and one frame) and
//!   `render` (one frame drawn);
//! - a map of 100,000 lines parsed, and `fit` with it, its targets not nodes of a
//!   100,000-node rig;
//! - `fit` of that library on that rig without a map (every node's name against the humanoid
//!   landmarks, each rig's body in both reference poses);
//! - `--retarget rest` of a clip on 20,000 bound roots;
//! - a chain of 1,000 nodes with 1,000 keys each: load and a frame, and `--retarget rest`.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{BenchmarkGroup, Criterion, criterion_group, measurement::WallTime};
use rigscope::Rig;
use rigscope::anim::Workspace;
use rigscope::attach::{AnimSet, BindMode, BindOptions, NameMap, fit::fit, load_with_anims};
use rigscope::render::{GlyphMode, Raster, SceneOptions, SceneScratch, draw_scene, framed_camera};
use rigscope::samplegen::stress;

fn group<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    // Each run is a whole command's work on a large input: few samples, each long enough.
    g.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    g
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("temp file");
    path
}

fn load(path: &Path) -> Rig {
    rigscope::load(path).expect("stress file loads")
}

fn with_anims(character: &Path, set: &AnimSet) -> Rig {
    let mut rig = load(character);
    load_with_anims(&mut rig, set).expect("library binds");
    rig
}

fn options(map: Option<NameMap>, retarget: bool) -> BindOptions {
    let retarget = retarget.then_some(rigscope::attach::body::ReferencePose::Rest);
    BindOptions { mode: BindMode::Exact, map, retarget }
}

fn one_frame(rig: &Rig) -> Workspace {
    Workspace::at(rig, rig.clips.first(), 0.5)
}

fn hostile(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp folder");
    let dir = dir.path();
    let walker = PathBuf::from("samples/walker.glb");
    let unbound = write(dir, "unbound.glb", &stress::unbound_library(100_000));
    let clips = write(dir, "clips.glb", &stress::many_clips(10_000));
    let wide = write(dir, "wide.glb", &stress::wide_rig(100_000));
    let roots = write(dir, "roots.glb", &stress::many_roots(20_000));
    let chain = write(dir, "chain.glb", &stress::long_chain(1_000, 1_000));
    let map = NameMap::parse(&stress::unmatched_map(100_000)).expect("map parses");

    let mut g = group(c, "hostile");
    let set = AnimSet { files: vec![unbound.clone()], options: options(None, false) };
    g.bench_function("pose-anim/100k-unbound-nodes", |b| {
        b.iter(|| black_box(one_frame(&with_anims(&walker, &set))))
    });

    let character = load(&walker);
    let library = vec![("clips.glb".to_string(), load(&clips))];
    g.bench_function("fit/10k-clips", |b| {
        b.iter(|| black_box(fit(&character, &library, &options(None, false))))
    });
    g.bench_function("pose/10k-clips", |b| b.iter(|| black_box(one_frame(&load(&clips)))));
    let many = load(&clips);
    let ws = one_frame(&many);
    let camera = framed_camera(&ws, 0.0, 0.0, 1.0);
    let mut raster = Raster::for_grid(120, 40, GlyphMode::Braille);
    let mut scratch = SceneScratch::default();
    let opts = SceneOptions { bones: true, ..SceneOptions::default() };
    g.bench_function("render/10k-clips", |b| {
        b.iter(|| {
            let rig = load(&clips);
            let ws = one_frame(&rig);
            draw_scene(&mut raster, &camera, &rig, &ws, None, &opts, &mut scratch);
        })
    });

    let map_text = stress::unmatched_map(100_000);
    g.bench_function("map-parse/100k-lines", |b| b.iter(|| black_box(NameMap::parse(&map_text))));

    let wide_rig = load(&wide);
    let unbound_lib = vec![("unbound.glb".to_string(), load(&unbound))];
    let mapped = options(Some(map), false);
    g.bench_function("fit-map/100k-missing-targets", |b| {
        b.iter(|| black_box(fit(&wide_rig, &unbound_lib, &mapped)))
    });
    let plain = options(None, false);
    g.bench_function("fit/100k-nodes", |b| b.iter(|| black_box(fit(&wide_rig, &unbound_lib, &plain))));

    let set = AnimSet { files: vec![roots.clone()], options: options(None, true) };
    g.bench_function("retarget/20k-bound-roots", |b| b.iter(|| black_box(with_anims(&roots, &set))));

    g.bench_function("pose/chain-1000x1000", |b| b.iter(|| black_box(one_frame(&load(&chain)))));
    let set = AnimSet { files: vec![chain.clone()], options: options(None, true) };
    g.bench_function("retarget/chain-1000x1000", |b| b.iter(|| black_box(with_anims(&chain, &set))));
    g.finish();
}

criterion_group!(benches, hostile);

fn main() {
    rigscope::cli::on_pool(|| {
        benches();
        Criterion::default().configure_from_args().final_summary();
    });
}
