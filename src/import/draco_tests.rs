//! Draco decoding on real glTF Transform output, and on that output broken on purpose.

use super::draco::{self, EXTENSION};
use super::findings::Findings;
use super::{glb, load_bytes};
use serde_json::Value;

const VALENCE: &[u8] = include_bytes!("../../tests/fixtures/pipeline/draco-tentacle-valence.glb");
const SEQUENTIAL: &[u8] = include_bytes!("../../tests/fixtures/pipeline/draco-tentacle-sequential.glb");

/// The JSON and BIN chunk of a .glb, and the byte range of its primitive 0's Draco stream.
fn parts(bytes: &[u8]) -> (Value, Vec<u8>, std::ops::Range<usize>) {
    let chunks = glb::split(bytes, &mut Findings::default()).expect("a .glb");
    let json: Value = serde_json::from_slice(chunks.json).expect("JSON");
    let bin = chunks.bin.expect("BIN").to_vec();
    let view = &json["meshes"][0]["primitives"][0]["extensions"][EXTENSION]["bufferView"];
    let view = &json["bufferViews"][view.as_u64().expect("view") as usize];
    let start = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = view["byteLength"].as_u64().expect("length") as usize;
    (json, bin, start..start + len)
}

#[test]
fn a_decoded_primitive_is_plain_and_the_extension_is_gone() {
    let (mut json, bin, _) = parts(VALENCE);
    let before = json["accessors"].as_array().map(Vec::len);
    let expanded = draco::expand(&mut json, &[bin]).expect("decodes");
    assert_eq!(expanded.primitives, vec![(0, 0)]);
    // The sample's 2401 vertices: POSITION, NORMAL, JOINTS_0 (u8), WEIGHTS_0 (float) and
    // 4776 triangles of u16 indices, each view 4-aligned.
    let sizes = [2401 * 12, 2401 * 12, 2401 * 4, 2401 * 16, 4776 * 3 * 2];
    let aligned: usize = sizes.iter().map(|s: &usize| s.next_multiple_of(4)).sum();
    assert!(expanded.buffer.len() >= aligned - 4 && expanded.buffer.len() <= aligned);
    // Accessors are filled in place: none added.
    assert_eq!(json["accessors"].as_array().map(Vec::len), before);
    let prim = &json["meshes"][0]["primitives"][0];
    assert!(prim.get("extensions").is_none());
    assert!(json.get("extensionsUsed").is_none() && json.get("extensionsRequired").is_none());
    for (_, accessor) in prim["attributes"].as_object().expect("attributes") {
        let accessor = &json["accessors"][accessor.as_u64().expect("index") as usize];
        let view = &json["bufferViews"][accessor["bufferView"].as_u64().expect("has a view") as usize];
        assert_eq!(view["buffer"], 1, "the decoded data is the new buffer 1");
    }
}

#[test]
fn both_codecs_load_and_agree_on_the_bounds() {
    for bytes in [VALENCE, SEQUENTIAL] {
        let rig = load_bytes(bytes, "draco.glb", None).expect("loads");
        let prim = &rig.meshes[0].primitives[0];
        assert_eq!(prim.positions.len(), 2401);
        assert_eq!(prim.indices.as_ref().map(|i| i.len()), Some(4776 * 3));
        // The tentacle's tube spans x, z in [-0.15, 0.15] and y in [0, 2]; 14-bit positions
        // over a range of 2 land within 2 / 16383 of it.
        let step = 2.0 / 16383.0;
        let (min, max) = prim
            .positions
            .iter()
            .fold((glam::Vec3::MAX, glam::Vec3::MIN), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        assert!((min - glam::Vec3::new(-0.15, 0.0, -0.15)).abs().max_element() <= step, "{min}");
        assert!((max - glam::Vec3::new(0.15, 2.0, 0.15)).abs().max_element() <= step, "{max}");
    }
}

/// Every cut of the stream, and bytes changed throughout it: a `Fault` naming the
/// primitive each time the data is refused, and never a panic.
#[test]
fn broken_streams_are_errors_naming_the_primitive() {
    let (json, bin, range) = parts(VALENCE);
    let at = format!("meshes[0].primitives[0].extensions.{EXTENSION}");
    let try_stream = |stream: &[u8]| {
        let mut bin = bin.clone();
        bin.splice(range.clone(), stream.iter().copied());
        let mut json = json.clone();
        let view = json["meshes"][0]["primitives"][0]["extensions"][EXTENSION]["bufferView"].clone();
        json["bufferViews"][view.as_u64().unwrap_or(0) as usize]["byteLength"] = stream.len().into();
        draco::expand(&mut json, &[bin]).map(|_| ())
    };
    let stream = bin[range.clone()].to_vec();
    for cut in (0..48).chain((48..stream.len()).step_by(509)) {
        let err = try_stream(&stream[..cut]).expect_err("a cut stream is refused");
        assert!(err.message().starts_with(&at), "{}", err.message());
    }
    // A fixed pseudo-random walk of single-byte changes: each either decodes (to checked
    // data) or is a fault at the primitive.
    let mut state = 0x2545_f491_u32;
    for _ in 0..200 {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let mut broken = stream.clone();
        let at_byte = state as usize % broken.len();
        broken[at_byte] ^= (state >> 24) as u8 | 1;
        if let Err(err) = try_stream(&broken) {
            assert!(err.message().starts_with("meshes[0].primitives[0]"), "{}", err.message());
        }
    }
}

#[test]
fn a_load_error_names_the_file_and_primitive() {
    let mut bytes = VALENCE.to_vec();
    let (_, _, range) = parts(VALENCE);
    // The BIN chunk's data starts after the JSON chunk; zero the middle of the stream.
    let json_len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    let bin_start = 20 + json_len + 8;
    let (a, b) = (bin_start + range.start + 16, bin_start + range.end - 16);
    bytes[a..b].fill(0);
    let err = load_bytes(&bytes, "broken.glb", None).expect_err("refused");
    let text = err.to_string();
    assert!(text.starts_with("broken.glb: meshes[0].primitives[0]"), "{text}");
}

/// Accessors that do not describe the stream, and extension objects that name what is not
/// there: each a fault at the place in the JSON.
#[test]
fn mismatched_accessors_and_bad_references_are_refused() {
    let (json, bin, _) = parts(VALENCE);
    let refused = |edit: &dyn Fn(&mut Value)| -> String {
        let mut json = json.clone();
        edit(&mut json);
        draco::expand(&mut json, std::slice::from_ref(&bin)).err().map(|f| f.message()).unwrap_or_default()
    };
    let prim = "/meshes/0/primitives/0";
    let accessor = |json: &Value, semantic: &str| -> usize {
        let pointer = format!("{prim}/attributes/{semantic}");
        json.pointer(&pointer).and_then(Value::as_u64).expect("attribute") as usize
    };
    // 4776 triangles: an indices accessor of 4776 * 3 - 3 elements cannot hold them.
    let text = refused(&|j| j["accessors"][0]["count"] = (4776 * 3 - 3).into());
    assert!(
        text.contains("extensions.KHR_draco_mesh_compression") && text.contains("cannot be decoded"),
        "{text}"
    );
    let text = refused(&|j| {
        let a = accessor(j, "POSITION");
        j["accessors"][a]["count"] = 2400.into();
    });
    assert_eq!(
        text,
        "meshes[0].primitives[0].attributes.POSITION: the Draco data has 2401 vertices but accessors[3].count is 2400"
    );
    let text = refused(&|j| {
        let a = accessor(j, "NORMAL");
        j["accessors"][a]["type"] = "VEC2".into();
    });
    assert!(text.contains("has 3 components but accessors[2] has 2"), "{text}");
    let text = refused(&|j| {
        j.pointer_mut(&format!("{prim}/extensions/{EXTENSION}/attributes/NORMAL"))
            .map(|v| *v = 9.into())
            .unwrap_or_default()
    });
    assert!(text.ends_with("attributes.NORMAL: the Draco data has no attribute with id 9"), "{text}");
    let text = refused(&|j| {
        j.pointer_mut(&format!("{prim}/extensions/{EXTENSION}/bufferView"))
            .map(|v| *v = 99.into())
            .unwrap_or_default()
    });
    assert!(text.ends_with("bufferView 99 does not exist"), "{text}");
    let text = refused(&|j| j["meshes"][0]["primitives"][0]["mode"] = 0.into());
    assert!(text.starts_with("meshes[0].primitives[0].mode: is 0"), "{text}");
    let text = refused(&|j| {
        j["meshes"][0]["primitives"][0]["attributes"].as_object_mut().map(|a| a.remove("NORMAL"));
    });
    assert!(text.contains("names an attribute the primitive does not have"), "{text}");
}

/// The import keeps the file's declarations (reports list them) while its accessors are
/// plain, and says which primitives it decoded.
#[test]
fn the_import_hook_keeps_the_declarations_and_lists_the_primitives() {
    let parsed = super::document::parse(VALENCE, &mut Findings::default()).expect("parses");
    let mut data =
        super::buffers::resolve(parsed.document.as_json(), parsed.bin, None, |_| false).expect("buffers");
    let (document, primitives) =
        draco::decode_document(parsed.document, &parsed.beside.custom_attributes, &mut data)
            .expect("decodes");
    assert_eq!(primitives, vec![(0, 0)]);
    let root = document.as_json();
    assert_eq!(root.extensions_used, vec![EXTENSION.to_string()]);
    assert_eq!(root.extensions_required, vec![EXTENSION.to_string()]);
    assert_eq!(data.len(), 2);
    let position = &root.accessors[3];
    assert_eq!(position.buffer_view.map(|v| root.buffer_views[v.value()].buffer.value()), Some(1));
}
