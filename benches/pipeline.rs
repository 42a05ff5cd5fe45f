//! One criterion group per stage of the per-frame pipeline (see PERFORMANCE.md for the
//! targets): sampling (forward playback, random seek, backward scrubbing), pose (globals +
//! joint matrices + the skinning palettes built from them), skinning (one core and the rayon pool), raster (draw_scene + pack, one core and the pool) and
//! a full viewer frame into a ratatui `TestBackend`; then loading, live reload, `merge` and
//! clip binding at load (`bind`).
//!
//! Inputs: the bundled samples and, when present, CesiumMan-x32 from `$RIGSCOPE_ASSETS`
//! (default `../shared/assets`). Every input is built before the timed loop.

use std::hint::black_box;
use std::path::PathBuf;
use std::time::Duration;

use criterion::{BenchmarkGroup, Criterion, Throughput, criterion_group, measurement::WallTime};
use rigscope::Rig;
use rigscope::anim::{Pose, Sampler, Workspace, sample};
use rigscope::render::{
    GlyphMode, Grid, Raster, SceneOptions, SceneScratch, draw_scene, framed_camera, pack,
};

const FRAME_STEP: f32 = 1.0 / 30.0;

/// (label, rig) for every input that exists.
fn inputs() -> Vec<(String, Rig)> {
    let mut out = Vec::new();
    for name in ["walker.glb", "tentacle.glb"] {
        match rigscope::load(&PathBuf::from("samples").join(name)) {
            Ok(rig) => out.push((name.to_string(), rig)),
            Err(e) => eprintln!("note: skipping samples/{name}: {e}"),
        }
    }
    if let Some(rig) = cesium() {
        out.push(("CesiumMan-x32".to_string(), rig));
    }
    out
}

fn cesium() -> Option<Rig> {
    let root =
        std::env::var_os("RIGSCOPE_ASSETS").map_or_else(|| PathBuf::from("../shared/assets"), PathBuf::from);
    let path = root.join("CesiumMan-x32/CesiumMan-x32.glb");
    match rigscope::load(&path) {
        Ok(rig) => Some(rig),
        Err(e) => {
            eprintln!("note: skipping CesiumMan-x32 ({}): {e}", path.display());
            None
        }
    }
}

/// `rig` with every primitive's vertices repeated `times` (indices shifted), for a mesh
/// past the 200k-vertex mark of the two-core target.
fn tiled(rig: &Rig, times: usize) -> Rig {
    let mut rig = rig.clone();
    for mesh in &mut rig.meshes {
        for p in &mut mesh.primitives {
            let n = p.positions.len();
            p.positions = p.positions.repeat(times).into();
            p.normals = p.normals.as_ref().map(|v| v.repeat(times).into());
            for set in &mut p.influences {
                set.joints = set.joints.repeat(times).into();
                set.weights = set.weights.repeat(times).into();
            }
            if let Some(indices) = &p.indices {
                let mut all = Vec::with_capacity(indices.len() * times);
                for k in 0..times {
                    all.extend(indices.iter().map(|&i| i + (k * n) as u32));
                }
                p.indices = Some(all.into());
            }
            p.morph_targets.clear();
        }
    }
    rig
}

fn quick<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(1));
    g
}

fn animated_nodes(rig: &Rig) -> u64 {
    rig.clips.first().map_or(0, |c| c.animated_nodes()).max(1) as u64
}

fn sampling(c: &mut Criterion) {
    let mut g = quick(c, "sampling");
    for (name, rig) in inputs() {
        let Some(clip) = rig.clips.first() else { continue };
        g.throughput(Throughput::Elements(animated_nodes(&rig)));
        let mut pose = Pose::rest(&rig);
        let mut sampler = Sampler::new(clip);
        let frames = (clip.duration / FRAME_STEP).max(1.0) as usize;
        let mut i = 0usize;
        g.bench_function(format!("forward/{name}"), |b| {
            b.iter(|| {
                i = (i + 1) % frames;
                sampler.sample(clip, i as f32 * FRAME_STEP, &mut pose);
            })
        });
        // Scrubbing backwards with the cursor sampler: the same cost as forwards is the goal.
        g.bench_function(format!("backward/{name}"), |b| {
            b.iter(|| {
                i = (i + frames - 1) % frames;
                sampler.sample(clip, i as f32 * FRAME_STEP, &mut pose);
            })
        });
        // Random seeks (deterministic LCG): the cursor never helps.
        let mut state = 12345u32;
        g.bench_function(format!("seek/{name}"), |b| {
            b.iter(|| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let t = (state >> 8) as f32 / (1u32 << 24) as f32 * clip.duration;
                sampler.sample(clip, t, &mut pose);
            })
        });
        // The stateless binary search, for comparison.
        g.bench_function(format!("search/{name}"), |b| {
            b.iter(|| {
                state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let t = (state >> 8) as f32 / (1u32 << 24) as f32 * clip.duration;
                sample(clip, t, &mut pose);
            })
        });
    }
}

fn pose(c: &mut Criterion) {
    let mut g = quick(c, "pose");
    for (name, rig) in inputs() {
        let mut ws = Workspace::new(&rig);
        ws.sample_pose(&rig, rig.clips.first(), 0.5);
        let joints: usize = rig.skins.iter().map(|s| s.joints.len()).sum();
        g.throughput(Throughput::Elements(joints.max(rig.nodes.len()) as u64));
        g.bench_function(name, |b| b.iter(|| ws.update_matrices(black_box(&rig))));
    }
}

fn skinning(c: &mut Criterion) {
    let mut g = quick(c, "skinning");
    let mut all = inputs();
    if let Some((_, rig)) = all.iter().find(|(n, _)| n == "CesiumMan-x32") {
        all.push(("CesiumMan-x64 (tiled x2)".to_string(), tiled(rig, 2)));
    }
    for (name, rig) in all {
        let mut ws = Workspace::new(&rig);
        ws.sample_pose(&rig, rig.clips.first(), 0.5);
        ws.update_matrices(&rig);
        let vertices: usize = ws.primitives.iter().map(|p| p.positions.len()).sum();
        g.throughput(Throughput::Elements(vertices as u64));
        ws.set_parallel(false);
        g.bench_function(format!("1-core/{name}"), |b| b.iter(|| ws.skin(black_box(&rig))));
        ws.set_parallel(true);
        g.bench_function(format!("pool/{name}"), |b| b.iter(|| ws.skin(black_box(&rig))));
    }
}

fn raster(c: &mut Criterion) {
    let mut g = quick(c, "raster");
    for (name, rig) in inputs() {
        let mut ws = Workspace::new(&rig);
        ws.evaluate(&rig, rig.clips.first(), 0.5);
        let triangles: usize = rig
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.indices.as_deref().map_or(p.positions.len(), <[u32]>::len) / 3)
            .sum();
        g.throughput(Throughput::Elements(triangles as u64));
        let camera = framed_camera(&ws, 0.0, 0.0, 1.0);
        // 200x60 braille cells = 400x240 dots.
        let mut raster = Raster::for_grid(200, 60, GlyphMode::Braille);
        let mut grid = Grid::new(200, 60);
        let mut scratch = SceneScratch::default();
        let opts = SceneOptions { bones: true, skin: Some(0), ..SceneOptions::default() };
        // The target is for one core; the viewer fills big meshes in two bands on the pool.
        // The one-core loop runs whole on its pool's thread: installing each iteration
        // would time a thread hand-off (a wake-up, 20-80 us on a busy VM) as raster work.
        let Ok(one) = rayon::ThreadPoolBuilder::new().num_threads(1).build() else { continue };
        for (label, pool) in [("1-core", Some(&one)), ("pool", None)] {
            let mut draw = || {
                draw_scene(&mut raster, &camera, &rig, &ws, None, &opts, &mut scratch);
                pack(&raster, GlyphMode::Braille, &mut grid);
            };
            g.bench_function(format!("{label}/{name}"), |b| match pool {
                Some(pool) => pool.install(|| b.iter(&mut draw)),
                None => b.iter(&mut draw),
            });
        }
    }
}

fn frame(c: &mut Criterion) {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use rigscope::tui::ui::{ViewportCache, draw};
    use rigscope::tui::{App, Launch};

    let mut g = quick(c, "frame");
    for (name, rig) in inputs() {
        let launch = Launch::default();
        let mut app = App::new(rig, &launch);
        let Ok(mut terminal) = Terminal::new(TestBackend::new(200, 60));
        let mut cache = ViewportCache::default();
        let duration = app.session.rig.clips.first().map_or(0.0, |c| c.duration);
        let mut t = 0.0f32;
        g.bench_function(format!("200x60/{name}"), |b| {
            b.iter(|| {
                t = if duration > 0.0 { (t + FRAME_STEP) % duration } else { 0.0 };
                app.player.playback.time = t;
                let clip = app.session.rig.clips.first();
                app.session.ws.evaluate(&app.session.rig, clip, t);
                let _ = terminal.draw(|f| {
                    draw(f, &app, &mut cache);
                });
            })
        });
    }
}

/// A ~20 MB .glb for the first-frame target, written to the temp folder (never committed):
/// CesiumMan-x32's mesh tiled twice (209 472 vertices, indices shifted) plus a 4.6 MB image
/// the viewer must not decode, padding the file to 20 000 000 bytes. Also left there for
/// timing the whole process (`rigscope render FILE`).
fn twenty_mb_glb() -> Option<PathBuf> {
    let root =
        std::env::var_os("RIGSCOPE_ASSETS").map_or_else(|| PathBuf::from("../shared/assets"), PathBuf::from);
    let glb = std::fs::read(root.join("CesiumMan-x32/CesiumMan-x32.glb")).ok()?;
    let word = |b: &[u8], at: usize| Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?) as usize);
    let json_len = word(&glb, 12)?;
    let mut json: serde_json::Value = serde_json::from_slice(glb.get(20..20 + json_len)?).ok()?;
    let bin = glb.get(28 + json_len..)?;
    let vertices = json["accessors"][0]["count"].as_u64()? as u32;
    let mut out = Vec::new();
    let views = json["bufferViews"].as_array_mut()?;
    for (i, view) in views.iter_mut().enumerate() {
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
        let data = bin.get(start..start + view["byteLength"].as_u64()? as usize)?;
        let data = match i {
            // POSITION, NORMAL, JOINTS_0, WEIGHTS_0, TEXCOORD_0: repeated.
            0..=4 => data.repeat(2),
            // u32 indices: the second copy points at the second copy of the vertices.
            5 => data
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .chain(data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) + vertices))
                .flat_map(u32::to_le_bytes)
                .collect(),
            _ => data.to_vec(),
        };
        view["byteOffset"] = out.len().into();
        view["byteLength"] = data.len().into();
        out.extend_from_slice(&data);
        out.resize(out.len().next_multiple_of(4), 0);
    }
    for accessor in json["accessors"].as_array_mut()?.iter_mut().take(6) {
        accessor["count"] = (accessor["count"].as_u64()? * 2).into();
    }
    let image_at = out.len();
    let image_len = 20_000_000 - 40_000 - image_at;
    out.extend((0..image_len).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    json["bufferViews"]
        .as_array_mut()?
        .push(serde_json::json!({"buffer": 0, "byteOffset": image_at, "byteLength": image_len}));
    json["images"] = serde_json::json!([{"bufferView": json["bufferViews"].as_array()?.len() - 1, "mimeType": "image/png"}]);
    json["buffers"] = serde_json::json!([{"byteLength": out.len()}]);
    let mut text = serde_json::to_vec(&json).ok()?;
    text.resize(text.len().next_multiple_of(4), b' ');
    let total = 12 + 8 + text.len() + 8 + out.len();
    let mut file = b"glTF".to_vec();
    for w in [2, total, text.len()] {
        file.extend_from_slice(&(w as u32).to_le_bytes());
    }
    file.extend_from_slice(b"JSON");
    file.extend_from_slice(&text);
    file.extend_from_slice(&(out.len() as u32).to_le_bytes());
    file.extend_from_slice(b"BIN\0");
    file.extend_from_slice(&out);
    let path = std::env::temp_dir().join("rigscope-load-20mb.glb");
    std::fs::write(&path, &file).ok()?;
    Some(path)
}

/// First frame of a 20 MB .glb: `rigscope::load` alone, and load + the first viewer frame
/// (evaluate at t = 0, `draw_scene` + `pack` into 200x60 braille cells) as the viewer does
/// it on opening a file.
fn load(c: &mut Criterion) {
    let Some(path) = twenty_mb_glb() else {
        eprintln!("note: skipping the load group: CesiumMan-x32 not found");
        return;
    };
    let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
    eprintln!("note: load group reads {} ({bytes} bytes)", path.display());
    let mut g = c.benchmark_group("load");
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("20MB-glb", |b| b.iter(|| rigscope::load(black_box(&path))));
    g.bench_function("20MB-glb+first-frame", |b| {
        b.iter(|| {
            let Ok(rig) = rigscope::load(black_box(&path)) else { return };
            let mut ws = Workspace::new(&rig);
            ws.evaluate(&rig, rig.clips.first(), 0.0);
            let camera = framed_camera(&ws, 0.0, 0.0, 1.0);
            let mut raster = Raster::for_grid(200, 60, GlyphMode::Braille);
            let mut grid = Grid::new(200, 60);
            let mut scratch = SceneScratch::default();
            let opts = SceneOptions { bones: true, skin: Some(0), ..SceneOptions::default() };
            draw_scene(&mut raster, &camera, &rig, &ws, None, &opts, &mut scratch);
            pack(&raster, GlyphMode::Braille, &mut grid);
            black_box(&grid);
        })
    });
}

/// Live reload of the 20 MB .glb: from the moment a save of it is complete (renamed into
/// place) until the watcher has loaded it and built the new session, then the event loop's
/// share (`App::reload` and the pose at the kept time). The first includes the 40 ms settle.
fn reload(c: &mut Criterion) {
    use rigscope::tui::watch::{Reload, Watch};
    use rigscope::tui::{App, Launch, Session};
    let Some(source) = twenty_mb_glb() else {
        eprintln!("note: skipping the reload group: CesiumMan-x32 not found");
        return;
    };
    let Ok(bytes) = std::fs::read(&source) else { return };
    let dir = std::env::temp_dir().join(format!("rigscope-reload-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("rig.glb");
    let saving = dir.join("rig.glb.saving");
    if std::fs::write(&file, &bytes).is_err() {
        return;
    }
    let launch = Launch { paused: true, ..Launch::default() };
    let Ok(rig) = rigscope::load(&file) else { return };
    let mut app = App::new(rig, &launch);
    let Ok(watch) = Watch::start(&file, &launch, || {}) else { return };
    let mut g = c.benchmark_group("reload");
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(8));
    g.bench_function("20MB-glb-saved-to-session-built", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                // Not timed: writing 20 MB is the exporter's time, not the viewer's. The pause
                // lets the event of the last load's own read settle first, or it would find
                // this save and load it early.
                std::thread::sleep(Duration::from_millis(100));
                let _ = std::fs::write(&saving, &bytes);
                let _ = std::fs::rename(&saving, &file);
                let saved = std::time::Instant::now();
                if let Some(Reload::Loaded(fresh)) = watch.next(Duration::from_secs(10)) {
                    total += saved.elapsed();
                    black_box(fresh);
                }
            }
            total
        })
    });
    let Ok(rig) = rigscope::load(&file) else { return };
    g.bench_function("20MB-glb-reload", |b| {
        b.iter_batched(
            || Session::new(rig.clone(), &launch),
            |fresh| {
                app.reload(fresh);
                app.evaluate();
            },
            criterion::BatchSize::LargeInput,
        )
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// A 48-clip library in `dir`, made by merging the walker sample's two clips onto itself 23
/// times (so the library is a whole rig, as Mixamo and KayKit libraries are); `None`, with a
/// note naming `group`, when it cannot be made.
fn library_48(dir: &std::path::Path, group: &str) -> Option<PathBuf> {
    use rigscope::merge::{Options, Request, run};
    let _ = std::fs::create_dir_all(dir);
    let walker = PathBuf::from("samples/walker.glb");
    let library = dir.join("library-48.glb");
    let made = run(&Request {
        character: walker.clone(),
        libraries: vec![walker; 23],
        output: library.clone(),
        force: true,
        options: Options::default(),
        other_inputs: Vec::new(),
    });
    match made {
        Ok(report) => {
            eprintln!("note: {group} group: a library of {} clips", report.clips_written + 2);
            Some(library)
        }
        Err(e) => {
            eprintln!("note: skipping the {group} group: {e}");
            None
        }
    }
}

/// `rigscope merge` end to end (read both files, bind, copy, write OUT): the walker sample's
/// character with `library_48`.
fn merge(c: &mut Criterion) {
    use rigscope::merge::{Options, Request, run};
    let dir = std::env::temp_dir().join(format!("rigscope-merge-bench-{}", std::process::id()));
    let Some(library) = library_48(&dir, "merge") else { return };
    let request = Request {
        character: PathBuf::from("samples/walker.glb"),
        libraries: vec![library],
        output: dir.join("out.glb"),
        force: true,
        options: Options::default(),
        other_inputs: Vec::new(),
    };
    let mut g = c.benchmark_group("merge");
    g.sample_size(10).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(3));
    g.bench_function("walker+48-clips", |b| b.iter(|| black_box(run(black_box(&request)).is_ok())));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Clip binding at load, as `--anim LIB` does it before the first frame: `library_48` read
/// and its clips bound onto the walker sample by name (`load+bind`), and the binding alone
/// onto a character copied outside the timing, plain (`bind`) and `--retarget rest`
/// (`retarget`).
fn bind(c: &mut Criterion) {
    use criterion::BatchSize;
    use rigscope::attach::{AnimSet, BindOptions, attach, load_with_anims};
    let dir = std::env::temp_dir().join(format!("rigscope-bind-bench-{}", std::process::id()));
    let Some(library) = library_48(&dir, "bind") else { return };
    let (Ok(walker), Ok(source)) = (rigscope::load("samples/walker.glb".as_ref()), rigscope::load(&library))
    else {
        eprintln!("note: skipping the bind group: the walker or the library does not load");
        return;
    };
    let set = AnimSet { files: vec![library.clone()], options: BindOptions::default() };
    let mut g = c.benchmark_group("bind");
    g.sample_size(20).warm_up_time(Duration::from_millis(300)).measurement_time(Duration::from_secs(3));
    g.bench_function("load+bind/walker+48-clips", |b| {
        b.iter_batched_ref(
            || walker.clone(),
            |character| load_with_anims(character, black_box(&set)).is_ok(),
            BatchSize::SmallInput,
        )
    });
    use rigscope::attach::body::ReferencePose;
    for (name, retarget) in [("bind", None), ("retarget", Some(ReferencePose::Bind))] {
        let options = BindOptions { retarget, ..BindOptions::default() };
        g.bench_function(format!("{name}/walker+48-clips"), |b| {
            b.iter_batched_ref(
                || walker.clone(),
                |character| attach(character, black_box(&source), "library-48.glb", &options),
                BatchSize::SmallInput,
            )
        });
    }
    drop(g);
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, sampling, pose, skinning, raster, frame, load, reload, merge, bind);

/// `criterion_main!`, run on a worker of rayon's pool as `rigscope` runs every command
/// (see `cli::on_pool`): the parallel stages then wake one thread each, as in the program.
fn main() {
    rigscope::cli::on_pool(|| {
        benches();
        Criterion::default().configure_from_args().final_summary();
    });
}
