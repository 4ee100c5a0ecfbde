"""No annotations and no stub: the docstrings say the types."""

from typing import Optional  # only the docstring uses it


def sphinx(text, times, sep=None):
    """Repeat `text`.

    :param str text: what to repeat
    :param times: how often
    :type times: int
    :type sep: Optional[str]
    """
    return (sep or "").join([text] * times)


def google(values, scale=1.0, strict=False):
    """Scale values.

    Args:
        values (list[int]): the values.
        scale (float, optional): the factor. Defaults to 1.0.
        strict (bool or None): whether to check.

    Returns:
        list[float]: the scaled values.
    """
    return [v * scale for v in values]


def numpy(a, b, c, d):
    """Add.

    Parameters
    ----------
    a, b : int
        the terms.
    c : array_like
        not a type the module binds.
    d : list of int, optional
        not a simple type.

    Returns
    -------
    int
    """
    return a + b


def typed(count: int, label):
    """An inline hint wins; so does the stub.

    :type count: str
    :type label: bytes
    """
    return label * count

