"""Shape models and their fitters by object kind, built on first use and cached (the k-d tree of a
model is built once per kind)."""

from __future__ import annotations

from collections.abc import Callable

from perception.fit import ModelFitter
from perception.shapes import ShapeModel, surface_model


class ShapeLibrary:
    """Shape models by kind, built on first use from `make(kind)` (a catalogue: kind → spec-like,
    raising KeyError for an unknown kind) and cached."""

    def __init__(self, make: Callable[[str], object]) -> None:
        self._make = make
        self._cache: dict[str, ShapeModel | None] = {}
        self._fitters: dict[str, ModelFitter | None] = {}

    def fitter(self, kind: str) -> ModelFitter | None:
        """A `ModelFitter` for `kind` (cached with its k-d tree), or None when unknown."""
        if kind not in self._fitters:
            model = self.get(kind)
            self._fitters[kind] = ModelFitter(model) if model is not None else None
        return self._fitters[kind]

    def get(self, kind: str) -> ShapeModel | None:
        """The model of `kind`, or None when the catalogue does not know it."""
        if kind not in self._cache:
            try:
                spec = self._make(kind)
            except (KeyError, TypeError, ValueError):
                self._cache[kind] = None
            else:
                self._cache[kind] = surface_model(spec, kind)
        return self._cache[kind]
