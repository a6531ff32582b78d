"""Game sessions (Spielsitzungen): start and end, the session record, and fair play."""
