"""Roth & Pernkopf (PGM 2020): experiment runners, the test/validation protocols, Table 1, the
claims, the authors' data conventions and the figures."""
