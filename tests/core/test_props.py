import pytest

from twinflow.core.props import readonly


class Box:
    value = readonly("_value", "The value.")
    items = readonly("_items", "A copy of the items.", copy=list)
    inner = readonly("_spec.shape")

    def __init__(self):
        self._value = 3
        self._items = [1, 2]
        self._spec = type("Spec", (), {"shape": (2, 3)})()


def test_readonly_reads_the_field_and_has_its_doc():
    b = Box()
    assert b.value == 3 and b.inner == (2, 3)
    assert Box.value.__doc__ == "The value."


def test_readonly_has_no_setter():
    with pytest.raises(AttributeError):
        Box().value = 4


def test_copy_protects_the_container():
    b = Box()
    b.items.append(9)
    assert b.items == [1, 2]
