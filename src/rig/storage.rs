//! How the file stored what was loaded: the extensions it declares (and what rigscope did
//! with each), and per primitive each attribute's stored format and whether its data came
//! compressed. Reports show it so users see what their pipeline did; nothing downstream of
//! `import` depends on it, because every value was decoded to plain floats at load.

use serde::Serialize;

/// The file's storage facts, collected at load.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Storage {
    /// Every name in `extensionsUsed` and `extensionsRequired`, in the file's order (used
    /// first), each once.
    pub extensions: Vec<ExtensionUse>,
    /// One entry per primitive, in file order (mesh, then primitive).
    pub primitives: Vec<PrimitiveStorage>,
    /// Bytes per accessor, buffer, mesh, animation and image.
    pub sizes: super::Sizes,
}

/// One extension the file declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionUse {
    pub name: String,
    /// Listed in `extensionsUsed`.
    pub used: bool,
    /// Listed in `extensionsRequired`.
    pub required: bool,
    pub handling: ExtensionHandling,
}

/// What rigscope does with an extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ExtensionHandling {
    /// Read and applied at load (quantization, compression, ...).
    Applied,
    /// Not needed for skeletons, skins and motion (materials, textures, lights, metadata).
    Ignored,
    /// Required by the file but not supported: such a file is refused.
    Unsupported,
}

/// The stored form of one primitive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrimitiveStorage {
    pub mesh: usize,
    pub primitive: usize,
    /// Every attribute (in glTF's semantic order: POSITION, NORMAL, ..., JOINTS_n,
    /// WEIGHTS_n), then `indices` when present.
    pub attributes: Vec<AttributeFormat>,
    /// The compression its data came in, if any.
    pub compression: Option<Compression>,
}

/// An attribute's accessor format as stored: `POSITION VEC3 SHORT normalized`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AttributeFormat {
    /// `POSITION`, `JOINTS_0`, `indices`, ...
    pub name: String,
    /// `SCALAR`, `VEC3`, ...
    pub kind: &'static str,
    /// `FLOAT`, `UNSIGNED_BYTE`, `SHORT`, ...
    pub component: &'static str,
    pub normalized: bool,
}

/// A geometry compression extension a primitive's data was stored with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// EXT_meshopt_compression or KHR_meshopt_compression buffer views.
    Meshopt,
    /// KHR_draco_mesh_compression.
    Draco,
}
