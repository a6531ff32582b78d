"""What the heroes know: bestiary facts revealed to the party or to single players."""
