"""Webhooks: campaign events posted to Discord or any HTTPS receiver (docs/webhooks.md)."""
