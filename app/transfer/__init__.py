"""Whole-campaign export and import (JSON), for moving a campaign between servers."""
