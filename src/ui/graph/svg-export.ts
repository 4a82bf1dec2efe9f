/**
 * Self-contained SVG of a whole Scene: inline attributes only (no stylesheet, no external
 * references), the same colours and labels as the canvas, every piece of text XML-escaped.
 * DOM-free (builds a string).
 */
import { CHAIN_ROW_HEIGHT, EDGE_LABEL_FONT_SIZE, FONT_FAMILY, SUBTITLE_FONT_SIZE, TITLE_FONT_SIZE } from '../../core/graph/view/labels';
import { chainText, rowText, sceneText, type Scene } from '../../core/graph/view/scene';
import { edgePathData } from '../../core/graph/view/edge-curve';
import { BOX, ROW_FONT_SIZE } from '../../core/graph/view/node-box';
import type { SceneStyle } from './style';

/**
 * Escapes text for XML character data and attribute values. Characters XML 1.0 cannot carry at
 * all (C0 controls other than tab/LF/CR, lone surrogates, U+FFFE/U+FFFF) are replaced by U+FFFD.
 */
export function xmlEscape(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x26) out += '&amp;';
    else if (c === 0x3c) out += '&lt;';
    else if (c === 0x3e) out += '&gt;';
    else if (c === 0x22) out += '&quot;';
    else if (c === 0x27) out += '&apos;';
    else if (c === 0x09 || c === 0x0a || c === 0x0d) out += `&#${c};`;
    else if (c < 0x20 || c === 0xfffe || c === 0xffff) out += '\ufffd';
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += text[i] + text[i + 1];
        i++;
      } else out += '\ufffd';
    } else if (c >= 0xdc00 && c <= 0xdfff) out += '\ufffd';
    else out += text[i];
  }
  return out;
}

const n2 = (v: number): string => {
  const r = Math.round(v * 100) / 100;
  return Object.is(r, -0) ? '0' : String(r);
};

export interface SvgOptions {
  /** margin around the drawing, graph units */
  margin?: number;
  selected?: number | null;
  highlighted?: Uint8Array;
}

export function exportSceneSVG(scene: Scene, style: SceneStyle, opts: SvgOptions = {}): string {
  const m = opts.margin ?? 20;
  const pal = style.palette;
  const x0 = scene.minX - m, y0 = scene.minY - m;
  const w = scene.maxX - scene.minX + 2 * m, h = scene.maxY - scene.minY + 2 * m;
  const { layout } = scene;
  const out: string[] = [];
  const font = xmlEscape(FONT_FAMILY);
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${n2(w)}" height="${n2(h)}" viewBox="${n2(x0)} ${n2(y0)} ${n2(w)} ${n2(h)}" font-family="${font}">`,
    `<title>${xmlEscape(scene.graph.name || scene.graph.id)}</title>`,
    `<defs><marker id="arrow" viewBox="0 0 7 6.4" refX="7" refY="3.2" markerWidth="7" markerHeight="6.4" markerUnits="userSpaceOnUse" orient="auto"><path d="M0,0L7,3.2L0,6.4z" fill="${pal.arrow}"/></marker></defs>`,
    `<rect x="${n2(x0)}" y="${n2(y0)}" width="${n2(w)}" height="${n2(h)}" fill="${pal.background}"/>`,
  );
  // edges: the same curves as the canvas
  out.push(`<g fill="none" stroke="${pal.edge}" stroke-width="1" stroke-linejoin="round">`);
  const p = layout.edgePoints;
  for (let e = 0; e < scene.edgeCount; e++) {
    const a = layout.edgeOffsets[e], b = layout.edgeOffsets[e + 1];
    if (b - a < 2) continue;
    const edge = scene.graph.edges[e];
    const cs = style.edges?.classes[style.edges.edgeClass[e] ?? 0];
    const stroke = cs ? ` stroke="${xmlEscape(cs.color)}"${cs.dash.length ? ` stroke-dasharray="${cs.dash.join(' ')}"` : ''}${cs.width ? ` stroke-width="${cs.width}"` : ''}` : '';
    out.push(`<path d="${edgePathData(p, a, b)}"${stroke} marker-end="url(#arrow)">${edge ? `<title>${xmlEscape(edge.label ? `${edge.name} ${edge.label}` : edge.name)}</title>` : ''}</path>`);
  }
  out.push('</g>');
  // edge labels
  out.push(`<g font-size="${EDGE_LABEL_FONT_SIZE}" fill="${pal.edgeLabel}" dominant-baseline="central">`);
  for (let e = 0; e < scene.edgeCount; e++) {
    const ref = scene.edgeLabelRef[e];
    if (ref < 0) continue;
    out.push(`<text x="${n2(scene.edgeLabelX[e])}" y="${n2(scene.edgeLabelY[e])}">${xmlEscape(sceneText(scene, ref, scene.edgeLabelFit[e]))}</text>`);
  }
  out.push('</g>');
  // nodes
  const bx = scene.boxes;
  out.push('<g>');
  for (let i = 0; i < scene.nodeCount; i++) {
    const nw = layout.w[i], nh = layout.h[i];
    const x = layout.x[i] - nw / 2, y = layout.y[i] - nh / 2;
    const r = bx.marker[i] ? nh / 2 : 4;
    const fill = style.fills[style.nodeFill[i]];
    const textFill = style.fillText[style.nodeFill[i]];
    let stroke = style.borders[style.nodeBorder[i]];
    let sw = 0.8;
    if (opts.highlighted?.[i]) { stroke = pal.highlighted; sw = 2.5; }
    if (opts.selected === i) { stroke = pal.selected; sw = 3; }
    const outline = style.nodeOutline[i] ? style.outlines[style.nodeOutline[i] - 1] : null;
    const node = scene.graph.nodes[i];
    out.push(`<g><title>${xmlEscape(`${node.type} ${node.name}`)}</title>`);
    if (outline) {
      out.push(`<rect x="${n2(x - 2)}" y="${n2(y - 2)}" width="${n2(nw + 4)}" height="${n2(nh + 4)}" rx="${n2(r + 2)}" fill="none" stroke="${xmlEscape(outline)}" stroke-width="2.5"/>`);
    }
    const r0 = bx.rowStart[i], r1 = bx.rowStart[i + 1];
    const hh = bx.header[i];
    if (r1 > r0) {
      // header in the category colour, body in the neutral fill, one border around both
      out.push(`<path d="M${n2(x)},${n2(y + hh)}V${n2(y + r)}Q${n2(x)},${n2(y)} ${n2(x + r)},${n2(y)}H${n2(x + nw - r)}Q${n2(x + nw)},${n2(y)} ${n2(x + nw)},${n2(y + r)}V${n2(y + hh)}Z" fill="${xmlEscape(fill)}"/>`);
      out.push(`<path d="M${n2(x)},${n2(y + hh)}H${n2(x + nw)}V${n2(y + nh - r)}Q${n2(x + nw)},${n2(y + nh)} ${n2(x + nw - r)},${n2(y + nh)}H${n2(x + r)}Q${n2(x)},${n2(y + nh)} ${n2(x)},${n2(y + nh - r)}Z" fill="${pal.nodeBody}"/>`);
      out.push(`<rect x="${n2(x)}" y="${n2(y)}" width="${n2(nw)}" height="${n2(nh)}" rx="${n2(r)}" fill="none" stroke="${xmlEscape(stroke)}" stroke-width="${sw}"/>`);
      out.push(`<line x1="${n2(x)}" y1="${n2(y + hh)}" x2="${n2(x + nw)}" y2="${n2(y + hh)}" stroke="${xmlEscape(style.borders[style.nodeBorder[i]])}" stroke-width="0.8"/>`);
    } else {
      out.push(`<rect x="${n2(x)}" y="${n2(y)}" width="${n2(nw)}" height="${n2(nh)}" rx="${n2(r)}" fill="${xmlEscape(fill)}" stroke="${xmlEscape(stroke)}" stroke-width="${sw}"/>`);
    }
    const cx = n2(layout.x[i]);
    const cy = y + hh / 2;
    const sub = bx.subRef[i] >= 0 && bx.subFit[i] !== 0 ? sceneText(scene, bx.subRef[i], bx.subFit[i]) : '';
    if (bx.titleFit[i] !== 0) {
      const dy = sub ? -(SUBTITLE_FONT_SIZE + 1) / 2 : 0;
      out.push(`<text x="${cx}" y="${n2(cy + dy + 0.5)}" text-anchor="middle" dominant-baseline="central" font-size="${TITLE_FONT_SIZE}" font-weight="bold" fill="${textFill}">${xmlEscape(sceneText(scene, bx.titleRef[i], bx.titleFit[i]))}</text>`);
    }
    if (sub) {
      out.push(`<text x="${cx}" y="${n2(cy + (TITLE_FONT_SIZE + 1) / 2 + 0.5)}" text-anchor="middle" dominant-baseline="central" font-size="${SUBTITLE_FONT_SIZE}" fill="${textFill}" fill-opacity="0.85">${xmlEscape(sub)}</text>`);
    }
    for (let q = r0; q < r1; q++) {
      const ty = y + hh + BOX.bodyPad + (q - r0 + 0.5) * BOX.rowH + 0.5;
      const bold = bx.rowBold[q] >= 0 ? `<tspan font-weight="bold">${xmlEscape(bx.texts[bx.rowBold[q]])}</tspan>` : '';
      const rest = bx.rowFit[q] !== 0 ? xmlEscape(rowText(scene, q)) : '';
      out.push(`<text x="${n2(x + BOX.rowPadX)}" y="${n2(ty)}" dominant-baseline="central" font-size="${ROW_FONT_SIZE}" fill="${pal.nodeBodyText}" xml:space="preserve"><title>${xmlEscape(bx.texts[bx.rowTip[q]])}</title>${bold}${rest}</text>`);
    }
    // chained layers (Caffe's in-place layers): a band each at the foot of the box, in its own category colour
    const ca = bx.chainStart[i]!, bands = bx.chainStart[i + 1]! - ca;
    for (let q = 0; q < bands; q++) {
      const by = y + nh - (bands - q) * CHAIN_ROW_HEIGHT;
      const bandFill = style.fills[style.chainFill[ca + q]!]!;
      const bandText = style.fillText[style.chainFill[ca + q]!]!;
      // the last band follows the box's rounded bottom corners
      const d = q === bands - 1
        ? `M${n2(x)},${n2(by)}H${n2(x + nw)}V${n2(by + CHAIN_ROW_HEIGHT - r)}Q${n2(x + nw)},${n2(by + CHAIN_ROW_HEIGHT)} ${n2(x + nw - r)},${n2(by + CHAIN_ROW_HEIGHT)}H${n2(x + r)}Q${n2(x)},${n2(by + CHAIN_ROW_HEIGHT)} ${n2(x)},${n2(by + CHAIN_ROW_HEIGHT - r)}Z`
        : `M${n2(x)},${n2(by)}h${n2(nw)}v${CHAIN_ROW_HEIGHT}h${n2(-nw)}Z`;
      out.push(`<path d="${d}" fill="${xmlEscape(bandFill)}"/>`);
      if (bx.chainFit[ca + q] !== 0) out.push(`<text x="${cx}" y="${n2(by + CHAIN_ROW_HEIGHT / 2 + 0.5)}" text-anchor="middle" dominant-baseline="central" font-size="${ROW_FONT_SIZE}" font-weight="bold" fill="${bandText}">${xmlEscape(chainText(scene, ca + q))}</text>`);
    }
    if (bands) out.push(`<rect x="${n2(x)}" y="${n2(y)}" width="${n2(nw)}" height="${n2(nh)}" rx="${n2(r)}" fill="none" stroke="${xmlEscape(stroke)}" stroke-width="${sw}"/>`);
    out.push('</g>');
  }
  out.push('</g></svg>');
  return out.join('\n');
}
