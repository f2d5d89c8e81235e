"""Tests of reviews.report.svg on made-up data: valid SVG, labelled, deterministic."""

import unittest
import xml.etree.ElementTree as ET

from reviews.report.svg import (
    PALETTE, SVG_NAMESPACE, Arrow, Axis, Band, Mark, Panel, Rule, Series, Strip, line_chart,
    region_map, shaded_table,
)

NS = {"svg": SVG_NAMESPACE}


def chart():
    return line_chart("A title", Axis("x (s)", 0, 10, 2), Axis("y (m)", -5, 5, 5),
                      [Series("up", [(0, -5), (10, 5)], ""),
                       Series("broken", [(0, 0), (2, 1), None, (4, 1), (6, 0)], "4 2")],
                      [Mark(2, -3, "two"), Mark(8, 3, "eight")], [Rule(5, "half")],
                      ["a note"])


def region():
    return region_map("Regions", Axis("x1", -2, 2, 1), Axis("x2", -2, 2, 1),
                      [("a region", [(0, 0), (2, 0), (2, 2)]), ("b: none", [])],
                      [Arrow("a", (1, 1), None), Arrow("b", (-1, 0), "flagged")],
                      [(1, 1), (-1, 0), (0, -1)], "a caption")


def table():
    return shaded_table("Counts", [Panel("first", "r", [1, 2], "c", [1, 2, 3],
                                         [[1, 2, 3], [4, 5, 6]],
                                         [[0, 0.5, 1], [1, 0.2, 0]],
                                         [[False, False, True], [True, False, False]])],
                        "a note")


def table_panels():
    return [Panel("big", "r", [1, 2], "c", [1, 2, 3], [[1, 22, 3628800], [4, 5, 6]],
                  [[0, 0.5, 1], [1, 0.2, 0]], [[False] * 3, [False] * 3])]


def parse(svg):
    return ET.fromstring(svg)


def texts(root, kind=None):
    return [t.text for t in root.iter("{%s}text" % SVG_NAMESPACE)
            if kind is None or kind in t.get("class", "").split()]


class TestEverySvg(unittest.TestCase):

    def test_namespace_viewbox_and_a_600_unit_width(self):
        for svg in (chart(), region(), table()):
            root = parse(svg)
            self.assertEqual(root.tag, "{%s}svg" % SVG_NAMESPACE)
            self.assertTrue(root.get("viewBox").startswith("0 0 600 "))

    def test_same_input_same_bytes(self):
        self.assertEqual(chart(), chart())
        self.assertEqual(region(), region())
        self.assertEqual(table(), table())

    def test_no_scripts_links_or_external_fonts(self):
        for svg in (chart(), region(), table()):
            for forbidden in ("<script", "href", "@import", "http://www.w3.org/1999", "url(http"):
                self.assertNotIn(forbidden, svg)

    def test_colours_come_from_the_palette(self):
        allowed = set(PALETTE) | {"#000000", "#666666", "#FFFFFF", "none"}
        for svg in (chart(), region()):
            for element in parse(svg).iter():
                for attribute in ("stroke", "fill"):
                    if element.get(attribute):
                        self.assertIn(element.get(attribute), allowed)

    def test_text_is_at_least_11_units(self):
        for svg in (chart(), region(), table()):
            sizes = [float(t.get("font-size")) for t in parse(svg).iter("{%s}text" % SVG_NAMESPACE)]
            self.assertGreaterEqual(min(sizes), 11)


class TestLineChart(unittest.TestCase):

    def test_title_axes_legend_marks_rules_notes(self):
        root = parse(chart())
        self.assertEqual(texts(root, "title"), ["A title"])
        self.assertEqual(texts(root, "x-label") + texts(root, "y-label"), ["x (s)", "y (m)"])
        legend = root.find(".//svg:g[@class='legend']", NS)
        self.assertEqual(texts(legend), ["up", "broken"])
        marks = root.findall(".//svg:g[@class='mark']", NS)
        self.assertEqual([texts(m) for m in marks], [["two"], ["eight"]])
        self.assertEqual(texts(root.find(".//svg:g[@class='rule']", NS)), ["half"])
        self.assertEqual(texts(root.find(".//svg:g[@class='notes']", NS)), ["a note"])

    def test_a_none_point_breaks_the_curve(self):
        series = parse(chart()).findall(".//svg:g[@class='series']", NS)
        self.assertEqual([len(s) for s in series], [1, 2])

    def test_data_maps_into_the_plot_area(self):
        first = parse(chart()).find(".//svg:g[@class='series']/svg:polyline", NS)
        self.assertEqual(first.get("points"), "78,346 582,46")


def two_panels():
    return line_chart("Two", Axis("x", 0, 10, 5), Axis("y", 0, 10, 5),
                      [Series("a", [(x, x) for x in range(11)], "", "circle"),
                       Series("b", [(x, x) for x in range(6)], "4 2", "square")],
                      rules=[Rule(5, "five")],
                      strip=Strip(Axis("error", 0, 1, 1),
                                  [Series("b", [(x, 0.5) for x in range(11)], "4 2", "square")],
                                  "a strip note"))


class TestMarkersAndStrip(unittest.TestCase):

    def test_every_piece_ends_with_its_marker(self):
        root = parse(two_panels())
        squares = [(m.get("points").split()[0]) for m in root.iter("{%s}polygon" % SVG_NAMESPACE)
                   if m.get("class") == "marker square"]
        # Series b ends at (5, 5): x = 78 + 5 * 50.4 = 330, y = 46 + 150 = 196;
        # its square's first corner is 4.5 up and left.
        self.assertIn("325.5,191.5", squares)

    def test_a_strip_series_takes_the_style_of_its_namesake(self):
        series = parse(two_panels()).findall(".//svg:g[@class='series']", NS)
        self.assertEqual([s.get("stroke") for s in series], [PALETTE[0], PALETTE[1], PALETTE[1]])

    def test_the_strip_has_its_own_y_axis_and_the_x_label_is_drawn_once(self):
        root = parse(two_panels())
        self.assertEqual(texts(root, "y-label"), ["y", "error"])
        self.assertEqual(texts(root, "x-label"), ["x"])
        self.assertIn("a strip note", texts(root.find(".//svg:g[@class='notes']", NS)))

    def test_markers_are_in_the_legend(self):
        legend = parse(two_panels()).find(".//svg:g[@class='legend']", NS)
        self.assertEqual([m.get("class") for m in legend.iter()
                          if (m.get("class") or "").startswith("marker")],
                         ["marker circle", "marker square"])


class TestPlacement(unittest.TestCase):

    def test_a_label_at_the_frame_s_corner_stays_inside_it_with_room(self):
        # A point at the top left corner: its label must not touch the frame.
        root = parse(line_chart("T", Axis("x", 0, 10, 5), Axis("y", 0, 10, 5),
                                [Series("a", [(0, 10), (10, 0)], "")], [Mark(0.2, 9.8, "top")]))
        text = root.find(".//svg:g[@class='mark']/svg:text", NS)
        x, y = float(text.get("x")), float(text.get("y"))
        self.assertGreaterEqual(x - 2, 78 + 3)
        self.assertGreaterEqual(y - 12, 46 + 3)

    def test_close_rules_label_on_either_side_of_the_gap(self):
        root = parse(line_chart("T", Axis("x", 0, 100, 50), Axis("y", 0, 1, 1),
                                [Series("a", [(0, 0), (100, 1)], "")], (),
                                [Rule(50, "left"), Rule(53, "right"), Rule(90, "far")]))
        sides = [float(r.find("svg:text", NS).get("x")) > float(r.find("svg:line", NS).get("x1"))
                 for r in root.findall(".//svg:g[@class='rule']", NS)]
        self.assertEqual(sides, [False, True, False])

    def test_a_band_is_shaded_in_each_panel_and_labelled_in_the_lower(self):
        svg = line_chart("T", Axis("x", 0, 10, 5), Axis("y", 0, 10, 5),
                         [Series("a", [(0, 0), (10, 10)], "")], strip=Strip(
                             Axis("e", 0, 1, 1), [Series("a", [(0, 0), (6, 0)], "")], None),
                         bands=[Band(6, 10, "gone:\nhere")])
        bands = parse(svg).findall(".//svg:g[@class='band']", NS)
        self.assertEqual([texts(b) for b in bands], [[], ["gone:", "here"]])
        self.assertEqual({b.find("svg:rect", NS).get("x") for b in bands}, {"380.4"})


class TestRegionMap(unittest.TestCase):

    def test_only_non_empty_regions_are_drawn(self):
        root = parse(region())
        self.assertEqual(len(root.findall(".//svg:polygon[@class='region']", NS)), 1)
        self.assertEqual(len(root.findall(".//svg:polygon[@class='hull']", NS)), 1)

    def test_labels_and_the_flagged_class(self):
        root = parse(region())
        self.assertEqual(texts(root, "class-label"), ["a", "b"])
        self.assertEqual(texts(root, "flagged"), ["b"])
        self.assertEqual(texts(root, "note"), ["flagged"])
        self.assertEqual(texts(root, "caption"), ["a caption"])


def figure_like():
    """Four points as in a figure where the third's label would sit on lines."""
    tips = [(-2, -2), (1, 2), (1.8, -0.8), (0.9, 0.2)]
    return region_map("Points", Axis("x1", -3, 3, 1), Axis("x2", -3, 3, 1),
                      [("r%d" % k, []) for k in range(4)],
                      [Arrow("c%d" % (k + 1), tip, "unargmaxable" if k == 3 else None)
                       for k, tip in enumerate(tips)],
                      [(-2, -2), (1.8, -0.8), (1, 2)], "caption")


def drawn_lines(root):
    """The arrows and hull edges of a region map, as segments in SVG units."""
    segments = [((float(l.get("x1")), float(l.get("y1"))), (float(l.get("x2")),
                                                            float(l.get("y2"))))
                for l in root.findall(".//svg:g[@class='arrow']/svg:line", NS)
                if l.get("class") != "leader"]
    hull = root.find(".//svg:polygon[@class='hull']", NS)
    corners = [tuple(map(float, p.split(","))) for p in hull.get("points").split()]
    return segments + [(corners[k - 1], corners[k]) for k in range(len(corners))]


class TestLabelsStayClear(unittest.TestCase):

    def test_no_arrow_or_hull_edge_passes_through_a_label(self):
        root = parse(figure_like())
        segments = drawn_lines(root)
        labels = [t for t in root.iter("{%s}text" % SVG_NAMESPACE)
                  if {"class-label", "note"} & set(t.get("class", "").split())]
        self.assertEqual(len(labels), 5)
        for label in labels:
            size = float(label.get("font-size"))
            left, base = float(label.get("x")), float(label.get("y"))
            right = left + 0.6 * size * len(label.text)
            for (x1, y1), (x2, y2) in segments:
                for k in range(201):
                    x, y = x1 + (x2 - x1) * k / 200, y1 + (y2 - y1) * k / 200
                    self.assertFalse(left <= x <= right and base - 0.7 * size <= y <= base,
                                     "%s crossed at %.1f, %.1f" % (label.text, x, y))

    def test_the_lines_from_the_origin_have_a_legend_entry(self):
        legend = texts(parse(figure_like()).find(".//svg:g[@class='legend']", NS))
        self.assertEqual(legend[-2:], ["convex hull of the points",
                                       "line from the origin to each point"])


class TestShadedTable(unittest.TestCase):

    def test_cells_values_and_outlines(self):
        root = parse(table())
        cells = root.findall(".//svg:rect[@class='cell']", NS)
        outlined = root.findall(".//svg:rect[@class='cell outlined']", NS)
        self.assertEqual((len(cells), len(outlined)), (4, 2))
        self.assertEqual(texts(root, "caption"), ["first"])
        for value in "123456":
            self.assertIn(value, texts(root))

    def test_a_colour_scale_from_0_to_1_with_its_label(self):
        root = parse(shaded_table("T", table_panels(), "n", scale="count / total"))
        scale = root.find(".//svg:g[@class='scale']", NS)
        self.assertEqual(texts(scale), ["count / total", "0", "0.5", "1"])
        steps = [r.get("fill") for r in scale.findall("svg:rect[@class='step']", NS)]
        self.assertEqual(len(steps), 10)
        self.assertEqual(steps, sorted(steps, reverse=True))   # paler to darker

    def test_seven_digit_numbers_keep_a_margin_in_their_cells(self):
        root = parse(shaded_table("T", table_panels(), "n"))
        cells = root.findall(".//svg:rect", NS)
        widths = {float(r.get("x")): float(r.get("width")) for r in cells
                  if "cell" in r.get("class", "")}
        wide = max(widths.values())
        # 7 digits of at most 7.1 units each, and 5 units clear on each side.
        self.assertGreaterEqual(wide, 7 * 7.1 + 10)
        self.assertLess(min(widths.values()), wide)

    def test_the_note_follows_the_tables_closely(self):
        root = parse(shaded_table("T", table_panels(), "n"))
        bottom = max(float(r.get("y")) + float(r.get("height"))
                     for r in root.findall(".//svg:rect", NS) if "cell" in r.get("class", ""))
        note = root.find(".//svg:text[@class='note']", NS)
        self.assertLess(float(note.get("y")) - bottom, 90)
        self.assertLess(float(root.get("height")) - float(note.get("y")), 20)

    def test_shade_runs_from_white_to_blue(self):
        fills = [r.get("fill") for r in parse(table()).iter("{%s}rect" % SVG_NAMESPACE)
                 if "cell" in r.get("class", "")]
        self.assertEqual(fills[0], "#FFFFFF")
        self.assertEqual(fills[2], "#0072B2")


if __name__ == "__main__":
    unittest.main()
