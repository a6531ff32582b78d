"""The campaign event log: every change of shared state, in order, and its live delivery."""
