"""Tests of reviews.figures on made-up data: valid SVG, labelled, deterministic."""

import unittest
import xml.etree.ElementTree as ET

from reviews.figures import (
    PALETTE, SVG_NAMESPACE, Arrow, Axis, Mark, Panel, Rule, Series, line_chart, region_map,
    shaded_table,
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


class TestShadedTable(unittest.TestCase):

    def test_cells_values_and_outlines(self):
        root = parse(table())
        cells = root.findall(".//svg:rect[@class='cell']", NS)
        outlined = root.findall(".//svg:rect[@class='cell outlined']", NS)
        self.assertEqual((len(cells), len(outlined)), (4, 2))
        self.assertEqual(texts(root, "caption"), ["first"])
        for value in "123456":
            self.assertIn(value, texts(root))

    def test_shade_runs_from_white_to_blue(self):
        fills = [r.get("fill") for r in parse(table()).iter("{%s}rect" % SVG_NAMESPACE)
                 if "cell" in r.get("class", "")]
        self.assertEqual(fills[0], "#FFFFFF")
        self.assertEqual(fills[2], "#0072B2")


if __name__ == "__main__":
    unittest.main()
