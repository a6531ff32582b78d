"""Accounts: users, passwords, server-side sessions and login throttling."""
