"""Campaigns: membership, roles, invites and the GM's settings."""
