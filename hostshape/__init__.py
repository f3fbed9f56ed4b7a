"""hostshape: shape MCP tool results inside the agent host.

``shape(result, policy=..., tool=...)`` turns whatever a host hands over into the exact text a model should read,
within a hard token budget, with an in-band envelope saying what was cut and how to get it back.
"""

from hostshape.pipeline import shape
from hostshape.policy import Policy, Rule
from hostshape.result import Shaped
from hostshape.tokens import count_tokens

__all__ = ["Policy", "Rule", "Shaped", "count_tokens", "shape"]
__version__ = "0.1.0"
