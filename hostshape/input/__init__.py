"""Input: what the host handed over, read into one value the pipeline shapes (unwrap, parse)."""
