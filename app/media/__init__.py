"""Images users upload (map backgrounds, handout pictures): validated, re-encoded, stored."""
