//! The skin-weights panel: the selected bone's influence (count, min/mean/max, histogram),
//! the selected vertex's joints and weights with its f32 sum and the normalisation rule,
//! and the mesh's weight problems by code.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Theme, panel};
use crate::tui::action::Focus;
use crate::tui::app::App;
use crate::tui::weights::{HISTOGRAM_BINS, influences};

const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

pub fn draw(frame: &mut Frame, app: &App, theme: &Theme, area: Rect) {
    let title = format!(" Skin weights [{}] ", app.preview.label());
    let block = panel(title, app.focus == Focus::Weights, theme);
    let mut lines: Vec<Line> = Vec::new();
    let w = &app.weights;
    match app.selected() {
        Some(node) if app.selected_joint().is_some() => {
            lines.push(Line::from(vec![
                Span::styled(app.rig.node_label(node), theme.title),
                Span::raw(format!(": {} vertices", w.vertices.len())),
            ]));
            if !w.vertices.is_empty() {
                lines.push(Line::raw(format!("  min {:.4}  mean {:.4}  max {:.4}", w.min, w.mean, w.max)));
                lines.push(Line::from(vec![
                    Span::styled("  0 ", theme.dim),
                    Span::raw(histogram(&w.histogram)),
                    Span::styled(" 1", theme.dim),
                ]));
            }
        }
        Some(_) => lines.push(Line::styled("selected node is not a joint of this skin", theme.dim)),
        None => lines.push(Line::styled("(no bone selected)", theme.dim)),
    }
    if let Some(v) = app.vertex
        && let Some(dp) = app.ws.primitives.get(v.prim)
        && let Some(prim) = app.rig.meshes.get(dp.mesh).and_then(|m| m.primitives.get(dp.primitive))
    {
        let idx = w
            .vertices
            .iter()
            .position(|&x| x == v)
            .map(|i| format!(" ({}/{})", i + 1, w.vertices.len()))
            .unwrap_or_default();
        lines.push(Line::styled(
            format!("vertex {} of mesh {} prim {}{idx}  [v/V x]", v.vertex, dp.mesh, dp.primitive),
            theme.label,
        ));
        let skin = dp.skin.and_then(|s| app.rig.skins.get(s));
        let mut sum = 0.0f32;
        let mut n = 0usize;
        for (j, wt) in influences(prim, v.vertex) {
            if wt == 0.0 && j == 0 {
                continue;
            }
            let name = skin
                .and_then(|s| s.joints.get(j as usize))
                .map_or_else(|| format!("joint {j} (out of range)"), |&nd| app.rig.node_label(nd));
            lines.push(Line::raw(format!("  {name:<18} {wt:.7}")));
            if wt.is_finite() && wt > 0.0 {
                sum += wt;
                n += 1;
            }
        }
        let ok = (sum - 1.0).abs() <= 2e-7 * n as f32 && n > 0;
        lines.push(Line::from(vec![
            Span::raw(format!("  sum {sum:.8} (n={n}, |sum-1|={:.2e}) ", (sum - 1.0).abs())),
            if ok {
                Span::styled("normalised", theme.ok)
            } else {
                Span::styled("NOT normalised", theme.error)
            },
        ]));
    }
    lines.push(Line::styled(app.problems_summary(), theme.warning));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

fn histogram(bins: &[usize; HISTOGRAM_BINS]) -> String {
    let max = bins.iter().copied().max().unwrap_or(0).max(1);
    bins.iter().map(|&c| if c == 0 { ' ' } else { BARS[(c * (BARS.len() - 1)).div_ceil(max)] }).collect()
}
