//! The file's storage facts for reports (`rig::Storage`): declared extensions with what
//! rigscope does with each, and every primitive's stored attribute formats and compression.
//! Read from the validated JSON after loading; it decides nothing about the load itself.

use super::accessors::{component_name, type_name};
use super::{extensions, meshopt};
use crate::rig::{AttributeFormat, Compression, ExtensionHandling, ExtensionUse, PrimitiveStorage, Storage};
use gltf::json;
use gltf::json::validation::Checked;

/// `draco` lists the `(mesh, primitive)` pairs the Draco hook decoded.
pub(crate) fn build(root: &json::Root, compressed: &meshopt::Plan, draco: &[(usize, usize)]) -> Storage {
    let mut names: Vec<&String> = root.extensions_used.iter().collect();
    for name in &root.extensions_required {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let extensions = names
        .into_iter()
        .map(|name| {
            let used = root.extensions_used.contains(name);
            let required = root.extensions_required.contains(name);
            ExtensionUse {
                name: name.clone(),
                used,
                required,
                // Required but not declared used: not applied (see `extensions::declared`).
                handling: if used {
                    extensions::handling(name, required)
                } else {
                    ExtensionHandling::Ignored
                },
            }
        })
        .collect();
    let mut primitives = Vec::new();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let mut storage = primitive(root, compressed, m, p, prim);
            if draco.contains(&(m, p)) {
                storage.compression = Some(Compression::Draco);
            }
            primitives.push(storage);
        }
    }
    Storage { extensions, primitives, sizes: Default::default() }
}

fn primitive(
    root: &json::Root,
    compressed: &meshopt::Plan,
    mesh: usize,
    primitive: usize,
    prim: &json::mesh::Primitive,
) -> PrimitiveStorage {
    let mut attributes = Vec::with_capacity(prim.attributes.len() + 1);
    let mut meshopt = false;
    let mut add = |name: String, index: usize| {
        let Some(acc) = root.accessors.get(index) else { return };
        let (Checked::Valid(ty), Checked::Valid(component)) = (acc.type_, acc.component_type) else { return };
        meshopt |= acc.buffer_view.is_some_and(|v| compressed.is_compressed(v.value()));
        attributes.push(AttributeFormat {
            name,
            kind: type_name(ty),
            component: component_name(component.0),
            normalized: acc.normalized,
        });
    };
    for (semantic, index) in &prim.attributes {
        let name = match semantic {
            Checked::Valid(s) => s.to_string(),
            Checked::Invalid => continue,
        };
        add(name, index.value());
    }
    if let Some(index) = prim.indices {
        add("indices".to_string(), index.value());
    }
    let compression = meshopt.then_some(Compression::Meshopt);
    PrimitiveStorage { mesh, primitive, attributes, compression }
}
