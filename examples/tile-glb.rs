//! Writes a copy of a .glb with every mesh primitive repeated side by side, for performance
//! fixtures too large to commit. The 1M-vertex rig of PERFORMANCE.md is CesiumMan-x32
//! tiled ten times (320 CesiumMen):
//!
//! ```sh
//! cargo run --release --example tile-glb -- ../shared/assets/CesiumMan-x32/CesiumMan-x32.glb 10 /tmp/CesiumMan-x320.glb
//! ```
//!
//! Copy `k` of a primitive is shifted by `k` times its width (and a tenth) along x; indices
//! are shifted to its vertices; skins, nodes and clips are shared, so every copy deforms
//! alike. Only the simple layout such fixtures have is handled: one embedded buffer, each
//! vertex and index accessor alone in a tightly packed buffer view, u32 indices, no morph
//! targets. Anything else is refused, and OUT is never overwritten.

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use serde_json::Value;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, times, output] = args.as_slice() else {
        eprintln!("usage: tile-glb IN.glb TIMES OUT.glb");
        std::process::exit(2);
    };
    let result = times
        .parse::<u32>()
        .ok()
        .filter(|&t| t >= 1)
        .ok_or_else(|| format!("TIMES must be a whole number from 1, not {times}"))
        .and_then(|times| tile_file(Path::new(input), times, Path::new(output)));
    if let Err(e) = result {
        eprintln!("tile-glb: error: {e}");
        std::process::exit(2);
    }
}

fn tile_file(input: &Path, times: u32, output: &Path) -> Result<(), String> {
    if output.exists() {
        return Err(format!("{}: already exists; give a new path", output.display()));
    }
    let bytes = std::fs::read(input).map_err(|e| format!("{}: {e}", input.display()))?;
    let glb = tile(&bytes, times).map_err(|e| format!("{}: {e}", input.display()))?;
    let name = output.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let temp = output.with_file_name(format!(".{name}.tile-glb-{}.tmp", std::process::id()));
    let written = (|| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(&temp)?;
        file.write_all(&glb)?;
        file.sync_all()?;
        std::fs::rename(&temp, output)
    })();
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        format!("{}: cannot write: {e}", output.display())
    })?;
    println!("{} ({} bytes)", output.display(), glb.len());
    Ok(())
}

/// What a buffer view becomes in the copy.
enum Role {
    /// Vertex data, repeated; for POSITION, each copy shifted along x by `dx`.
    Vertices { position_dx: Option<f32> },
    /// u32 indices, copy `k` shifted by `k * vertices`.
    Indices { vertices: u32 },
}

fn tile(glb: &[u8], times: u32) -> Result<Vec<u8>, String> {
    let word = |at: usize| glb.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    if glb.get(..4) != Some(b"glTF") {
        return Err("not a .glb file".into());
    }
    let json_len = word(12).ok_or("truncated header")?;
    let json_bytes = glb.get(20..20 + json_len).ok_or("truncated JSON chunk")?;
    let bin_len = word(20 + json_len).ok_or("no BIN chunk")?;
    let bin = glb.get(28 + json_len..28 + json_len + bin_len).ok_or("truncated BIN chunk")?;
    let mut json: Value = serde_json::from_slice(json_bytes).map_err(|e| format!("JSON: {e}"))?;

    let accessor = |json: &Value, i: &Value| -> Result<(usize, Value), String> {
        let i = i.as_u64().ok_or("accessor index is not a number")? as usize;
        let a = json["accessors"].get(i).ok_or(format!("no accessor {i}"))?.clone();
        Ok((i, a))
    };
    let mut roles: HashMap<usize, Role> = HashMap::new();
    let mut tiled_accessors = Vec::new();
    let mut shifts = Vec::new();
    for mesh in json["meshes"].as_array().into_iter().flatten() {
        for p in mesh["primitives"].as_array().into_iter().flatten() {
            if p.get("targets").is_some() {
                return Err("a primitive has morph targets; not handled".into());
            }
            let attributes = p["attributes"].as_object().ok_or("a primitive has no attributes")?;
            let (_, position) =
                accessor(&json, attributes.get("POSITION").ok_or("a primitive has no POSITION")?)?;
            let vertices = position["count"].as_u64().ok_or("POSITION has no count")? as u32;
            let (min, max) = (&position["min"][0], &position["max"][0]);
            let width = (max.as_f64().ok_or("POSITION has no max")?
                - min.as_f64().ok_or("POSITION has no min")?) as f32;
            let dx = width * 1.1;
            for (name, i) in attributes {
                let (i, a) = accessor(&json, i)?;
                let dx = (name == "POSITION").then_some(dx);
                if name == "POSITION" {
                    shifts.push((i, dx.unwrap_or(0.0)));
                }
                tiled_accessors.push(i);
                claim(&json, &a, &mut roles, Role::Vertices { position_dx: dx })?;
            }
            if let Some(i) = p.get("indices") {
                let (i, a) = accessor(&json, i)?;
                if a["componentType"].as_u64() != Some(5125) {
                    return Err("indices are not u32; not handled".into());
                }
                tiled_accessors.push(i);
                claim(&json, &a, &mut roles, Role::Indices { vertices })?;
            }
        }
    }

    let views = json["bufferViews"].as_array_mut().ok_or("no buffer views")?;
    let mut out = Vec::new();
    for (v, view) in views.iter_mut().enumerate() {
        if view["buffer"].as_u64() != Some(0) {
            return Err("more than one buffer; not handled".into());
        }
        let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
        let len = view["byteLength"].as_u64().ok_or("a buffer view has no byteLength")? as usize;
        let data = bin.get(start..start + len).ok_or("a buffer view is past the BIN chunk")?;
        let data = match roles.get(&v) {
            None => data.to_vec(),
            Some(Role::Vertices { position_dx: None }) => data.repeat(times as usize),
            Some(Role::Vertices { position_dx: Some(dx) }) => (0..times)
                .flat_map(|k| {
                    data.chunks_exact(12).flat_map(move |p| {
                        let f = |at: usize| f32::from_le_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]]);
                        [f(0) + k as f32 * dx, f(4), f(8)].into_iter().flat_map(f32::to_le_bytes)
                    })
                })
                .collect(),
            Some(Role::Indices { vertices }) => (0..times)
                .flat_map(|k| {
                    data.chunks_exact(4).flat_map(move |c| {
                        (u32::from_le_bytes([c[0], c[1], c[2], c[3]]) + k * vertices).to_le_bytes()
                    })
                })
                .collect(),
        };
        view["byteOffset"] = out.len().into();
        view["byteLength"] = data.len().into();
        out.extend_from_slice(&data);
        out.resize(out.len().next_multiple_of(4), 0);
    }
    for &i in &tiled_accessors {
        let count = json["accessors"][i]["count"].as_u64().ok_or("an accessor has no count")?;
        let count = count.checked_mul(u64::from(times)).filter(|&c| c <= u64::from(u32::MAX));
        json["accessors"][i]["count"] = count.ok_or("too many vertices for u32 indices")?.into();
    }
    for (i, dx) in shifts {
        // The last copy's largest x, rounded as its vertices were (f32 addition is monotonic).
        let max = &mut json["accessors"][i]["max"][0];
        *max = f64::from(max.as_f64().unwrap_or(0.0) as f32 + (times - 1) as f32 * dx).into();
    }
    json["buffers"][0]["byteLength"] = out.len().into();

    let mut json_bytes = serde_json::to_vec(&json).map_err(|e| e.to_string())?;
    json_bytes.resize(json_bytes.len().next_multiple_of(4), b' ');
    let total = 12 + 8 + json_bytes.len() + 8 + out.len();
    let total = u32::try_from(total).map_err(|_| "the copy would pass 4 GiB")?;
    let mut glb = Vec::with_capacity(total as usize);
    glb.extend_from_slice(b"glTF");
    glb.extend_from_slice(&2u32.to_le_bytes());
    glb.extend_from_slice(&total.to_le_bytes());
    glb.extend_from_slice(&(json_bytes.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"JSON");
    glb.extend_from_slice(&json_bytes);
    glb.extend_from_slice(&(out.len() as u32).to_le_bytes());
    glb.extend_from_slice(b"BIN\0");
    glb.extend_from_slice(&out);
    Ok(glb)
}

/// Records that accessor `a`'s buffer view plays `role`, after checking that the view is
/// tightly packed and not shared with another accessor.
fn claim(json: &Value, a: &Value, roles: &mut HashMap<usize, Role>, role: Role) -> Result<(), String> {
    let v = a["bufferView"].as_u64().ok_or("an accessor has no buffer view")? as usize;
    let view = &json["bufferViews"][v];
    let sparse_or_offset = a.get("sparse").is_some() || a["byteOffset"].as_u64().unwrap_or(0) != 0;
    let users = json["accessors"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| b["bufferView"].as_u64() == Some(v as u64));
    if sparse_or_offset || view.get("byteStride").is_some() || users.count() != 1 || roles.contains_key(&v) {
        return Err(format!("buffer view {v} is shared, strided or offset; not handled"));
    }
    roles.insert(v, role);
    Ok(())
}
