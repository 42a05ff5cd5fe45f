//! Software rasteriser to a character grid. Pure: no terminal I/O, no ratatui.
//!
//! ```text
//! Camera --view_proj--> draw_mesh / draw_ghost / draw_bones / draw_axis_gizmo --> Raster
//!        Raster --glyphs::pack(GlyphMode)--> Grid --ansi::to_ansi(ColorDepth)--> String
//! ```
//!
//! A frame: size a `Raster` for the viewport (`Raster::for_grid`), `clear()` it, draw the
//! meshes, then the ghost, then the overlays, then `pack` it into a `Grid`, which the TUI
//! copies into its buffer and the CLI prints with `to_ansi`. Rasters, grids and the
//! projection scratch are reused, so a steady frame allocates nothing.
//!
//! Files: `camera` (orbit camera, projection), `raster` (buffers, the low-level
//! screen-space drawing calls), `canvas` (per-pixel rules, which blocks were written),
//! `project` (per-vertex work into `vertex::ProjVertex`es), `filter` (which triangles of a
//! list may draw, eight at a time), `fill` (triangle coverage), `line` (Bresenham), `clip`
//! (near plane and guard band), `topology` (glTF primitive modes), `mesh` (drawing a mesh
//! and its ghost), `overlay` (skeleton, gizmo), `glyphs` (cells), `ansi` (escapes),
//! `color` (Rgb, heat ramp). The kernels (`project`, `filter`) are written once against
//! `crate::lanes`, which picks the instruction set at run time; they import nothing from
//! their callers.

mod ansi;
mod camera;
mod canvas;
mod clip;
mod color;
mod fill;
mod filter;
mod glyphs;
mod line;
mod mesh;
mod overlay;
mod project;
mod raster;
mod scene;
mod topology;
mod vertex;

pub use ansi::{ColorDepth, StablePalette, ansi16, ansi256, ansi256_rgb, to_ansi, write_ansi};
pub use camera::{
    Camera, MAX_DISTANCE, MIN_DISTANCE, OPENING_PITCH_DEGREES, OPENING_YAW_DEGREES, PITCH_LIMIT,
};
pub use canvas::EDGE_DEPTH_BIAS;
pub use color::{Rgb, heat};
pub use glyphs::{ASCII_RAMP, BRAILLE_BASE, BRAILLE_BITS, Cell, GlyphMode, Grid, ascii_for, braille, pack};
pub use mesh::{
    Coloring, DEFAULT_GHOST_COLOR, DEFAULT_MESH_COLOR, DrawMode, DrawStats, MeshStyle, MeshView, Shading,
    draw_ghost, draw_mesh,
};
pub use overlay::{AXIS_X, AXIS_Y, AXIS_Z, BoneStyle, draw_axis_gizmo, draw_bones};
pub use raster::{CELL_ASPECT, Layer, MAX_SIDE, Paint, Raster};
pub use scene::{
    SceneOptions, SceneScratch, bounds, draw_ghosts, draw_scene, framed_camera, glyphs_for, strip_color,
};
