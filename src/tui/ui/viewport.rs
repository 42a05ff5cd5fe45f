//! The viewport panel: the posed rig through the orbit camera, packed into braille,
//! half-block or ASCII cells and copied into the frame, with the time, modes and axis gizmo.

use std::time::Instant;

use ratatui::Frame;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use super::{Theme, cols, panel};
use crate::render::{
    Cell, ColorDepth, DrawMode, GlyphMode, Grid, Raster, Rgb, SceneOptions, SceneScratch, StablePalette,
    ansi256, draw_scene,
};
use crate::rig::Severity;
use crate::tui::action::Focus;
use crate::tui::app::App;

/// Buffers the viewport keeps between frames so that drawing allocates nothing steady-state.
#[derive(Debug)]
pub struct ViewportCache {
    raster: Raster,
    grid: Grid,
    scratch: SceneScratch,
    /// 256-colour entries per cell from the last frame (see `StablePalette`).
    palette: StablePalette,
    /// Grid size and glyph mode the palette's history belongs to.
    palette_for: (usize, usize, GlyphMode),
    /// Time the last raster took (ms), for the status bar's timings.
    pub raster_ms: f32,
}

impl Default for ViewportCache {
    fn default() -> Self {
        ViewportCache {
            raster: Raster::new(1, 1, 1.0),
            grid: Grid::new(1, 1),
            scratch: SceneScratch::default(),
            palette: StablePalette::default(),
            palette_for: (0, 0, GlyphMode::Braille),
            raster_ms: 0.0,
        }
    }
}

impl ViewportCache {
    /// The raster's size in dots (pixels) as last drawn.
    pub fn raster_size(&self) -> (usize, usize) {
        (self.raster.width(), self.raster.height())
    }
}

pub fn mode_name(m: GlyphMode) -> &'static str {
    match m {
        GlyphMode::Braille | GlyphMode::BrailleDither => "braille",
        GlyphMode::HalfBlock => "half-block",
        GlyphMode::Ascii => "ascii",
    }
}

pub fn draw_mode_name(m: DrawMode) -> &'static str {
    match m {
        DrawMode::Shaded => "shaded",
        DrawMode::Wireframe => "wireframe",
        DrawMode::Points => "points",
    }
}

pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect, cache: &mut ViewportCache) {
    let mut extras: Vec<&str> = Vec::new();
    if app.session.engine_ws.is_some() {
        extras.push("ghost: stored weights");
    } else if app.view.ghost {
        extras.push("ghost: bind pose");
    }
    if app.view.heatmap {
        extras.push("heatmap");
    }
    // B lacking the current clip is drawn at its rest pose: the title says so, or the
    // distances in the details would read as a real difference.
    if let Some(compare) = &app.session.compare {
        let posed =
            app.player.clip.is_none() || compare.clip_for(&app.session.rig, app.player.clip).is_some();
        extras.push(if posed { "ghost: B" } else { "ghost: B at rest (no such clip in B)" });
    }
    // The engine first, where a narrow viewport's title is not cut.
    let engine = match (&app.session.engine_ws, app.view.engine) {
        (Some(_), e) => format!("{} ", e.label()),
        (None, crate::anim::Engine::Stored) => String::new(),
        // An engine that would not load the file: the stored weights are what is drawn.
        (None, e) => format!("{} would not import this file, stored weights drawn; ", e.label()),
    };
    let title = format!(
        " Viewport: {engine}{} {}{}{} ",
        mode_name(app.view.mode),
        draw_mode_name(app.view.draw),
        if extras.is_empty() { "" } else { ", " },
        extras.join(", "),
    );
    // The camera as `rigscope render` takes it (R prints that command line): at the top
    // right when it fits beside the title, else on the viewport's first row.
    let camera = format!(
        " yaw {:.0}° pitch {:.0}° zoom {:.2} ",
        app.view.camera.yaw.to_degrees(),
        app.view.camera.pitch.to_degrees(),
        app.zoom(),
    );
    let time = format!(" t = {:.4} s  [{}] ", app.player.playback.time, app.view.engine.label());
    let room = usize::from(area.width.saturating_sub(4));
    let mut block = panel(title.clone(), app.panels.focus == Focus::Viewport, theme)
        .title_bottom(Line::styled(time.clone(), theme.dim));
    let camera = Line::styled(camera, theme.dim).right_aligned();
    let in_title = cols(&title) + camera.width() <= room;
    if in_title {
        block = block.title(camera.clone());
    }
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.width == 0 || inner.height == 0 {
        return;
    }
    let started = Instant::now();
    let (cols, rows) = (inner.width as usize, inner.height as usize);
    cache.raster.resize_for_grid(cols, rows, app.view.mode);
    let opts = SceneOptions {
        draw: app.view.draw,
        bones: app.view.bones,
        skin: app.selection.skin,
        selected: app.selected(),
        ghost: app.view.ghost,
        heat_joint: if app.view.heatmap { app.selected_joint() } else { None },
        marked_vertex: app.selection.vertex.map(|v| (v.prim, v.vertex)),
        gizmo: true,
        dim_other_skins: app.session.rig.skins.len() > 1,
    };
    // A weights preview draws the previewed skinning shaded, with the stored one as the
    // ghost next to it, so the difference an engine would make is visible at once.
    match &app.session.engine_ws {
        Some(preview) => {
            let opts = SceneOptions { ghost: true, ..opts };
            draw_scene(
                &mut cache.raster,
                &app.view.camera,
                &app.session.rig,
                preview,
                Some(&app.session.ws),
                &opts,
                &mut cache.scratch,
            )
        }
        None => draw_scene(
            &mut cache.raster,
            &app.view.camera,
            &app.session.rig,
            &app.session.ws,
            app.view.ghost.then(|| app.bind_pose()),
            &opts,
            &mut cache.scratch,
        ),
    }
    if let Some(compare) = &app.session.compare {
        let color = crate::tui::compare::GHOST_COLOR;
        crate::render::draw_ghosts(&mut cache.raster, &app.view.camera, &compare.rig, &compare.ws, color);
    }
    let source = app
        .player
        .clip
        .and_then(|c| app.session.rig.attached.iter().find(|a| a.clip == c))
        .and_then(|a| a.source.as_ref());
    if app.view.source_ghost
        && let Some(source) = source
    {
        let (segments, joints) = crate::tui::source_ghost::skeleton(source, app.player.playback.time);
        let color = crate::tui::source_ghost::SOURCE_COLOR;
        let style = crate::render::BoneStyle { bone: color, selected: color, joint: color, joint_radius: 0 };
        crate::render::draw_bones(&mut cache.raster, &app.view.camera, &segments, &joints, None, &style);
    }
    crate::render::pack(
        &cache.raster,
        crate::render::glyphs_for(app.view.mode, app.view.color),
        &mut cache.grid,
    );
    if app.view.color == ColorDepth::None {
        crate::render::strip_color(&mut cache.grid);
    }
    cache.raster_ms = started.elapsed().as_secs_f32() * 1000.0;

    let palette = match app.view.color {
        ColorDepth::Ansi256 => {
            let key = (cols, rows, app.view.mode);
            if cache.palette_for != key {
                cache.palette.reset(cols * rows);
                cache.palette_for = key;
            }
            Some(&mut cache.palette)
        }
        _ => None,
    };
    copy_grid(&cache.grid, frame.buffer_mut(), inner, app.view.color, palette);
    if app.view.names && app.view.bones {
        draw_names(frame, app, inner, theme);
    }
    if app.view.marks {
        mark_problems(frame, app, inner, theme);
    }
    mark_vertex(frame, app, inner, theme);
    legend(frame, app, inner, theme);
    if !in_title {
        let row = Rect { height: 1, ..inner };
        frame.render_widget(camera.style(theme.label), row);
    }
}

/// The cell a point of the drawn pose projects into, if inside the viewport.
fn cell_of(app: &App, inner: Rect, p: glam::Vec3) -> Option<(u16, u16)> {
    let aspect = inner.width as f32 / (inner.height as f32 * 2.0);
    let ndc = app.view.camera.project_ndc(p, aspect)?;
    if !(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0) {
        return None;
    }
    let x = inner.x + ((ndc.x * 0.5 + 0.5) * inner.width as f32).min(inner.width as f32 - 1.0) as u16;
    let y = inner.y + ((0.5 - ndc.y * 0.5) * inner.height as f32).min(inner.height as f32 - 1.0) as u16;
    Some((x, y))
}

/// Where a vertex is drawn: in the engine profile's skinning when one is shown.
fn drawn_position(app: &App, prim: usize, vertex: usize) -> Option<glam::Vec3> {
    let ws = app.session.engine_ws.as_ref().unwrap_or(&app.session.ws);
    ws.primitives.get(prim).and_then(|dp| dp.positions.get(vertex)).copied()
}

/// Every problem vertex as a mark over its cell, an error's over a warning's where two
/// share a cell (the list is worst first, so the first mark in a cell is kept unless a
/// later one is more severe).
fn mark_problems(frame: &mut Frame, app: &App, inner: Rect, theme: &Theme) {
    let buf = frame.buffer_mut();
    let mut taken: Vec<((u16, u16), Severity)> = Vec::new();
    for p in &app.session.vertex_problems {
        let Some(prim) = p.prim else { continue };
        let Some(pos) = drawn_position(app, prim, p.vertex).filter(|q| q.is_finite()) else { continue };
        let Some(cell) = cell_of(app, inner, pos) else { continue };
        match taken.iter_mut().find(|(c, _)| *c == cell) {
            Some((_, s)) if *s == Severity::Error || p.severity != Severity::Error => continue,
            Some((_, s)) => *s = p.severity,
            None => taken.push((cell, p.severity)),
        }
        let style = if p.severity == Severity::Error { theme.error } else { theme.warning };
        if let Some(c) = buf.cell_mut(cell) {
            c.set_char(super::weights::mark_of(p.severity)).set_style(style);
        }
    }
}

/// The selected vertex as a glyph in reverse video over its cell: a dot of colour alone
/// is lost without colour or among the mesh's own dots.
fn mark_vertex(frame: &mut Frame, app: &App, inner: Rect, theme: &Theme) {
    let Some(v) = app.selection.vertex else { return };
    let Some(cell) = drawn_position(app, v.prim, v.vertex).and_then(|p| cell_of(app, inner, p)) else {
        return;
    };
    if let Some(cell) = frame.buffer_mut().cell_mut(cell) {
        cell.set_symbol("◉").set_style(theme.selected.patch(theme.focus));
    }
}

/// What the marks and colours mean, on the viewport's last rows at the right: the problem
/// marks, and with the heatmap on its ramp from 0 to 1 (the colours of `render::heat`).
fn legend(frame: &mut Frame, app: &App, inner: Rect, theme: &Theme) {
    let mut rows: Vec<Line> = Vec::new();
    if app.view.heatmap {
        let whose = app.selected().map_or_else(|| "the bone".to_string(), |n| app.session.rig.node_label(n));
        let mut spans = vec![Span::styled(format!(" weight on {whose}: 0 "), theme.label)];
        for i in 0..10 {
            let c = crate::render::heat(i as f32 / 9.0);
            let style = color(c, app.view.color).map_or(Style::new(), |c| Style::new().fg(c));
            spans.push(Span::styled("█", style));
        }
        spans.push(Span::styled(" 1, none: grey ", theme.label));
        rows.push(Line::from(spans));
    }
    if app.view.marks && !app.session.vertex_problems.is_empty() {
        rows.push(Line::from(vec![
            Span::styled(format!(" {} error ", super::weights::ERROR_MARK), theme.error),
            Span::styled(format!("{} warning ", super::weights::WARNING_MARK), theme.warning),
            Span::styled("◉ selected (e: next) ", theme.label),
        ]));
    }
    let n = rows.len() as u16;
    for (k, row) in rows.into_iter().enumerate() {
        if inner.height < n + 1 || inner.width < 8 {
            return;
        }
        let w = (row.width() as u16).min(inner.width);
        let area = Rect {
            x: inner.x + inner.width - w,
            y: inner.y + inner.height - n + k as u16,
            width: w,
            height: 1,
        };
        frame.render_widget(row, area);
    }
}

/// The packed cells into the frame's buffer at `inner`, row slice by row slice: this runs
/// for every cell of the viewport each frame, so it avoids per-cell position lookups.
/// Blank cells are left as they are: ratatui hands each frame a reset buffer, whose cells
/// are already blank, and most of a viewport is empty.
fn copy_grid(
    grid: &Grid,
    buf: &mut Buffer,
    inner: Rect,
    depth: ColorDepth,
    mut palette: Option<&mut StablePalette>,
) {
    let inner = inner.intersection(buf.area);
    let (cols, rows) = (inner.width as usize, (inner.height as usize).min(grid.height));
    if cols == 0 {
        return;
    }
    for y in 0..rows {
        let start = buf.index_of(inner.x, inner.y + y as u16);
        let Some(out_row) = buf.content.get_mut(start..start + cols) else { continue };
        let mut left = None;
        for (x, (out, cell)) in out_row.iter_mut().zip(grid.row(y)).enumerate() {
            if *cell == Cell::BLANK {
                continue;
            }
            write_cell(out, cell, y * grid.width + x, depth, palette.as_deref_mut(), &mut left);
        }
    }
}

/// Write the packed `cell`, number `i` of its grid, into `out`. `left` is the palette entry
/// of the last coloured cell to its left in the row, updated when this one takes an entry.
fn write_cell(
    out: &mut ratatui::buffer::Cell,
    cell: &Cell,
    i: usize,
    depth: ColorDepth,
    palette: Option<&mut StablePalette>,
    left: &mut Option<u8>,
) {
    out.set_char(cell.ch);
    let fg = match (cell.fg, palette) {
        (Some(c), Some(p)) => {
            let entry = p.index(i, c, *left);
            *left = Some(entry);
            Some(Color::Indexed(entry))
        }
        (c, _) => c.and_then(|c| color(c, depth)),
    };
    if let Some(fg) = fg {
        out.set_fg(fg);
    }
    if let Some(bg) = cell.bg.and_then(|c| color(c, depth)) {
        out.set_bg(bg);
    }
}

/// A raster colour as the terminal can show it (None: no colour at all).
fn color(c: Rgb, depth: ColorDepth) -> Option<Color> {
    match depth {
        ColorDepth::TrueColor => Some(Color::Rgb(c.r, c.g, c.b)),
        ColorDepth::Ansi256 => Some(Color::Indexed(ansi256(c))),
        ColorDepth::Ansi16 => Some(Color::Indexed(crate::render::ansi16(c))),
        ColorDepth::None => None,
    }
}

/// Bone names next to their joints, where they project inside the viewport.
fn draw_names(frame: &mut Frame, app: &App, inner: Rect, theme: &Theme) {
    let aspect = inner.width as f32 / (inner.height as f32 * 2.0);
    let nodes: Vec<usize> = match app.selection.skin.and_then(|s| app.session.rig.skins.get(s)) {
        Some(skin) => skin.joints.clone(),
        None => (0..app.session.rig.nodes.len()).collect(),
    };
    // The selected bone's name goes first; any later name that would overlap one already
    // written is left out rather than smeared over it.
    let mut nodes = nodes;
    if let Some(sel) = app.selected()
        && let Some(i) = nodes.iter().position(|&n| n == sel)
    {
        nodes[..=i].rotate_right(1);
    }
    let mut taken: Vec<(u16, u16, u16)> = Vec::new();
    let buf = frame.buffer_mut();
    for node in nodes {
        let Some(p) = app.session.ws.globals.get(node).map(|m| m.w_axis.truncate()) else { continue };
        let Some(ndc) = app.view.camera.project_ndc(p, aspect) else { continue };
        if !(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0) {
            continue;
        }
        let x = inner.x + ((ndc.x * 0.5 + 0.5) * (inner.width.saturating_sub(1)) as f32) as u16 + 1;
        let y = inner.y + ((0.5 - ndc.y * 0.5) * (inner.height.saturating_sub(1)) as f32) as u16;
        let room = (inner.x + inner.width).saturating_sub(x) as usize;
        // Cut at the viewport's edge with "…", so a cut name does not pass for another.
        let name = super::fit(&app.session.rig.node_label(node), room);
        let len = super::cols(&name) as u16;
        let end = x + len;
        if len == 0 || taken.iter().any(|&(ty, a, b)| ty == y && x < b + 1 && a < end + 1) {
            continue;
        }
        taken.push((y, x, end));
        let style = if Some(node) == app.selected() { theme.focus } else { theme.label };
        buf.set_stringn(x, y, &name, room, style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `copy_grid` as it was before it skipped blank cells: every cell written, looked up
    /// by its position.
    fn copy_every_cell(
        grid: &Grid,
        buf: &mut Buffer,
        inner: Rect,
        depth: ColorDepth,
        palette: &mut StablePalette,
    ) {
        for y in 0..inner.height.min(grid.height as u16) {
            let mut left = None;
            for x in 0..inner.width.min(grid.width as u16) {
                let Some(cell) = grid.get(x as usize, y as usize) else { continue };
                let i = y as usize * grid.width + x as usize;
                let palette = (depth == ColorDepth::Ansi256).then_some(&mut *palette);
                write_cell(&mut buf[(inner.x + x, inner.y + y)], cell, i, depth, palette, &mut left);
            }
        }
    }

    #[test]
    fn blank_cells_left_alone_give_the_same_buffer() {
        // A grid of blank and drawn cells (runs of one colour, lone cells, background
        // colours) into a fresh buffer, as ratatui hands one over each frame: the same
        // cells as writing every one, in each colour depth.
        let (w, h) = (23, 7);
        let mut grid = Grid::new(w, h);
        for (i, cell) in grid.cells.iter_mut().enumerate() {
            let k = (i * 7 + i / 5) % 11;
            let c = Rgb::new((k * 23) as u8, (i % 256) as u8, 200);
            *cell = match k {
                0..=4 => Cell::BLANK,
                5..=8 => Cell { ch: '⣿', fg: Some(Rgb::new(200, 10, 10)), bg: None },
                9 => Cell { ch: '⠁', fg: Some(c), bg: None },
                _ => Cell { ch: '▀', fg: Some(c), bg: Some(Rgb::new(1, 2, 3)) },
            };
        }
        // Two greys on either side of a 256-colour boundary, a blank between them: the
        // second keeps the first's entry (the palette's left neighbour skips the blank).
        let grey = |v| Cell { ch: '⣿', fg: Some(Rgb::new(v, v, v)), bg: None };
        grid.cells[..3].copy_from_slice(&[grey(102), Cell::BLANK, grey(104)]);
        let area = Rect::new(0, 0, 30, 10);
        let inner = Rect::new(3, 2, w as u16, h as u16);
        for depth in [ColorDepth::TrueColor, ColorDepth::Ansi256, ColorDepth::None] {
            let (mut skipping, mut every) = (StablePalette::default(), StablePalette::default());
            skipping.reset(w * h);
            every.reset(w * h);
            let mut fast = Buffer::empty(area);
            copy_grid(
                &grid,
                &mut fast,
                inner,
                depth,
                (depth == ColorDepth::Ansi256).then_some(&mut skipping),
            );
            let mut slow = Buffer::empty(area);
            copy_every_cell(&grid, &mut slow, inner, depth, &mut every);
            assert_eq!(fast, slow, "{depth:?}");
            assert!(fast.content.iter().any(|c| c.symbol() == "⣿"));
        }
    }
}
