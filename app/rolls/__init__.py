"""Free dice rolls for the campaign's dice log (Würfelprotokoll)."""
