"""`Unpack` for typed **keyword arguments (typing's own from Python 3.11, typing_extensions' before)."""

import sys

if sys.version_info >= (3, 11):
    from typing import Unpack
else:  # pragma: no cover (Python 3.10)
    from typing_extensions import Unpack

__all__ = ["Unpack"]
