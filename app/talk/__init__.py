"""Table talk: the campaign chat (whispers, inline rolls) and the GM\x27s handouts."""
