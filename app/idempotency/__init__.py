"""Idempotency keys: a repeated creating request answers like the first and creates nothing."""
