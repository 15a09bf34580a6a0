"""One adapter per annotation type; adding a module here is all it takes to register one."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Dict, Optional, Type

from .base import Adapter


def _discover() -> Dict[str, Type[Adapter]]:
    for module in pkgutil.iter_modules(__path__):
        if module.name != "base":
            importlib.import_module(f"{__name__}.{module.name}")
    return {cls.widget: cls for cls in Adapter.__subclasses__() if "widget" in vars(cls)}


ADAPTERS: Dict[str, Type[Adapter]] = _discover()
"""Every adapter by its widget name."""


def adapter_for(widget: str) -> Optional[Type[Adapter]]:
    return ADAPTERS.get(widget)


__all__ = ["ADAPTERS", "Adapter", "adapter_for"]
