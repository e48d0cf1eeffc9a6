"""Columnar log helpers shared by the compiled event loops' drivers."""
import numpy as np

from simlib.runtime.log import grow_columns


def test_grow_columns_keeps_rows_adds_zero_rows_and_at_least_doubles():
    g = {"a": np.arange(3.0), "b": np.arange(6, dtype=np.int64).reshape(3, 2)}
    grow_columns(g, 2)                       # room enough: untouched
    assert g["a"].shape == (3,)
    grow_columns(g, 4)                       # doubling beats the need
    assert g["a"].tolist() == [0.0, 1.0, 2.0, 0.0, 0.0, 0.0]
    assert g["b"].shape == (6, 2) and g["b"].dtype == np.int64 and g["b"][3:].sum() == 0
    assert g["b"][:3].tolist() == [[0, 1], [2, 3], [4, 5]]
    grow_columns(g, 20)                      # the need beats doubling
    assert g["a"].shape == (20,) and g["b"].shape == (20, 2)
    grow_columns(g, 21, minimum=100)         # the minimum beats both
    assert g["a"].shape == (100,)
