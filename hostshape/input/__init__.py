"""Input: what the host handed over, as the input contract (host_forms, contract), read into a payload (payload)."""
