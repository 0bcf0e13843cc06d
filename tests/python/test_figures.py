"""A figure shows what its caption says: no labelled line hidden under the lines drawn after it, no two labels of an axis run into each other, no label cut at the figure's edge, no diagram too wide for a phone.

litgrad_book.figures on descriptions made here, drawn into a temporary folder.
"""
import os
import tempfile
import unittest

import matplotlib.pyplot as plt

from litgrad_book import figures


def lines(*series, **extra):
    return {"kind": "lines", "xlabel": "step", "ylabel": "loss", "series": list(series), **extra}


def series(label, ys, style=None):
    s = {"label": label, "x": list(range(len(ys))), "y": ys}
    if style:
        s["style"] = style
    return s


class Figures(unittest.TestCase):
    def draw(self, d, narrow=False):
        with tempfile.TemporaryDirectory() as folder:
            return figures.draw(d, os.path.join(folder, "f.png"), narrow)

    def test_a_measurement_on_its_prediction_shows_both(self):
        ys = [1.0, 0.5, 0.25, 0.125]
        self.assertGreater(self.draw(lines(series("measured", ys), series("predicted", ys))), 0)

    def test_a_reference_line_that_a_curve_reaches_still_shows(self):
        self.draw(lines(series("1/4", [0.25, 0.25], "k--"), series("linear", [0.25] * 2)))

    def test_a_line_hidden_under_a_wider_solid_one_is_refused(self):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [0, 1], "-", linewidth=1, label="hidden")
        ax.plot([0, 1], [0, 1], "-", linewidth=4, label="over it")
        found = figures.problems(fig)
        plt.close(fig)
        self.assertEqual(found, ["the line 'hidden' is hidden under the lines drawn after it (0% of it shows)"])

    def test_labels_that_run_into_each_other_are_refused(self):
        fig, ax = plt.subplots(figsize=(2, 2))
        ax.set_xticks(range(6), ["a long label"] * 6)
        found = figures.problems(fig)
        plt.close(fig)
        self.assertIn("the labels 'a long label' and 'a long label' run into each other", found)

    def test_a_heatmap_labels_every_token_where_the_cells_leave_room_and_every_kth_where_not(self):
        words = [f"w{i}" for i in range(33)]
        d = {"kind": "heatmap", "values": [[0.0] * 33 for _ in range(33)], "rows": words, "columns": words,
             "xlabel": "key", "ylabel": "query"}
        self.draw(d)
        self.draw(d, narrow=True)

    def test_a_long_axis_label_is_wrapped_rather_than_cut(self):
        d = lines(series("a", [1.0, 2.0]), ylabel="a label far too long to stand beside so short a plot")
        self.assertGreater(self.draw(d, narrow=True), 0)

    def test_a_diagram_on_a_phone_writes_what_one_box_reads_inside_that_box(self):
        d = {"kind": "diagram", "wide_left_to_right": True,
             "nodes": [{"label": "x", "role": "input"}, {"label": "W", "role": "parameter"},
                       {"label": "matmul", "role": "operation"}, {"label": "output", "role": "output"}],
             "edges": [{"from": 0, "to": 2, "label": "[4,3]"}, {"from": 1, "to": 2, "label": "[3,2]"},
                       {"from": 2, "to": 3, "label": "[4,2]"}]}
        wide, narrow = figures.diagram_dot(d, False), figures.diagram_dot(d, True)
        self.assertIn("rankdir=LR", wide)
        self.assertIn("n1 -> n2", wide)
        self.assertIn("rankdir=TB", narrow)
        self.assertNotIn("n1 ->", narrow)  # W is written inside matmul's box
        self.assertIn('label="matmul\\nW [3,2]"', narrow)
        self.assertEqual(self.draw(d), round(9 * figures.DPI / 72))


if __name__ == "__main__":
    unittest.main(verbosity=2)
