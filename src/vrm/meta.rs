//! A VRM avatar's meta (who made it and under which licence) as three-vrm 3.5.5's
//! `VRMMetaLoaderPlugin` reads it: VRM 1.0 `meta` (`name`, `version`, `authors`, the licence
//! fields) and VRM 0.x `meta` (`title`, `version`, `author`, the usage fields). Kept as the
//! file states it, for `inspect`.

use serde::Serialize;
use serde_json::{Map, Value};

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Meta {
    /// VRM 1.0 `name`, VRM 0.x `title`.
    pub title: Option<String>,
    pub version: Option<String>,
    /// VRM 1.0 `authors`, VRM 0.x `author` (one).
    pub authors: Vec<String>,
    /// The licence and permission fields present, by their names in the file.
    pub license: Map<String, Value>,
}

/// VRM 1.0's licence fields (`VRMC_vrm-1.0/meta.md`).
const V1_LICENSE: &[&str] = &[
    "licenseUrl",
    "avatarPermission",
    "allowExcessivelyViolentUsage",
    "allowExcessivelySexualUsage",
    "commercialUsage",
    "allowPoliticalOrReligiousUsage",
    "allowAntisocialOrHateUsage",
    "creditNotation",
    "allowRedistribution",
    "modification",
    "otherLicenseUrl",
    "copyrightInformation",
    "thirdPartyLicenses",
];

/// VRM 0.x's licence and usage fields (the 0.x schema's spelling, `Ussage` included).
const V0_LICENSE: &[&str] = &[
    "allowedUserName",
    "violentUssageName",
    "sexualUssageName",
    "commercialUssageName",
    "otherPermissionUrl",
    "licenseName",
    "otherLicenseUrl",
];

/// The meta of a VRM 1.0 (`v1`) or 0.x extension object.
pub fn read(extension: &Value, v1: bool) -> Meta {
    let Some(meta) = extension.get("meta") else {
        return Meta::default();
    };
    let text = |key: &str| meta.get(key).and_then(Value::as_str).map(str::to_string);
    let authors = if v1 {
        let list = meta.get("authors").and_then(Value::as_array);
        list.into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
    } else {
        text("author").into_iter().collect()
    };
    let fields = if v1 { V1_LICENSE } else { V0_LICENSE };
    let license = fields.iter().filter_map(|&k| Some((k.to_string(), meta.get(k)?.clone()))).collect();
    Meta { title: text(if v1 { "name" } else { "title" }), version: text("version"), authors, license }
}
