"""SVG figures drawn from computed results, with the standard library only.

Each function takes numbers that a check has computed and returns the text
of a self-contained SVG document: a viewBox 600 units wide, generic
sans-serif text of at least 11 units, the Okabe-Ito colour-blind-safe
palette, and no scripts, external fonts or links.  The same numbers give the
same bytes.  Nothing here knows about any paper.

    line_chart      series of (x, y) points, marked points, vertical rules
    region_map      filled polygons, labelled arrows and a dashed hull
    shaded_table    tables of integers, shaded by a fraction, some outlined
    Series, Mark, Rule, Axis, Arrow, Panel    what they draw
"""

import xml.etree.ElementTree as ET
from collections import namedtuple

__all__ = ["line_chart", "region_map", "shaded_table", "Series", "Mark", "Rule",
           "Axis", "Arrow", "Panel", "PALETTE", "SVG_NAMESPACE"]

SVG_NAMESPACE = "http://www.w3.org/2000/svg"
# Okabe & Ito (2008), distinguishable with every common colour-vision deficiency.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442")
_INK = "#000000"
_GREY = "#666666"
WIDTH = 600

Axis = namedtuple("Axis", "label low high step")
Axis.__doc__ = "An axis: its label (with units), range and tick spacing."
Series = namedtuple("Series", "label points dash")
Series.__doc__ = "A curve: legend label, (x, y) points (None breaks it), SVG dash pattern or ''."
Mark = namedtuple("Mark", "x y label")
Mark.__doc__ = "A marked point with its label."
Rule = namedtuple("Rule", "x label")
Rule.__doc__ = "A vertical dashed line at x with its label."
Arrow = namedtuple("Arrow", "label tip note")
Arrow.__doc__ = "An arrow from the origin to tip, labelled; a note marks it (e.g. no region)."
Panel = namedtuple("Panel", "caption row_name rows column_name columns cells shades outlined")
Panel.__doc__ = """One table: caption, row and column names and labels, cells (ints),
shades (fractions 0..1, same shape) and outlined (bools, same shape)."""


def _n(value):
    """A coordinate as short, deterministic text."""
    text = "%.2f" % value
    text = text.rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _document(height, title):
    root = ET.Element("svg", {
        "xmlns": SVG_NAMESPACE, "viewBox": "0 0 %d %d" % (WIDTH, height),
        "width": str(WIDTH), "height": str(height),
        "font-family": "DejaVu Sans, Arial, Helvetica, sans-serif", "font-size": "12",
    })
    ET.SubElement(root, "title").text = title
    ET.SubElement(root, "rect", {"width": str(WIDTH), "height": str(height), "fill": "#FFFFFF"})
    _text(root, WIDTH / 2, 24, title, size=15, anchor="middle", weight="bold", kind="title")
    return root


def _text(parent, x, y, content, size=12, anchor="start", weight=None, kind=None,
          colour=_INK, rotate=None):
    attributes = {"x": _n(x), "y": _n(y), "font-size": str(size), "text-anchor": anchor,
                  "fill": colour}
    if weight:
        attributes["font-weight"] = weight
    if kind:
        attributes["class"] = kind
    if rotate is not None:
        attributes["transform"] = "rotate(%s %s %s)" % (_n(rotate), _n(x), _n(y))
    element = ET.SubElement(parent, "text", attributes)
    element.text = content
    return element


def _serialize(root):
    ET.indent(root)
    return ET.tostring(root, encoding="unicode") + "\n"


class _Frame:
    """Maps data coordinates to the plot area and draws axes with ticks."""

    def __init__(self, x_axis, y_axis, left, top, width, height):
        self.x_axis, self.y_axis = x_axis, y_axis
        self.left, self.top, self.width, self.height = left, top, width, height

    def x(self, value):
        a = self.x_axis
        return self.left + (value - a.low) / (a.high - a.low) * self.width

    def y(self, value):
        a = self.y_axis
        return self.top + (a.high - value) / (a.high - a.low) * self.height

    def draw(self, root):
        axes = ET.SubElement(root, "g", {"class": "axes", "stroke": _INK, "fill": "none"})
        ET.SubElement(axes, "rect", {"x": _n(self.left), "y": _n(self.top),
                                     "width": _n(self.width), "height": _n(self.height)})
        ticks = ET.SubElement(root, "g", {"class": "ticks"})
        for value in _ticks(self.x_axis):
            x = self.x(value)
            ET.SubElement(ticks, "line", {"x1": _n(x), "y1": _n(self.top + self.height),
                                          "x2": _n(x), "y2": _n(self.top + self.height + 5),
                                          "stroke": _INK})
            _text(ticks, x, self.top + self.height + 18, _n(value), size=11, anchor="middle")
        for value in _ticks(self.y_axis):
            y = self.y(value)
            ET.SubElement(ticks, "line", {"x1": _n(self.left - 5), "y1": _n(y),
                                          "x2": _n(self.left), "y2": _n(y), "stroke": _INK})
            _text(ticks, self.left - 8, y + 4, _n(value), size=11, anchor="end")
        _text(root, self.left + self.width / 2, self.top + self.height + 40,
              self.x_axis.label, anchor="middle", kind="x-label")
        _text(root, self.left - 48, self.top + self.height / 2, self.y_axis.label,
              anchor="middle", kind="y-label", rotate=-90)


def _ticks(axis):
    count = int(round((axis.high - axis.low) / axis.step))
    return [axis.low + k * axis.step for k in range(count + 1)]


def _legend(root, x, y, entries):
    """entries: (label, attributes of a short sample line)."""
    legend = ET.SubElement(root, "g", {"class": "legend"})
    box_height = 8 + 18 * len(entries)
    box_width = 16 + 36 + 7 * max(len(label) for label, _ in entries)
    ET.SubElement(legend, "rect", {"x": _n(x), "y": _n(y), "width": _n(box_width),
                                   "height": _n(box_height), "fill": "#FFFFFF",
                                   "stroke": _GREY})
    for k, (label, sample) in enumerate(entries):
        row = y + 16 + 18 * k
        entry = ET.SubElement(legend, "g", {"class": "legend-entry"})
        ET.SubElement(entry, "line", dict({"x1": _n(x + 8), "y1": _n(row - 4),
                                           "x2": _n(x + 40), "y2": _n(row - 4)}, **sample))
        _text(entry, x + 46, row, label, size=11)


def line_chart(title, x_axis, y_axis, series, marks=(), rules=(), notes=()):
    """A line chart: curves, labelled points, labelled vertical rules.

    The legend and the notes go below the plot, where they hide nothing.
    """
    plot_height = 300
    below = 62 + 18 * len(series) + (12 + 16 * len(notes) if notes else 0)
    height = 46 + plot_height + below
    root = _document(height, title)
    frame = _Frame(x_axis, y_axis, 78, 46, WIDTH - 78 - 18, plot_height)
    frame.draw(root)
    entries = []
    for k, curve in enumerate(series):
        colour = PALETTE[k % len(PALETTE)]
        style = {"stroke": colour, "stroke-width": "2", "fill": "none"}
        if curve.dash:
            style["stroke-dasharray"] = curve.dash
        group = ET.SubElement(root, "g", dict({"class": "series"}, **style))
        for piece in _pieces(curve.points):
            ET.SubElement(group, "polyline", {"points": " ".join(
                "%s,%s" % (_n(frame.x(x)), _n(frame.y(y))) for x, y in piece)})
        entries.append((curve.label, style))
    for rule in rules:
        x = frame.x(rule.x)
        group = ET.SubElement(root, "g", {"class": "rule"})
        ET.SubElement(group, "line", {"x1": _n(x), "y1": _n(frame.top), "x2": _n(x),
                                      "y2": _n(frame.top + frame.height), "stroke": _GREY,
                                      "stroke-dasharray": "3 3"})
        _text(group, x - 4, frame.top + 6, rule.label, size=11, anchor="end", rotate=-90,
              colour=_GREY)
    for mark in marks:
        x, y = frame.x(mark.x), frame.y(mark.y)
        group = ET.SubElement(root, "g", {"class": "mark"})
        ET.SubElement(group, "circle", {"cx": _n(x), "cy": _n(y), "r": "4.5", "fill": _INK})
        if mark.x > (x_axis.low + x_axis.high) / 2:
            _text(group, x - 10, y + 4, mark.label, size=11, anchor="end")
        else:
            _text(group, x + 8, y - 6, mark.label, size=11)
    legend_top = frame.top + frame.height + 52
    _legend(root, frame.left, legend_top, entries)
    if notes:
        group = ET.SubElement(root, "g", {"class": "notes"})
        first = legend_top + 8 + 18 * len(entries) + 20
        for k, note in enumerate(notes):
            _text(group, frame.left, first + 16 * k, note, size=11, colour=_GREY)
    return _serialize(root)


def _pieces(points):
    piece = []
    for point in list(points) + [None]:
        if point is None:
            if len(piece) > 1:
                yield piece
            piece = []
        else:
            piece.append(point)


def region_map(title, x_axis, y_axis, regions, arrows, hull, caption):
    """Filled polygons (one per label) in a square box, arrows from the origin, a hull."""
    side = 470
    legend_top = 46 + side + 48
    height = legend_top + 8 + 18 * (len(regions) + 1) + 34
    root = _document(height, title)
    frame = _Frame(x_axis, y_axis, 86, 46, side, side)
    clip = ET.SubElement(ET.SubElement(root, "defs"), "clipPath", {"id": "plot"})
    ET.SubElement(clip, "rect", {"x": _n(frame.left), "y": _n(frame.top),
                                 "width": _n(side), "height": _n(side)})
    fills = ET.SubElement(root, "g", {"class": "regions", "clip-path": "url(#plot)"})
    entries = []
    for k, (label, polygon) in enumerate(regions):
        colour = PALETTE[k % len(PALETTE)]
        if polygon:
            ET.SubElement(fills, "polygon", {
                "class": "region", "fill": colour, "fill-opacity": "0.35", "stroke": colour,
                "points": " ".join("%s,%s" % (_n(frame.x(x)), _n(frame.y(y)))
                                   for x, y in polygon)})
        entries.append((label, {"stroke": colour, "stroke-width": "8", "stroke-opacity": "0.5"}))
    frame.draw(root)
    if hull:
        ET.SubElement(root, "polygon", {
            "class": "hull", "fill": "none", "stroke": _INK, "stroke-dasharray": "6 4",
            "points": " ".join("%s,%s" % (_n(frame.x(x)), _n(frame.y(y))) for x, y in hull)})
    entries.append(("convex hull of the weights", {"stroke": _INK, "stroke-dasharray": "6 4"}))
    for k, arrow in enumerate(arrows):
        colour = PALETTE[k % len(PALETTE)]
        group = ET.SubElement(root, "g", {"class": "arrow"})
        x0, y0 = frame.x(0), frame.y(0)
        x1, y1 = frame.x(arrow.tip[0]), frame.y(arrow.tip[1])
        ET.SubElement(group, "line", {"x1": _n(x0), "y1": _n(y0), "x2": _n(x1), "y2": _n(y1),
                                      "stroke": _INK, "stroke-width": "1.5"})
        ET.SubElement(group, "circle", {"cx": _n(x1), "cy": _n(y1), "r": "5", "fill": colour,
                                        "stroke": _INK})
        label = _text(group, x1 + 8, y1 - 8, arrow.label, size=13, weight="bold",
                      kind="class-label")
        if arrow.note:
            label.set("class", "class-label flagged")
            ET.SubElement(group, "path", {"d": "M%s %sl10 10m0 -10l-10 10" % (
                _n(x1 - 5), _n(y1 - 5)), "stroke": _INK, "stroke-width": "2.5"})
            _text(group, x1 + 8, y1 + 16, arrow.note, size=12, weight="bold", kind="note")
    _legend(root, frame.left, legend_top, entries)
    _text(root, WIDTH / 2, height - 12, caption, size=11, anchor="middle", kind="caption")
    return _serialize(root)


def _blend(fraction):
    """White to Okabe-Ito blue, by fraction."""
    target = (0x00, 0x72, 0xB2)
    return "#%02X%02X%02X" % tuple(round(255 + (c - 255) * fraction) for c in target)


def shaded_table(title, panels, note):
    """Tables of integers with shaded cells; outlined cells are marked."""
    cell_width, cell_height, label_width = 54, 22, 38
    panel_height = 44 + cell_height * (1 + max(len(p.rows) for p in panels))
    height = 54 + panel_height * len(panels) + 30
    root = _document(height, title)
    for index, panel in enumerate(panels):
        top = 58 + panel_height * index
        left = (WIDTH - label_width - cell_width * len(panel.columns)) / 2
        group = ET.SubElement(root, "g", {"class": "table"})
        _text(group, left, top, panel.caption, size=13, weight="bold", kind="caption")
        _text(group, left + label_width - 6, top + 18, "%s \\ %s"
              % (panel.row_name, panel.column_name), size=11, anchor="end")
        for c, label in enumerate(panel.columns):
            _text(group, left + label_width + cell_width * (c + 0.5), top + 18, str(label),
                  size=11, anchor="middle", weight="bold")
        for r, label in enumerate(panel.rows):
            y = top + 6 + cell_height * (r + 1)
            _text(group, left + label_width - 6, y + 15, str(label), size=11, anchor="end",
                  weight="bold")
            for c, value in enumerate(panel.cells[r]):
                x = left + label_width + cell_width * c
                shade = panel.shades[r][c]
                attributes = {"x": _n(x), "y": _n(y), "width": str(cell_width),
                              "height": str(cell_height), "fill": _blend(shade),
                              "stroke": "#FFFFFF"}
                if panel.outlined[r][c]:
                    attributes.update({"class": "cell outlined", "stroke": PALETTE[1],
                                       "stroke-width": "2"})
                else:
                    attributes["class"] = "cell"
                ET.SubElement(group, "rect", attributes)
                _text(group, x + cell_width / 2, y + 15, str(value), size=11, anchor="middle",
                      colour="#FFFFFF" if shade > 0.55 else _INK)
    _text(root, WIDTH / 2, height - 14, note, size=11, anchor="middle", kind="note")
    return _serialize(root)
