import unittest

from sub_pkg.calc import clamp, double


class TestCalc(unittest.TestCase):
    def test_double(self):
        # the first case holds for every mutant of `n * 2` here; only a later subtest can fail
        for n, want in [(0, 0), (1, 2), (3, 6)]:
            with self.subTest(n=n):
                self.assertEqual(double(n), want)

    def test_clamp(self):
        for n, want in [(5, 5), (-1, 0), (11, 10)]:
            with self.subTest(n=n):
                self.assertEqual(clamp(n, 0, 10), want)
