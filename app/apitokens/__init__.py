"""Personal API tokens as a user manages them: create, list, revoke (docs/api.md)."""
