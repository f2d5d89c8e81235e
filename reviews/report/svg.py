"""SVG figures drawn from computed results, with the standard library only.

Each function takes numbers that a check has computed and returns the text
of a self-contained SVG document: a viewBox 600 units wide, generic
sans-serif text of at least 11 units, the Okabe-Ito colour-blind-safe
palette, and no scripts, external fonts or links.  The same numbers give the
same bytes.  Nothing here knows about any paper.

    line_chart      series of (x, y) points, marked points, vertical rules,
                    and a second panel below sharing the x axis
    region_map      filled polygons, labelled arrows and a dashed hull
    shaded_table    tables of integers, shaded by a fraction, some outlined
    Series, Mark, Rule, Band, Axis, Arrow, Panel, Strip    what they draw
"""

import math
import xml.etree.ElementTree as ET
from collections import namedtuple

__all__ = ["line_chart", "region_map", "shaded_table", "Series", "Mark", "Rule", "Band",
           "Axis", "Arrow", "Panel", "Strip", "MARKERS", "PALETTE", "SVG_NAMESPACE"]

SVG_NAMESPACE = "http://www.w3.org/2000/svg"
# Okabe & Ito (2008), distinguishable with every common colour-vision deficiency.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442")
_INK = "#000000"
_GREY = "#666666"
WIDTH = 600
_DIGIT_WIDTH = 7.1   # a digit at 11 units in DejaVu Sans or Arial, rounded up

Axis = namedtuple("Axis", "label low high step")
Axis.__doc__ = "An axis: its label (with units), range and tick spacing."
Series = namedtuple("Series", "label points dash marker", defaults=("",))
Series.__doc__ = """A curve: legend label, (x, y) points (None breaks it), SVG dash
pattern or '', and a marker shape (one of MARKERS, or '') drawn at the end of
each piece and at a few points between, where curves may lie on each other."""
Strip = namedtuple("Strip", "y_axis series note")
Strip.__doc__ = """A second panel under a line chart, sharing its x axis and rules:
its y axis, its series (styled as the main series of the same label), a note."""
MARKERS = ("circle", "square", "triangle", "diamond")
Mark = namedtuple("Mark", "x y label")
Mark.__doc__ = "A marked point with its label."
Rule = namedtuple("Rule", "x label")
Rule.__doc__ = "A vertical dashed line at x with its label."
Band = namedtuple("Band", "low high label")
Band.__doc__ = """A shaded range of x, low to high, in every panel of a line chart; its
label (lines split at "\\n") is written inside it in the bottom panel."""
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

    def draw(self, root, x_label=True):
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
        if x_label:
            _text(root, self.left + self.width / 2, self.top + self.height + 40,
                  self.x_axis.label, anchor="middle", kind="x-label")
        _text(root, self.left - 48, self.top + self.height / 2, self.y_axis.label,
              anchor="middle", kind="y-label", rotate=-90)


def _ticks(axis):
    count = int(round((axis.high - axis.low) / axis.step))
    return [axis.low + k * axis.step for k in range(count + 1)]


def _legend(root, x, y, entries):
    """entries: (label, attributes of a short sample line[, marker shape]);
    the shape _CROSSED takes the point's colour as a fourth item."""
    legend = ET.SubElement(root, "g", {"class": "legend"})
    box_height = 8 + 18 * len(entries)
    box_width = 16 + 36 + 7 * max(len(entry[0]) for entry in entries)
    ET.SubElement(legend, "rect", {"x": _n(x), "y": _n(y), "width": _n(box_width),
                                   "height": _n(box_height), "fill": "#FFFFFF",
                                   "stroke": _GREY})
    for k, entry in enumerate(entries):
        label, sample = entry[:2]
        row = y + 16 + 18 * k
        group = ET.SubElement(legend, "g", {"class": "legend-entry"})
        ET.SubElement(group, "line", dict({"x1": _n(x + 8), "y1": _n(row - 4),
                                           "x2": _n(x + 40), "y2": _n(row - 4)}, **sample))
        if len(entry) > 2 and entry[2] == _CROSSED:
            _crossed(group, x + 24, row - 4, entry[3], 6)
        elif len(entry) > 2 and entry[2]:
            _marker(group, entry[2], x + 24, row - 4, sample["stroke"])
        _text(group, x + 46, row, label, size=11)


_CROSSED = "crossed"   # a legend entry's mark: the crossed point of a class with no region
_CROSSED_ROOM = 13


def _crossed(parent, x, y, colour, r):
    """A point of radius ``r`` crossed out, on a white halo: plain on any fill
    and on a boundary line."""
    ET.SubElement(parent, "circle", {"cx": _n(x), "cy": _n(y), "r": _n(r + 2),
                                     "fill": "#FFFFFF", "class": "halo"})
    ET.SubElement(parent, "circle", {"cx": _n(x), "cy": _n(y), "r": _n(r), "fill": colour,
                                     "stroke": _INK, "stroke-width": "1.5"})
    d = r * 0.7
    ET.SubElement(parent, "path", {"d": "M%s %sl%s %sm0 -%sl-%s %s" % (
        _n(x - d), _n(y - d), _n(2 * d), _n(2 * d), _n(2 * d), _n(2 * d), _n(2 * d)),
        "stroke": _INK, "stroke-width": "2.5"})


def _marker(parent, shape, x, y, colour):
    """A filled marker centred on (x, y), outlined in white to stand out on a line."""
    r = 4.5
    outline = {"fill": colour, "stroke": "#FFFFFF", "stroke-width": "1",
               "class": "marker " + shape}
    if shape == "circle":
        ET.SubElement(parent, "circle", dict(outline, cx=_n(x), cy=_n(y), r=_n(r)))
        return
    corners = {
        "square": ((-r, -r), (r, -r), (r, r), (-r, r)),
        "triangle": ((0, -r * 1.2), (r * 1.1, r * 0.8), (-r * 1.1, r * 0.8)),
        "diamond": ((0, -r * 1.3), (r * 1.1, 0), (0, r * 1.3), (-r * 1.1, 0)),
    }[shape]
    ET.SubElement(parent, "polygon", dict(outline, points=" ".join(
        "%s,%s" % (_n(x + dx), _n(y + dy)) for dx, dy in corners)))


def _curve(root, frame, curve, style, order, count):
    """One series: its polylines, then its markers (see Series).

    Returns what a label must keep clear of: the drawn segments and a box
    around each marker.
    """
    group = ET.SubElement(root, "g", dict({"class": "series"}, **style))
    pieces = list(_pieces(curve.points))
    segments, boxes = [], []
    for piece in pieces:
        drawn = [(frame.x(x), frame.y(y)) for x, y in piece]
        segments += zip(drawn, drawn[1:])
        ET.SubElement(group, "polyline", {"points": " ".join(
            "%s,%s" % (_n(x), _n(y)) for x, y in drawn)})
    if not curve.marker:
        return segments, boxes
    markers = ET.SubElement(root, "g", {"class": "markers"})
    # A few markers along the curve, shifted for each series so that curves
    # lying on each other still show every marker; one where each piece ends.
    total = sum(len(piece) for piece in pieces)
    step = max(1, total // 6)
    shift = step * order // max(1, count) + step // (2 * max(1, count))
    index = 0
    for piece in pieces:
        for k, (x, y) in enumerate(piece):
            if (index + k) % step == shift or k == len(piece) - 1:
                _marker(markers, curve.marker, frame.x(x), frame.y(y), style["stroke"])
                boxes.append(_around(frame.x(x), frame.y(y), _MARKER_ROOM))
        index += len(piece)
    return segments, boxes


_MARKER_ROOM = 7   # half the side of the square a label keeps clear of at a marker
_CLEARANCE = 3     # the least gap between a label and the plot's frame


def _around(x, y, half):
    """The square box of half-side ``half`` centred on (x, y)."""
    return (x - half, y - half, x + half, y + half)


def _rule_label(root, frame, x, label, right):
    """A rule's label, turned to run up along its line, on its left or
    ``right`` side; returns the box it takes."""
    size = 11
    length = len(label) * size * 0.68
    baseline = x + size + 3 if right else x - 4
    _text(root, baseline, frame.top + 6, label, size=size, anchor="end", rotate=-90,
          colour=_GREY)
    # Turned, the glyphs stand to the left of their baseline.
    return (baseline - size, frame.top + 6, baseline + 2, frame.top + 6 + length)


def _bands(root, frame, bands, labelled):
    """Shade each band across the frame; write its label when ``labelled``."""
    for band in bands:
        group = ET.SubElement(root, "g", {"class": "band"})
        left, right = frame.x(band.low), frame.x(band.high)
        ET.SubElement(group, "rect", {"x": _n(left), "y": _n(frame.top),
                                      "width": _n(right - left), "height": _n(frame.height),
                                      "fill": "#E8E8E8"})
        if labelled:
            for k, line in enumerate(band.label.split("\n")):
                _text(group, left + 6, frame.top + 16 + 14 * k, line, size=11)


def line_chart(title, x_axis, y_axis, series, marks=(), rules=(), notes=(), strip=None,
               bands=()):
    """A line chart: curves, labelled points, labelled vertical rules,
    shaded bands, and optionally a ``Strip``: a second panel below sharing
    the x axis.

    The legend and the notes go below the plot, where they hide nothing.
    Each point's label goes where no curve or rule crosses it, clear of
    every marker, every other label and the frame; a rule's label runs up
    its left side, or its right side when the rule before is too close to
    share the gap.
    """
    plot_height, strip_height, gap = 300, 130 if strip else 0, 34 if strip else 0
    notes = list(notes) + ([strip.note] if strip and strip.note else [])
    below = 62 + 18 * len(series) + (12 + 16 * len(notes) if notes else 0)
    height = 46 + plot_height + gap + strip_height + below
    root = _document(height, title)
    frame = _Frame(x_axis, y_axis, 78, 46, WIDTH - 78 - 18, plot_height)
    _bands(root, frame, bands, labelled=strip is None)
    frame.draw(root, x_label=strip is None)
    entries, styles, segments, taken = [], {}, [], []
    for k, curve in enumerate(series):
        colour = PALETTE[k % len(PALETTE)]
        style = {"stroke": colour, "stroke-width": "2", "fill": "none"}
        if curve.dash:
            style["stroke-dasharray"] = curve.dash
        drawn, boxes = _curve(root, frame, curve, style, k, len(series))
        segments += drawn
        taken += boxes
        styles[curve.label] = (k, style)
        entries.append((curve.label, style, curve.marker))
    previous = None
    for rule in rules:
        x = frame.x(rule.x)
        group = ET.SubElement(root, "g", {"class": "rule"})
        ET.SubElement(group, "line", {"x1": _n(x), "y1": _n(frame.top), "x2": _n(x),
                                      "y2": _n(frame.top + frame.height), "stroke": _GREY,
                                      "stroke-dasharray": "3 3"})
        segments.append(((x, frame.top), (x, frame.top + frame.height)))
        taken.append(_rule_label(group, frame, x, rule.label,
                                 right=previous is not None and x - previous < 40))
        previous = x
    spots = [(frame.x(mark.x), frame.y(mark.y)) for mark in marks]
    taken += [_around(x, y, _MARKER_ROOM) for x, y in spots]
    area = (frame.left + _CLEARANCE, frame.top + _CLEARANCE,
            frame.left + frame.width - _CLEARANCE, frame.top + frame.height - _CLEARANCE)
    # Labels are tried first on the side away from the plot's lower left
    # corner: above a falling curve, below a rising one's start.
    corner = (frame.left, frame.top + frame.height)
    for mark, (x, y) in zip(marks, spots):
        group = ET.SubElement(root, "g", {"class": "mark"})
        ET.SubElement(group, "circle", {"cx": _n(x), "cy": _n(y), "r": "4.5", "fill": _INK})
        box = _label_box(x, y, [(mark.label, 11)], segments, taken, area, corner)
        taken.append(box)
        _text(group, box[0] + 2, box[1] + 12, mark.label, size=11)
    bottom = frame
    if strip:
        bottom = _Frame(x_axis, strip.y_axis, frame.left, frame.top + plot_height + gap,
                        frame.width, strip_height)
        _bands(root, bottom, bands, labelled=True)
        bottom.draw(root)
        for rule in rules:
            x = bottom.x(rule.x)
            ET.SubElement(root, "line", {"class": "rule", "x1": _n(x), "y1": _n(bottom.top),
                                         "x2": _n(x), "y2": _n(bottom.top + strip_height),
                                         "stroke": _GREY, "stroke-dasharray": "3 3"})
        for k, curve in enumerate(strip.series):
            order, style = styles.get(curve.label, (k, {
                "stroke": PALETTE[k % len(PALETTE)], "stroke-width": "2", "fill": "none"}))
            _curve(root, bottom, curve, style, order, len(series))
    legend_top = bottom.top + bottom.height + 52
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


def _crosses(segment, box):
    """Whether a line segment meets the rectangle box = (left, top, right, bottom)."""
    (x1, y1), (x2, y2) = segment
    left, top, right, bottom = box
    # Clip the segment's parameter range to the box (Liang-Barsky).
    low, high = 0.0, 1.0
    for p, q in ((x1 - x2, x1 - left), (x2 - x1, right - x1),
                 (y1 - y2, y1 - top), (y2 - y1, bottom - y1)):
        if p == 0:
            if q < 0:
                return False
            continue
        t = q / p
        if p < 0:
            low = max(low, t)
        else:
            high = min(high, t)
        if low > high:
            return False
    return True


def _overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _label_box(x, y, lines, segments, avoid, area, origin):
    """A box next to the point (x, y) for ``lines`` of (text, size) that no
    segment crosses and that overlaps nothing in ``avoid``, inside ``area``;
    tried away from ``origin`` first, then turning, then further out."""
    width = max(len(text) * size * 0.68 for text, size in lines) + 4
    height = sum(size + 3 for _, size in lines) + 2
    cx, cy = origin
    outward = math.atan2(y - cy, x - cx) if (x, y) != (cx, cy) else 0.0
    turns = sorted(range(16), key=lambda k: min(k, 16 - k))
    for distance in (8, 16, 28, 44, 64, 90):
        for k in turns:
            angle = outward + k * math.pi / 8
            dx, dy = math.cos(angle), math.sin(angle)
            left = x + dx * (distance + width / 2) - width / 2
            top = y + dy * (distance + height / 2) - height / 2
            box = (left, top, left + width, top + height)
            if (box[0] < area[0] or box[1] < area[1] or box[2] > area[2] or box[3] > area[3]
                    or any(_crosses(s, box) for s in segments)
                    or any(_overlap(box, other) for other in avoid)):
                continue
            return box
    left = x + 8
    return (left, y - height, left + width, y)


def region_map(title, x_axis, y_axis, regions, arrows, hull, caption,
               arrow_legend="line from the origin to each point",
               hull_legend="convex hull of the points"):
    """Filled polygons (one per label) in a square box, arrows from the origin, a hull.

    Each point's label (and note) goes where no arrow or hull edge crosses it.
    """
    side = 470
    legend_top = 46 + side + 48
    height = legend_top + 8 + 18 * (len(regions) + 2) + 34
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
            entries.append((label, {"stroke": colour, "stroke-width": "8",
                                    "stroke-opacity": "0.5"}))
        else:
            # No region to show a swatch of: the legend shows its crossed point.
            entries.append((label, {"stroke": "none"}, _CROSSED, colour))
    frame.draw(root)
    corners = [(frame.x(x), frame.y(y)) for x, y in hull]
    if hull:
        ET.SubElement(root, "polygon", {
            "class": "hull", "fill": "none", "stroke": _INK, "stroke-dasharray": "6 4",
            "points": " ".join("%s,%s" % (_n(x), _n(y)) for x, y in corners)})
    entries.append((hull_legend, {"stroke": _INK, "stroke-dasharray": "6 4"}))
    entries.append((arrow_legend, {"stroke": _INK, "stroke-width": "1.5"}))
    origin = (frame.x(0), frame.y(0))
    tips = [(frame.x(arrow.tip[0]), frame.y(arrow.tip[1])) for arrow in arrows]
    segments = [(origin, tip) for tip in tips]
    segments += [(corners[k - 1], corners[k]) for k in range(len(corners))] if hull else []
    taken = [_around(x, y, _CROSSED_ROOM if arrow.note else _MARKER_ROOM)
             for arrow, (x, y) in zip(arrows, tips)]
    area = (frame.left + _CLEARANCE, frame.top + _CLEARANCE,
            frame.left + side - _CLEARANCE, frame.top + side - _CLEARANCE)
    for k, (arrow, (x1, y1)) in enumerate(zip(arrows, tips)):
        colour = PALETTE[k % len(PALETTE)]
        group = ET.SubElement(root, "g", {"class": "arrow"})
        ET.SubElement(group, "line", {"x1": _n(origin[0]), "y1": _n(origin[1]), "x2": _n(x1),
                                      "y2": _n(y1), "stroke": _INK, "stroke-width": "1.5"})
        crossing = segments
        if not arrow.note:
            ET.SubElement(group, "circle", {"cx": _n(x1), "cy": _n(y1), "r": "5",
                                            "fill": colour, "stroke": _INK})
        else:
            _crossed(group, x1, y1, colour, 9)
            note = _label_box(x1, y1, [(arrow.note, 12)], segments, taken, area, origin)
            taken.append(note)
            _text(group, note[0] + 2, note[1] + 13, arrow.note, size=12, weight="bold",
                  kind="note")
            # A note set apart from its point gets a leader back to it, which
            # the point's own label then keeps clear of.
            nearest = (min(max(x1, note[0]), note[2]), min(max(y1, note[1]), note[3]))
            if math.hypot(nearest[0] - x1, nearest[1] - y1) > 20:
                ET.SubElement(group, "line", {"class": "leader", "x1": _n(x1), "y1": _n(y1),
                                              "x2": _n(nearest[0]), "y2": _n(nearest[1]),
                                              "stroke": _GREY, "stroke-width": "1"})
                crossing = segments + [((x1, y1), nearest)]
        box = _label_box(x1, y1, [(arrow.label, 13)], crossing, taken, area, origin)
        taken.append(box)
        _text(group, box[0] + 2, box[1] + 14, arrow.label, size=13, weight="bold",
              kind="class-label flagged" if arrow.note else "class-label")
    _legend(root, frame.left, legend_top, entries)
    _text(root, WIDTH / 2, height - 12, caption, size=11, anchor="middle", kind="caption")
    return _serialize(root)


def _blend(fraction):
    """White to Okabe-Ito blue, by fraction."""
    target = (0x00, 0x72, 0xB2)
    return "#%02X%02X%02X" % tuple(round(255 + (c - 255) * fraction) for c in target)


def shaded_table(title, panels, note, scale="shade"):
    """Tables of integers with shaded cells; outlined cells are marked.

    Under the tables, a colour scale from 0 to 1 (labelled ``scale``: what
    the shade measures), then the note.  Each column is as wide as its
    longest number needs, the spare width shared out, so that numbers keep
    a margin in their cells.
    """
    cell_height, label_width, margin = 22, 34, 4
    columns = max(len(p.columns) for p in panels)
    needed = [max(_DIGIT_WIDTH * max(len(str(row[c])) for p in panels for row in p.cells
                                     if c < len(row)) + 12, 40) for c in range(columns)]
    stretch = min(1.25, (WIDTH - 2 * margin - label_width) / sum(needed))
    widths = [w * stretch for w in needed]
    starts = [sum(widths[:c]) for c in range(columns + 1)]
    rows = max(len(p.rows) for p in panels)
    panel_height = 6 + cell_height * (rows + 1) + 34
    last_bottom = 58 + panel_height * (len(panels) - 1) + 6 + cell_height * (rows + 1)
    height = last_bottom + 92
    root = _document(height, title)
    for index, panel in enumerate(panels):
        top = 58 + panel_height * index
        left = (WIDTH - label_width - starts[len(panel.columns)]) / 2
        group = ET.SubElement(root, "g", {"class": "table"})
        _text(group, left, top, panel.caption, size=13, weight="bold", kind="caption")
        _text(group, left + label_width - 4, top + 18, "%s \\ %s"
              % (panel.row_name, panel.column_name), size=11, anchor="end")
        for c, label in enumerate(panel.columns):
            _text(group, left + label_width + starts[c] + widths[c] / 2, top + 18, str(label),
                  size=11, anchor="middle", weight="bold")
        for r, label in enumerate(panel.rows):
            y = top + 6 + cell_height * (r + 1)
            _text(group, left + label_width - 6, y + 15, str(label), size=11, anchor="end",
                  weight="bold")
            for c, value in enumerate(panel.cells[r]):
                x, cell_width = left + label_width + starts[c], widths[c]
                shade = panel.shades[r][c]
                attributes = {"x": _n(x), "y": _n(y), "width": _n(cell_width),
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
    _scale(root, last_bottom + 22, scale)
    _text(root, WIDTH / 2, last_bottom + 80, note, size=11, anchor="middle", kind="note")
    return _serialize(root)


def _scale(root, top, label):
    """A colour scale: ten steps of the shade from 0 to 1, ticked at 0, 0.5, 1."""
    steps, step_width = 10, 26
    left = (WIDTH - steps * step_width) / 2 + 40
    group = ET.SubElement(root, "g", {"class": "scale"})
    _text(group, left - 10, top + 11, label, size=11, anchor="end", kind="scale-label")
    for k in range(steps):
        ET.SubElement(group, "rect", {"class": "step", "x": _n(left + step_width * k),
                                      "y": _n(top), "width": str(step_width), "height": "14",
                                      "fill": _blend((k + 0.5) / steps), "stroke": "none"})
    ET.SubElement(group, "rect", {"x": _n(left), "y": _n(top), "fill": "none",
                                  "width": str(steps * step_width), "height": "14",
                                  "stroke": _GREY})
    for value in (0, 0.5, 1):
        _text(group, left + steps * step_width * value, top + 28, _n(value), size=11,
              anchor="middle")
