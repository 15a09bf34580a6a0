"""Every annotation type has an export/agreement adapter that defines the whole contract."""

import pytest

from potato_multiagent.analysis.adapters import adapter_for
from potato_multiagent.schemes import SCHEMES


@pytest.mark.parametrize("type_name", sorted(SCHEMES))
def test_every_type_has_a_complete_adapter(type_name):
    adapter = adapter_for(SCHEMES[type_name].widget)
    assert adapter is not None, f"{type_name} has no adapter in analysis/adapters/"
    for method in ("columns", "rows", "agreement"):
        assert callable(getattr(adapter, method, None)), f"{adapter.__name__} lacks {method}"
