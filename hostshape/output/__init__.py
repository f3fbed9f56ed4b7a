"""Output: the exact text the model reads (render) and the one envelope that says what was cut (envelope)."""
